"""Late submissions: reported from the LMS's own submission times, a penalty only when asked.

Moodle's zip carries no submission times; its grading worksheet (downloaded from the same page:
*Download grading worksheet*) has *Last modified (submission)* per participant, in the Moodle
user's date format and language (en: "Tuesday, 1 December 2026, 11:59 PM", ru: "вторник,
1 декабря 2026, 23:59"), in the Moodle's time zone — so the due date is given in that zone too.
Canvas applies its own late policy in its gradebook; its export is not penalised by `grade`.

The late policy (`LatePolicy`): the due date, `percent` of a notebook's points per started day late
(nbgrader's late-submission plugin idea; never below 0; None: late work reported only), the
submission times — one per student from Moodle's worksheet (that time then counts for all the
student's notebooks, and every page says which), or one per file (a CSV student_id,notebook,submitted;
the course server's uploads) — and the extensions file (student,due,note: a new due date, or `waive`).
`LatePolicy.penalties` computes one `Penalty` per (student, notebook) once; every output shows it
(grades.csv keeps the raw points).
"""

import csv
import math
import re
from dataclasses import dataclass, field
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


# -- the late policy: one Penalty per (student, notebook), from the due date, the extensions and the times --
WAIVE = {"waive", "waived", "снять"}


@dataclass(frozen=True)
class Extension:
    """A row of the extensions file: the student's own due date, or the penalty waived (due None)."""

    student: str
    due: datetime | None
    note: str = ""


@dataclass(frozen=True)
class Penalty:
    """What the late policy did to one (student, notebook): computed once (`LatePolicy.penalties`) and
    shown wherever its grade is (the terminal table, grades_wide.csv, the feedback and review pages, the
    item analysis, the exports, the course server's pages)."""

    student: str
    notebook: str
    due: datetime  # the student's due date (an extension moves it)
    submitted: datetime | None
    days: int  # started days after `due` (0: on time)
    percent: float | None  # per started day (None: reported only)
    extended: bool = False  # `due` is the student's extension
    waived: bool = False
    note: str = ""  # the extension's or the waiver's note
    shared: tuple[str, ...] = ()  # one time for the student (Moodle): the notebooks it was applied to

    @property
    def fraction(self) -> float:
        """The part of the notebook's points taken: percent × days, at most all of them."""
        if self.waived or not self.percent or self.days <= 0:
            return 0.0
        return min(1.0, self.percent / 100 * self.days)

    def apply(self, score: float) -> float:
        return max(0.0, round(score * (1 - self.fraction), 2))

    def reason_ru(self) -> str:
        """For the student (the feedback page, Moodle's comment, the course server)."""
        parts = []
        note = f" ({self.note})" if self.note else ""
        if self.extended:
            parts.append(f"Срок продлён до {self.due:%Y-%m-%d %H:%M}{note}.")
        if self.days > 0:
            when = f", сдано {self.submitted:%Y-%m-%d %H:%M}" if self.submitted else ""
            parts.append(f"Сдано с опозданием на {self.days} дн. (срок {self.due:%Y-%m-%d %H:%M}{when}).")
            if self.waived:
                parts.append(f"Штраф за опоздание снят{note}.")
            elif self.percent:
                parts.append(f"Штраф {self.percent:g}% за каждый начатый день: −{self.fraction * 100:g}% баллов.")
            else:
                parts.append("Штрафа нет.")
        elif self.waived:
            parts.append(f"Штраф за опоздание снят{note}.")
        if self.shared and self.days > 0:
            parts.append(
                "Время сдачи в системе одно на все блокноты студента, поэтому опоздание засчитано "
                f"всем: {', '.join(short(n) for n in self.shared)}."
            )
        return " ".join(parts)

    def reason_en(self) -> str:
        """For the instructor (the terminal, grades_wide.csv, the item analysis)."""
        parts = []
        note = f": {self.note}" if self.note else ""
        if self.extended:
            parts.append(f"extended to {self.due:%Y-%m-%d %H:%M}{note}")
        if self.days > 0:
            parts.append(f"{self.days} day(s) late")
            if self.waived:
                parts.append(f"penalty waived{note}")
            elif self.percent:
                parts.append(f"-{self.fraction * 100:g}% ({self.percent:g}%/day)")
            else:
                parts.append("no penalty (--late-penalty not given)")
        elif self.waived:
            parts.append(f"penalty waived{note}")
        if self.shared and self.days > 0:
            parts.append(f"one submission time for {', '.join(short(n) for n in self.shared)}")
        return "; ".join(parts)


def short(notebook: str) -> str:
    return notebook.split("_")[0]


