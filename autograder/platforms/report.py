"""What grading produces: grades.csv, the grade table, and a per-test report."""

import csv
import json
import re
from dataclasses import asdict
from pathlib import Path

from ..notebook.results import BROKEN, ERROR, GRADED, MISSING, Result, safe_text

CSV_FIELDS = ["student_id", "notebook", "score", "max_score", "status", "message"]


# control characters (ESC sequences, \r, backspace, C1) and bidi overrides, but not newline or tab
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_text(text) -> str:
    """`text` safe to print: a control character shows as its escape (\\x1b), so a failure message or a
    student's name cannot move the cursor, recolour a line, fake «ок … 2/2» or set the window title."""
    return CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


def say(*lines: str) -> None:
    """Print to the terminal: text only, never a control sequence from a submission."""
    print(*(terminal_text(line) for line in lines), sep="\n", flush=True)


# -- every CSV is safe to open in a spreadsheet (OWASP's CSV-injection rule, docs/grading.md) -------
# A formula sign (ASCII or full width) after any leading quotes and whitespace — a spreadsheet that
# trims a cell on import, or reads a full-width sign as its half-width one, would run it — and a
# leading tab, CR or NUL (OWASP, ASVS 1.2.10). Zero-width characters count as whitespace here.
FORMULA = re.compile("^['\\s\u200b-\u200d\u2060\ufeff]*[=+\\-@\uff1d\uff0b\uff0d\uff20]|^'*[\t\r\x00]")
NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
PLAIN = {"-"}  # Moodle's "no date": a lone sign is text in every spreadsheet


def formula_like(text: str) -> bool:
    """Whether a spreadsheet could read `text` as a formula (numbers and a lone "-" are not)."""
    return bool(FORMULA.match(text)) and not NUMBER.fullmatch(text) and text not in PLAIN


def spreadsheet_cell(value):
    """A CSV cell as a spreadsheet must show it: a text a spreadsheet could run as a formula
    (`formula_like`) gets a leading ' — the spreadsheets' "this is text" mark — so a student's name
    such as =HYPERLINK(…) is shown, never run. Numbers stay numbers; `from_spreadsheet_cell` undoes it."""
    if isinstance(value, (int, float)):
        return value
    text = str(value)
    return "'" + text if formula_like(text) else text


def from_spreadsheet_cell(text: str) -> str:
    """The value `spreadsheet_cell` was given (for the files the grader reads back, e.g. roster.csv)."""
    return text[1:] if text.startswith("'") and formula_like(text[1:]) else text


