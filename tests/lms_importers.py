"""The learning platforms' importers, reimplemented from their source, to run on what we write.

Moodle's offline grading worksheet: mod/assign/feedback/offline/importgradeslib.php (`init`, `next`)
and locallib.php (`process_import_grades`), reading the CSV with lib/csvlib.class.php; the
worksheet Moodle writes: mod/assign/gradingtable.php in download mode (`col_grade`: format_float
with the grade item's 2 decimals and the language's decimal separator; `col_timemarked`: userdate,
or "-" without a grade). `moodle_upload` and `canvas_upload` keep a gradebook's state, so a test can
upload twice with the instructor's hand in between. Moodle's
feedback files zip: mod/assign/feedback/file/importziplib.php (`is_valid_filename_for_import`).
The language strings are Moodle's own (lang/en/assign.php, lang/en/moodle.php and the Russian
language pack). Nothing here imports the autograder: these rules are written from Moodle's code,
so a change on our side cannot quietly change them too.
"""

import csv
import io
import re
import zipfile
from dataclasses import dataclass
from datetime import datetime

STRINGS = {  # get_string('recordid','assign'), ('grade'), ('lastmodifiedgrade','assign'), ('hiddenuser','assign'),
    # ('pluginname','assignfeedback_comments')
    "en": {
        "recordid": "Identifier",
        "grade": "Grade",
        "lastmodifiedgrade": "Last modified (grade)",
        "hiddenuser": "Participant ",
        "comments": "Feedback comments",
    },
    "ru": {
        "recordid": "Идентификатор",
        "grade": "Оценка",
        "lastmodifiedgrade": "Последнее изменение (оценка)",
        "hiddenuser": "Участник",
        "comments": "Отзыв в виде комментария",
    },
}


class Refused(Exception):
    """Moodle's "could not read the uploaded worksheet" (invalidgradeimport) or a CSV error."""


def read_csv(text: str) -> tuple[list[str], list[list[str]]]:
    """csv_import_reader::load_csv_content: a header of distinct, non-empty names; every row as wide."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    if not rows:
        raise Refused("csvemptyfile")
    header = [c.strip() for c in rows[0]]
    if any(not c for c in header) or len(set(header)) != len(header):
        raise Refused("csvemptyfield / duplicatefieldname")
    for row in rows[1:]:
        if len(row) != len(header):
            raise Refused("csvweirdcolumns")
    return header, rows[1:]


def strtotime(text: str) -> float | bool:
    """PHP's strtotime on what the worksheet holds. It parses English only (php.net: "Parse about any
    English textual datetime description"; timelib's scanner stops at the first byte it has no rule
    for): ISO 8601 and the English date Moodle's userdate writes ("Tuesday, 1 December 2026, 11:59 PM")
    are read, in the server's time zone; anything else — a Russian date («вторник, 1 декабря 2026,
    23:59»), Moodle's "-" — is false, which the importer's `$modified + 60` takes as 0 + 60."""
    text = text.strip()
    for parse in (datetime.fromisoformat, lambda t: datetime.strptime(t, "%A, %d %B %Y, %I:%M %p")):
        try:
            return parse(text).timestamp()
        except ValueError:
            pass
    return False


def unformat_float(text: str, language: str) -> float | None:
    """lib/moodlelib.php unformat_float: the language's decimal separator (ru: ",") read as "."; "" is no grade."""
    text = text.strip().replace(" ", "")
    if not text:
        return None
    try:
        return float(text.replace(DECSEP[language], "."))
    except ValueError:
        return None


DECSEP = {"en": ".", "ru": ","}  # langconfig's decsep


def worksheet_records(text: str, language: str, participants: set[int]):
    """importgradeslib.php `init` and `next`: (participant id, grade cell, strtotime of Last modified
    (grade), feedback or None) for each row of a known participant; Refused without the columns."""
    s = STRINGS[language]
    header, rows = read_csv(text)
    index = {
        name: header.index(s[name]) if s[name] in header else -1 for name in ("recordid", "grade", "lastmodifiedgrade")
    }
    if min(index.values()) < 0:
        raise Refused("invalidgradeimport: missing " + ", ".join(k for k, v in index.items() if v < 0))
    comments = header.index(s["comments"]) if s["comments"] in header else -1
    for row in rows:
        idstr = row[index["recordid"]].encode("utf-8")
        uid = idstr[len(s["hiddenuser"].encode("utf-8")) :].decode("utf-8", "replace")  # PHP substr: bytes
        if not re.fullmatch(r"\d+", uid) or int(uid) not in participants:
            continue  # get_user_id_for_uniqueid finds nobody
        feedback = row[comments] if comments > 0 else None  # !empty(index)
        yield int(uid), row[index["grade"]], strtotime(row[index["lastmodifiedgrade"]]), feedback


