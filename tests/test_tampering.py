"""A submission that changed the course's test cells is graded from the course's cells, as always, and
listed for review with what it changed (issue 29 item 7); an honest one is not listed."""

import copy

import pytest

from autograder.course.cells import grade_id, is_test
from autograder.course.course import CourseNotebook
from autograder.course.simulate import submission, write
from autograder.notebook.sanitize import sanitize

NB = "01_hand_example"


def release():
    return CourseNotebook.load(NB).release


def graded_cells(notebook):
    return [cell for cell in notebook.cells if is_test(cell)]


def delete(nb):
    nb.cells.remove(graded_cells(nb)[0])


def edit(nb):
    graded_cells(nb)[-1].source = "pass"


def more_points(nb):
    graded_cells(nb)[-1].metadata.nbgrader["points"] = 100


def untag(nb):
    del graded_cells(nb)[0].metadata["nbgrader"]


def repoint(nb):
    graded_cells(nb)[0].metadata.nbgrader["grade_id"] = "my_own_test"


def duplicate(nb):
    nb.cells.append(copy.deepcopy(graded_cells(nb)[0]))


@pytest.mark.parametrize(
    "tamper, says",
    [
        (delete, "удалён из блокнота"),
        (edit, "код теста изменён"),
        (more_points, "«баллы» ("),
        (untag, "снята разметка nbgrader"),
        (repoint, "grade_id изменён на «my_own_test»"),
        (duplicate, "ячейки с его grade_id"),
    ],
    ids=["deleted", "edited", "points", "untagged", "repointed", "duplicated"],
)
def test_each_kind_of_tampering_is_listed_for_review_and_graded_from_the_course(tmp_path, tamper, says):
    nb = submission(NB, solved=False)
    tests = {grade_id(c): c.source for c in graded_cells(release())}
    tamper(nb)
    shaped, review = sanitize(write(nb, tmp_path / f"{NB}.ipynb"), release())
    assert any(says in line and "проверен тестом курса" in line for line in review), review
    assert {grade_id(c): c.source for c in graded_cells(shaped)} == tests  # graded from the course's cells
    assert all(c.metadata.nbgrader["points"] <= 100 for c in graded_cells(shaped))


def test_the_tampering_names_the_test_it_touched(tmp_path):
    nb = submission(NB, solved=False)
    target = grade_id(graded_cells(nb)[-1])
    edit(nb)
    _, review = sanitize(write(nb, tmp_path / f"{NB}.ipynb"), release())
    assert [line for line in review if "тест «" in line] == [
        f"тест «{target}»: код теста изменён — проверен тестом курса, как он был выдан"
    ]


@pytest.mark.parametrize("solved", [True, False], ids=["solved", "untouched"])
def test_an_honest_submission_is_not_listed(tmp_path, solved):
    _, review = sanitize(write(submission(NB, solved=solved), tmp_path / f"{NB}.ipynb"), release())
    assert review == []
