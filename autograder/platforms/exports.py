"""The class's grades in the learning platforms' own import files: one plugin per platform.

An export is a small class (Otter-Grader's plugins are the model): its `name` (what `--export`
says), the `files` it writes into OUT, `prepare` (check and complete the settings it needs before
any grading starts: a bad one is a ValueError with the reason) and `write` (the files, from one
`Job`). `write_exports` runs the chosen ones after a run: an export the assignment no longer has
loses its files (never left stale), and a run that did not grade everything writes only
`*.partial.csv`, with a warning. A new platform is one class here, registered with `register`.

A final export remembers the grades it wrote (OUT/lms_exported.json, per activity); on a rerun, a
grade in the LMS's own file (Moodle's worksheet, Canvas's gradebook export) that differs from it
was entered by hand: `keep_hand_grades` lists it with both values and the export writes it back
as the LMS had it, unless `overwrite_hand_grades` (--overwrite-hand-grades) is set.
"""

import csv
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

from . import lms as lms_files
from .report import by_student, canvas_grades, points, say, write_canvas_import


@dataclass(frozen=True)
class ExportSettings:
    """What the exports are told about the assignment (all optional)."""

    language: str = ""  # Moodle's interface language ("" → the worksheet's, else the default, said loudly)
    worksheet: lms_files.Worksheet | None = None  # Moodle's grading worksheet as downloaded
    late: dict = field(default_factory=dict)  # (student, notebook) → platforms.late.Penalty, the late policy
    late_in_canvas: bool = False  # the penalty in Canvas's import too (the server's uploads: Canvas never saw them)
    column: str = ""  # Canvas's gradebook column, "Title (id)"
    gradebook: str = ""  # Canvas's gradebook export the column is read from
    overwrite_hand_grades: bool = False  # replace grades entered by hand in the LMS since our last export


@dataclass
class Job:
    """One run's grades, for the exports."""

    outcome: object  # autograder.classroom.outputs.Outcome: results, roster, complete, pending
    out: Path
    settings: ExportSettings
    tell: Callable[..., None] = say

    @property
    def final(self) -> bool:
        return self.outcome.complete

    def path(self, name: str) -> Path:
        """Where an upload file goes: its name, or `*.partial.csv` while the run is incomplete (the
        other one removed: an older final file would no longer be the truth)."""
        final, partial = self.out / name, (self.out / name).with_suffix(".partial.csv")
        (partial if self.final else final).unlink(missing_ok=True)
        return final if self.final else partial


class Export:
    """A platform's import files (see the module's docstring)."""

    name: ClassVar[str] = ""
    files: ClassVar[tuple[str, ...]] = ()

    def prepare(self, settings: ExportSettings) -> ExportSettings:
        return settings

    def write(self, job: Job) -> None:
        raise NotImplementedError

    def remove(self, out: Path) -> None:
        for name in self.files:
            (out / name).unlink(missing_ok=True)
            (out / name).with_suffix(".partial.csv").unlink(missing_ok=True)


EXPORTS: dict[str, Export] = {}


def register(export: type[Export]) -> type[Export]:
    EXPORTS[export.name] = export()
    return export


def prepare_exports(kinds: list[str] | None, settings: ExportSettings) -> ExportSettings:
    """The settings completed by each chosen export; ValueError for one that cannot work."""
    for kind in dict.fromkeys(kinds or []):
        if kind not in EXPORTS:
            raise ValueError(f"--export {kind}: no such export (one of: {', '.join(EXPORTS)})")
        settings = EXPORTS[kind].prepare(settings)
    return settings


def write_exports(kinds: list[str] | None, job: Job) -> None:
    """Write the chosen exports of a run, remove the files of the others."""
    for kind, export in EXPORTS.items():
        if kind not in (kinds or []):
            export.remove(job.out)
    if not kinds:
        return
    if not job.final:
        pending = job.outcome.pending
        job.tell(
            "",
            "!" * 78,
            "WARNING: not every submitted notebook is graded yet (interrupted, or not reached):",
            "  " + ", ".join(f"{s}/{n.split('_')[0]}" for s, n in pending[:20]) + (" …" if len(pending) > 20 else ""),
            "The upload files below are PARTIAL (*.partial.csv): do not upload them. Run the same command",
            "again to grade the rest; then the final files are written.",
            "!" * 78,
            "",
        )
    for kind in dict.fromkeys(kinds):
        EXPORTS[kind].write(job)


