"""A submission that changed the course's test cells (or marked a cell of its own graded) is graded from the
course's cells, as always, and the instructor is told what it changed (issue 29 item 7, issue 40 item 4): each
kind is a typed record (`Result.changes`) whose line is listed *For review* — on the terminal, on the feedback
page's instructor view, in the item analysis and on the course server's instructor page; an honest one is not listed."""

import ast
import copy
import csv
import html
import sys
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from autograder.course.cells import grade_id, is_test
from autograder.course.course import CourseNotebook, course_notebooks
from autograder.course.simulate import submission, write
from autograder.notebook.pipeline import NotebookGrader
from autograder.notebook.results import CHANGES, CellChange, result_from_dict
from autograder.notebook.sanitize import sanitize

sys.path.insert(0, str(Path(__file__).parent))
from local_session import LocalSession  # noqa: E402

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


def to_raw(nb):
    cell = graded_cells(nb)[0]
    nb.cells[nb.cells.index(cell)] = nbformat.v4.new_raw_cell(cell.source, metadata=cell.metadata, id=cell.id)


def to_markdown(nb):
    cell = graded_cells(nb)[-1]
    nb.cells[nb.cells.index(cell)] = nbformat.v4.new_markdown_cell(cell.source, metadata=cell.metadata, id=cell.id)


def unlock(nb):
    """As JupyterLab's property inspector and a hand-made checksum leave it: editable, unlocked, a new id."""
    cell = graded_cells(nb)[0]
    cell.metadata.nbgrader.update(locked=False, checksum="0123456789abcdef0123456789abcdef")
    cell.metadata["editable"] = True
    cell["id"] = "c0ffee01"


def forge_outputs(nb):
    """nbgrader reads a test cell's value as its points: «ok: 100/100» in the hidden test's place."""
    cell = next(c for c in graded_cells(nb) if grade_id(c).endswith("_hidden"))
    cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "'ok: 100/100'"}, execution_count=7)]
    cell.execution_count = 7


def own_graded_cell(nb):
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "print('ok: 1000/1000')",
            metadata={
                "nbgrader": {"grade": True, "solution": False, "points": 1000, "grade_id": "bonus", "locked": True}
            },
        )
    )


def reorder(nb):
    tests = graded_cells(nb)
    i, j = nb.cells.index(tests[0]), nb.cells.index(tests[-1])
    nb.cells[i], nb.cells[j] = nb.cells[j], nb.cells[i]


def retag(nb):
    graded_cells(nb)[0].metadata["tags"] = ["raises-exception"]


KINDS = [  # (the tampering, the kind of record, what its line says)
    (delete, "deleted", "удалён из блокнота"),
    (edit, "edited", "код теста изменён"),
    (more_points, "metadata", "«баллы»: 3 → 100"),
    (untag, "untagged", "снята разметка nbgrader"),
    (repoint, "repointed", "grade_id: «my_own_test»"),
    (duplicate, "duplicated", "2 ячейки с его grade_id"),
    (to_raw, "retyped", "code → raw"),
    (to_markdown, "retyped", "code → markdown"),
    (unlock, "unlocked", "locked: True → False, checksum:"),
    (forge_outputs, "outputs", "execute_result «'ok: 100/100'»"),
    (own_graded_cell, "foreign", "grade_id 'bonus', «оценивается»: True, «баллы»: 1000"),
    (reorder, "moved", "перемещён: стоит после"),
    (retag, "metadata", "теги: None → ['raises-exception']"),
]
IDS = [f"{k[0].__name__}" for k in KINDS]


@pytest.mark.parametrize("tamper, kind, says", KINDS, ids=IDS)
def test_each_kind_of_tampering_is_a_record_listed_for_review_and_graded_from_the_course(tmp_path, tamper, kind, says):
    nb = submission(NB, solved=False)
    tests = {grade_id(c): c.source for c in graded_cells(release())}
    tamper(nb)
    shaped, changes, findings = sanitize(write(nb, tmp_path / f"{NB}.ipynb"), release())
    assert any(c.kind == kind and says in c.text() for c in changes), [c.text() for c in changes]
    assert kind in CHANGES and findings == []
    assert {grade_id(c): c.source for c in graded_cells(shaped)} == tests  # graded from the course's cells
    assert all(c.metadata.nbgrader["points"] <= 3 for c in graded_cells(shaped))
    assert not any(c.get("outputs") for c in graded_cells(shaped))


@pytest.mark.parametrize("solved", [True, False], ids=["solved", "untouched"])
@pytest.mark.parametrize("tamper, kind, says", KINDS, ids=IDS)
def test_a_tampered_notebook_scores_what_its_honest_work_earns_and_the_instructor_is_told(
    tmp_path, tamper, kind, says, solved
):
    course = CourseNotebook.load(NB)
    honest = NotebookGrader().grade(
        course, write(submission(NB, solved=solved), tmp_path / "honest" / f"{NB}.ipynb"), LocalSession
    )
    nb = submission(NB, solved=solved)
    tamper(nb)
    graded = NotebookGrader().grade(course, write(nb, tmp_path / f"{NB}.ipynb"), LocalSession)
    result = graded.result
    assert result.score == honest.result.score == (course.max_score if solved else 0)
    assert [(t.name, t.score) for t in result.tests] == [(t.name, t.score) for t in honest.result.tests]
    assert honest.result.review == [] and honest.result.changes == []
    assert any(c.kind == kind for c in result.changes)
    assert any(says in line for line in result.review), result.review
    assert result_from_dict(result.to_dict()).changes == result.changes  # as the cache and results.json keep it


