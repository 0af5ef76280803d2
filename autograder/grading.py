"""Autograding one submitted notebook and reading its results back.

Each submission is graded by its own `nbgrader autograde` process, so a notebook that breaks
nbgrader costs that notebook, not the class. Scores come from nbgrader's gradebook; the failure
message of each test comes from the autograded notebook's outputs.
"""
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from .course import CourseDirectory

GRADED, MISSING, BROKEN, ERROR = "graded", "missing", "broken", "error"


@dataclass
class TestResult:
    name: str
    score: float
    max_score: float
    message: str = ""


@dataclass
class Result:
    student: str
    notebook: str
    score: float
    max_score: float
    status: str
    message: str = ""
    tests: list[TestResult] = field(default_factory=list)


class SubmissionError(ValueError):
    """A submitted file that is not a gradable notebook."""


def read_submission(path: Path) -> nbformat.NotebookNode:
    """The submitted notebook, upgraded to nbformat 4, or a SubmissionError saying what is wrong."""
    raw = Path(path).read_bytes()
    if not raw.strip():
        raise SubmissionError("the file is empty")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SubmissionError("the file is not UTF-8 text (is it really a .ipynb?)") from None
    except json.JSONDecodeError as e:
        raise SubmissionError(f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                              "the notebook was probably damaged while saving or uploading") from None
    if not isinstance(data, dict) or "cells" not in data and "worksheets" not in data:
        raise SubmissionError("valid JSON, but not a Jupyter notebook (no cells)")
    try:
        return nbformat.reads(json.dumps(data), as_version=4)
    except Exception as e:  # nbformat raises several kinds of errors for malformed notebooks
        raise SubmissionError(f"not a readable Jupyter notebook: {e}") from None


def failure_messages(notebook: nbformat.NotebookNode) -> dict[str, str]:
    """For each autograded test cell that failed: its error, as the student would see it."""
    messages = {}
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("grade") or meta.get("solution") or cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                messages[meta["grade_id"]] = f"{output.ename}: {output.evalue}".strip()
                break
            if output.output_type == "stream" and output.name == "stderr":
                messages[meta["grade_id"]] = "the cell wrote to stderr: " + output.text.strip()[:500]
                break
    return messages


def tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


class Grader:
    """Grades submissions against the course in an nbgrader course directory at `work`."""

    def __init__(self, work: Path, timeout: float = 900, cell_timeout: int | None = None):
        self.course = CourseDirectory(work)
        self.timeout = timeout  # for a whole notebook
        self.limits = [f"--Execute.timeout={cell_timeout}"] if cell_timeout else []
        self.max_scores = {}  # filled as each assignment is generated, on first use

    def max_score(self, name: str) -> float:
        """The notebook's total points; generates its assignment (and gradebook entries) first."""
        if name not in self.max_scores:
            self.course.generate(name)
            with self.gradebook() as gb:
                self.max_scores[name] = gb.find_notebook(name, name).max_score
        return self.max_scores[name]

    def gradebook(self) -> Gradebook:
        return Gradebook(f"sqlite:///{self.course.gradebook}")

    def missing(self, student: str, name: str) -> Result:
        return Result(student, name, 0, self.max_score(name), MISSING, "not submitted")

    def grade(self, student: str, name: str, path: Path) -> Result:
        """Autograde one student's notebook; never raises for a bad submission."""
        max_score = self.max_score(name)
        failed = lambda status, message: Result(student, name, 0, max_score, status, message)
        try:
            notebook = read_submission(path)
        except (SubmissionError, OSError) as e:
            return failed(BROKEN, f"{Path(path).name}: {e}")
        target = self.course.submitted(student, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, str(target))
        try:
            run = self.course.nbgrader("autograde", name, "--student", student, "--create", "--force",
                                       *self.limits, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return failed(ERROR, f"grading took longer than {self.timeout:.0f} s and was stopped")
        autograded = self.course.autograded(student, name)
        if run.returncode != 0 or not autograded.exists():
            return failed(ERROR, "nbgrader could not grade this notebook:\n" + tail(run.stdout + run.stderr))
        return self.results(student, name, nbformat.read(str(autograded), as_version=4))

    def results(self, student: str, name: str, autograded: nbformat.NotebookNode) -> Result:
        messages = failure_messages(autograded)
        order = [c.metadata["nbgrader"]["grade_id"] for c in autograded.cells
                 if c.metadata.get("nbgrader", {}).get("grade")]
        with self.gradebook() as gb:
            try:
                submission = gb.find_submission_notebook(name, name, student)
            except MissingEntry:
                return Result(student, name, 0, self.max_scores[name], ERROR, "no grades were recorded")
            grades = {g.name: g for g in submission.grades}
            tests = [TestResult(g, grades[g].score or 0, grades[g].max_score, messages.get(g, ""))
                     for g in order if g in grades]
            score = submission.score
        failed = [t.name for t in tests if t.score < t.max_score]
        message = f"failed: {', '.join(failed)}" if failed else "all tests passed"
        return Result(student, name, score, self.max_scores[name], GRADED, message, tests)

    def write_feedback(self, student: str, name: str, out: Path) -> Path | None:
        """Feedback HTML for one graded notebook, copied to `out`; None if nbgrader made none."""
        run = self.course.nbgrader("generate_feedback", name, "--student", student, "--force",
                                   timeout=self.timeout)
        made = self.course.feedback(student, name)
        if run.returncode != 0 or not made.exists():
            return None
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(made.read_bytes())
        return out