OVERWRITE_OPTION = "--overwrite-hand-grades"


def keep_hand_grades(
    job: Job, activity: str, in_lms: dict[str, str], ours: dict[str, float], lms: str, names: dict[str, str]
) -> set[str]:
    """The students whose grade in the LMS was entered by hand since the grader's last export of
    `activity` (`lms_files.hand_grades`), each listed with both values: kept, unless the settings say
    to overwrite them (then listed as replaced). Returns the students to keep."""
    found = lms_files.hand_grades(in_lms, lms_files.read_exported(job.out).get(activity, {}), ours)
    if not found:
        return set()
    overwrite = job.settings.overwrite_hand_grades
    job.tell(
        f"  {len(found)} grade(s) entered by hand in {lms} since the grader's last upload "
        + (
            f"are REPLACED ({OVERWRITE_OPTION}):"
            if overwrite
            else f"are KEPT (the upload leaves them alone; {OVERWRITE_OPTION} replaces them):"
        ),
        *(
            f"    {h.student} {names.get(h.student, '')}: {lms} {h.in_lms.strip()}, the grader {points(h.ours)}"
            for h in found
        ),
    )
    return set() if overwrite else {h.student for h in found}


def remember_exported(job: Job, activity: str, ours: dict[str, float], kept: set[str]) -> None:
    """After a final export: the grades the upload carries, except the kept hand grades (so they stay
    the instructor's on the next rerun too)."""
    if job.final:
        lms_files.record_exported(job.out, activity, {s: g for s, g in ours.items() if s not in kept})


def lms_platform(out: Path) -> str:
    """The platform whose zip the class came from (OUT/lms.txt, written when it was unpacked)."""
    try:
        return (out / "lms.txt").read_text(encoding="utf-8").strip()
    except OSError:
        return ""


@register
class MoodleExport(Export):
    """Moodle's grading worksheet (Upload grading worksheet) and the feedback pages' zip (Upload
    multiple feedback files in a zip)."""

    name = "moodle"
    WORKSHEET, FEEDBACK_ZIP = "moodle_grading_worksheet.csv", "moodle_feedback_files.zip"
    files = (WORKSHEET, FEEDBACK_ZIP)

    def language(self, job: Job) -> str:
        """The worksheet's language when there is one; else the one asked for, else the default — said loudly."""
        language, worksheet = job.settings.language, job.settings.worksheet
        if worksheet:
            if language and language != worksheet.language:
                job.tell(f"note: --lms-language {language} ignored: Moodle's worksheet is in {worksheet.language}")
            return worksheet.language
        if language:
            return language
        job.tell(
            "",
            "!" * 78,
            f"The Moodle worksheet is written with {lms_files.DEFAULT_LANGUAGE} column names (the default). Moodle",
            "reads it only in a Moodle whose interface is in that language: for another, give the grading",
            "worksheet you downloaded from Moodle (--worksheet FILE) or --lms-language ru.",
            "!" * 78,
        )
        return lms_files.DEFAULT_LANGUAGE

    def write(self, job: Job) -> None:
        results, roster, worksheet = job.outcome.results, job.outcome.roster, job.settings.worksheet
        path, language = job.path(self.WORKSHEET), self.language(job)
        late = job.settings.late
        ours = {s: lms_files.student_grade(rows, late, s)[0] for s, rows in by_student(results).items()}
        kept: set[str] = set()
        if worksheet:
            job.tell(
                f"moodle upload: {path} (Moodle's worksheet with the new grades: its {language} header, ids, "
                "names and Last modified (grade) as Moodle wrote them, the time in a form Moodle's importer "
                "reads; a grade changed in Moodle since stays)"
            )
            grade_at = worksheet.column("grade")
            in_moodle = {pid: row[grade_at] for pid, row in worksheet.rows.items()}
            graded = {s: g for s, g in ours.items() if s in in_moodle}
            kept = keep_hand_grades(job, self.name, in_moodle, graded, "Moodle", {**roster, **worksheet.names()})
            left_out = sorted({r.student for r in results} - set(worksheet.rows))
            if left_out:
                job.tell(f"  WARNING: not in the worksheet, so not in the upload: {', '.join(left_out)}")
        else:
            job.tell(f"moodle upload ({language} interface): {path}")
        lms_files.write_moodle_worksheet(results, roster, path, language, late=late, worksheet=worksheet, keep=kept)
        remember_exported(job, self.name, {s: g for s, g in ours.items() if not worksheet or s in worksheet.rows}, kept)
        job.tell(
            f"  set the assignment's maximum grade in Moodle to {lms_files.course_total(results):g} "
            "(Moodle skips grades above the maximum)",
        )
        if job.final and (job.out / "feedback").is_dir():
            students = sorted({r.student for r in results})
            zipped, count = lms_files.write_moodle_feedback_zip(
                job.out / "feedback", roster, students, job.out / self.FEEDBACK_ZIP
            )
            job.tell(f"moodle feedback files ({count} pages; Upload multiple feedback files in a zip): {zipped}")


