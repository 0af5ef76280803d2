"""The grades of a class in nbgrader's own gradebook, so formgrader and `nbgrader export` see them.

One gradebook for the class: the prepared course directory's `gradebook.db`. Each course
notebook is its own nbgrader assignment (of one notebook, same name). A graded notebook becomes a
submission there with an automatic score per test cell — exactly what nbgrader's SaveAutoGrades
records — and its executed notebook (test cells with the grader's verdicts, passive outputs only) is
written once, with at most `NotebookGrader.max_notebook_output_chars` of outputs, where formgrader reads it,
`autograded/<student>/<assignment>/<notebook>.ipynb`, and linked as the submission (`submitted/…`), where
formgrader lists it. Only the grading process writes here, one notebook
at a time, so parallel workers never contend for the database.
"""

import json
import os
import re
import shutil
import unicodedata
import warnings
from datetime import datetime, timezone
from pathlib import Path

import nbformat

from ..course.course import PreparedCourse
from ..notebook.results import BROKEN, GRADED, Result, safe_strings

SAFE_OUTPUTS = ("text/plain", "image/png", "image/jpeg")  # shown as text, or decoded as an image


# what a name from the LMS may not bring into formgrader: control and format characters (bidi overrides and
# isolates, zero-width marks: they reorder or hide what the instructor reads), line and paragraph separators
UNSHOWN = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}
NAME_CHARS = 200


def shown_name(name) -> str:
    """A student's name (a value the student controls in the LMS) as formgrader may show it: without
    UNSHOWN characters, `<` and `>` as ‹ and › (formgrader's submission page puts the name into its HTML
    unescaped), runs of spaces as one, at most NAME_CHARS characters."""
    text = "".join(
        " " if ch.isspace() else ch for ch in str(name or "") if ch.isspace() or unicodedata.category(ch) not in UNSHOWN
    )
    return " ".join(text.translate({ord("<"): "‹", ord(">"): "›"}).split())[:NAME_CHARS].strip()


def split_name(name: str) -> tuple[str | None, str | None]:
    """(first name, last name) for formgrader's student list ("last, first"), from a name as the LMS gives
    it: "Last, First" (Moodle's full name in that format, Canvas's sortable name) at the first comma, else
    "First … Last" at the last space; a single word is the last name. Sanitised by `shown_name`."""
    text = shown_name(name)
    if "," in text:
        last, first = (part.strip() for part in text.split(",", 1))
        return (first or None, last or None) if first or last else (None, None)
    parts = text.split()
    return (" ".join(parts[:-1]) or None, parts[-1]) if parts else (None, None)


def placeholder(result: Result) -> nbformat.NotebookNode:
    """What formgrader shows for a notebook that could not be read: the reason."""
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(
                f"**{result.notebook}: 0 из {result.max_score:g} — файл не читается.**\n\n{result.message}"
            )
        ]
    )


def lesson_texts(release) -> frozenset[str]:
    """The course's own Markdown and raw cells of a released notebook: text the grader trusts."""
    return frozenset(cell.source for cell in release.cells if cell.cell_type != "code")


def review_notebook(notebook, lesson: frozenset[str] = frozenset()) -> nbformat.NotebookNode:
    """The notebook as an instructor may open it: passive outputs only, every string writable, and Markdown
    sanitised (formgrader's template does not) unless it is the course's own text (`lesson`), which keeps its
    `<details>` hints and code spans such as `<unk>` as the lesson shows them. (Its outputs were already cut
    to `NotebookGrader.max_notebook_output_chars` in all where it was graded: `NotebookGrader.for_review`.)"""
    from nbconvert.filters import clean_html

    nb = nbformat.from_dict(safe_strings(notebook))
    for cell in nb.cells:
        if cell.cell_type != "code" and cell.source not in lesson and re.search(r"<\s*[A-Za-z!/?]", cell.source):
            cell.source = clean_html(cell.source)
        for output in cell.get("outputs", []):
            data = output.get("data")
            if not isinstance(data, dict):
                continue
            dropped = sorted(k for k in data if k not in SAFE_OUTPUTS or not isinstance(data[k], (str, list)))
            for kind in dropped:
                del data[kind]
            if dropped and "text/plain" not in data:
                data["text/plain"] = f"[вывод {', '.join(dropped)} убран: он мог бы выполнить код при просмотре]"
            output["metadata"] = {}
        for name, bundle in list(cell.get("attachments", {}).items()):
            cell.attachments[name] = {k: v for k, v in bundle.items() if k in SAFE_OUTPUTS[1:]}
    return nb


