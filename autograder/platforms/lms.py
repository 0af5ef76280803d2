"""Grades and feedback in the files the learning platforms' own importers accept.

Moodle's offline grading worksheet importer (mod/assign/feedback/offline/importgradeslib.php,
`init()` and `next()`) finds its columns by their *language strings* — the interface language of
the Moodle it runs in — and refuses the file unless it has the identifier, the grade and the
"last modified (grade)" columns. It reads the participant id by cutting the length of the
language's "Participant" string off the identifier, skips a grade above the assignment's maximum
(so the assignment's maximum must be the course total printed here) and a grade older than the
one in Moodle by more than a minute: given the worksheet Moodle wrote (`--worksheet`), each row keeps
Moodle's own time, so a grade changed by hand since is protected; without it, "last modified" is
the time of writing and the upload wins. The importer reads that time with PHP's `strtotime`, which
reads English dates only: a Russian Moodle's date («вторник, 1 декабря 2026, 23:59») is false,
so every row Moodle already has a grade for would be skipped; a row the grader changes gets the
same moment in Moodle's English form. A grade entered by hand in Moodle since our last upload
(`hand_grades`: the worksheet's grade differs from the one we exported, OUT/lms_exported.json) is
the instructor's: its row goes back as Moodle wrote it (the importer skips a grade equal to its
own) unless the instructor asks to overwrite. Feedback files go in a zip whose folders
are named `Full Name_<participant id>_assignsubmission_file_` (mod/assign/feedback/file/
importziplib.php splits each folder name at `_` and reads the id from the second part).
"""

import csv
import json
import re
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ..notebook.results import BROKEN, Result, safe_text
from .report import CANVAS_COLUMNS, by_student, csv_writer, feedback_comment, points

# The language strings Moodle's importer looks for (lang/en and the Russian language pack):
# recordid, grade (core), lastmodifiedgrade, hiddenuser (the id's prefix, cut off by its length),
# and the optional columns: fullname, maxgrade, the feedback comments plugin's name.
MOODLE_STRINGS = {
    "en": {
        "id": "Identifier",
        "name": "Full name",
        "grade": "Grade",
        "max": "Maximum Grade",
        "modified": "Last modified (grade)",
        "comments": "Feedback comments",
        "participant": "Participant ",
    },
    "ru": {
        "id": "Идентификатор",
        "name": "Полное имя",
        "grade": "Оценка",
        "max": "Максимальная оценка",
        "modified": "Последнее изменение (оценка)",
        "comments": "Отзыв в виде комментария",
        "participant": "Участник",
    },
}
MOODLE_ORDER = ["id", "name", "grade", "max", "modified", "comments"]  # comments never first: Moodle skips column 0


def moodle_columns(language: str) -> list[str]:
    return [MOODLE_STRINGS[language][key] for key in MOODLE_ORDER]


def total(rows: list[Result]) -> float:
    return sum(r.score for r in rows)


def course_total(results: list[Result]) -> float:
    """The assignment's maximum: the points of its notebooks (what Moodle's maximum must be set to)."""
    return max((sum(r.max_score for r in rows) for rows in by_student(results).values()), default=0)


DEFAULT_LANGUAGE = "en"  # without --worksheet or --lms-language: said loudly at every export


@dataclass
class Worksheet:
    """Moodle's grading worksheet as the instructor downloaded it (Download grading worksheet):
    its header (the interface language's strings), and each participant's row exactly as written."""

    language: str
    header: list[str]
    rows: dict[str, list[str]] = field(default_factory=dict)  # participant id → the row

    def column(self, key: str) -> int:
        name = MOODLE_STRINGS[self.language][key]
        return self.header.index(name) if name in self.header else -1

    def names(self) -> dict[str, str]:
        index = self.column("name")
        return {pid: row[index] for pid, row in self.rows.items() if index >= 0 and row[index].strip()}


