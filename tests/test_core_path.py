"""The core path (issue 43 item 1): a deep-dive's exercises («Углубление») are graded as extra.

The course tags a deep-dive's test cells `optional` in solutions/ (autograder.course.cells.OPTIONAL_TAG);
their points are outside the notebook's maximum, so leaving them undone never lowers a percentage, and
doing them shows as «дополнительно». Each defence here comes with the attack it answers.
"""

import copy
import csv
import re

import nbformat
import pytest
from local_session import LocalSession

from autograder.course.cells import OPTIONAL_TAG, grade_id, is_optional, is_test
from autograder.course.course import NOTEBOOKS, SOLUTIONS, CourseNotebook, course_notebooks
from autograder.course.simulate import submission, write
from autograder.notebook.feedback import feedback_html
from autograder.notebook.pipeline import NotebookGrader
from autograder.platforms.lms import write_moodle_worksheet
from autograder.platforms.report import feedback_comment, write_canvas_import
from autograder.platforms.report import test_report as report_of

NB = "03_encode_order"  # a small notebook whose `applied_merges` is a deep-dive
DEEP_DIVE = "applied_merges"


def read(path):
    return nbformat.read(str(path), as_version=4)


def grade(tmp_path, notebook, course=None, name="s1"):
    course = course or CourseNotebook.load(NB)
    path = write(notebook, tmp_path / name / f"{NB}.ipynb")
    return course, NotebookGrader().grade(course, path, LocalSession, student=name)


@pytest.fixture(scope="module")
def core_only(tmp_path_factory):
    """03 with the core path solved and the deep-dive's `applied_merges` left as it was handed out."""
    untouched = {
        c.metadata["nbgrader"]["grade_id"]: c.source for c in submission(NB, solved=False).cells if grade_id(c)
    }
    return grade(tmp_path_factory.mktemp("core"), submission(NB, replace={DEEP_DIVE: untouched[DEEP_DIVE]}))


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    return grade(tmp_path_factory.mktemp("all"), submission(NB))


def test_the_maximum_is_the_core_paths_and_the_deep_dives_points_are_extra():
    course = CourseNotebook.load(NB)
    optional = {g for g, t in course.tests.items() if t.optional}
    assert optional == {"test_applied_merges", "test_applied_merges_hidden"}
    assert course.max_score == sum(t.points for g, t in course.tests.items() if g not in optional)
    assert course.extra_max == sum(course.tests[g].points for g in optional) > 0


def test_an_untouched_deep_dive_does_not_lower_the_percentage(core_only):
    course, graded = core_only
    r = graded.result
    assert r.status == "graded" and r.score == r.max_score == course.max_score, r.message
    assert r.extra == 0 and r.extra_max == course.extra_max
    assert r.message == "all tests passed"  # not "failed: test_applied_merges"
    skipped = [t for t in r.tests if t.optional]
    assert skipped and all(t.score == 0 for t in skipped)  # graded, and shown as not done: not hidden
    report = report_of(r)
    assert "НЕТ " not in report and "доп " in report and "по желанию" in report
    page = feedback_html(r, graded.notebook, course.release, graded.ran, course.title)
    assert f"Итог: {r.max_score:g} из {r.max_score:g}</p>" in page and "дополнительно" not in page.split("</p>")[1]
    assert "class=fail" not in page and "class=extra>по желанию" in page


def test_the_attack_without_the_tags_the_same_submission_loses_points(tmp_path, core_only):
    """What the defence is for: the course's tags removed, the same untouched deep-dive costs points."""
    course = CourseNotebook.load(NB)
    source = copy.deepcopy(course.source)
    for cell in source.cells:
        cell.metadata.get("tags", []).clear() if is_optional(cell) else None
    stripped = CourseNotebook(NB, source, course.release)
    _, graded = grade(tmp_path, core_only[1].notebook, stripped)
    assert stripped.extra_max == 0 and graded.result.score < graded.result.max_score