def penalised_total(rows, penalties: dict) -> float:
    """A student's total with the late policy applied notebook by notebook (`rows`: their Results)."""
    total = 0.0
    for r in rows:
        p = penalties.get((r.student, r.notebook))
        total += r.score * (1 - p.fraction) if p else r.score
    return max(0.0, round(total, 2))


def parse_due(text: str, what: str = "--due") -> datetime:
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not a date and time such as '2026-12-01 23:59'") from None


def read_extensions(path: Path, say=print) -> dict[str, Extension]:
    """The extensions file: a CSV `student,due,note` (a header row is optional), `due` a new due date
    ('2026-12-05 23:59') or `waive` (no penalty). A bad row is said, naming its line, and left out; the
    rest is used. A student's later row replaces an earlier one."""
    found: dict[str, Extension] = {}
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    for number, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if number == 1 and cells[0].lower() in ("student", "student_id", "id"):
            continue  # the header
        problem = ""
        if len(cells) < 2 or not cells[0] or not cells[1]:
            problem = "expected student,due,note (due: a date such as 2026-12-05 23:59, or waive)"
        elif cells[1].lower() in WAIVE:
            found[cells[0]] = Extension(cells[0], None, ",".join(cells[2:]).strip())
        else:
            try:
                found[cells[0]] = Extension(cells[0], datetime.fromisoformat(cells[1]), ",".join(cells[2:]).strip())
            except ValueError:
                problem = f"{cells[1]!r} is neither a date such as 2026-12-05 23:59 nor waive"
        if problem:
            say(f"{path}: line {number} ({','.join(row)!r}) not used: {problem}")
    return found


def read_submission_times(path: Path, notebooks: list[str]) -> dict[tuple[str, str], datetime]:
    """(student, notebook) → when it was submitted; notebook "" when the file has one time per student
    (Moodle's grading worksheet). A CSV `student_id,notebook,submitted` gives one per file."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        header = [c.strip().lower() for c in next(csv.reader(f), [])]
    if header[:3] != ["student_id", "notebook", "submitted"]:
        return {(s, ""): t for s, t in moodle_submission_times(path).items()}
    times = {}
    with open(path, newline="", encoding="utf-8-sig") as f:
        for number, row in enumerate(csv.reader(f), start=1):
            if number == 1 or not any(c.strip() for c in row):
                continue
            student, notebook, when = (c.strip() for c in (row + ["", "", ""])[:3])
            match = [n for n in notebooks if n == notebook or short(n) == notebook.zfill(2)]
            if not (student and match):
                raise ValueError(
                    f"{path}: line {number}: no course notebook {notebook!r} (student_id,notebook,submitted)"
                )
            times[student, match[0]] = parse_due(when, f"{path}: line {number}")
    return times


@dataclass
class LatePolicy:
    """The due date, the penalty per started day (None: reported only), the submission times and the
    extensions; `penalties` applies them. One policy for `grade`, the course server and the exports."""

    due: datetime
    percent: float | None = None
    times: dict = field(default_factory=dict)  # (student, notebook or "") → submitted
    extensions: dict = field(default_factory=dict)  # student → Extension

    def penalty(self, student: str, notebook: str, submitted: datetime | None, shared=()) -> Penalty | None:
        """The Penalty of one notebook handed in at `submitted` (None when nothing is to be said)."""
        extension = self.extensions.get(student)
        due = extension.due if extension and extension.due else self.due
        days = math.ceil((submitted - due).total_seconds() / 86400) if submitted and submitted > due else 0
        if not extension and days == 0:
            return None
        return Penalty(
            student,
            notebook,
            due,
            submitted,
            days,
            self.percent,
            extended=bool(extension and extension.due),
            waived=bool(extension and extension.due is None),
            note=extension.note if extension else "",
            shared=tuple(shared),
        )

    def penalties(self, submitted: dict[str, list[str]]) -> dict[tuple[str, str], Penalty]:
        """(student, notebook) → Penalty, for each notebook handed in (`submitted`: student → its notebooks)
        that was late or whose student has an extension or a waiver."""
        found = {}
        for student, notebooks in sorted(submitted.items()):
            for notebook in notebooks:
                if (student, notebook) in self.times:
                    p = self.penalty(student, notebook, self.times[student, notebook])
                else:
                    p = self.penalty(student, notebook, self.times.get((student, "")), shared=notebooks)
                if p:
                    found[student, notebook] = p
        return found


def report(penalties: dict, say=print) -> None:
    """The late work on the terminal, one line per student and notebook."""
    if penalties:
        say("Late work and extensions (the penalty applies to the exports' grades and is shown on each page):")
        say(*(f"  {s}/{short(n)}: {p.reason_en()}" for (s, n), p in sorted(penalties.items())))
