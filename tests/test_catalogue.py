"""The graded checks of every notebook, proven in-process through the grader's evaluation code.

For each notebook: the solution scores full marks, the untouched student notebook scores 0 and
every exercise says it is not written yet, each catalogued mistake (tests/mistakes/) loses points
in the test meant to catch it with a message that names the problem, each alternative correct
solution scores full marks. Each case is graded as a class is: the lesson's demonstrations tagged
`demo` are skipped, every other cell runs (tests/test_proof.py proves on the solutions and the
untouched notebooks that skipping them changes no grade).
"""

import re

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


def cases_of(notebook: str) -> dict:
    """{(case id, notebook): grade_case's arguments} of one notebook: its solution, its untouched notebook, its
    alternatives (with every test that may see what the replaced cell changes: the others run the solution's
    code on the solution's values, as in the solved case; tests/test_proof.py grades them whole), its mistakes
    (graded up to the test that must catch them)."""
    cases = {
        ("solved", notebook): (notebook, {}, True, False),
        ("untouched", notebook): (notebook, {}, False, False),
    }
    last = list(CourseNotebook.load(notebook).tests)[-1]
    for case in ALTERNATIVES:
        if case.notebook == notebook:
            cases[case.id, notebook] = (notebook, {case.cell: case.source}, True, False, last, "reaching")
    for case in MISTAKES:
        if case.notebook == notebook:
            cases[case.id, notebook] = (notebook, {case.cell: case.source}, True, False, case.caught_by, "reaching")
    return cases


def costly_first(cases: dict, seconds: dict) -> dict:
    """The cases in an order that keeps both cores busy to the end: the longest first, by the CPU seconds
    each took the last time (`seconds`, {"case id/notebook": s}), else by how many tests each grades (whole
    gradings first, then the mistakes caught latest), in the notebooks with the most to grade first."""
    tests = {notebook: list(CourseNotebook.load(notebook).tests) for notebook in {args[0] for args in cases.values()}}
    graded = lambda args: len(tests[args[0]]) if len(args) < 5 else tests[args[0]].index(args[4]) + 1
    weight = {n: sum(graded(args) for args in cases.values() if args[0] == n) for n in tests}
    cost = lambda item: (-seconds.get("/".join(item[0]), 0), -weight[item[1][0]], -graded(item[1]))
    return dict(sorted(cases.items(), key=cost))


def notebook_of(item) -> str | None:
    """The notebook whose catalogue a selected test reads, if it reads one."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    case = params.get("mistake") or params.get("alternative")
    return case.notebook if case is not None else params.get("notebook")


@pytest.fixture(scope="session")
def catalogue(request):
    """{(case id, notebook): result}: the cases of every notebook a selected test reads, graded together the
    first time one is asked for (one pool, the costly cases first), so `-k 03_` (make check-notebook NB=03)
    grades only notebook 03's cases."""
    wanted = {
        notebook_of(item)
        for item in request.session.items
        if "catalogue" in getattr(item, "fixturenames", ()) and notebook_of(item)
    }

    cache = getattr(request.config, "cache", None)  # None under -p no:cacheprovider
    seconds = cache.get("catalogue/cpu-seconds", {}) if cache else {}

    class Results(dict):
        def __missing__(self, key):
            notebooks = wanted | {key[1]} if not self else {key[1]}
            cases = {}
            for notebook in sorted(notebooks):
                cases.update(cases_of(notebook))
            self.update(grade_cases(costly_first(cases, seconds)))
            if cache:
                seconds.update({"/".join(key): result["cpu"] for key, result in self.items()})
                cache.set("catalogue/cpu-seconds", seconds)
            return self[key]

    return Results()


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_solutions_score_full_marks(catalogue, notebook):
    r = catalogue["solved", notebook]
    assert r["status"] == "graded", r["message"]
    assert r["max_score"] > 0 and r["tests"]
    assert r["score"] == r["max_score"], failed_tests(r)
    assert r["extra"] == r["extra_max"], failed_tests(r)  # a deep-dive's tests too (extra points)


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


