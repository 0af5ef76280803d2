"""The slow proofs: every lesson run whole (`make proof`; CI runs it after `make test`).

Grading skips only the lesson's demonstrations that the author tagged `demo` and the student left
unchanged; the student's cells always run (autograder.notebook.pipeline). So a grade can differ from the
whole lesson's only through those tags, which are the course's, not the student's: each solution
and each untouched notebook is graded twice, in-process — skipping the tagged demonstrations, and
running the whole lesson — with the same scores and messages (tests/test_release.py checks
statically that no tagged cell is needed). The solved student notebooks are also run top to
bottom, as a student would run them. Each catalogued mistake, which the catalogue grades with only the
earlier tests that reach what it changes (tests/catalogue.py `reaching`), is graded with every test before
its catching test too, with the same verdict there; each alternative solution, graded there with the tests
that reach what it changes, is graded with every test, with full marks.
"""

import functools
import re
from dataclasses import dataclass

import pytest
from catalogue import grade_cases, reaching
from mistakes import ALTERNATIVES, MISTAKES
from nbclient import NotebookClient

from autograder.course.course import NOTEBOOKS, CourseNotebook, course_notebooks
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


@functools.cache
def dropped(mistake) -> bool:
    """Whether the catalogue leaves out any test before the mistake's catching test (else it grades it whole)."""
    course = CourseNotebook.load(mistake.notebook)
    replace = {mistake.cell: mistake.source}
    kept = reaching(course, submission(mistake.notebook, replace=replace), replace, mistake.caught_by)
    return kept != list(course.tests)[: list(course.tests).index(mistake.caught_by) + 1]


@pytest.fixture(scope="module")
def mistakes_both_ways():
    """{(mistake id, "reaching" or "all"): result}, a notebook's mistakes graded when one is first asked for;
    both ways only where `reaching` leaves a test out (otherwise the two are the same grading)."""

    class Results(dict):
        def __missing__(self, key):
            notebook = next(m.notebook for m in MISTAKES if m.id == key[0])
            self.update(
                grade_cases(
                    {
                        (m.id, earlier): (m.notebook, {m.cell: m.source}, True, False, m.caught_by, earlier)
                        for m in MISTAKES
                        if m.notebook == notebook and dropped(m)
                        for earlier in ("reaching", "all")
                    }
                )
            )
            return self[key]

    return Results()


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.id)
def test_a_mistake_graded_with_only_the_tests_that_reach_it_has_the_same_verdict(mistakes_both_ways, mistake):
    """The catching test scores the same, with the same message (its measured figures aside), whether the
    tests before it that `reaching` leaves out run or not."""
    if not dropped(mistake):
        return  # the catalogue grades every test before the catching one: nothing to compare
    verdict = lambda earlier: next(
        t for t in mistakes_both_ways[mistake.id, earlier]["tests"] if t["name"] == mistake.caught_by
    )
    reduced, every = verdict("reaching"), verdict("all")
    # A shown value is cut at a fixed length, so a figure of another width may end just before the cut or across it.
    figures = lambda message: re.sub(r"#?…", "…", re.sub(r"\d+(?:[.,]\d+)?", "#", message))
    assert reduced["score"] == every["score"], (reduced, every)
    assert figures(reduced["message"]) == figures(every["message"]), (reduced, every)


@pytest.fixture(scope="module")
def alternatives_whole():
    return grade_cases({a.id: (a.notebook, {a.cell: a.source}, True, False) for a in ALTERNATIVES})


@pytest.mark.parametrize("alternative", ALTERNATIVES, ids=lambda a: a.id)
def test_an_alternative_graded_with_every_test_gets_full_marks(alternatives_whole, alternative):
    """The catalogue grades an alternative with the tests that may see what its cell changes; with every
    test of the notebook it scores full marks too."""
    r = alternatives_whole[alternative.id]
    assert r["status"] == "graded" and r["score"] == r["max_score"], [
        (t["name"], t["message"]) for t in r["tests"] if t["score"] < t["max_score"]
    ]