def write_once(root: Path, student: str, assignment: str, text: str, timestamp: str) -> None:
    """The notebook for formgrader, written once: in autograded/, and in submitted/ as a hard link to that file
    (a copy only where the file system has no links)."""
    paths = [root / folder / student / assignment / f"{assignment}.ipynb" for folder in ("autograded", "submitted")]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
    written, linked = paths
    fresh = written.with_name(written.name + ".new")
    fresh.write_text(text, encoding="utf-8")
    os.replace(fresh, written)  # a new file: a link left by an earlier run is not written through
    try:
        fresh = linked.with_name(linked.name + ".new")
        fresh.unlink(missing_ok=True)
        os.link(written, fresh)
        os.replace(fresh, linked)
    except OSError:
        shutil.copyfile(written, linked)
    for path in paths:
        (path.parent / "timestamp.txt").write_text(timestamp, encoding="utf-8")


KEPT = "gradebook.kept.json"  # beside gradebook.db: the notebooks it was narrowed to, and the file as it was left


def gradebook_state(course_root: Path, wanted: list[str]) -> list:
    """What keep_assignments' work depends on: the notebooks wanted, gradebook.db as it is now and the
    assignments formgrader lists (the folders of source/)."""
    try:
        stat = (Path(course_root) / "gradebook.db").stat()
        listed = sorted(p.name for p in (Path(course_root) / "source").iterdir())
    except OSError:
        return [sorted(wanted), None]
    return [sorted(wanted), [stat.st_ino, stat.st_size, stat.st_mtime_ns], listed]


def remember_kept(course_root: Path, wanted: list[str]) -> None:
    """Say the gradebook holds just `wanted` as it is now (after a run that narrowed it and recorded its
    grades): a rerun that finds it so skips keep_assignments, and nbgrader's second of imports with it."""
    (Path(course_root) / KEPT).write_text(json.dumps(gradebook_state(course_root, wanted)), encoding="utf-8")


NAMED = "gradebook.names.json"  # beside gradebook.db: the roster's names as it last gave them to the gradebook


def name_students(course_root: Path, names: dict[str, str]) -> None:
    """The gradebook's students named as the roster names them now: a student graded in an earlier run
    (whose result comes from the cache, so `record` does not see it again) gets the name a later run's
    roster gives — Moodle's worksheet given only on the rerun, a name changed in the LMS. Nothing is
    opened (nor nbgrader imported) when the roster is as it was last time."""
    path = Path(course_root) / NAMED
    try:
        given = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        given = {}
    changed = {student: name for student, name in names.items() if given.get(student) != name}
    if not changed:
        return
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{Path(course_root) / 'gradebook.db'}") as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for student, name in changed.items():
            try:
                entry = gb.find_student(student)
            except MissingEntry:
                continue  # not graded yet: `record` names it
            entry.first_name, entry.last_name = split_name(name)
        gb.db.commit()
    path.write_text(json.dumps({**given, **names}, ensure_ascii=False), encoding="utf-8")