# The hidden test of each measured experiment (a value the student gets by running the lesson's code: 06's
# MEASURED is the course's only one), by the cell it grades. It may say how far off a value is and what to run
# again, never the value it expects: printed, it could be typed in instead of measured (issue 45).
MEASURED_EXPERIMENTS = {("06_vocab_size", "english_experiment"): "test_english_experiment_hidden"}
FIGURE = re.compile(r"\d[\d.,\u202f]{3,}")  # a number of four characters or more: 6607, 3.84, 1720


@pytest.mark.parametrize(
    "mistake",
    [m for m in MISTAKES if MEASURED_EXPERIMENTS.get((m.notebook, m.cell)) == m.caught_by],
    ids=lambda m: m.id,
)
def test_a_measured_experiments_hidden_test_never_prints_the_value_it_expects(catalogue, mistake):
    message = failed_tests(catalogue[mistake.id, mistake.notebook])[mistake.caught_by]["message"]
    _, _, after_the_students_value = message.partition(";")  # «MEASURED['русский'] = <the student's value>; …»
    assert after_the_students_value and not FIGURE.search(after_the_students_value), message


@pytest.mark.parametrize("alternative", ALTERNATIVES, ids=lambda a: a.id)
def test_alternative_solutions_get_full_marks(catalogue, alternative):
    r = catalogue[alternative.id, alternative.notebook]
    assert r["status"] == "graded" and r["tests"], r["message"]
    assert not failed_tests(r)  # each test it is graded with (the result's max_score is the notebook's)


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


def test_a_mistake_is_graded_with_the_earlier_tests_that_reach_what_it_changes():
    """A mistake's case grades its catching test and, of the tests before it, those that may see what the
    replaced cell changes (tests/catalogue.py `reaching`); tests/test_proof.py grades every mistake with
    all of them too and finds the same verdict."""
    from catalogue import reaching

    course = CourseNotebook.load("06_vocab_size")
    by_id = {m.id: m for m in MISTAKES}

    def kept(mistake_id, source=None):
        m = by_id[mistake_id]
        replace = {m.cell: source or m.source}
        return reaching(course, submission(m.notebook, replace=replace), replace, m.caught_by)

    # smallest_vocab's visible test calls it before the hidden one: its memo then holds that call's answer
    assert kept("nb06_smallest_vocab_remembers_answers") == ["test_smallest_vocab", "test_smallest_vocab_hidden"]
    # embedding_params reads nothing the tests before it see: none of them runs
    assert kept("nb06_embedding_float") == ["test_embedding_params"]
    # a broken bytes_per_token changes what the tests after its cell see, the experiment's among them
    assert kept("nb06_experiment_broken_bytes_per_token") == [
        "test_bytes_per_token",
        "test_bytes_per_token_hidden",
        "test_english_experiment",
    ]
    # a cell that changes what its code cannot show (globals(), a rebound builtin): every earlier test runs
    doubtful = by_id["nb06_embedding_float"].source + "\nglobals()['ru_merges'] = {}\n"
    rebound = by_id["nb06_embedding_float"].source + "\nlen = lambda x: 0\n"
    everything = list(course.tests)[: list(course.tests).index("test_embedding_params") + 1]
    assert kept("nb06_embedding_float", doubtful) == kept("nb06_embedding_float", rebound) == everything


def test_a_mistake_whose_state_comes_from_an_earlier_test_is_caught_only_with_that_test():
    """smallest_vocab that remembers its answers by (text, target) fails its hidden test with the catalogue's
    message because the visible test ran first; graded with the catching test alone it fails for another
    reason, so an `until` that dropped every earlier test would lose this mistake's proof."""
    from catalogue import grade_case

    m = next(m for m in MISTAKES if m.id == "nb06_smallest_vocab_remembers_answers")
    messages = {
        earlier: failed_tests(grade_case(m.notebook, {m.cell: m.source}, until=m.caught_by, earlier=earlier))
        .get(m.caught_by, {})
        .get("message", "")
        for earlier in ("none", "reaching")
    }
    assert m.message in messages["reaching"]
    assert messages["none"] and m.message not in messages["none"]
