"""The worksheet drives Moodle's round trip (issue 25 item 2), in-process.

The instructor downloads Moodle's grading worksheet (after a first upload, so Moodle has a grade
and its time for everyone), changes one grade by hand in Moodle, then regrades and uploads with
`--worksheet`: the upload is Moodle's own file — header (language), identifiers, names, each row's
*Last modified (grade)* as Moodle wrote them — with new grades. Moodle's importer
(lms_importers.moodle_worksheet, from importgradeslib.php and the offline feedback plugin) then
skips the hand-changed grade, because Moodle's time for it is newer than the row's. A Russian
Moodle's time goes back as the same moment in a form PHP's strtotime reads (it reads no Russian).
"""

from datetime import datetime

import lms_importers
import pytest

from autograder.classroom.outputs import Outcome
from autograder.classroom.workflow import export_grades
from autograder.notebook.results import GRADED, Result
from autograder.platforms.lms import MOODLE_STRINGS, read_moodle_worksheet

NB1 = "01_hand_example"
DOWNLOADED = datetime(2026, 12, 1, 23, 59)  # when Moodle last set each grade (the first upload)
BY_HAND = DOWNLOADED.timestamp() + 3600  # the instructor's change in Moodle, an hour later
HEADERS = {  # the worksheet as Moodle 4.x writes it (gradingtable.php in download mode)
    "en": [
        "Identifier",
        "Full name",
        "Email address",
        "Status",
        "Grade",
        "Maximum Grade",
        "Grade can be changed",
        "Last modified (submission)",
        "Last modified (grade)",
        "Feedback comments",
    ],
    "ru": [
        "Идентификатор",
        "Полное имя",
        "Адрес электронной почты",
        "Состояние",
        "Оценка",
        "Максимальная оценка",
        "Оценка может быть изменена",
        "Последнее изменение (ответ)",
        "Последнее изменение (оценка)",
        "Отзыв в виде комментария",
    ],
}
WHEN = {"en": "Tuesday, 1 December 2026, 11:59 PM", "ru": "вторник, 1 декабря 2026, 23:59"}
NAMES = {"1001": "Иван Петров", "1002": "Anna Smith", "1003": '=HYPERLINK("x")'}


def moodle_worksheet(path, language):
    prefix = MOODLE_STRINGS[language]["participant"]
    rows = [HEADERS[language]] + [
        [
            f"{prefix}{pid}",
            name,
            f"{pid}@uni.example",
            "Submitted",
            "5.00 / 17.00",
            "17.00",
            "Yes",
            WHEN[language],
            WHEN[language],
            "",
        ]
        for pid, name in NAMES.items()
    ]
    import csv

    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return path


def outcome():
    results = [Result(pid, NB1, score, 17, GRADED) for pid, score in (("1001", 17), ("1002", 12), ("1003", 9))]
    results.append(Result("1009", NB1, 3, 17, GRADED))  # in the zip, not in Moodle's worksheet
    return Outcome(results=results, notebooks=[NB1], roster={"1001": "Ivan Petrov"})


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_grade_changed_by_hand_in_moodle_survives_the_upload(tmp_path, capsys, language):
    sheet = read_moodle_worksheet(moodle_worksheet(tmp_path / "worksheet.csv", language))
    assert sheet.language == language and set(sheet.rows) == set(NAMES)
    export_grades(["moodle"], outcome(), tmp_path, "", "", worksheet=sheet)
    said = capsys.readouterr().out
    assert "not in the upload: 1009" in said and "Last modified (grade) as Moodle wrote them" in said
    text = (tmp_path / "moodle_grading_worksheet.csv").read_text(encoding="utf-8")
    header, rows = lms_importers.read_csv(text)
    assert header == HEADERS[language]  # Moodle's own header: the language it reads
    modified = header.index(MOODLE_STRINGS[language]["modified"])
    readable = {"en": WHEN["en"], "ru": "2026-12-01 23:59"}[language]  # the same moment, for strtotime
    assert {row[modified] for row in rows} == {readable}  # Moodle's time, not the time of writing
    assert lms_importers.strtotime(readable) == DOWNLOADED.timestamp()
    assert [row[1] for row in rows] == ["Иван Петров", "Anna Smith", '\'=HYPERLINK("x")']  # Moodle's names
    participants = {1001, 1002, 1003, 1009}
    # Moodle before the hand change: every grade it holds was set at the time the worksheet shows
    fresh = lms_importers.moodle_worksheet(text, language, participants, 17, DOWNLOADED.timestamp())
    # after it: Moodle's time for that grade is newer than the worksheet's row
    changed = lms_importers.moodle_worksheet(text, language, participants, 17, BY_HAND)
    assert 1001 not in changed  # the hand-changed grade stays
    # PHP's strtotime reads the row's time, in either language: the other rows are applied
    assert {pid: row["grade"] for pid, row in fresh.items()} == {1001: 17, 1002: 12, 1003: 9}
    assert "из" in fresh[1002]["feedback"]
    first = lms_importers.moodle_worksheet(text, language, participants, 17, 0)  # no grade in Moodle yet: all applied
    assert {pid: row["grade"] for pid, row in first.items()} == {1001: 17, 1002: 12, 1003: 9}  # in either language


def test_without_a_worksheet_the_language_is_the_default_and_said_loudly(tmp_path, capsys):
    export_grades(["moodle"], outcome(), tmp_path, "")
    said = capsys.readouterr().out
    assert "written with en column names (the default)" in said and "--worksheet" in said
    assert (tmp_path / "moodle_grading_worksheet.csv").read_text(encoding="utf-8").startswith("Identifier,")
    export_grades(["moodle"], outcome(), tmp_path, "", "ru")
    assert "(the default)" not in capsys.readouterr().out


def test_a_file_that_is_not_moodles_worksheet_is_refused(tmp_path):
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a Moodle grading worksheet"):
        read_moodle_worksheet(tmp_path / "x.csv")
