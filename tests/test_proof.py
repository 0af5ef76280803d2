"""Running only the cells the graded checks need changes no grade — for every catalogued case.

Each mistake and alternative solution of tests/mistakes/ is graded twice, in-process: running only
the needed cells (as the grader does) and running the whole lesson. Scores and messages must be
the same, and the reduced run skips cells. This runs every lesson once per case (many minutes), so it
is its own step: `make proof` (CI runs it after `make test`).
The solved student notebooks are also run top to bottom, as a student would run them.
"""
import re
from dataclasses import dataclass

import pytest
from nbclient import NotebookClient

from autograder.course import NOTEBOOKS, course_notebooks
from autograder.simulate import submission
from catalogue import grade_cases
from mistakes import ALTERNATIVES, MISTAKES

pytestmark = pytest.mark.proof
CASES = [*MISTAKES, *ALTERNATIVES]


@dataclass
class Solution:
    """The course's own solution as a case: no cell replaced."""
    notebook: str
    id: str = ""
    cell: str = ""
    source: str = ""

    def __post_init__(self):
        self.id = f"solution_{self.notebook}"


CASES = [*(Solution(n) for n in course_notebooks()), *CASES]


@pytest.fixture(scope="module")
def both_ways():
    cases = {}
    for case in CASES:
        replace = {case.cell: case.source} if case.cell else {}
        cases[case.id, "reduced"] = (case.notebook, replace, True, False)
        cases[case.id, "full"] = (case.notebook, replace, True, True)
    return grade_cases(cases)


# Functions that keep state between calls answer differently once the lesson's demonstrations have
# called them too: the scores must agree, and the messages up to the numbers they quote.
STATE_DEPENDENT = {"nb01_pair_counts_kept_between_calls", "nb02_pair_counts_kept_between_calls",
                   "nb01_pair_counts_kept_between_calls_named_in_hidden", "nb04_stream_one_decoder_for_all_calls"}


def without_numbers(tests):
    return [{**t, "message": re.sub(r"\d+", "N", t["message"])} for t in tests]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_reduced_run_grades_like_the_full_lesson(both_ways, case):
    reduced, full = both_ways[case.id, "reduced"], both_ways[case.id, "full"]
    if case.id in STATE_DEPENDENT:
        assert without_numbers(reduced["tests"]) == without_numbers(full["tests"])
    else:
        assert reduced["tests"] == full["tests"]
    assert set(reduced["ran"]) <= set(full["ran"])
    if isinstance(case, Solution):
        assert len(reduced["ran"]) < len(full["ran"]), "the reduced run skips no cell"


@pytest.mark.parametrize("notebook", course_notebooks())
def test_a_solved_student_notebook_runs_top_to_bottom_with_its_visible_tests(notebook):
    """What a student sees: every cell of the student notebook, the visible tests among them, run in
    an ordinary kernel (as JupyterLab's Run All and nbgrader's Validate do) without an error."""
    solved = submission(notebook)
    NotebookClient(solved, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    errors = [(c.source[:80], o.get("ename"), o.get("evalue")) for c in solved.cells if c.cell_type == "code"
              for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
