"""Grading cases of the course in-process, through the grader's own pipeline and checks.

A case is a course notebook with some solution cells replaced (a mistake, an alternative
solution, or nothing: the solution). It is graded by autograder.notebook.pipeline in a LocalSession — the
same sanitize, plan, evaluate and agent code as in the sandboxed kernel, without the kernel —
so the whole catalogue is proven in seconds. Cases run in parallel worker processes.
"""

import multiprocessing
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

from local_session import LocalSession

from autograder.course.course import CourseNotebook
from autograder.course.simulate import submission, write
from autograder.notebook.pipeline import NotebookGrader


def grade_case(notebook: str, replace: dict, solved: bool = True, full: bool = False, until: str | None = None) -> dict:
    """The result of one case, as a dict (with `ran`: the cells that ran). With `until` (a test's
    grade id), the notebook is graded up to that test only: what a mistake's case asserts is decided
    there, and nothing after it needs to run (the grader never runs what no test after it reads)."""
    course = CourseNotebook.load(notebook)
    if until is not None:
        names = list(course.tests)
        course.tests = {name: course.tests[name] for name in names[: names.index(until) + 1]}
    with tempfile.TemporaryDirectory(prefix="bpe-case-") as tmp:
        path = write(submission(notebook, solved=solved, replace=replace), Path(tmp) / f"{notebook}.ipynb")
        graded = NotebookGrader(run_only_needed=not full).grade(course, path, LocalSession)
    return {**asdict(graded.result), "ran": sorted(graded.ran)}


def grade_cases(cases: dict) -> dict:
    """{case id: (notebook, replace, solved, full[, until])} → {case id: result}, on all cores."""
    # the same string hashing in every worker: a mistake that iterates over a set of strings then gives
    # its (wrong) answer in the same order in every case it is graded in
    os.environ["PYTHONHASHSEED"] = "0"
    jobs = min(len(cases), len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2) or 1
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {key: pool.submit(grade_case, *args) for key, args in cases.items()}
        return {key: future.result() for key, future in futures.items()}