def test_a_solved_deep_dive_shows_as_extra(everything):
    course, graded = everything
    r = graded.result
    assert r.score == r.max_score and r.extra == r.extra_max == course.extra_max > 0
    assert "extra" in r.message
    assert f"+ {r.extra:g} дополнительно" in feedback_comment([r])
    assert f"+ {r.extra:g} дополнительно (из {r.extra_max:g})" in report_of(r)
    page = feedback_html(r, graded.notebook, course.release, graded.ran, course.title)
    assert f"Итог: {r.score:g} из {r.max_score:g} + {r.extra:g} дополнительно" in page


def test_a_student_cannot_make_a_core_test_optional(tmp_path):
    """The attack: the student tags a core test `optional` in their copy and leaves `encode` undone."""
    notebook = submission(NB, replace={"encode": "def encode(text, merges):\n    return []"})
    for cell in notebook.cells:
        if is_test(cell) and grade_id(cell).startswith("test_encode"):
            cell.metadata["tags"] = [OPTIONAL_TAG]
    _, graded = grade(tmp_path, notebook)
    lost = {t.name: t for t in graded.result.tests if t.score < t.max_score}
    assert "test_encode" in lost and not lost["test_encode"].optional
    assert graded.result.score < graded.result.max_score


def test_exports_send_the_core_maximum(tmp_path, core_only, everything):
    course = CourseNotebook.load(NB)
    results = [core_only[1].result, everything[1].result]
    results[1].student = "s2"
    canvas = list(csv.reader(open(write_canvas_import(results, {}, "hw", tmp_path / "c.csv"), encoding="utf-8")))
    assert canvas[1][-1] == f"{course.max_score:g}"
    assert {row[1]: row[-1] for row in canvas[2:]} == {"s1": f"{course.max_score:g}", "s2": f"{course.max_score:g}"}
    moodle = list(csv.DictReader(open(write_moodle_worksheet(results, {}, tmp_path / "m.csv"), encoding="utf-8")))
    assert {row["Maximum Grade"] for row in moodle} == {f"{course.max_score:g}"}
    assert {row["Grade"] for row in moodle} == {f"{course.max_score:g}"}  # never above the maximum


# -- the course's own marking: one source of truth, and the student edition agrees with it -------------


def deep_dives(notebook):
    """[(marker index, end index)] of the notebook's «Углубление» marker cells."""
    found = []
    for i, cell in enumerate(notebook.cells):
        if "deep-dive" in (cell.metadata.get("tags") or []):
            until = cell.metadata["deep_dive"]["until"]
            ends = [
                j
                for j, c in enumerate(notebook.cells)
                if j > i and c.cell_type == "markdown" and any(line.startswith(until) for line in c.source.splitlines())
            ]
            assert ends, f"deep-dive at cell {i} ends at «{until}», which is not a heading after it"
            assert cell.source.startswith("### Углубление (по желанию, ~"), cell.source
            found.append((i, ends[0]))
    return found


@pytest.mark.parametrize("name", course_notebooks())
def test_every_optional_test_is_inside_a_deep_dive_and_the_student_edition_agrees(name):
    source, student = read(SOLUTIONS / f"{name}.ipynb"), read(NOTEBOOKS / f"{name}.ipynb")
    spans = deep_dives(source)
    notes = [i for i, c in enumerate(source.cells) if "deep-dive-note" in (c.metadata.get("tags") or [])]
    for i, cell in enumerate(source.cells):
        if is_test(cell) and is_optional(cell) and grade_id(cell).startswith("test_quiz_"):
            # a question about a deep-dive, in the quiz at the end: a note before the answers says which
            number = grade_id(cell).removeprefix("test_quiz_")
            note = [source.cells[n].source for n in notes if n < i]
            assert note and f" {number}" in note[-1].split(":")[0] and "дополнительн" in note[-1], grade_id(cell)
        elif is_test(cell) and is_optional(cell):
            assert any(a < i < b for a, b in spans), f"{grade_id(cell)} is optional outside any «Углубление»"
            assert any(a < i < b and "дополнительные баллы" in source.cells[a].source for a, b in spans)
    exercises = {}
    for cell in source.cells:
        if is_test(cell):
            exercises.setdefault(grade_id(cell).removesuffix("_hidden"), set()).add(is_optional(cell))
    assert all(len(kinds) == 1 for kinds in exercises.values()), exercises  # visible and hidden agree
    tags = lambda nb: {grade_id(c): is_optional(c) for c in nb.cells if is_test(c)}
    assert tags(student) == tags(source)
    assert [c.source for c in student.cells if "deep-dive" in (c.metadata.get("tags") or [])] == [
        source.cells[a].source for a, _ in spans
    ]


