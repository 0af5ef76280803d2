"""The slow proofs: every lesson run whole (`make proof`; CI runs it after `make test`).

Grading skips only the lesson's demonstrations that the author tagged `demo` and the student left
unchanged; the student's cells always run (autograder.notebook.pipeline). So a grade can differ from the
whole lesson's only through those tags, which are the course's, not the student's: each solution
and each untouched notebook is graded twice, in-process — skipping the tagged demonstrations, and
running the whole lesson — with the same scores and messages (tests/test_release.py checks
statically that no tagged cell is needed). The solved student notebooks are also run top to
bottom, as a student would run them.
"""

from dataclasses import dataclass

import pytest
from catalogue import grade_cases
from nbclient import NotebookClient

from autograder.course.course import NOTEBOOKS, course_notebooks
from autograder.course.simulate import submission

pytestmark = pytest.mark.proof


@dataclass
class Case:
    """The course's own notebook as a case: solved, or untouched."""

    notebook: str
    solved: bool

    @property
    def id(self):
        return f"{'solution' if self.solved else 'untouched'}_{self.notebook}"


CASES = [Case(n, solved) for n in course_notebooks() for solved in (True, False)]


@pytest.fixture(scope="module")
def both_ways():
    cases = {}
    for case in CASES:
        cases[case.id, "reduced"] = (case.notebook, {}, case.solved, False)
        cases[case.id, "full"] = (case.notebook, {}, case.solved, True)
    return grade_cases(cases)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_skipping_the_tagged_demonstrations_grades_like_the_full_lesson(both_ways, case):
    reduced, full = both_ways[case.id, "reduced"], both_ways[case.id, "full"]
    assert reduced["tests"] == full["tests"]
    assert set(reduced["ran"]) <= set(full["ran"])
    if case.solved:
        assert len(reduced["ran"]) < len(full["ran"]), "no cell is tagged demo: grading runs the whole lesson"


@pytest.mark.parametrize("notebook", course_notebooks())
def test_a_solved_student_notebook_runs_top_to_bottom_with_its_visible_tests(notebook):
    """What a student sees: every cell of the student notebook, the visible tests among them, run in
    an ordinary kernel (as JupyterLab's Run All and nbgrader's Validate do) without an error."""
    solved = submission(notebook)
    NotebookClient(
        solved, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    errors = [
        (c.source[:80], o.get("ename"), o.get("evalue"))
        for c in solved.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors, errors
