"""A class's output folder: what a run produced (`Outcome`), written as files; shard folders merged.

`write_outputs` writes OUT/grades.csv, grades_wide.csv, results.json, problems.json, grading.json and
the feedback pages (autograder.platforms.report holds the formats); a file that cannot be written is
reported with the problems and the others are still written. `merge_outputs` reads the output
folders of shard runs back (results.json, problems.json, grading.json, roster.csv, feedback/) and
writes exactly the files one run would have written; `merge_gradebook` records the merged class in
one nbgrader gradebook.
"""

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..course.course import PreparedCourse
from ..notebook.feedback import instructor_view, with_penalty
from ..notebook.results import BROKEN, GRADED, MISSING, NOT_GRADED, Result, result_from_dict, safe_strings, safe_text
from ..platforms.report import read_roster, write_grades_csv, write_results_json, write_roster, write_wide_csv
from ..platforms.submissions import Problem
from . import gradebook


@dataclass
class Outcome:
    """What grading (or merging) a class produced: every result known, and what went wrong."""

    results: list[Result] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # files that could not be used, outputs not written
    seconds: float = 0.0
    interrupted: bool = False
    from_cache: int = 0  # results reused from the cache
    graded_now: int = 0  # results this run produced (graded, broken or error)
    notebooks: list[str] = field(default_factory=list)  # the notebooks graded (an assignment)
    pending: list[tuple[str, str]] = field(default_factory=list)  # (student, notebook) submitted, not graded yet
    roster: dict[str, str] = field(default_factory=dict)  # student → name (OUT/roster.csv, read once)
    sources: dict[tuple[str, str], Path] = field(default_factory=dict)  # merged: (student, notebook) → its part
    penalties: dict = field(default_factory=dict)  # (student, notebook) → platforms.late.Penalty

    @property
    def complete(self) -> bool:
        """Every submitted notebook has a result: only then are upload files final."""
        return not self.pending and not self.interrupted

    def count(self, *statuses: str) -> int:
        return sum(r.status in statuses for r in self.results)

    def summary(self) -> str:
        cached = f" ({self.from_cache} from earlier runs)" if self.from_cache else ""
        return (
            f"graded {self.count(GRADED)}: {self.graded_now} this run{cached}, "
            f"failed {self.count(*NOT_GRADED)}, missing {self.count(MISSING)}"
            f" notebooks in {self.seconds:.0f} s"
            + (" (interrupted: the rest is not graded yet)" if self.interrupted else "")
        )


def write_outputs(
    outcome: Outcome,
    notebooks: list[str],
    out: Path,
    html: dict | None = None,
    settings: dict | None = None,
    work: Path | None = None,
) -> None:
    """Every output file; one that cannot be written is reported (a problem, printed with the others) and the
    others are still written (problems.json last, so that it lists the rest)."""
    out.mkdir(parents=True, exist_ok=True)
    if html is not None and outcome.penalties:  # the late policy on each page it touches (never cached in it)
        scores = {(r.student, r.notebook): r.score for r in outcome.results}
        html = {key: with_penalty(page, outcome.penalties.get(key), scores.get(key)) for key, page in html.items()}
    pages = [
        (out / "feedback" / student / f"{name}.html", page)
        for (student, name), page in (html or {}).items()
        if page is not None
    ]
    for path, page in pages:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(safe_text(page), encoding="utf-8")
        except (OSError, ValueError) as e:
            outcome.problems.append(
                Problem(
                    str(path.relative_to(out)),
                    path.parent.name,
                    f"the feedback page could not be written: {type(e).__name__}: {e}",
                )
            )
    if html is not None:
        write_review_pages(outcome, html, out)
    writers = [
        (
            "grading.json",
            lambda p: p.write_text(
                json.dumps(grading_record(notebooks, settings, outcome.pending, work), indent=1), encoding="utf-8"
            ),
        ),
        ("grades.csv", lambda p: write_grades_csv(outcome.results, p)),
        (
            "grades_wide.csv",
            lambda p: write_wide_csv(outcome.results, notebooks, p, outcome.pending, outcome.penalties),
        ),
        ("results.json", lambda p: write_results_json(outcome.results, p)),
        (
            "problems.json",
            lambda p: p.write_text(
                json.dumps(safe_strings(problem_rows(outcome)), ensure_ascii=False, indent=1), encoding="utf-8"
            ),
        ),
    ]
    for name, write in writers:
        try:
            write(out / name)
        except (OSError, ValueError) as e:  # listed with the problems; the other files are written
            outcome.problems.append(Problem(name, "", f"could not be written: {type(e).__name__}: {e}"))


def write_review_pages(outcome: Outcome, html: dict, out: Path) -> None:
    """OUT/review/<student>/<notebook>.html: the feedback page's instructor view (autograder.notebook.feedback)
    of every result with something For review — outside feedback/, so never zipped for the students; one whose
    result has nothing to review any more is removed."""
    for r in outcome.results:
        path = out / "review" / r.student / f"{r.notebook}.html"
        try:
            if r.review and html.get((r.student, r.notebook)):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(safe_text(instructor_view(html[r.student, r.notebook], r)), encoding="utf-8")
            else:
                path.unlink(missing_ok=True)
        except (OSError, ValueError) as e:
            outcome.problems.append(
                Problem(str(path.relative_to(out)), r.student, f"the review page could not be written: {e}")
            )