def keep_assignments(course_root: Path, wanted: list[str], generate) -> None:
    """formgrader totals every assignment in the gradebook for a student's maximum, and lists every
    source notebook as an assignment: keep the ones being graded (`wanted`) and those this work folder
    already graded, take out the rest (the prepared course holds every notebook of the course) — from
    the gradebook, and their source notebooks aside (PreparedCourse.show_only) — and put back with
    `generate(names)` a wanted one that an earlier run with other notebooks took out. Nothing to do when
    the gradebook is as the last run left it for the same notebooks (remember_kept)."""
    try:
        if json.loads((Path(course_root) / KEPT).read_text(encoding="utf-8")) == gradebook_state(course_root, wanted):
            return
    except (OSError, ValueError):
        pass
    (Path(course_root) / KEPT).unlink(missing_ok=True)
    from nbgrader.api import Gradebook  # here: nbgrader takes a second to import, `check` never needs it

    with Gradebook(f"sqlite:///{Path(course_root) / 'gradebook.db'}") as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        present = {a.name: len(a.submissions) for a in gb.assignments}
        for name, submissions in present.items():
            if name not in wanted and not submissions:
                gb.remove_assignment(name)
    PreparedCourse(course_root).show_only({*wanted, *(name for name, n in present.items() if n)})
    missing = [name for name in wanted if name not in present]
    if missing:
        generate(missing)


def record(
    course_root: Path,
    result: Result,
    notebook: nbformat.NotebookNode | None,
    name: str = "",
    lesson: frozenset[str] = frozenset(),
) -> None:
    """Store one graded (or broken: 0, with its reason) notebook: its scores in the gradebook, the
    executed notebook where formgrader counts and shows it (one file, in submitted/ and autograded/,
    with equal timestamps so formgrader does not call it "needs autograding"), the student's name.
    `lesson`: the course's own texts of this notebook (see review_notebook)."""
    if result.status not in (GRADED, BROKEN):
        return
    if result.status == BROKEN:
        notebook = placeholder(result)
    root = Path(course_root)
    assignment, student = result.notebook, result.student
    timestamp = datetime.now(timezone.utc)
    if notebook is not None:
        text = nbformat.writes(review_notebook(notebook, lesson))
        text += "" if text.endswith("\n") else "\n"  # as nbformat.write ends a file
        write_once(root, student, assignment, text, timestamp.isoformat(" "))
    first, last = split_name(name)
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.utils import parse_utc

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's own SQLAlchemy warnings while adding a submission
        gb.update_or_create_student(student, **({"first_name": first, "last_name": last} if name else {}))
        try:
            submission = gb.find_submission(assignment, student)
            submission.timestamp = parse_utc(timestamp.isoformat(" "))  # as add_submission stores it
        except MissingEntry:
            gb.add_submission(assignment, student, timestamp=timestamp.isoformat(" "))
        # nbgrader knows no extra points: a deep-dive's test (optional) is written as 0, so formgrader's
        # score is the grade's (the core path's); its maximum is nbgrader's, every test cell's points
        scores = {t.name: 0 if t.optional else t.score for t in result.tests}
        for cell in gb.find_assignment(assignment).notebooks[0].grade_cells if result.status == BROKEN else ():
            scores.setdefault(cell.name, 0)
        for test, score in scores.items():
            try:
                grade = gb.find_grade(test, assignment, assignment, student)
            except MissingEntry:
                continue
            grade.auto_score = score
            grade.needs_manual_grade = grade.manual_score is not None
        gb.db.commit()


def record_penalties(course_root: Path, results: list[Result], penalties: dict) -> int:
    """The late policy in the gradebook: each graded notebook's `late_submission_penalty` (nbgrader's own
    column: the points taken, which `nbgrader export` and nbgrader's feedback show), 0 where none applies
    (a penalty an extension or a waiver removed since is taken back). Returns how many were penalised."""
    from nbgrader.api import Gradebook, MissingEntry

    penalised = 0
    with Gradebook(f"sqlite:///{Path(course_root) / 'gradebook.db'}") as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in results:
            if r.status not in (GRADED, BROKEN):
                continue
            try:
                notebook = gb.find_submission_notebook(r.notebook, r.notebook, r.student)
            except MissingEntry:
                continue
            p = penalties.get((r.student, r.notebook))
            taken = round(r.score - p.apply(r.score), 2) if p else 0.0
            notebook.late_submission_penalty = taken
            penalised += taken > 0
        gb.db.commit()
    return penalised