def moodle_worksheet(
    text: str, language: str, participants: set[int], maximum: float, grades_in_moodle_modified: float = 0
) -> dict[int, dict]:
    """The rows Moodle's worksheet importer would apply: participant id → {grade, feedback}."""
    applied = {}
    for uid, grade, modified, feedback in worksheet_records(text, language, participants):
        try:
            value = float(grade)  # unformat_float
        except ValueError:
            continue
        if grade == "" or value < 0 or value > maximum or grades_in_moodle_modified > modified + 60:
            continue  # no value / out of range / stale: skipped
        applied[uid] = {"grade": value, "feedback": feedback}
    return applied


@dataclass
class MoodleGrade:
    """One participant's grade in Moodle: assign_grades' grade and timemodified, the feedback comment."""

    grade: float | None
    modified: float
    feedback: str = ""


def moodle_upload(
    text: str, language: str, moodle: dict[int, MoodleGrade], maximum: float, now: float, ignoremodified: bool = False
) -> dict[int, MoodleGrade]:
    """locallib.php `process_import_grades` on Moodle's grades (`moodle`: participant id → its grade,
    the participants are its keys): the grades after the upload, at time `now`. A grade equal to
    Moodle's is skipped (not modified), so are an empty or negative one, a stale one (Moodle's time
    later than the row's + 60 s, unless "ignore modified" is ticked) and one above the maximum; the
    feedback is set where it differs, unless the row is stale."""
    after = {uid: MoodleGrade(g.grade, g.modified, g.feedback) for uid, g in moodle.items()}
    for uid, cell, modified, feedback in worksheet_records(text, language, set(moodle)):
        usergrade, grade = moodle[uid], unformat_float(cell, language)
        held = usergrade.grade is not None or usergrade.modified > 0  # get_user_grade finds a record
        stale = held and usergrade.modified > modified + 60
        if (held and usergrade.grade == grade) or grade is None or grade < 0:
            pass  # not modified / no value
        elif (not ignoremodified and stale) or grade > maximum:
            pass  # modified in Moodle since / out of range
        else:
            after[uid].grade, after[uid].modified = grade, now
        if (ignoremodified or not stale) and feedback is not None and feedback != usergrade.feedback:
            after[uid].feedback = feedback
    return after