def grading_record(
    notebooks: list[str], settings: dict | None, pending: list | None = None, work: Path | None = None
) -> dict:
    """grading.json: the notebooks graded, those submitted but not graded yet, the work folder and the
    settings they were graded under."""
    return {
        "notebooks": notebooks,
        "pending": pending or [],
        **({"work": str(work)} if work else {}),
        **({"settings": settings} if settings is not None else {}),
    }


def problem_rows(outcome: Outcome) -> list[dict]:
    """Everything that went wrong, one row each: files that could not be used, notebooks that could
    not be graded, feedback pages that could not be made (the keys of grades.csv where they apply)."""
    rows = [
        {"file": p.file, "student_id": p.student_id, "notebook": "", "problem": p.problem} for p in outcome.problems
    ]
    for r in outcome.results:
        if r.status in NOT_GRADED:
            rows.append(
                {
                    "file": f"{r.student}/{r.notebook}.ipynb",
                    "student_id": r.student,
                    "notebook": r.notebook,
                    "problem": f"{r.status}: {r.message}",
                }
            )
        if r.feedback_error:
            rows.append(
                {
                    "file": f"{r.student}/{r.notebook}.ipynb",
                    "student_id": r.student,
                    "notebook": r.notebook,
                    "problem": r.feedback_error,
                }
            )
    return rows


def grading_json(part: Path) -> dict:
    """An output folder's grading.json ({} if it has none: folders written before it existed)."""
    try:
        data = json.loads((part / "grading.json").read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def merge_outputs(parts: list[Path], out: Path, course: list[str]) -> Outcome:
    """Combine the output folders of shard runs into the files one run would have written (each
    part's files read once; a notebook in two parts is the later part's)."""
    records = {part: grading_json(part) for part in parts}
    chosen = {n for record in records.values() for n in record.get("notebooks") or course}  # before grading.json: all
    notebooks = [n for n in course if n in chosen]
    outcome, results = Outcome(notebooks=notebooks), {}
    for part in parts:
        for r in map(result_from_dict, json.loads((part / "results.json").read_text(encoding="utf-8"))):
            results[r.student, r.notebook] = r
            outcome.sources[r.student, r.notebook] = part
        problems = part / "problems.json"
        if problems.exists():
            for row in json.loads(problems.read_text(encoding="utf-8")):
                if isinstance(row, dict) and not row.get("notebook"):  # the others come back with the results
                    problem = Problem(row.get("file", ""), row.get("student_id", ""), row.get("problem", ""))
                    if problem not in outcome.problems:
                        outcome.problems.append(problem)
        outcome.roster.update(read_roster(part))
        outcome.pending += [tuple(p) for p in records[part].get("pending", [])]
        if (part / "lms.txt").is_file() and part.resolve() != out.resolve():
            out.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(part / "lms.txt", out / "lms.txt")
        for folder in ("feedback", "review"):
            if (part / folder).is_dir() and part.resolve() != out.resolve():
                shutil.copytree(part / folder, out / folder, dirs_exist_ok=True)
    outcome.results = sorted(
        results.values(),
        key=lambda r: (r.student, notebooks.index(r.notebook) if r.notebook in notebooks else len(notebooks)),
    )
    settings = [record.get("settings") for record in records.values()]
    write_outputs(
        outcome, notebooks, out, settings=settings[0] if settings and all(s == settings[0] for s in settings) else None
    )
    if outcome.roster:
        write_roster(outcome.roster, out)
    return outcome


def merge_gradebook(parts: list[Path], outcome: Outcome, course_root: Path) -> int:
    """The merged class in one gradebook (formgrader, `nbgrader export`): each result with the
    autograded notebook from its part's work folder (grading.json's `work`, else PART/work)."""
    works = {part: Path(grading_json(part).get("work") or part / "work") for part in parts}
    course = PreparedCourse(course_root)
    gradebook.keep_assignments(course_root, outcome.notebooks, course.generate_assignments)
    lessons = {name: gradebook.lesson_texts(course.notebook(name).release) for name in outcome.notebooks}
    recorded = 0
    for result in outcome.results:
        part = outcome.sources.get((result.student, result.notebook))
        if part not in works or result.status not in (GRADED, BROKEN):
            continue
        path = works[part] / "course" / "autograded" / result.student / result.notebook / f"{result.notebook}.ipynb"
        notebook = nbformat.read(str(path), as_version=4) if result.status == GRADED and path.is_file() else None
        gradebook.record(
            course_root,
            result,
            notebook,
            name=outcome.roster.get(result.student, ""),
            lesson=lessons.get(result.notebook, frozenset()),
        )
        recorded += 1
    return recorded
