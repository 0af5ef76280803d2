"""`__main__` is the notebook's namespace, as in ipykernel (issue 29 item 6): what a cell binds through
`import __main__` (or sys.modules["__main__"], or vars() of it) is what the tests read — in the
sandboxed kernel and in the tests' in-process stand-in alike, so the catalogue grades as a class does.

A solved notebook 01 whose quiz answers cell is left as the stub, the answers bound from an extra cell
after it: all 17 points, as in Jupyter and stock nbgrader. Bound on a module that is not __main__, the
same answers earn the 14 points of the code alone (the test can fail)."""

import sys

import nbformat
import pytest
from local_session import LocalSession

from autograder.course.cells import grade_id
from autograder.course.course import CourseNotebook
from autograder.course.simulate import submission, write
from autograder.notebook.pipeline import NotebookGrader
from autograder.wall.sandbox import Sandbox
from autograder.wall.session import KernelSession

NB = "01_hand_example"
ANSWERS = 'm.ANSWER_1 = "b"\nm.ANSWER_2 = 3\nm.ANSWER_3 = ("e", "s")'
THROUGH_MAIN = {
    "import": "import __main__ as m\n" + ANSWERS,
    "sys.modules": 'import sys\nm = sys.modules["__main__"]\n' + ANSWERS,
    "vars": 'vars(__import__("__main__")).update(ANSWER_1="b", ANSWER_2=3, ANSWER_3=("e", "s"))',
    "in a function": "import __main__\ndef answer(m):\n    " + ANSWERS.replace("\n", "\n    ") + "\nanswer(__main__)",
}
ELSEWHERE = "import types\nm = types.ModuleType('answers')\n" + ANSWERS
SESSIONS = {"sandbox": lambda: KernelSession(Sandbox()), "local": LocalSession}


def graded(tmp_path, extra: str, session: str):
    notebook = submission(NB)
    cells = notebook.cells
    (at,) = [i for i, c in enumerate(cells) if grade_id(c) == "quiz_answers"]
    cells[at].source = "# ВАШ КОД ЗДЕСЬ\nraise NotImplementedError()"
    cells.insert(at + 1, nbformat.v4.new_code_cell(extra))
    path = write(notebook, tmp_path / f"{NB}.ipynb")
    return NotebookGrader().grade(CourseNotebook.load(NB), path, SESSIONS[session]).result


@pytest.mark.parametrize("session", SESSIONS)
@pytest.mark.parametrize("how", THROUGH_MAIN)
def test_answers_bound_through_main_are_what_the_tests_read(tmp_path, how, session):
    result = graded(tmp_path, THROUGH_MAIN[how], session)
    assert (result.score, result.max_score) == (17, 17), result.message


@pytest.mark.parametrize("session", SESSIONS)
def test_answers_bound_on_another_module_are_not(tmp_path, session):
    result = graded(tmp_path, ELSEWHERE, session)
    assert result.score == 14 and result.message == "failed: test_quiz_1, test_quiz_2, test_quiz_3"


def test_the_stand_in_gives_the_test_process_its_own_main_back():
    ours = sys.modules["__main__"]
    session = LocalSession()
    assert session.run_cell("import __main__\nSEEN = __main__.__dict__ is globals()").error is None
    assert session.namespace["SEEN"] is True and sys.modules["__main__"] is ours
