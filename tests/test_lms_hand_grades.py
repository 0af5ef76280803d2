"""A grade entered by hand in the LMS is never overwritten (issue 45 item 1), and a Russian
worksheet's second upload is read at all (issue 41 item 4), in-process, through two uploads.

The instructor uploads our worksheet (or Canvas import), changes one grade by hand in the LMS
(1003: 0 → 5), downloads the worksheet (gradebook) again and reruns: the grader compares each
grade in it with what it last exported (OUT/lms_exported.json); the hand grade goes back as the
LMS wrote it (the importer skips a grade equal to its own) and is listed with both values, while a
resubmitted student's new grade (1001: 0 → 17) arrives — also in a Russian Moodle, whose dates
PHP's strtotime cannot read. Only --overwrite-hand-grades replaces the hand grade. Moodle and
Canvas are lms_importers' models of their importers and of the files they write.
"""

import lms_importers
import pytest
from lms_importers import MoodleGrade

from autograder.classroom.outputs import Outcome
from autograder.classroom.workflow import export_grades
from autograder.notebook.results import GRADED, Result
from autograder.platforms.lms import EXPORTED, MOODLE_STRINGS, read_moodle_worksheet, readable_time

NB1 = "01_hand_example"
NAMES = {1001: "Иван Петров", 1002: "Anna Smith", 1003: "Olga Smith"}
FIRST_UPLOAD, BY_HAND, SECOND_UPLOAD = 1_795_999_980.0, 1_796_021_580.0, 1_796_099_980.0  # Nov 2026, whole minutes


def outcome(scores):
    results = [Result(str(pid), NB1, score, 17, GRADED) for pid, score in scores.items()]
    return Outcome(results=results, notebooks=[NB1], roster={str(k): v for k, v in NAMES.items()})


def download(tmp_path, moodle, language, name):
    path = tmp_path / name
    path.write_text(lms_importers.moodle_download(moodle, language, NAMES, 17), encoding="utf-8")
    return path


def upload(out, language, moodle, now):
    text = (out / "moodle_grading_worksheet.csv").read_text(encoding="utf-8")
    return lms_importers.moodle_upload(text, language, moodle, 17, now)


def rows(path):
    return lms_importers.read_csv(path.read_text(encoding="utf-8"))[1]


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_hand_grade_survives_two_uploads_and_the_resubmission_arrives(tmp_path, capsys, language):
    out = tmp_path / "out"
    out.mkdir()
    moodle = {uid: MoodleGrade(None, 0) for uid in NAMES}  # nothing graded in Moodle yet
    first = download(tmp_path, moodle, language, "first.csv")
    export_grades(["moodle"], outcome({1001: 0, 1002: 12, 1003: 0}), out, worksheet=read_moodle_worksheet(first))
    modified = MOODLE_STRINGS[language]["modified"]
    column = lms_importers.MOODLE_HEADER[language].index(modified)
    assert {row[column] for row in rows(out / "moodle_grading_worksheet.csv")} == {"-"}  # Moodle's "-" stays "-"
    moodle = upload(out, language, moodle, FIRST_UPLOAD)
    assert {uid: g.grade for uid, g in moodle.items()} == {1001: 0, 1002: 12, 1003: 0}
    moodle[1003] = MoodleGrade(5.0, BY_HAND, moodle[1003].feedback)  # the instructor, by hand in Moodle
    second = download(tmp_path, moodle, language, "second.csv")
    capsys.readouterr()
    export_grades(["moodle"], outcome({1001: 17, 1002: 12, 1003: 0}), out, worksheet=read_moodle_worksheet(second))
    said = capsys.readouterr().out
    grade_of_1003 = "5.00" if language == "en" else "5,00"
    assert "1 grade(s) entered by hand in Moodle" in said and "KEPT" in said and "--overwrite-hand-grades" in said
    assert f"1003 Olga Smith: Moodle {grade_of_1003}, the grader 0" in said
    sent, downloaded = rows(out / "moodle_grading_worksheet.csv"), rows(second)
    assert sent[2] == downloaded[2]  # 1003's row as Moodle wrote it, byte for byte
    changed = {4, column, 9}  # the grade, its time (in a form strtotime reads), the feedback
    assert all(s[i] == d[i] for s, d in zip(sent, downloaded) for i in range(len(d)) if i not in changed)
    assert lms_importers.strtotime(sent[0][column]) == moodle[1001].modified  # the same moment, readable
    moodle = upload(out, language, moodle, SECOND_UPLOAD)
    assert {uid: g.grade for uid, g in moodle.items()} == {1001: 17, 1002: 12, 1003: 5}
    assert moodle[1001].modified == SECOND_UPLOAD and moodle[1003].modified == BY_HAND
    third = download(tmp_path, moodle, language, "third.csv")  # a rerun keeps it the instructor's
    export_grades(["moodle"], outcome({1001: 17, 1002: 12, 1003: 0}), out, worksheet=read_moodle_worksheet(third))
    assert "KEPT" in capsys.readouterr().out
    assert upload(out, language, moodle, SECOND_UPLOAD + 60)[1003].grade == 5
    export_grades(
        ["moodle"],
        outcome({1001: 17, 1002: 12, 1003: 0}),
        out,
        worksheet=read_moodle_worksheet(third),
        overwrite_hand_grades=True,
    )
    assert "REPLACED" in capsys.readouterr().out
    assert upload(out, language, moodle, SECOND_UPLOAD + 60)[1003].grade == 0