class csv_writer:  # noqa: N801 - used as csv.writer is
    """csv.writer whose every cell goes through `spreadsheet_cell`: the one way the grader writes CSV."""

    def __init__(self, f):
        self.writer = csv.writer(f)

    def writerow(self, row):
        return self.writer.writerow([spreadsheet_cell(cell) for cell in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def points(x: float) -> str:
    return f"{x:g}"


def write_grades_csv(results: list[Result], path: Path) -> Path:
    """One row per student and notebook, in the order graded."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv_writer(f)
        writer.writerow(CSV_FIELDS)
        for r in results:
            writer.writerow(
                [r.student, r.notebook, points(r.score), points(r.max_score), r.status, r.message.replace("\n", " | ")]
            )
    return path


# the worst status of a student's notebooks is the student's status in the wide table
SEVERITY = {GRADED: 0, MISSING: 1, BROKEN: 2, ERROR: 3}


def student_status(results: list[Result]) -> str:
    """graded, missing, broken or error — the worst of a student's notebooks, with the notebooks."""
    worst = max((r.status for r in results), key=lambda s: SEVERITY.get(s, 3), default=GRADED)
    if worst == GRADED:
        return GRADED
    return f"{worst}: " + ", ".join(r.notebook.split("_")[0] for r in results if r.status == worst)


def by_student(results: list[Result]) -> dict[str, list[Result]]:
    students: dict[str, list[Result]] = {}
    for r in results:
        students.setdefault(r.student, []).append(r)
    return students


def write_wide_csv(results: list[Result], notebooks: list[str], path: Path, pending=(), penalties=None) -> Path:
    """One row per student, one column per notebook, the total, and a status column so that a
    notebook that could not be graded — or is not graded yet (`pending`, after an interrupted
    run) — is never hidden behind a number; then the late policy (`penalties`: (student, notebook) →
    platforms.late.Penalty): the total after it (`late_total`) and why (`late`, per notebook)."""
    from .late import penalised_total, short

    penalties = penalties or {}
    waiting: dict[str, list[str]] = {}
    for student, notebook in pending:
        waiting.setdefault(student, []).append(notebook.split("_")[0])
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv_writer(f)
        writer.writerow(["student_id", *notebooks, "total", "max_total", "status", "late_total", "late", "extra"])
        for student, rows in by_student(results).items():
            scores = {r.notebook: r.score for r in rows}
            late = [(n, p) for (s, n), p in penalties.items() if s == student]
            writer.writerow(
                [
                    student,
                    *(
                        "" if n.split("_")[0] in waiting.get(student, ()) else points(scores.get(n, 0))
                        for n in notebooks
                    ),
                    points(sum(scores.values())),
                    points(sum(r.max_score for r in rows)),
                    f"not graded yet: {', '.join(waiting[student])}" if student in waiting else student_status(rows),
                    points(penalised_total(rows, penalties)) if late else "",
                    " | ".join(f"{short(n)}: {p.reason_en()}" for n, p in sorted(late)),
                    points(sum(r.extra for r in rows)),  # deep-dives' points: outside total and max_total
                ]
            )
        for student in sorted(set(waiting) - {r.student for r in results}):
            writer.writerow(
                [student, *("" for _ in notebooks), "", "", f"not graded yet: {', '.join(waiting[student])}"]
                + ["", "", ""]  # late_total, late, extra
            )
    return path


def read_roster(folder: Path) -> dict[str, str]:
    """student_id → name, from FOLDER/roster.csv ({} without one)."""
    try:
        with open(Path(folder) / "roster.csv", newline="", encoding="utf-8") as f:
            return {
                from_spreadsheet_cell(row["student_id"]): from_spreadsheet_cell(row["name"])
                for row in csv.DictReader(f)
            }
    except (OSError, KeyError):
        return {}


def write_roster(names: dict[str, str], folder: Path) -> Path:
    path = Path(folder) / "roster.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv_writer(f).writerows(
            [("student_id", "name"), *sorted((safe_text(k), safe_text(v)) for k, v in names.items())]
        )
    return path


# -- grades in the learning platforms' own import formats -----------------------------------------
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def feedback_comment(rows: list[Result]) -> str:
    """A line for the student: points per notebook (in Russian), and what went wrong, if anything."""
    parts = []
    for r in rows:
        note = {MISSING: " (не сдан)", BROKEN: " (файл не читается)", ERROR: " (не удалось проверить)"}.get(
            r.status, ""
        )
        extra = f" + {points(r.extra)} дополнительно" if r.extra else ""
        parts.append(f"{r.notebook}: {points(r.score)} из {points(r.max_score)}{extra}{note}")
    return "; ".join(parts)


def canvas_grades(results: list[Result], late: dict | None = None) -> dict[str, float]:
    """Each student's total for Canvas; `late`: (student, notebook) → platforms.late.Penalty."""
    from .late import penalised_total

    return {student: penalised_total(rows, late or {}) for student, rows in by_student(results).items()}


def write_canvas_import(
    results: list[Result],
    roster: dict[str, str],
    assignment: str,
    path: Path,
    late: dict | None = None,
    people: dict[str, dict[str, str]] | None = None,
    keep: dict[str, str] | None = None,
) -> Path:
    """Canvas's gradebook import: Student, ID (the Canvas user id), SIS User ID, SIS Login ID, Section,
    then one column for the assignment (its points possible in the second row). `late`: (student,
    notebook) → platforms.late.Penalty, applied to the total (for uploads Canvas never saw).
    `people`: the gradebook export's rows by id (`lms.read_canvas_gradebook`), whose Student, SIS and
    Section cells are written as Canvas wrote them; `keep`: student → a grade entered by hand in
    Canvas, written back as it is (so Canvas's import changes nothing for them)."""
    maximum = max((sum(r.max_score for r in rows) for rows in by_student(results).values()), default=0)
    people, keep = people or {}, keep or {}
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv_writer(f)
        writer.writerow([*CANVAS_COLUMNS, assignment])
        writer.writerow(["    Points Possible", "", "", "", "", points(maximum)])
        for student, grade in canvas_grades(results, late).items():
            known = people.get(student, {})
            name = known.get("Student") or safe_text(roster.get(student, student))
            sis = [known.get(key, "") for key in CANVAS_COLUMNS[2:]]
            writer.writerow([name, student, *sis, keep.get(student, points(grade))])
    return path


def write_results_json(results: list[Result], path: Path) -> Path:
    """Everything known about each graded notebook, test by test, for scripts and tools."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([asdict(r) for r in results], ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def grade_table(
    results: list[Result], notebooks: list[str], names: dict[str, str] | None = None, penalties: dict | None = None
) -> str:
    """Students × notebooks, points / max, with a total column and a note for non-graded cells;
    each student with their name when the roster has it. A late notebook (`penalties`: (student,
    notebook) → platforms.late.Penalty) shows the part its penalty takes («−20%», «late, waived»,
    «late, no penalty», «extended»), and the total the points after it («→ 26.4»); the reasons are listed under it."""
    from .late import penalised_total

    penalties = penalties or {}
    by_key = {(r.student, r.notebook): r for r in results}
    students = list(dict.fromkeys(r.student for r in results))
    header = ["student", *notebooks, "total"]
    label = lambda s: f"{s} {names[s]}" if names and names.get(s) and names[s] != s else s
    rows = []
    for s in students:
        cells, total, total_max = [], 0.0, 0.0
        for n in notebooks:
            r = by_key.get((s, n))
            if r is None:
                cells.append("")
                continue
            note = "" if r.status == GRADED else f" ({r.status})"
            p = penalties.get((s, n))
            if p and p.fraction:
                note += f" −{p.fraction * 100:g}%"
            elif p and p.days > 0:
                note += " late, waived" if p.waived else " late, no penalty"
            elif p and p.extended:
                note += " extended"
            cells.append(f"{points(r.score)}/{points(r.max_score)}{note}")
            total += r.score
            total_max += r.max_score
        mine = [r for r in results if r.student == s and r.notebook in notebooks]
        after = penalised_total(mine, penalties)
        late = (
            f" → {points(after)}"
            if any((s, r.notebook) in penalties for r in mine) and after != round(total, 2)
            else ""
        )
        rows.append([label(s), *cells, f"{points(total)}/{points(total_max)}{late}"])
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    line = lambda row: "  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def test_report(result: Result) -> str:
    """Each test of one notebook with its points and, if it failed, why (for a student: in Russian)."""
    status = {"graded": "проверен", "broken": "файл не читается", "error": "не удалось проверить"}.get(
        result.status, result.status
    )
    extra = f" + {points(result.extra)} дополнительно (из {points(result.extra_max)})" if result.extra else ""
    lines = [f"{result.notebook}: {points(result.score)} из {points(result.max_score)}{extra} ({status})"]
    if result.status != GRADED:
        lines.append("  " + result.message)
    for t in result.tests:
        mark = "ок  " if t.score >= t.max_score else "доп " if t.optional else "НЕТ "
        optional = "  (по желанию: дополнительно)" if t.optional else ""
        lines.append(f"  {mark} {t.name}  {points(t.score)}/{points(t.max_score)}{optional}")
        if t.message and t.score < t.max_score:
            lines.extend("         " + m for m in t.message.splitlines())
    return "\n".join(lines)
