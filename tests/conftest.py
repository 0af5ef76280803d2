"""One real grading run of a synthetic class, shared by the grading tests.

The class: a student who solved every notebook, one who submitted the untouched student
notebooks, one student per known mistake and per alternative solution, and a few broken
submissions. It is graded once by the real CLI (`python -m autograder grade`), which runs the
real nbgrader pipeline; the tests then read grades.csv, results.json and the feedback files.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course import NOTEBOOKS, course_notebooks
from autograder.simulate import submission, write
from mistakes import ALTERNATIVES, MISTAKES

ROOT = Path(__file__).resolve().parent.parent
CELL_TIMEOUT = 60  # generous for a shared CI machine (looping mistakes are stopped by checks.run first)


def build_class(folder: Path) -> None:
    for name in course_notebooks():
        write(submission(name), folder / "solved" / f"{name}.ipynb")
        (folder / "untouched").mkdir(parents=True, exist_ok=True)
        shutil.copy(NOTEBOOKS / f"{name}.ipynb", folder / "untouched" / f"{name}.ipynb")
    for case in [*MISTAKES, *ALTERNATIVES]:
        write(submission(case.notebook, replace={case.cell: case.source}),
              folder / case.id / f"{case.notebook}.ipynb")
    broken = folder / "broken"
    broken.mkdir()
    (broken / "01_hand_example.ipynb").write_text('{"cells": [', encoding="utf-8")
    (broken / "02_byte_level_training.ipynb").write_text("", encoding="utf-8")
    (broken / "03_encode_order.ipynb").write_text('{"name": "not a notebook"}', encoding="utf-8")
    (broken / "notes.txt").write_text("not a notebook", encoding="utf-8")


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """The class above, graded; returns (results by (student, notebook), out dir, work dir, exit code, output)."""
    base = tmp_path_factory.mktemp("class")
    build_class(base / "submissions")
    out, work = base / "out", base / "work"
    run = grade(base / "submissions", out, "--work", str(work), "--cell-timeout", str(CELL_TIMEOUT), "--jobs", "2")
    return results_of(out), out, work, run.returncode, run.stdout + run.stderr


def grade(submissions: Path, out: Path, *options: str) -> subprocess.CompletedProcess:
    """`python -m autograder grade`, as an instructor runs it."""
    return subprocess.run([sys.executable, "-m", "autograder", "grade", str(submissions), "--out", str(out), *options],
                          cwd=ROOT, capture_output=True, text=True, timeout=3000)


def results_of(out: Path) -> dict:
    return {(r["student"], r["notebook"]): r for r in json.loads((out / "results.json").read_text(encoding="utf-8"))}
