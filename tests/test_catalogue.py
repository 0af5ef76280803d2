"""The graded checks of every notebook, proven in-process through the grader's evaluation code.

For each notebook: the solution scores full marks, the untouched student notebook scores 0 and
every exercise says it is not written yet, each catalogued mistake (tests/mistakes/) loses points
in the test meant to catch it with a message that names the problem, each alternative correct
solution scores full marks. Each case is graded as a class is: the lesson's demonstrations tagged
`demo` are skipped, every other cell runs (tests/test_proof.py proves on the solutions and the
untouched notebooks that skipping them changes no grade).
"""

import nbformat
import pytest
from catalogue import grade_cases
from local_session import LocalSession
from mistakes import ALTERNATIVES, MISTAKES

from autograder.course.cells import is_test
from autograder.course.course import CourseNotebook, course_notebooks
from autograder.course.simulate import submission, write
from autograder.notebook.pipeline import NotebookGrader

NOTEBOOKS = course_notebooks()


def failed_tests(result):
    return {t["name"]: t for t in result["tests"] if t["score"] < t["max_score"]}


@pytest.fixture(scope="session")
def catalogue():
    """{(case id, notebook): result}, each notebook's cases graded the first time a test asks for one of
    them: `-k 03_` (make check-notebook NB=03) grades only notebook 03's cases."""
    graded = {}

    class Results(dict):
        def __missing__(self, key):
            notebook = key[1]
            cases = {
                ("solved", notebook): (notebook, {}, True, False),
                ("untouched", notebook): (notebook, {}, False, False),
            }
            for case in ALTERNATIVES:
                if case.notebook == notebook:
                    cases[case.id, notebook] = (notebook, {case.cell: case.source}, True, False)
            for case in MISTAKES:  # graded up to the test that must catch it
                if case.notebook == notebook:
                    cases[case.id, notebook] = (notebook, {case.cell: case.source}, True, False, case.caught_by)
            graded.update(grade_cases(cases))
            self.update(graded)
            return self[key]

    return Results()


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_solutions_score_full_marks(catalogue, notebook):
    r = catalogue["solved", notebook]
    assert r["status"] == "graded", r["message"]
    assert r["max_score"] > 0 and r["tests"]
    assert r["score"] == r["max_score"], failed_tests(r)


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_untouched_notebooks_score_zero_and_say_not_implemented(catalogue, notebook):
    r = catalogue["untouched", notebook]
    assert r["status"] == "graded", r["message"]
    assert r["score"] == 0 and r["tests"]
    for t in r["tests"]:
        assert t["score"] == 0, t["name"]
    for t in r["tests"]:
        if not t["name"].startswith("test_quiz"):
            assert "NotImplementedError" in t["message"] and "не реализована" in t["message"], t


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.id)
def test_each_known_mistake_loses_points_in_its_test(catalogue, mistake):
    r = catalogue[mistake.id, mistake.notebook]
    assert r["status"] == "graded", r["message"]
    failed = failed_tests(r)
    assert mistake.caught_by in failed, f"{mistake.caught_by} did not catch it; failed: {sorted(failed)}"
    assert mistake.message in failed[mistake.caught_by]["message"], failed[mistake.caught_by]["message"]


@pytest.mark.parametrize("alternative", ALTERNATIVES, ids=lambda a: a.id)
def test_alternative_solutions_get_full_marks(catalogue, alternative):
    r = catalogue[alternative.id, alternative.notebook]
    assert r["score"] == r["max_score"], failed_tests(r)


def test_nothing_after_the_last_test_runs_even_in_the_full_lesson(tmp_path):
    """A cell after the last test cannot change a grade, so no run pays for it (not even a student's
    endless loop there); a cell before it that the checks do not need still runs in the full lesson."""
    notebook = submission("01_hand_example")
    last_test = max(i for i, c in enumerate(notebook.cells) if is_test(c))
    notebook.cells.append(nbformat.v4.new_code_cell("while True:\n    pass"))
    path = write(notebook, tmp_path / "01_hand_example.ipynb")
    graded = NotebookGrader(run_only_needed=False).grade(CourseNotebook.load("01_hand_example"), path, LocalSession)
    assert graded.result.score == graded.result.max_score
    assert max(graded.ran) < last_test and len(graded.ran) > 4


def test_an_edit_that_no_longer_fits_its_solution_fails_loudly():
    """A catalogue entry written as an edit of the solution breaks when the solution moves away from it,
    instead of quietly grading the unchanged solution as the mistake."""
    from mistakes import EditError, edited, solution

    source = solution("01_hand_example", "count_pairs")
    assert "### BEGIN SOLUTION" not in source and "def count_pairs(corpus):" in source
    changed = edited("01_hand_example", "count_pairs", ("+ freq", "+ 1"))
    assert changed == source.replace("+ freq", "+ 1") != source
    with pytest.raises(EditError, match="stands 0 times"):
        edited("01_hand_example", "count_pairs", ("no such line", "x"))
    with pytest.raises(EditError, match=r"stands [2-9] times"):
        edited("01_hand_example", "count_pairs", ("counts", "x"))
    with pytest.raises(EditError, match="no solution cell"):
        solution("01_hand_example", "no_such_cell")