CANVAS_COLUMN_NEEDED = (
    "Canvas fills an existing assignment only when the column names it: give --gradebook "
    "(Canvas's gradebook export: Grades → Export) or --assignment 'Homework 1 (123456)' "
    "(otherwise Canvas would create a new assignment)"
)
CANVAS_ASSIGNMENT = re.compile(r".+ \(\d+\)$")  # Canvas's export names an assignment's column "Title (id)"


def canvas_column(gradebook: str | None, assignment: str) -> str:
    """The Canvas gradebook column to fill: one of the gradebook export's assignment columns (the
    one --assignment names, by its whole header or its title; the only one, if there is one), or
    --assignment as given. ValueError with the reason otherwise."""
    if not gradebook:
        return assignment
    with open(gradebook, newline="", encoding="utf-8-sig") as f:
        header = [c.strip() for c in next(csv.reader(f), [])]
    if header[:2] != ["Student", "ID"]:
        raise ValueError(f"--gradebook {gradebook}: not a Canvas gradebook export (its first columns: Student, ID)")
    columns = [c for c in header if CANVAS_ASSIGNMENT.match(c)]
    if assignment:
        chosen = [c for c in columns if assignment in (c, c.rsplit(" (", 1)[0])]
        if len(chosen) == 1:
            return chosen[0]
        raise ValueError(f"--assignment {assignment!r} is not one assignment of {gradebook}: {', '.join(columns)}")
    if len(columns) == 1:
        return columns[0]
    raise ValueError(
        f"{gradebook} has {len(columns)} assignments; say which with --assignment: {', '.join(columns) or 'none'}"
    )


@register
class CanvasExport(Export):
    """Canvas's gradebook import (Grades → Import): one column, the existing assignment's."""

    name = "canvas"
    IMPORT = "canvas_grades_import.csv"
    files = (IMPORT,)

    def prepare(self, settings: ExportSettings) -> ExportSettings:
        column = canvas_column(settings.gradebook, settings.column)
        if not column:
            raise ValueError(f"--export canvas: {CANVAS_COLUMN_NEEDED}")
        return replace(settings, column=column)

    def write(self, job: Job) -> None:
        if lms_platform(job.out) == "moodle":
            job.tell("WARNING: these ids come from a Moodle export (participant ids): Canvas will not match them.")
        path = job.path(self.IMPORT)
        if not job.settings.column:
            path.unlink(missing_ok=True)
            job.tell(f"canvas upload NOT written: {CANVAS_COLUMN_NEEDED}")
            return
        late = job.settings.late if job.settings.late_in_canvas else None
        activity, column = f"canvas {job.settings.column}", job.settings.column
        ours = canvas_grades(job.outcome.results, late)
        people = lms_files.read_canvas_gradebook(Path(job.settings.gradebook), column) if job.settings.gradebook else {}
        job.tell(f"canvas upload: {path} (points possible: {lms_files.course_total(job.outcome.results):g})")
        in_canvas = {student: row.get(column, "") for student, row in people.items()}
        names = {**job.outcome.roster, **{s: row["Student"] for s, row in people.items() if row["Student"]}}
        kept = keep_hand_grades(job, activity, in_canvas, ours, "Canvas", names)
        keep = {student: in_canvas[student] for student in kept}
        write_canvas_import(job.outcome.results, job.outcome.roster, column, path, late, people=people, keep=keep)
        remember_exported(job, activity, ours, kept)
