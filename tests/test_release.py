"""One source of truth: solutions/ holds the sources, notebooks/ is generated from them."""

import json

import pytest

from autograder.course.course import NOTEBOOKS, SOLUTIONS, course_notebooks
from autograder.course.release import release


@pytest.fixture(scope="module")
def fresh_release(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    release(out)
    return out


def test_notebooks_are_what_release_generates_now(fresh_release):
    generated = sorted(p.name for p in fresh_release.glob("*.ipynb"))
    committed = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert committed == generated, "run `make release` and commit notebooks/"
    for name in generated:
        fresh = json.loads((fresh_release / name).read_text(encoding="utf-8"))
        ours = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
        assert ours == fresh, f"notebooks/{name} is stale: run `make release` and commit it"


@pytest.mark.parametrize("name", course_notebooks())
def test_solution_notebooks_are_stored_without_outputs(name):
    notebook = json.loads((SOLUTIONS / f"{name}.ipynb").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, cell["source"][:120]


@pytest.mark.parametrize("name", course_notebooks())
def test_student_notebooks_hide_solutions_and_hidden_tests(name):
    text = (NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in text
    assert "NotImplementedError" in text


@pytest.mark.parametrize("name", course_notebooks())
def test_every_exercise_has_visible_and_hidden_tests(name):
    notebook = json.loads((SOLUTIONS / f"{name}.ipynb").read_text(encoding="utf-8"))
    meta = [c["metadata"].get("nbgrader", {}) for c in notebook["cells"]]
    tests = {m["grade_id"] for m in meta if m.get("grade") and not m.get("solution")}
    exercises = [m["grade_id"] for m in meta if m.get("solution") and m["grade_id"] != "quiz_answers"]
    assert exercises
    for exercise in exercises:
        assert {f"test_{exercise}", f"test_{exercise}_hidden"} <= tests, exercise


@pytest.mark.parametrize("name", course_notebooks())
def test_demonstrations_tagged_demo_are_never_needed_by_a_grade(name):
    """Grading skips the lesson cells tagged `demo` (autograder.notebook.pipeline). A tag on a cell that a test,
    a given cell or a cell that runs reads from is an authoring error: the tag would silently not
    hold (the cell is pulled in again), and grading would cost what the author meant to save."""
    from autograder.course.course import DEMO_TAG, CourseNotebook
    from autograder.course.simulate import submission
    from autograder.notebook.normalize import restore_course_cells
    from autograder.notebook.pipeline import NotebookGrader

    course = CourseNotebook.load(name)
    cells = restore_course_cells(submission(name), course.release).cells
    needed, last_test, codes = NotebookGrader().cells_to_run(course, cells)
    wrong = [
        (i, sorted(codes[i].binds)[:5], cells[i].source[:60])
        for i in sorted(needed)
        if cells[i].source in course.demo_sources
    ]
    assert not wrong, f"cells tagged {DEMO_TAG!r} that grading needs (index, what they bind, start): {wrong}"
    doubtful = [
        (i, cells[i].source[:60])
        for i, c in codes.items()
        if c.doubtful and cells[i].source in course.demo_sources and i < last_test
    ]
    assert not doubtful, (
        f"cells tagged {DEMO_TAG!r} whose effect cannot be read (magics, exec…): they always run: {doubtful}"
    )
