"""The course's cells are the course's, in the course's order — declared, not inferred.

A submission controls the order of its cells: moving a lesson cell, or the student's own answer,
must never move a given (read-only) cell below the tests that need it, nor let the student's
kernel answer for a name the course defines. Which lesson cells grading may skip is declared by
the author (the `demo` tag in solutions/) and holds only while the student left the cell as the
course wrote it; the student's own cells always run. In-process, through the grader's pipeline.
"""

import copy

import pytest
from local_session import LocalSession

from autograder.course.cells import grade_id
from autograder.course.course import CourseNotebook, course_notebooks
from autograder.course.simulate import solution_sources, submission, write
from autograder.notebook.normalize import restore_course_cells
from autograder.notebook.pipeline import NotebookGrader

NB08 = "08_shipping_tokenizer"


def grade(tmp_path, name, notebook):
    path = write(notebook, tmp_path / f"{name}.ipynb")
    return NotebookGrader().grade(CourseNotebook.load(name), path, LocalSession)


def index_of(cells, gid):
    return next(i for i, c in enumerate(cells) if grade_id(c) == gid)


def course_order(notebook):
    return [grade_id(c) for c in notebook.cells if grade_id(c)]


@pytest.mark.parametrize("name", course_notebooks())
def test_moving_the_cell_above_a_given_cell_leaves_it_where_the_course_put_it(name):
    course = CourseNotebook.load(name)
    for gid in course.given:
        notebook = submission(name)
        cells = notebook.cells
        i = index_of(cells, gid)
        cells.append(cells.pop(i - 1))  # its anchor, moved to the end
        restored = restore_course_cells(notebook, course.release)
        assert course_order(restored) == course_order(course.release), gid


@pytest.mark.parametrize("name", course_notebooks())
def test_answers_moved_to_the_end_go_back_to_their_place(name):
    course = CourseNotebook.load(name)
    notebook = submission(name)
    answers = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution")]
    notebook.cells = [c for c in notebook.cells if c not in answers] + answers[::-1]
    restored = restore_course_cells(notebook, course.release)
    assert course_order(restored) == course_order(course.release)
    solved = solution_sources(name)
    for cell in restored.cells:
        if grade_id(cell) in solved:
            assert cell.source == solved[grade_id(cell)]


def test_a_displaced_given_cell_cannot_hand_the_tests_the_students_functions(tmp_path):
    """08's attack: the markdown cell above the read-only `given` cell moved to the end, and the
    given functions replaced by constants in the student's own cell. The tests use the course's."""
    stub = submission(NB08, solved=False)
    attack = copy.deepcopy(stub)
    cells = attack.cells
    given = index_of(cells, "given")
    cells.append(cells.pop(given - 1))
    extra = copy.deepcopy(cells[given])
    extra.metadata = {}
    extra["id"] = "student-constants"
    extra.source = (
        "def train_chunked(text, vocab_size, pattern=None):\n    return {}\n"
        "def encode_chunked(text, merges, pattern=None):\n    return []\n"
        "def token_bytes(merges):\n    return {}\n"
    )
    cells.append(extra)
    untouched = grade(tmp_path / "stub", NB08, stub).result
    attacked = grade(tmp_path / "attack", NB08, attack).result
    assert attacked.score == untouched.score == 0, [(t.name, t.score) for t in attacked.tests if t.score]


def test_a_students_own_cell_always_runs_and_an_unchanged_demonstration_does_not(tmp_path):
    """The student's own cells run even when no analysis of names sees what they do (tests/test_faults.py
    binds quiz answers through `import __main__` in a real kernel); the lesson's demonstrations are
    skipped only while the student left them as the course wrote them."""
    name = "01_hand_example"
    course = CourseNotebook.load(name)
    notebook = submission(name)
    quiz = index_of(notebook.cells, "quiz_answers")
    extra = copy.deepcopy(notebook.cells[quiz])
    extra.metadata, extra["id"] = {}, "student-scratch"
    extra.source = "scratch = 'my own cell'\nprint(scratch)"
    notebook.cells.insert(quiz + 1, extra)
    graded = grade(tmp_path, name, notebook)
    assert graded.result.score == graded.result.max_score, graded.result.message
    cells = graded.notebook.cells
    assert next(i for i, c in enumerate(cells) if c.source == extra.source) in graded.ran
    demos = {i for i, c in enumerate(cells) if c.cell_type == "code" and c.source in course.demo_sources}
    assert demos and not demos & graded.ran, "an unchanged demonstration ran"

    changed = copy.deepcopy(notebook)
    demo = next(c for c in changed.cells if c.cell_type == "code" and c.source in course.demo_sources)
    demo.source += "\nprint('changed by the student')"
    graded = grade(tmp_path / "changed", name, changed)
    assert any(
        "changed by the student" in "".join(o.get("text", "") for o in c.outputs)
        for c in graded.notebook.cells
        if c.cell_type == "code"
    )
    assert graded.result.score == graded.result.max_score, graded.result.message