def test_without_our_record_nothing_is_taken_for_a_hand_grade(tmp_path, capsys):
    """A grade in Moodle the grader never exported (no OUT/lms_exported.json) is not called the
    instructor's; an empty grade never is."""
    moodle = {1001: MoodleGrade(3.0, FIRST_UPLOAD), 1002: MoodleGrade(None, 0), 1003: MoodleGrade(None, 0)}
    sheet = read_moodle_worksheet(download(tmp_path, moodle, "en", "w.csv"))
    export_grades(["moodle"], outcome({1001: 17, 1002: 12, 1003: 0}), tmp_path, worksheet=sheet)
    assert "by hand" not in capsys.readouterr().out and (tmp_path / EXPORTED).is_file()
    assert upload(tmp_path, "en", moodle, SECOND_UPLOAD)[1001].grade == 17


def test_strtotime_cannot_read_a_russian_date_so_moodle_skips_every_graded_row():
    """What PHP's strtotime returns, and the importer's skip rule on it (Moodle's worksheet as it was
    uploaded back before the grader wrote the time in a form strtotime reads)."""
    assert lms_importers.strtotime("вторник, 1 декабря 2026, 23:59") is False
    assert lms_importers.strtotime("-") is False
    assert lms_importers.strtotime("Tuesday, 1 December 2026, 11:59 PM") == lms_importers.strtotime("2026-12-01 23:59")
    moodle = {1001: MoodleGrade(0.0, FIRST_UPLOAD)}
    russian = lms_importers.moodle_download(moodle, "ru", NAMES, 17).replace("0,00", "17")
    assert lms_importers.moodle_upload(russian, "ru", moodle, 17, SECOND_UPLOAD)[1001].grade == 0  # skipped
    ticked = lms_importers.moodle_upload(russian, "ru", moodle, 17, SECOND_UPLOAD, ignoremodified=True)
    assert ticked[1001].grade == 17  # only "ignore modified" would take it (and overwrite hand grades too)
    day = lms_importers.userdate(FIRST_UPLOAD, "ru")
    assert lms_importers.strtotime(readable_time(day)) == FIRST_UPLOAD // 60 * 60
    assert readable_time("-") == "-" and readable_time("Tuesday, 1 December 2026, 11:59 PM").startswith("Tuesday")


COLUMN = "Homework 1 (4711)"
PEOPLE = {  # as Canvas holds them: Student (sortable name), SIS User ID, SIS Login ID, Section
    1001: ["Petrov, Ivan", "S-1001", "ipetrov", "Group A"],
    1002: ["Smith, Anna", "S-1002", "asmith", "Group B"],
    1003: ["Smith, Olga", "S-1003", "osmith", "Group A"],
}


def canvas_download(tmp_path, gradebook, name):
    path = tmp_path / name
    path.write_text(lms_importers.canvas_export(gradebook, PEOPLE, 17), encoding="utf-8")
    return str(path)


def canvas_outcome(scores):
    result = outcome(scores)
    result.roster = {"1001": "ipetrov", "1002": "asmith", "1003": "osmith"}  # what a Canvas zip names them
    return result


def canvas_upload(out, gradebook):
    return lms_importers.canvas_upload((out / "canvas_grades_import.csv").read_text(encoding="utf-8"), gradebook)


def test_canvas_keeps_the_gradebooks_people_and_a_hand_grade_through_two_uploads(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    canvas = {uid: {COLUMN: ""} for uid in PEOPLE}
    first = canvas_download(tmp_path, canvas, "first.csv")
    export_grades(["canvas"], canvas_outcome({1001: 0, 1002: 12, 1003: 0}), out, COLUMN, gradebook=first)
    sent = lms_importers.read_csv((out / "canvas_grades_import.csv").read_text(encoding="utf-8"))[1]
    assert {int(r[1]): [r[0], *r[2:5]] for r in sent[1:]} == PEOPLE  # as Canvas wrote them, not logins
    canvas = canvas_upload(out, canvas)
    assert {uid: c[COLUMN] for uid, c in canvas.items()} == {1001: "0", 1002: "12", 1003: "0"}
    canvas[1003][COLUMN] = "5"  # the instructor, by hand in Canvas
    second = canvas_download(tmp_path, canvas, "second.csv")
    capsys.readouterr()
    export_grades(["canvas"], canvas_outcome({1001: 17, 1002: 12, 1003: 0}), out, COLUMN, gradebook=second)
    said = capsys.readouterr().out
    assert "1 grade(s) entered by hand in Canvas" in said and "1003 Smith, Olga: Canvas 5, the grader 0" in said
    canvas = canvas_upload(out, canvas)
    assert {uid: c[COLUMN] for uid, c in canvas.items()} == {1001: "17", 1002: "12", 1003: "5"}
    export_grades(
        ["canvas"],
        canvas_outcome({1001: 17, 1002: 12, 1003: 0}),
        out,
        COLUMN,
        gradebook=second,
        overwrite_hand_grades=True,
    )
    assert "REPLACED" in capsys.readouterr().out and canvas_upload(out, canvas)[1003][COLUMN] == "0"


def test_the_option_is_a_setting_of_this_run_only(tmp_path):
    from autograder.cli import REMEMBERED, export_settings, parser

    given = parser().parse_args(["grade", "class", "--export", "moodle", "--overwrite-hand-grades"])
    assert export_settings(given).overwrite_hand_grades is True
    assert export_settings(parser().parse_args(["grade", "class", "--export", "moodle"])).overwrite_hand_grades is False
    assert "overwrite_hand_grades" not in REMEMBERED  # a rerun without it keeps the hand grades again
    merged = parser().parse_args(["merge", "a", "--out", "b", "--overwrite-hand-grades"])
    assert merged.overwrite_hand_grades
