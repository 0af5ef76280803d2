"""The grader's own work on what a submission controls is bounded (issue 18): each attack in-process."""
import tempfile
import time
from pathlib import Path

import pytest

from autograder import bounds
from autograder.course import CourseNotebook
from autograder.evaluate import Evaluator
from autograder.pipeline import NotebookGrader
from autograder.session import LocalSession
from autograder.simulate import submission, write

# nested bounded repeats: a backtracking search that takes hours on a string of a few digits
BOMB = r"(?:(?:(?:(?:\d?){1,3}){1,3}){1,9}){1,9}\D"


def grade(notebook: str, replace: dict, **evaluator):
    course = CourseNotebook.load(notebook)
    with tempfile.TemporaryDirectory(prefix="bpe-bounds-") as tmp:
        path = write(submission(notebook, replace=replace), Path(tmp) / f"{notebook}.ipynb")
        grader = NotebookGrader(evaluator=Evaluator(**evaluator))
        return grader.grade(course, path, LocalSession)


def test_a_student_pattern_that_backtracks_forever_fails_its_tests_and_the_notebook_goes_on():
    started = time.monotonic()
    graded = grade("05_regex_pretokenization", {"number_pattern": f'''
def number_pattern(max_digits):
    return r"{BOMB}|" + GPT2_PATTERN'''}, regex_seconds=0.5)
    result = graded.result
    tests = {t.name: t for t in result.tests}
    assert "регулярное выражение не завершилось за 0.5 с" in tests["test_number_pattern"].message
    assert tests["test_number_pattern"].score == 0
    # the tests after it ran and the other exercises keep their points
    assert result.status == "graded" and result.score > 0
    assert all(t.score == t.max_score for t in result.tests if "number_pattern" not in t.name)
    assert time.monotonic() - started < 120   # hours without the bound; a guard against a hang, not a measure


def test_every_way_a_test_reaches_regex_is_bounded():
    budget = bounds.Budget(0.3)
    names = {"__builtins__": bounds.bounded_builtins(budget)}
    exec("import regex as r\nfrom regex import findall\nimport regex", names)
    for call in (lambda: names["r"].findall(BOMB, "1" * 40), lambda: names["findall"](BOMB, "1" * 40),
                 lambda: names["regex"].compile(BOMB).search("1" * 40),
                 lambda: names["regex"].findall(BOMB, "1" * 40, timeout=1000)):
        budget.start()
        with pytest.raises(bounds.RegexTimeout, match="не завершилось за 0.3 с"):
            call()
    budget.start()
    assert names["regex"].findall(r"\d{1,3}", "12345") == ["123", "45"]      # honest work is unchanged
    assert names["regex"].compile(r"\d").pattern == r"\d"