def read_moodle_worksheet(path: Path) -> Worksheet:
    """The worksheet's language from its header (the columns Moodle's importer needs, en or ru) and
    its rows by participant id ("Participant 123456" → "123456")."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        table = list(csv.reader(f))
    header = [c.strip() for c in table[0]] if table else []
    for language, strings in MOODLE_STRINGS.items():
        if all(strings[key] in header for key in ("id", "grade", "modified")):
            sheet = Worksheet(language, header)
            prefix = strings["participant"].strip()
            for row in table[1:]:
                row = row + [""] * (len(header) - len(row))
                pid = row[header.index(strings["id"])].strip()[len(prefix) :].strip()
                if pid.isdigit():
                    sheet.rows[pid] = row
            return sheet
    raise ValueError(
        f"{path}: not a Moodle grading worksheet (no Identifier, Grade and Last modified (grade) columns, en or ru)"
    )


# -- what the grader last exported, and the grades the instructor entered since (OUT/lms_exported.json)
EXPORTED = "lms_exported.json"  # activity ("moodle", "canvas Title (id)") → student → the grade we wrote
LMS_NUMBER = re.compile(r"\s*([+-]?\d+(?:[.,]\d+)?)")  # "5.00", Russian Moodle's "5,00", "5.00 / 17.00"


def read_exported(out: Path) -> dict[str, dict[str, str]]:
    """Each activity's grades as the grader last exported them ({} before the first export)."""
    try:
        record = json.loads((Path(out) / EXPORTED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in record.items() if isinstance(v, dict)} if isinstance(record, dict) else {}


def record_exported(out: Path, activity: str, grades: dict[str, float]) -> None:
    """Remember the grades just exported for `activity` (the others' records stay as they were)."""
    record = read_exported(out)
    record.setdefault(activity, {}).update({student: points(grade) for student, grade in grades.items()})
    (Path(out) / EXPORTED).write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")


def same_grade(a: str, b: str) -> bool:
    """Two grades as an LMS or the grader wrote them: equal numbers (to Moodle's 2 decimals), or equal text."""
    x, y = LMS_NUMBER.match(a), LMS_NUMBER.match(b)
    if x and y:
        return abs(float(x.group(1).replace(",", ".")) - float(y.group(1).replace(",", "."))) < 0.006
    return a.strip() == b.strip()


@dataclass(frozen=True)
class HandGrade:
    """A grade the instructor entered in the LMS since the grader's last export: kept unless overwritten."""

    student: str
    in_lms: str  # as the LMS wrote it
    ours: float  # what the grader has now


def hand_grades(in_lms: dict[str, str], exported: dict[str, str], ours: dict[str, float]) -> list[HandGrade]:
    """The LMS's grades (student → its cell) that are neither what the grader exported last nor
    what it has now: the instructor's. An empty cell (no grade) and a student never exported are not."""
    return [
        HandGrade(student, in_lms[student], grade)
        for student, grade in ours.items()
        if in_lms.get(student, "").strip()
        and student in exported
        and not same_grade(in_lms[student], exported[student])
        and not same_grade(in_lms[student], points(grade))
    ]


# Moodle's Russian dates (strftimedaydatetime, «вторник, 1 декабря 2026, 23:59»): the month's first letters
RUSSIAN_DATE = re.compile(r"(\d{1,2})\s+(\w+)\s+(\d{4})\D+(\d{1,2}):(\d{2})")
RUSSIAN_MONTHS = {
    stem: i
    for i, stems in enumerate(
        [
            ["янв"],
            ["фев"],
            ["мар"],
            ["апр"],
            ["мая", "май"],
            ["июн"],
            ["июл"],
            ["авг"],
            ["сен"],
            ["окт"],
            ["ноя"],
            ["дек"],
        ],
        start=1,
    )
    for stem in stems
}


def readable_time(text: str) -> str:
    """*Last modified (grade)* as PHP's strtotime reads it: a Russian Moodle's date becomes the same
    moment (wall clock, as Moodle wrote it) in ISO form, "2026-12-01 23:59"; anything else (an
    English date, "-") stays as it is."""
    match = RUSSIAN_DATE.search(text)
    month = RUSSIAN_MONTHS.get(match.group(2)[:3].lower()) if match else None
    if not month:
        return text
    day, _, year, hour, minute = match.groups()
    try:
        return datetime(int(year), month, int(day), int(hour), int(minute)).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return text


def student_grade(rows: list[Result], late: dict | None, student: str) -> tuple[float, str]:
    """A student's total for Moodle (the late policy applied: `late`, (student, notebook) →
    platforms.late.Penalty) and the comment that explains it."""
    from .late import penalised_total

    late = late or {}
    grade, comment = penalised_total(rows, late), feedback_comment(rows)
    broken = [r.notebook for r in rows if r.status == BROKEN]
    if broken:
        comment += f". Файл не читается ({', '.join(broken)}): откройте его в Jupyter, сохраните и сдайте заново"
    mine = [(r.notebook, late[student, r.notebook]) for r in rows if (student, r.notebook) in late]
    said = set()
    for notebook, p in mine:
        reason = p.reason_ru()
        if p.shared and reason in said:
            continue  # one time for all the student's notebooks: said once
        said.add(reason)
        comment += f". {reason.rstrip('.')}" if p.shared else f". {notebook}: {reason.rstrip('.')}"
    if mine:
        comment += f". Итог с учётом опоздания: {points(grade)}"
    return grade, comment


def write_moodle_worksheet(
    results: list[Result],
    roster: dict[str, str],
    path: Path,
    language: str = DEFAULT_LANGUAGE,
    now: datetime | None = None,
    late: dict | None = None,
    worksheet: Worksheet | None = None,
    keep: set[str] = frozenset(),
) -> Path:
    """Moodle's grading worksheet; one row per student. `late`: (student, notebook) →
    platforms.late.Penalty, applied to the grade and said in the comment.

    With the `worksheet` Moodle wrote, the upload is that file: its header (so its language), and
    for each graded participant its row as Moodle wrote it — identifier, name, and *Last modified
    (grade)*, which Moodle's importer compares with the grade's time in Moodle, so a grade changed
    by hand after the download is not overwritten — with only the grade, the feedback comment and
    the time in a form strtotime reads (`readable_time`) replaced. The participants in `keep` (grades
    entered by hand: `hand_grades`) come back as Moodle wrote them. A graded student the worksheet
    has no row for is left out (Moodle would not know them)."""
    students = by_student(results)
    if worksheet is None:
        strings = MOODLE_STRINGS[language]
        modified = (now or datetime.now(timezone.utc)).replace(microsecond=0).isoformat()  # strtotime reads ISO
        header, lines = moodle_columns(language), []
        for student, rows in students.items():
            grade, comment = student_grade(rows, late, student)
            lines.append(
                [
                    f"{strings['participant']}{student}",
                    safe_text(roster.get(student, student)),
                    points(grade),
                    points(sum(r.max_score for r in rows)),
                    modified,
                    comment,
                ]
            )
    else:
        header = list(worksheet.header)
        comments = MOODLE_STRINGS[worksheet.language]["comments"]
        if comments not in header:  # the comments plugin's column, if the worksheet has none
            header.append(comments)
        grade_at, modified_at, comment_at = (
            worksheet.column("grade"),
            worksheet.column("modified"),
            header.index(comments),
        )
        lines = []
        for pid, row in worksheet.rows.items():
            if pid not in students:
                continue  # not graded here: left out, so Moodle keeps what it has
            line = row + [""] * (len(header) - len(row))
            if pid not in keep:
                grade, line[comment_at] = student_grade(students[pid], late, pid)
                line[grade_at], line[modified_at] = points(grade), readable_time(line[modified_at])
            lines.append(line)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv_writer(f)
        writer.writerow(header)
        writer.writerows(lines)
    return path


def moodle_folder(name: str, student: str) -> str:
    """The folder Moodle's export gives a student's files: the name without "_" or "/", the id."""
    clean = re.sub(r"[_/\\\x00-\x1f]", " ", name).strip(" .~") or "Student"
    return f"{clean}_{student}_assignsubmission_file_"


def write_moodle_feedback_zip(
    feedback: Path, roster: dict[str, str], students: list[str], path: Path
) -> tuple[Path, int]:
    """The feedback pages (feedback/<id>/<notebook>.html) in Moodle's folder naming, for
    "Upload multiple feedback files in a zip". Only numeric (Moodle participant) ids can match."""
    count = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for student in students:
            if not student.isdigit():
                continue
            for page in sorted((Path(feedback) / student).glob("*.html")):
                z.write(page, f"{moodle_folder(roster.get(student, student), student)}/{page.name}")
                count += 1
    return path, count


def read_canvas_gradebook(path: Path, column: str) -> dict[str, dict[str, str]]:
    """Canvas's gradebook export (Grades → Export): Canvas user id → its Student, ID, SIS User ID,
    SIS Login ID and Section as Canvas wrote them, and the `column`'s grade ("" where it has none).
    The "Points Possible" row (no id) is not a student."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        table = list(csv.reader(f))
    header = [c.strip() for c in table[0]] if table else []
    people = {}
    for row in table[1:]:
        cells = dict(zip(header, row))
        student = cells.get("ID", "").strip()
        if student.isdigit():
            people[student] = {key: cells.get(key, "") for key in (*CANVAS_COLUMNS, column)}
    return people
