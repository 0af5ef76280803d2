"""The learning platforms' importers, reimplemented from their source, to run on what we write.

Moodle's offline grading worksheet: mod/assign/feedback/offline/importgradeslib.php (`init`, `next`)
and locallib.php (`process_import_grades`), reading the CSV with lib/csvlib.class.php. Moodle's
feedback files zip: mod/assign/feedback/file/importziplib.php (`is_valid_filename_for_import`).
The language strings are Moodle's own (lang/en/assign.php, lang/en/moodle.php and the Russian
language pack). Nothing here imports the autograder: these rules are written from Moodle's code,
so a change on our side cannot quietly change them too.
"""

import csv
import io
import re
import zipfile
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


def strtotime(text: str) -> float:
    """PHP's strtotime on what the worksheet holds: ISO 8601, or the English date Moodle's userdate
    writes ("Tuesday, 1 December 2026, 11:59 PM"); anything else (a Russian date, "-") is false, 0."""
    text = text.strip()
    for parse in (datetime.fromisoformat, lambda t: datetime.strptime(t, "%A, %d %B %Y, %I:%M %p")):
        try:
            return parse(text).timestamp()
        except ValueError:
            pass
    return 0.0


def moodle_worksheet(
    text: str, language: str, participants: set[int], maximum: float, grades_in_moodle_modified: float = 0
) -> dict[int, dict]:
    """The rows Moodle's worksheet importer would apply: participant id → {grade, feedback}."""
    s = STRINGS[language]
    header, rows = read_csv(text)
    index = {
        name: header.index(s[name]) if s[name] in header else -1 for name in ("recordid", "grade", "lastmodifiedgrade")
    }
    if min(index.values()) < 0:
        raise Refused("invalidgradeimport: missing " + ", ".join(k for k, v in index.items() if v < 0))
    comments = header.index(s["comments"]) if s["comments"] in header else -1
    applied = {}
    for row in rows:
        idstr = row[index["recordid"]].encode("utf-8")
        uid = idstr[len(s["hiddenuser"].encode("utf-8")) :].decode("utf-8", "replace")  # PHP substr: bytes
        if not re.fullmatch(r"\d+", uid) or int(uid) not in participants:
            continue  # get_user_id_for_uniqueid finds nobody
        grade = row[index["grade"]].strip()
        modified = strtotime(row[index["lastmodifiedgrade"]])
        try:
            value = float(grade)  # unformat_float
        except ValueError:
            continue
        if grade == "" or value < 0 or value > maximum or grades_in_moodle_modified > modified + 60:
            continue  # no value / out of range / stale: skipped
        applied[int(uid)] = {"grade": value, "feedback": row[comments] if comments > 0 else None}  # !empty(index)
    return applied


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