MOODLE_HEADER = {  # gradingtable.php in download mode, the columns the offline worksheet has
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
RU_DAYS = ["понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье"]
RU_MONTHS = "января февраля марта апреля мая июня июля августа сентября октября ноября декабря".split()


def userdate(timestamp: float, language: str) -> str:
    """Moodle's userdate with strftimedaydatetime: en "%A, %d %B %Y, %I:%M %p", ru "%A, %d %B %Y, %H:%M"
    (the day without its leading zero, as Moodle writes it)."""
    when = datetime.fromtimestamp(timestamp)
    if language == "en":
        return f"{when:%A}, {when.day} {when:%B} {when.year}, {when:%I:%M %p}"
    return f"{RU_DAYS[when.weekday()]}, {when.day} {RU_MONTHS[when.month - 1]} {when.year}, {when:%H:%M}"


def moodle_download(moodle: dict[int, MoodleGrade], language: str, names: dict[int, str], maximum: float) -> str:
    """The grading worksheet Moodle writes (Download grading worksheet) for its grades."""
    s, rows = STRINGS[language], []
    number = lambda x: f"{x:.2f}".replace(".", DECSEP[language])
    for uid, g in moodle.items():
        modified = userdate(g.modified, language) if g.modified else "-"
        grade = "" if g.grade is None else number(g.grade)
        submitted = userdate(g.modified or 1, language)
        rows.append(
            [f"{s['hiddenuser']}{uid}", names[uid], f"{uid}@uni.example", "", grade, number(maximum)]
            + ["Yes", submitted, modified, g.feedback]
        )
    out = io.StringIO()
    csv.writer(out).writerows([MOODLE_HEADER[language], *rows])
    return out.getvalue()


def moodle_feedback_zip(path, participants: set[int]) -> dict[int, list[str]]:
    """The files Moodle's feedback zip importer would attach: participant id → file names."""
    attached: dict[int, list[str]] = {}
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            if info.is_dir():
                continue
            basename = info.filename.rsplit("/", 1)[-1]
            if basename.startswith((".", "~")):
                continue
            parts = info.filename.split("/")
            while parts:
                part = parts.pop(0)
                fields = part.split("_", 4)  # explode('_', $pathpart, 5)
                if len(fields) < 4 or not re.fullmatch(r"\s*[+-]?\d+(\.\d+)?", fields[1]):  # is_numeric
                    continue
                uid = int(float(fields[1]))
                if uid not in participants or (fields[2], fields[3]) not in {
                    ("assignsubmission", "file"),
                    ("assignfeedback", "file"),
                }:
                    continue
                filename = "/".join([fields[4] if len(fields) > 4 else "", *parts]).lstrip("/")
                attached.setdefault(uid, []).append(filename)
                break
    return attached


# -- Moodle's "Download all submissions" zip: mod/assign/classes/downloader.php (4.1 and later) and
# the download_submissions of mod/assign/locallib.php before it; lib/moodlelib.php's clean_param.
def clean_filename(text: str) -> str:
    """clean_param($text, PARAM_FILE): control characters and & < > " ` | ' : \\ / are removed."""
    text = re.sub(r"[\x00-\x1f\x7f&<>\"`|':\\\\/]", "", text)
    return "" if text in (".", "..") else text


def clean_path(text: str) -> str:
    """clean_param($text, PARAM_PATH)."""
    text = text.replace("\\", "/")
    text = re.sub(r"[\x00-\x1f\x7f&<>\"`|':]", "", text)
    text = re.sub(r"\.\.+", "", text)
    text = re.sub(r"//+", "/", text)
    return re.sub(r"/(\./)+", "/", text)


def moodle_download_path(
    fullname: str, uniqueid: int, filename: str, version: str = "4.1", folders: bool = True, plugin: str = "file"
) -> str:
    """The zip entry Moodle writes for one submitted file (filepath "/": the file area's root).
    4.1+: get_student_prefix + load_submissionplugin_filelist; "4.0": the same with the older
    trailing "_" after the plugin (…_assignsubmission_file_/); folders=False: the single-folder
    download (assign_downloadasfolders off), the same in every version."""
    prefix = clean_filename(fullname.replace("_", " ") + "_" + str(uniqueid))
    if not folders:
        return clean_filename(f"{prefix}_assignsubmission_{plugin}_{filename}")
    folder = clean_filename(f"{prefix}_assignsubmission_{plugin}" + ("_" if version == "4.0" else ""))
    return clean_path(f"{folder}/{filename}")


# -- Canvas's gradebook import (app/models/gradebook_importer.rb), the rules our file relies on ----
def canvas_gradebook(text: str, students: set[int]) -> dict[int, dict[str, str]]:
    """Canvas user id → {assignment column: grade}: the header names the columns after Student, ID,
    SIS User ID, SIS Login ID (Section optional); a row whose first cell holds "Points Possible" is
    the assignments' maximum, not a student; a student is found by the ID column (the name in
    Student is shown, never used to match when the ID is there)."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    if not rows or rows[0][:2] != ["Student", "ID"]:
        raise Refused("Canvas: the first columns must be Student, ID")
    fixed = sum(c in ("Student", "ID", "SIS User ID", "SIS Login ID", "Section") for c in rows[0])
    assignments = rows[0][fixed:]
    found = {}
    for row in rows[1:]:
        if row and "Points Possible" in row[0]:
            continue
        if not re.fullmatch(r"\d+", row[1].strip()) or int(row[1]) not in students:
            continue
        found[int(row[1])] = dict(zip(assignments, row[fixed:]))
    return found


def canvas_upload(text: str, gradebook: dict[int, dict[str, str]]) -> dict[int, dict[str, str]]:
    """Canvas's import on its gradebook (Canvas user id → {assignment column: grade}): the gradebook
    after it. Canvas lists every cell that differs from what it holds and applies it; an equal cell
    (the same number) changes nothing; an empty cell is not a change."""
    after = {uid: dict(cells) for uid, cells in gradebook.items()}
    for uid, cells in canvas_gradebook(text, set(gradebook)).items():
        for column, value in cells.items():
            old = after[uid].get(column, "")
            if value.strip() and not (number(value) is not None and number(value) == number(old)):
                after[uid][column] = value
    return after


def number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def canvas_export(gradebook: dict[int, dict[str, str]], people: dict[int, list[str]], maximum: float) -> str:
    """Canvas's gradebook export (Grades → Export): Student, ID, SIS User ID, SIS Login ID, Section, the
    assignments; `people`: id → [Student, SIS User ID, SIS Login ID, Section] as Canvas holds them."""
    columns = sorted({c for cells in gradebook.values() for c in cells})
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *columns]]
    rows.append(["    Points Possible", "", "", "", "", *(f"{maximum:g}" for _ in columns)])
    for uid, cells in gradebook.items():
        name, sis, login, section = people[uid]
        rows.append([name, str(uid), sis, login, section, *(cells.get(c, "") for c in columns)])
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue()
