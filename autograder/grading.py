"""Autograding one submitted notebook and reading its results back.

Each submission is graded by its own `nbgrader autograde` process in the student's own copy of
the course directory, so a notebook that breaks nbgrader costs that notebook, not the class. Scores come from nbgrader's gradebook; the failure
message of each test comes from the autograded notebook's outputs.
"""
import hashlib
import json
import re
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from .course import CourseDirectory
from .guard import tampering
from .normalize import restore_course_cells
from .sandbox import KERNEL_NAME, bwrap_works, install_kernelspec

GRADED, MISSING, BROKEN, ERROR, FLAGGED = "graded", "missing", "broken", "error", "flagged"
NOT_GRADED = (BROKEN, ERROR, FLAGGED)  # a problem to report: 0 points, and the instructor should look


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
    """Grades submissions against the course.

    The course is generated once into `work/course`; each student is graded in a private copy of
    it (`work/students/<student_id>`), so students can be graded in parallel, and a result is
    kept in `work/results/<student_id>/<notebook>.json` as soon as it exists: a re-run skips
    submissions already graded (unless their file changed or force=True).
    """

    def __init__(self, work: Path, notebooks: list[str] | None = None, timeout: float = 900,
                 cell_timeout: int | None = None, notebook_timeout: int | None = None, force: bool = False,
                 sandbox: bool = True):
        self.work = Path(work).resolve()
        self.course = CourseDirectory(self.work / "course")
        # student code runs in the sandboxed kernel (autograder/sandbox.py)
        install_kernelspec(self.work / "jupyter")
        self.sandbox = "bwrap" if sandbox and bwrap_works() else ("limits" if sandbox else "off")
        self.course.env.update(JUPYTER_PATH=str(self.work / "jupyter"), BPE_SANDBOX=self.sandbox)
        self.timeout = timeout  # for a whole notebook
        self.limits = ([f"--Execute.timeout={cell_timeout}"] if cell_timeout else []) + \
                      ([f"--ResilientExecute.notebook_timeout={notebook_timeout}"] if notebook_timeout else []) + \
                      ([f"--Execute.kernel_name={KERNEL_NAME}", "--KernelManager.transport=ipc"] if sandbox else [])
        self.force = force
        self.notebooks = notebooks or self.course.notebooks
        self.copies: dict[str, CourseDirectory] = {}  # student → their course copy, made once per run
        self.sockets: dict[str, str] = {}             # student → folder of their kernels' sockets
        for name in self.notebooks:
            self.course.generate(name)
        with Gradebook(f"sqlite:///{self.course.gradebook}") as gb:
            self.max_scores = {name: gb.find_notebook(name, name).max_score for name in self.notebooks}

    def grade_student(self, student: str, files: dict[str, Path], feedback_dir: Path | None = None) -> list[Result]:
        """Every course notebook of one student: graded, or missing."""
        results = []
        for name in self.notebooks:
            if name not in files:
                results.append(Result(student, name, 0, self.max_scores[name], MISSING, "not submitted"))
                continue
            feedback = feedback_dir / student / f"{name}.html" if feedback_dir else None
            results.append(self.grade(student, name, files[name], feedback))
        return results

    def grade(self, student: str, name: str, path: Path, feedback: Path | None = None) -> Result:
        """One notebook of one student, from the cache if it was graded before; never raises for a
        bad submission."""
        cache = self.work / "results" / student / f"{name}.json"
        digest = self.digest(name, path)
        if not self.force and cache.exists():
            cached = json.loads(cache.read_text(encoding="utf-8"))
            if cached["sha256"] == digest and (feedback is None or feedback.exists() or cached["result"]["status"] != GRADED):
                return result_from_dict(cached["result"])
        if student not in self.copies:
            self.copies[student] = self.course.copy_to(self.work / "students" / student)
            # the kernel's connection sockets: a short path (unix sockets allow ~100 characters),
            # private to this student
            self.sockets[student] = tempfile.mkdtemp(prefix="bpe-ipc-")
        course = self.copies[student]
        result = self.autograde(course, student, name, path, self.sockets[student])
        if result.status == GRADED and feedback is not None:
            write_feedback(course, student, name, feedback, self.timeout)
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(json.dumps({"sha256": digest, "result": asdict(result)}, ensure_ascii=False), encoding="utf-8")
        tmp.replace(cache)  # atomic: an interrupted run never leaves half a result
        return result

    def digest(self, name: str, path: Path) -> str:
        """What a cached result depends on: the submitted file and the course notebook it is graded by."""
        h = hashlib.sha256((self.course.root / "source" / name / f"{name}.ipynb").read_bytes())
        if Path(path).is_file():
            h.update(Path(path).read_bytes())
        return h.hexdigest()

    def autograde(self, course: CourseDirectory, student: str, name: str, path: Path, sockets: str) -> Result:
        failed = lambda status, message: Result(student, name, 0, self.max_scores[name], status, message)
        try:
            notebook = read_submission(path)
        except (SubmissionError, OSError) as e:
            return failed(BROKEN, f"{Path(path).name}: {e}")
        release = nbformat.read(str(course.released(name)), as_version=4)
        notebook = restore_course_cells(notebook, release)
        findings = tampering(notebook, release)
        if findings:
            return failed(FLAGGED, "not run: the code tampers with the grading (review it): " + "; ".join(findings[:5]))
        target = course.submitted(student, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, str(target))
        try:
            kernel = [f"--KernelManager.ip={sockets}/kernel"] if self.sandbox != "off" else []
            run = course.nbgrader("autograde", name, "--student", student, "--create", "--force",
                                  *self.limits, *kernel, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return failed(ERROR, f"grading took longer than {self.timeout:.0f} s and was stopped")
        autograded = course.autograded(student, name)
        if run.returncode != 0 or not autograded.exists():
            return failed(ERROR, "nbgrader could not grade this notebook:\n" + tail(run.stdout + run.stderr))
        return read_results(course, student, name, nbformat.read(str(autograded), as_version=4),
                            self.max_scores[name])


def read_results(course: CourseDirectory, student: str, name: str,
                 autograded: nbformat.NotebookNode, max_score: float) -> Result:
    """Scores from the gradebook, failure messages from the autograded notebook."""
    messages = failure_messages(autograded)
    order = [c.metadata["nbgrader"]["grade_id"] for c in autograded.cells
             if c.metadata.get("nbgrader", {}).get("grade")]
    with Gradebook(f"sqlite:///{course.gradebook}") as gb:
        try:
            submission = gb.find_submission_notebook(name, name, student)
        except MissingEntry:
            return Result(student, name, 0, max_score, ERROR, "no grades were recorded")
        grades = {g.name: g for g in submission.grades}
        tests = [TestResult(g, grades[g].score or 0, grades[g].max_score, messages.get(g, ""))
                 for g in order if g in grades]
        score = submission.score
    failed = [t.name for t in tests if t.score < t.max_score]
    message = f"failed: {', '.join(failed)}" if failed else "all tests passed"
    return Result(student, name, score, max_score, GRADED, message, tests)


def write_feedback(course: CourseDirectory, student: str, name: str, out: Path, timeout: float) -> Path | None:
    """Feedback HTML for one graded notebook, copied to `out`; None if nbgrader made none."""
    run = course.nbgrader("generate_feedback", name, "--student", student, "--force", timeout=timeout)
    made = course.feedback(student, name)
    if run.returncode != 0 or not made.exists():
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(name_tests(made.read_text(encoding="utf-8")), encoding="utf-8")
    return out


def name_tests(html: str) -> str:
    """nbgrader's feedback lists every test as "Test cell"; name each by its grade_id instead."""
    return re.sub(r'<a href="#([^"]+)">Test cell</a>', r'<a href="#\1">\1</a>', html)


def result_from_dict(data: dict) -> Result:
    return Result(**{**data, "tests": [TestResult(**t) for t in data["tests"]]})
