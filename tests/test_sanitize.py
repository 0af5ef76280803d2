"""The first step of grading: any file becomes a notebook in the course's shape or a clear reason."""

import json

import nbformat
import pytest

from autograder.course.course import CourseNotebook
from autograder.course.plan import analyse
from autograder.course.simulate import submission
from autograder.notebook.sanitize import SubmissionError, read_submission, sanitize

NB = "01_hand_example"


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"", "empty"),
        (b"\xff\xfe", "not UTF-8"),
        (b'{"cells": [', "not valid JSON"),
        (('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}").encode(), "nested too deeply"),
        (b'{"name": 1}', "not a Jupyter notebook"),
        (b"[1, 2]", "not a Jupyter notebook"),
        (
            json.dumps(
                {"cells": [{"cell_type": "code", "source": 5}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
            ).encode(),
            "not a readable Jupyter notebook",
        ),
    ],
)
def test_a_file_that_is_not_a_notebook_says_why(tmp_path, content, reason):
    path = tmp_path / "x.ipynb"
    path.write_bytes(content)
    with pytest.raises(SubmissionError, match=reason):
        read_submission(path)


def test_too_many_cells_or_too_much_code_is_refused(tmp_path):
    many = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1") for _ in range(3000)])
    nbformat.write(many, str(tmp_path / "many.ipynb"))
    with pytest.raises(SubmissionError, match="cells"):
        read_submission(tmp_path / "many.ipynb")
    big = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1\n" * 600_000)])
    nbformat.write(big, str(tmp_path / "big.ipynb"))
    with pytest.raises(SubmissionError, match="characters of code"):
        read_submission(tmp_path / "big.ipynb")


def test_odd_metadata_is_read_as_a_plain_cell(tmp_path):
    notebook = submission(NB)
    notebook.cells[1].metadata = {"nbgrader": None}
    notebook.cells[2].metadata = {"nbgrader": "yes"}
    nbformat.write(notebook, str(tmp_path / f"{NB}.ipynb"))
    shaped, changes, review = sanitize(tmp_path / f"{NB}.ipynb", CourseNotebook.load(NB).release)
    assert len(shaped.cells) >= len(notebook.cells) - 2 and changes == review == []


def test_code_the_planner_cannot_read_simply_runs():
    assert analyse("x = " + "(" * 10_000 + ")" * 10_000).doubtful
    assert analyse("y = " + "[" * 5000 + "]" * 5000).doubtful


def test_a_guard_that_fails_is_listed_for_review_not_swallowed(tmp_path, monkeypatch):
    import autograder.notebook.sanitize as sanitize_module
    from autograder.course.course import CourseNotebook
    from autograder.course.simulate import submission, write

    def broken_scan(notebook, release):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(sanitize_module, "tampering", broken_scan)
    path = write(submission("01_hand_example"), tmp_path / "01_hand_example.ipynb")
    _, _, review = sanitize_module.sanitize(path, CourseNotebook.load("01_hand_example").release)
    assert len(review) == 1 and "RecursionError" in review[0] and "прочитайте код" in review[0]