def core_hours(name) -> float:
    """The core path's time cell 0 gives, in hours («основная линия — около 1 часа 15 минут»)."""
    text = read(SOLUTIONS / f"{name}.ipynb").cells[0].source
    said = re.search(r"основная линия — около ([^ ]+) час\w*(?: (\d+) минут)?", text)
    assert said, f"{name}: cell 0 gives no core time"
    hours = {"1": 1, "1,5": 1.5, "2": 2, "3,5": 3.5}[said.group(1)]
    return hours + int(said.group(2) or 0) / 60


def test_cell_0_gives_the_core_time_and_each_deep_dives_and_the_core_is_about_15_hours():
    total = 0.0
    for name in course_notebooks():
        source = read(SOLUTIONS / f"{name}.ipynb")
        first = source.cells[0].source
        assert "пробному прохождению" not in first and "закладывали" not in first  # no authoring history
        spans = deep_dives(source)
        if not spans:  # a notebook that is a deep-dive as a whole (07, 10)
            assert "Весь блокнот — углубление" in first, name
            continue
        total += core_hours(name)
        for a, _ in spans:
            minutes = re.search(r"~([^)]+)\)", source.cells[a].source).group(1)
            assert f"— ~{minutes}" in first, (name, minutes)  # each deep-dive's time is in cell 0 too
    assert 14 <= total <= 16, total


def test_notebooks_core_names_every_notebook_but_the_deep_dives_as_a_whole(tmp_path):
    from autograder.cli import choose_notebooks
    from autograder.course.course import core_notebooks

    assert choose_notebooks("core") == [n for n in course_notebooks() if not n.startswith(("07_", "10_"))]
    # the attack: 07's notebook metadata gone, it would be handed out as core
    for name in course_notebooks():
        notebook = read(SOLUTIONS / f"{name}.ipynb")
        notebook.metadata.pop("bpe_course", None)
        nbformat.write(notebook, str(tmp_path / f"{name}.ipynb"))
    assert core_notebooks(tmp_path) == course_notebooks()


@pytest.mark.parametrize("name", [n for n in course_notebooks() if not n.startswith("07_")])
def test_the_core_path_solved_with_every_deep_dive_untouched_scores_full_marks(tmp_path, name):
    """No core test depends on a deep-dive's function: a student who skips them all keeps 100%."""
    course = CourseNotebook.load(name)
    optional = {g.removeprefix("test_").removesuffix("_hidden") for g, t in course.tests.items() if t.optional}
    untouched = {grade_id(c): c.source for c in submission(name, solved=False).cells if grade_id(c)}
    skipped = {g: untouched[g] for g in optional if g in untouched}
    path = write(submission(name, replace=skipped), tmp_path / f"{name}.ipynb")
    r = NotebookGrader().grade(course, path, LocalSession, student="core").result
    assert r.status == "graded" and r.score == r.max_score, r.message
    if skipped:  # the deep-dives were graded and not passed: only their tags keep the 100% (see the attack above)
        assert sum(t.score for t in r.tests if t.optional) < course.extra_max


def test_grades_wide_and_the_lti_comment_keep_extra_apart(tmp_path, core_only, everything):
    from autograder.platforms.report import write_wide_csv
    from autograder.server.lti import summary

    course = CourseNotebook.load(NB)
    done, skipped = everything[1].result, core_only[1].result
    rows = list(csv.DictReader(open(write_wide_csv([done], [NB], tmp_path / "w.csv"), encoding="utf-8")))
    assert rows[0]["total"] == rows[0]["max_total"] == f"{course.max_score:g}"
    assert rows[0]["extra"] == f"{course.extra_max:g}"
    said = summary({NB: skipped.to_dict()}, {NB: course.max_score})
    assert "не пройдены" not in said and "дополнительно" not in said  # a skipped deep-dive is not «lost»
    assert f"+ {course.extra_max:g} дополнительно" in summary({NB: done.to_dict()}, {NB: course.max_score})
