"""Late submissions: reported from the LMS's own submission times, a penalty only when asked.

Moodle's zip carries no submission times; its grading worksheet (downloaded from the same page:
*Download grading worksheet*) has *Last modified (submission)* per participant, in the Moodle
user's date format and language (en: "Tuesday, 1 December 2026, 11:59 PM", ru: "вторник,
1 декабря 2026, 23:59"), in the Moodle's time zone — so the due date is given in that zone too.
Canvas applies its own late policy in its gradebook; its export is not handled here.
The penalty (nbgrader's late-submission plugin idea): `percent` of the grade per started day
late, never below 0, applied to the exported totals only; grades.csv keeps the raw points.
"""

import csv
import math
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .lms import MOODLE_STRINGS

SUBMITTED = {"en": "Last modified (submission)", "ru": "Последнее изменение (ответ)"}
MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "января", "январь"),
            ("february", "февраля", "февраль"),
            ("march", "марта", "март"),
            ("april", "апреля", "апрель"),
            ("may", "мая", "май"),
            ("june", "июня", "июнь"),
            ("july", "июля", "июль"),
            ("august", "августа", "август"),
            ("september", "сентября", "сентябрь"),
            ("october", "октября", "октябрь"),
            ("november", "ноября", "ноябрь"),
            ("december", "декабря", "декабрь"),
        ],
        start=1,
    )
    for name in names
}
WHEN = re.compile(r"(\d{1,2})\s+([^\W\d_]+)\s+(\d{4}),?\s+(\d{1,2}):(\d{2})(?:\s*([AaPp][Mm]))?")


def moodle_time(text: str) -> datetime | None:
    """A date as Moodle prints it (en or ru), or None ("-": no submission)."""
    match = WHEN.search(text or "")
    if not match or match.group(2).lower() not in MONTHS:
        return None
    day, month, year, hour, minute, half = match.groups()
    hour = int(hour) % 12 + (12 if half and half.lower() == "pm" else 0) if half else int(hour)
    return datetime(int(year), MONTHS[month.lower()], int(day), hour, int(minute))


def moodle_submission_times(path: Path) -> dict[str, datetime]:
    """participant id → submission time, from Moodle's downloaded grading worksheet (en or ru)."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    header = [c.strip() for c in rows[0]] if rows else []
    for language, strings in MOODLE_STRINGS.items():
        if strings["id"] in header and SUBMITTED[language] in header:
            ids, times = header.index(strings["id"]), header.index(SUBMITTED[language])
            prefix = strings["participant"].strip()
            found = {}
            for row in rows[1:]:
                when = moodle_time(row[times]) if len(row) > times else None
                student = row[ids].strip()[len(prefix) :].strip() if len(row) > ids else ""
                if when and student.isdigit():
                    found[student] = when
            return found
    raise ValueError(
        f"{path}: not a Moodle grading worksheet (no Identifier and Last modified (submission) columns, en or ru)"
    )


@dataclass
class Late:
    student: str
    submitted: datetime
    days: int  # started days after the due date


def late_students(times: dict[str, datetime], due: datetime) -> list[Late]:
    return [Late(s, t, math.ceil((t - due).total_seconds() / 86400)) for s, t in sorted(times.items()) if t > due]
