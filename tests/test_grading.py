"""The grading itself, proven through the real nbgrader pipeline (see conftest.py)."""
import csv

import nbformat
import pytest

from autograder.course import course_notebooks
from mistakes import ALTERNATIVES, MISTAKES

NOTEBOOKS = course_notebooks()


def failed_tests(result):
    return {t["name"]: t for t in result["tests"] if t["score"] < t["max_score"]}


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_solutions_score_full_marks(graded, notebook):
    results, *_ = graded
    r = results["solved", notebook]
    assert r["status"] == "graded", r["message"]
    assert r["max_score"] > 0
    assert r["score"] == r["max_score"], failed_tests(r)


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_solutions_write_nothing_to_stderr(graded, notebook):
    _, _, work, *_ = graded
    autograded = nbformat.read(str(work / "students" / "solved" / "autograded" / "solved" / notebook / f"{notebook}.ipynb"), 4)
    for cell in autograded.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", (cell.source[:200], output.get("evalue"))
            assert not (output.output_type == "stream" and output.name == "stderr"), (cell.source[:200], output.text)


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_untouched_notebooks_score_zero_and_say_not_implemented(graded, notebook):
    results, *_ = graded
    r = results["untouched", notebook]
    assert r["status"] == "graded", r["message"]
    assert r["score"] == 0
    assert r["tests"], "no tests were graded"
    for t in r["tests"]:
        assert t["score"] == 0, t["name"]
    coding = [t for t in r["tests"] if not t["name"].startswith("test_quiz")]
    for t in coding:
        assert "NotImplementedError" in t["message"] and "не реализована" in t["message"], t


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.id)
def test_each_known_mistake_loses_points_in_its_test(graded, mistake):
    results, *_ = graded
    r = results[mistake.id, mistake.notebook]
    assert r["status"] == "graded", r["message"]
    failed = failed_tests(r)
    assert mistake.caught_by in failed, f"{mistake.caught_by} did not catch it; failed: {sorted(failed)}"
    message = failed[mistake.caught_by]["message"]
    assert mistake.message in message, message
    assert r["score"] < r["max_score"]


@pytest.mark.parametrize("alternative", ALTERNATIVES, ids=lambda a: a.id)
def test_alternative_solutions_get_full_marks(graded, alternative):
    results, *_ = graded
    r = results[alternative.id, alternative.notebook]
    assert r["score"] == r["max_score"], failed_tests(r)


def test_grades_csv_has_a_row_per_student_and_notebook(graded):
    results, out, *_ = graded
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:4] == ["student_id", "notebook", "score", "max_score"]
    assert {(row["student_id"], row["notebook"]) for row in rows} == set(results)
    solved = [row for row in rows if row["student_id"] == "solved"]
    assert all(row["score"] == row["max_score"] for row in solved)


def test_missing_notebook_scores_zero_and_is_reported(graded):
    results, *_ = graded
    mistake = MISTAKES[0]
    other = next(n for n in NOTEBOOKS if n != mistake.notebook)
    r = results[mistake.id, other]
    assert (r["status"], r["score"]) == ("missing", 0)
    assert r["max_score"] == results["solved", other]["max_score"]


def test_broken_submissions_are_reported_and_the_class_is_still_graded(graded):
    results, _, _, code, output = graded
    assert results["broken", "01_hand_example"]["status"] == "broken"
    assert "not valid JSON" in results["broken", "01_hand_example"]["message"]
    assert "empty" in results["broken", "02_byte_level_training"]["message"]
    assert "not a Jupyter notebook" in results["broken", "03_encode_order"]["message"]
    assert "broken/notes.txt: not a course notebook" in output
    assert code == 1, output  # done, but some submissions could not be graded
    assert results["solved", "01_hand_example"]["status"] == "graded"


def test_feedback_shows_messages_but_not_hidden_tests(graded):
    _, out, *_ = graded
    html = (out / "feedback" / "tie_goes_to_last_pair" / "01_hand_example.html").read_text(encoding="utf-8")
    assert '">test_learn_merges_hidden</a> (Score: 0.0 / 3.0)' in html  # each test listed by name
    assert "ничьей" in html                      # the failure message reaches the student
    assert "BEGIN HIDDEN TESTS" not in html
    assert "sennrich[:6]" not in html            # a line of the hidden test's source
    assert "скрытые тесты не показываются" in html