def test_the_tampering_names_the_test_it_touched(tmp_path):
    nb = submission(NB, solved=False)
    target = grade_id(graded_cells(nb)[-1])
    edit(nb)
    _, changes, _ = sanitize(write(nb, tmp_path / f"{NB}.ipynb"), release())
    assert [c.text() for c in changes] == [
        f"тест «{target}»: код теста изменён — проверен тестом курса, как он был выдан"
    ]
    assert changes == [CellChange("edited", target)]


def test_an_answer_moved_below_its_tests_is_no_moved_test(tmp_path):
    """Only a test out of the course's order is named: an answer cell moved after its tests is put back
    (autograder.notebook.normalize) and names no test."""
    nb = submission(NB)
    answer = next(c for c in nb.cells if grade_id(c) == "count_pairs")
    nb.cells.remove(answer)
    nb.cells.insert(nb.cells.index(next(c for c in nb.cells if grade_id(c) == "test_count_pairs_hidden")) + 1, answer)
    _, changes, _ = sanitize(write(nb, tmp_path / f"{NB}.ipynb"), release())
    assert changes == []


@pytest.mark.parametrize("solved", [True, False], ids=["solved", "untouched"])
def test_an_honest_submission_is_not_listed(tmp_path, solved):
    _, changes, findings = sanitize(write(submission(NB, solved=solved), tmp_path / f"{NB}.ipynb"), release())
    assert changes == [] and findings == []


def test_a_test_cells_honest_outputs_are_not_listed(tmp_path):
    """What running the notebook in Jupyter leaves in a visible test cell — the student's prints, a failed
    check's traceback — is no forgery."""
    nb = submission(NB, solved=False)
    cell = graded_cells(nb)[0]
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="debug\n"),
        nbformat.v4.new_output("error", ename="CheckFailed", evalue="ANSWER_1 не задан", traceback=["CheckFailed"]),
    ]
    _, changes, _ = sanitize(write(nb, tmp_path / f"{NB}.ipynb"), release())
    assert changes == []


@pytest.mark.parametrize("name", course_notebooks())
def test_no_test_cell_of_the_course_shows_a_value(name):
    """So a value in a test cell's outputs is never the course's test (forge_outputs above): every test cell
    ends in a statement, or in a call of a check, which returns None."""
    for cell in graded_cells(CourseNotebook.load(name).release):
        body = ast.parse(cell.source).body
        last = body[-1] if body else None
        if isinstance(last, ast.Expr):
            assert isinstance(last.value, ast.Call) and ast.unparse(last.value.func).startswith("check"), cell.source


def test_every_kind_reaches_the_terminal_the_instructors_feedback_page_and_the_item_analysis(tmp_path, capsys):
    """A class of one student per kind, graded as a class is (results, feedback pages, outputs, the report):
    each line is For review on the terminal, on that student's instructor view (OUT/review/, never in
    feedback/, which is zipped for the students) and in the item analysis, whose `changed_by` counts the tests."""
    from autograder.classroom.outputs import Outcome, write_outputs
    from autograder.classroom.workflow import report_class
    from autograder.notebook.feedback import feedback_html
    from autograder.platforms.analysis import write_item_analysis

    course = CourseNotebook.load(NB)
    results, pages = [], {}
    for k, (tamper, _, _) in enumerate(KINDS + [(lambda nb: None, "", "")]):
        nb = submission(NB)
        tamper(nb)
        graded = NotebookGrader().grade(course, write(nb, tmp_path / str(k) / f"{NB}.ipynb"), LocalSession, f"s{k:02}")
        results.append(graded.result)
        pages[graded.result.student, NB] = feedback_html(graded.result, graded.notebook, course.release, graded.ran)
    out = tmp_path / "out"
    outcome = Outcome(results=results, notebooks=[NB])
    write_outputs(outcome, [NB], out, pages)
    report_class(outcome, [NB], out, feedback=True)
    terminal = capsys.readouterr().out
    _, analysis = write_item_analysis(results, out)
    analysis = analysis.read_text(encoding="utf-8")
    honest = results.pop()
    assert not honest.review and not (out / "review" / honest.student).exists()
    for result, (_, kind, says) in zip(results, KINDS):
        assert result.score == course.max_score and any(c.kind == kind for c in result.changes)
        line = next(line for line in result.review if says in line)
        assert f"{result.student}/{NB}: {line}" in terminal
        view = (out / "review" / result.student / f"{NB}.html").read_text(encoding="utf-8")
        assert html.escape(line) in view and "Для преподавателя" in view
        student_page = (out / "feedback" / result.student / f"{NB}.html").read_text(encoding="utf-8")
        assert "Для преподавателя" not in student_page and html.escape(line) not in student_page
        assert f"{result.student}: {html.escape(line)}" in analysis
    rows = {row["test"]: row for row in csv.DictReader(open(out / "item_analysis.csv", encoding="utf-8"))}
    touched = Counter(c.cell for r in results for c in {c.cell: c for c in r.changes if c.kind != "foreign"}.values())
    assert touched and all(int(rows[test]["changed_by"]) == n for test, n in touched.items())
    assert all(row["changed_by"] == "0" for test, row in rows.items() if test not in touched)
