"""Grading cases of the course in-process, through the grader's own pipeline and checks.

A case is a course notebook with some solution cells replaced (a mistake, an alternative
solution, or nothing: the solution). It is graded by autograder.notebook.pipeline in a LocalSession — the
same sanitize, plan, evaluate and agent code as in the sandboxed kernel, without the kernel —
so the whole catalogue is proven in seconds. Cases run in parallel worker processes.

A mistake's case asks one thing: does the test meant to catch it lose points, with its message? So it is
graded up to that test, and of the tests before it only those that may see what the replaced cells
change (`reaching`): the others run the solution's code on the solution's values, so they cannot change
what the catching test sees. tests/test_proof.py grades every mistake both ways and finds the same
verdict of the catching test.
"""

import importlib
import multiprocessing
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

from local_session import LocalSession

from autograder.course.cells import grade_id, is_test
from autograder.course.course import CourseNotebook
from autograder.course.plan import BUILTIN_NAMES, Notebook, analyse, free_names
from autograder.course.simulate import submission, write
from autograder.notebook.pipeline import NotebookGrader


def reaching(course: CourseNotebook, submitted, replace: dict, until: str) -> list[str]:
    """The grade ids of the tests a mistake's case grades, in order: `until` (the test meant to catch
    it) and each test before it that may see what the replaced cells change, or that calls a function
    of the notebook sharing changeable state with one `until` calls.

    A name is changed from the first replaced cell that binds it or may change it (in the student's
    version or the solution's: what the solution binds and the student's does not is missing), or
    reads it while it is changeable (the replaced code may change it when called); then, to a fixed
    point, from each later cell that reads a changed name, what that cell binds or may change. A test
    that reads no name changed before it runs the course's and the solution's code on the solution's
    values, as in the solved case; a test only hands the kernel copies of plain data and calls its
    functions by name, so the state those functions read is all through which it reaches a later test.
    When the code leaves doubt (exec, globals(), a magic, a rebound builtin), every test before
    `until` is graded."""
    names = list(course.tests)
    earlier = names[: names.index(until)]
    position = {grade_id(c): i for i, c in enumerate(submitted.cells) if is_test(c)}
    codes = {
        i: analyse(c.source)
        for i, c in enumerate(submitted.cells)
        if c.cell_type == "code" and not is_test(c) and i < position[until]
    }
    solution = {grade_id(c): analyse(c.source) for c in course.source.cells if grade_id(c) in replace}
    notebook = Notebook(list(codes.values()))
    changeable = lambda found: {n for n in found if not notebook.fixed.get(n, False)}
    effects = lambda code: code.binds | {n for n, _ in code.changes}
    changed = {}  # name → the index of the first cell from which its value may differ from the solved case

    def change(found, at) -> bool:
        new = {n for n in found if changed.get(n, at + 1) > at}
        changed.update(dict.fromkeys(new, at))
        return bool(new)

    for i, code in codes.items():
        cell = grade_id(submitted.cells[i])
        if cell in replace:
            if code.doubtful or solution[cell].doubtful:
                return [*earlier, until]
            change(effects(code) | effects(solution[cell]) | changeable(code.reads), i)
    if any(code.doubtful for code in codes.values()) or changed.keys() & BUILTIN_NAMES:
        return [*earlier, until]
    grew = True
    while grew:
        grew = False
        for i, code in codes.items():
            hit = [changed[n] for n in code.reads if n in changed]
            if hit and change(effects(code), max(i, min(hit))):  # a function defined earlier changes when
                grew = True  # what it reads does

    def functions(found: set) -> set:
        return {n for n in found if any(n in code.functions for code in codes.values())}

    def state(found: set) -> set:
        """The changeable globals that the notebook's functions named in `found` read, and the functions
        they call read."""
        called, seen, grew = functions(found), set(), True
        while grew:
            grew = False
            for code in codes.values():
                if code.functions.keys() & called and code.reads - seen:
                    seen |= code.reads
                    called |= functions(code.reads)
                    grew = True
        return changeable(seen)

    shared = state(free_names(course.tests[until].source))
    kept = [
        name
        for name in earlier
        if any(changed.get(n, position[name]) < position[name] for n in free_names(course.tests[name].source))
        or state(free_names(course.tests[name].source)) & shared
    ]
    return [*kept, until]


def grade_case(
    notebook: str,
    replace: dict,
    solved: bool = True,
    full: bool = False,
    until: str | None = None,
    earlier: str = "all",
) -> dict:
    """The result of one case, as a dict (with `ran`: the cells that ran, `cpu`: the CPU seconds it took).
    With `until` (a test's grade id), the notebook is graded up to that test only: what a mistake's case
    asserts is decided there, and nothing after it needs to run (the grader never runs what no test after
    it reads). Of the tests before it, `earlier` says which are graded: "all", those `reaching` keeps (the
    catalogue's mistakes), or "none"."""
    started = time.process_time()
    course = CourseNotebook.load(notebook)
    case = submission(notebook, solved=solved, replace=replace)
    if until is not None:
        names = list(course.tests)
        graded = {
            "reaching": lambda: reaching(course, case, replace, until),
            "all": lambda: names[: names.index(until) + 1],
            "none": lambda: [until],
        }[earlier]()
        course.tests = {name: course.tests[name] for name in graded}
    with tempfile.TemporaryDirectory(prefix="bpe-case-") as tmp:
        path = write(case, Path(tmp) / f"{notebook}.ipynb")
        graded = NotebookGrader(run_only_needed=not full).grade(course, path, LocalSession)
    return {**asdict(graded.result), "ran": sorted(graded.ran), "cpu": round(time.process_time() - started, 2)}


def grade_cases(cases: dict) -> dict:
    """{case id: (notebook, replace, solved, full[, until[, earlier]])} → {case id: result}, on all cores."""
    # the same string hashing in every worker: a mistake that iterates over a set of strings then gives
    # its (wrong) answer in the same order in every case it is graded in
    os.environ["PYTHONHASHSEED"] = "0"
    jobs = min(len(cases), len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2) or 1
    # each worker imports autograder before nbformat (which the cases' modules import first), so that its
    # __init__ spares the worker rfc3987_syntax's parsers (about a CPU-second each)
    spawn, first = multiprocessing.get_context("spawn"), ("autograder",)
    with ProcessPoolExecutor(jobs, mp_context=spawn, initializer=importlib.import_module, initargs=first) as pool:
        futures = {key: pool.submit(grade_case, *args) for key, args in cases.items()}
        return {key: future.result() for key, future in futures.items()}
