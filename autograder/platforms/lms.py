"""Grades and feedback in the files the learning platforms' own importers accept.

Moodle's offline grading worksheet importer (mod/assign/feedback/offline/importgradeslib.php,
`init()` and `next()`) finds its columns by their *language strings* — the interface language of
the Moodle it runs in — and refuses the file unless it has the identifier, the grade and the
"last modified (grade)" columns. It reads the participant id by cutting the length of the
language's "Participant" string off the identifier, skips a grade above the assignment's maximum
(so the assignment's maximum must be the course total printed here) and a grade older than the
one in Moodle (so "last modified" is the time of writing). Feedback files go in a zip whose folders
are named `Full Name_<participant id>_assignsubmission_file_` (mod/assign/feedback/file/
importziplib.php splits each folder name at `_` and reads the id from the second part).
"""

import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path

from ..notebook.results import BROKEN, Result, safe_text
from .report import by_student, csv_writer, feedback_comment, points

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


def guess_language(roster: dict[str, str]) -> str:
    """ru when most names in the roster are written in Cyrillic, else en."""
    cyrillic = sum(bool(re.search(r"[А-Яа-яЁё]", name)) for name in roster.values())
    return "ru" if roster and cyrillic * 2 > len(roster) else "en"


def write_moodle_worksheet(
    results: list[Result],
    roster: dict[str, str],
    path: Path,
    language: str = "en",
    now: datetime | None = None,
    late: dict | None = None,
) -> Path:
    """Moodle's grading worksheet in the given interface language; one row per student. `late`:
    student → (days late, penalty percent per day), applied to the grade and said in the comment."""
    strings = MOODLE_STRINGS[language]
    modified = (now or datetime.now(timezone.utc)).replace(microsecond=0).isoformat()  # strtotime reads ISO 8601
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv_writer(f)
        writer.writerow(moodle_columns(language))
        for student, rows in by_student(results).items():
            grade, comment = total(rows), feedback_comment(rows)
            broken = [r.notebook for r in rows if r.status == BROKEN]
            if broken:
                comment += (
                    f". Файл не читается ({', '.join(broken)}): откройте его в Jupyter, сохраните и сдайте заново"
                )
            if late and student in late:
                days, percent = late[student]
                grade = max(0.0, round(grade * (1 - percent / 100 * days), 2))
                comment += f". Сдано с опозданием на {days} дн.: штраф {percent:g}% за день, итог {points(grade)}"
            writer.writerow(
                [
                    f"{strings['participant']}{student}",
                    safe_text(roster.get(student, student)),
                    points(grade),
                    points(sum(r.max_score for r in rows)),
                    modified,
                    comment,
                ]
            )
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
