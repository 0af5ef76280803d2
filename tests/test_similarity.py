"""The similarity report: a copied pair stands first, independent solutions and shared starter code do not.

The class: three independent correct solutions in different styles (the reference and the catalogue's
alternatives, tests/mistakes/), a copier of one of them (variables renamed, functions in another order,
comments changed), and two students who share only the course's given code (stubs left as given, a
given cell pasted into a cell of their own).
"""

import builtins
import csv
import io
import keyword
import re
import subprocess
import sys
import tokenize
from html import unescape

import nbformat
import pytest
from conftest import ROOT, grade
from mistakes import ALTERNATIVES

from autograder.classroom import similarity
from autograder.classroom.similarity import THRESHOLD
from autograder.classroom.workflow import compare_students, write_similarity
from autograder.course.course import CourseNotebook
from autograder.course.simulate import solution_sources, submission, write
from autograder.platforms.report import write_roster

NOTEBOOKS = ["01_hand_example", "02_byte_level_training"]
FORMULA = '=HYPERLINK("evil.example","x")'
COPIER = FORMULA  # the copier's id is a formula: similarity.csv must show it as text
NAMES = {"ref": "<script>alert(1)</script>Иван", COPIER: "<img src=x onerror=alert(1)>Пётр"}


def disguised(code: str) -> str:
    """A copy made to look different: every name renamed, every comment rewritten."""
    tokens = []
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        text = tok.string
        if tok.type == tokenize.NAME and not keyword.iskeyword(text) and not hasattr(builtins, text):
            text = f"my_{text}"
        elif tok.type == tokenize.COMMENT:
            text = "# сделал по-своему"
        tokens.append((tok.type, text))
    return tokenize.untokenize(tokens)


def style(notebook: str, i: int) -> dict:
    """Solution cells in the i-th alternative style of the catalogue (0: the reference)."""
    if i == 0:
        return {}
    chosen = {}
    for cell in solution_sources(notebook):
        alternatives = [a for a in ALTERNATIVES if a.notebook == notebook and a.cell == cell]
        if alternatives:
            chosen[cell] = alternatives[i - 1].source
    return chosen


def copied(notebook: str, original: dict) -> dict:
    """The original's solutions, disguised, each moved to the next solution cell (functions reordered)."""
    cells = list(solution_sources(notebook))
    sources = {c: original.get(c, solution_sources(notebook)[c]) for c in cells}
    return {c: disguised(sources[cells[(i + 1) % len(cells)]]) for i, c in enumerate(cells)}


def with_given_pasted(notebook: str) -> nbformat.NotebookNode:
    """The stubs left as given, and each of the course's given cells pasted into a cell of the student's
    own, with a comment of the student's."""
    nb = submission(notebook, solved=False)
    for source in CourseNotebook.load(notebook).given.values():
        nb.cells.append(nbformat.v4.new_code_cell(f"# скопировал, чтобы посмотреть\n{source}"))
    return nb


def class_of(notebook: str) -> dict:
    independent = {f"style{i}" if i else "ref": style(notebook, i) for i in range(3)}
    notebooks = {s: submission(notebook, replace=r) for s, r in independent.items()}
    notebooks[COPIER] = submission(notebook, replace=copied(notebook, independent["style1"]))
    notebooks["given_a"] = notebooks["given_b"] = with_given_pasted(notebook)
    return notebooks


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("similar")
    students: dict = {}
    for notebook in NOTEBOOKS:
        for student, nb in class_of(notebook).items():
            students.setdefault(student, {})[notebook] = write(nb, base / "class" / student / f"{notebook}.ipynb")
    out = base / "out"
    out.mkdir()
    write_roster(NAMES, out)
    compare_students(students, NOTEBOOKS, out, out / "work")
    return out, csv_rows(out)


def test_the_catalogue_has_independent_styles_for_every_function():
    for notebook in NOTEBOOKS:
        for cell in solution_sources(notebook):
            if cell != "quiz_answers":
                assert len([a for a in ALTERNATIVES if a.notebook == notebook and a.cell == cell]) >= 2, cell


def test_the_copied_pair_is_first_in_every_notebook_and_no_other_pair_reaches_the_threshold(report):
    _, rows = report
    for notebook in NOTEBOOKS:
        ranked = [r for r in rows if r["notebook"] == notebook]
        first = ranked[0]
        assert {first["student_a"], first["student_b"]} == {"'" + FORMULA, "style1"}, ranked[:3]
        assert float(first["score"]) >= 0.8
        assert all(float(r["score"]) < THRESHOLD for r in ranked[1:]), ranked[:3]
    scores = [float(r["score"]) for r in rows]
    assert scores == sorted(scores, reverse=True)


def test_students_who_share_only_the_given_code_are_not_listed(report):
    _, rows = report
    assert not [r for r in rows if {r["student_a"], r["student_b"]} == {"given_a", "given_b"}]


def test_a_formula_in_a_student_id_is_written_as_text(report):
    out, _ = report
    text = (out / "similarity.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK" in text
    assert not any(line.startswith("=") or ",=" in line for line in text.splitlines())


def test_the_page_shows_the_pair_side_by_side_names_escaped_shared_code_marked(report):
    out, _ = report
    page = (out / "similarity.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;Иван" not in page  # ref is in no pair above the threshold
    assert "&lt;img src=x onerror=alert(1)&gt;Пётр" in page
    assert page.count('<div class="pair">') == len(NOTEBOOKS)
    assert "<mark>" in page and "my_" in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_the_given_code_is_never_marked_as_shared(report):
    """Neither a given cell pasted again nor a stub's docstring kept above a solution is marked."""
    out, _ = report
    page = (out / "similarity.html").read_text(encoding="utf-8")
    marked = {line.strip() for m in re.findall("<mark>(.*?)</mark>", page, re.S) for line in unescape(m).splitlines()}
    for notebook in NOTEBOOKS:
        course = CourseNotebook.load(notebook)
        stubs = [c.source for c in course.release.cells if c.metadata.get("nbgrader", {}).get("solution")]
        docstrings = similarity.given_text(stubs)
        assert docstrings and not docstrings & marked
        for source in course.given.values():
            assert max(source.splitlines(), key=len).strip() not in marked


def test_grade_writes_the_report_and_the_similarity_command_writes_it_again(tmp_path):
    """Through the grader: the report after `grade`, a --rename'd student keeps the name, and
    `python -m autograder similarity OUT` gives the same list without the submissions."""
    notebook = NOTEBOOKS[0]
    klass = class_of(notebook)
    for student in ("ref", "style1", "style2"):
        write(klass[student], tmp_path / "class" / student / f"{notebook}.ipynb")
    write(klass[COPIER], tmp_path / "class" / "1003" / "hw1.ipynb")  # the copier, renamed by hand
    out = tmp_path / "out"
    out.mkdir()
    write_roster({"1003": "Пётр <b>Копия</b>"}, out)
    run = grade(tmp_path / "class", out, "--jobs", "2", "--rename", "1003/hw1.ipynb=01")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "similarity:" in run.stdout
    first = (out / "similarity.csv").read_text(encoding="utf-8").splitlines()[1]
    assert first.startswith(f"{notebook},1003,style1,"), first
    assert "Пётр &lt;b&gt;Копия&lt;/b&gt; (1003)" in (out / "similarity.html").read_text(encoding="utf-8")
    before = (out / "similarity.csv").read_text(encoding="utf-8")
    (out / "similarity.csv").unlink()
    for path in (tmp_path / "class").rglob("*.ipynb"):
        path.unlink()
    again = subprocess.run(
        [sys.executable, "-m", "autograder", "similarity", str(out)], cwd=ROOT, capture_output=True, text=True
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert (out / "similarity.csv").read_text(encoding="utf-8") == before
    assert "similarity:" in again.stdout


def test_a_file_that_is_no_longer_a_notebook_leaves_nothing_to_compare(tmp_path):
    """A student who replaces the copy with a broken file is no longer listed (the kept code is not stale)."""
    notebook = NOTEBOOKS[0]
    klass = class_of(notebook)
    students = {s: {notebook: write(klass[s], tmp_path / s / f"{notebook}.ipynb")} for s in ("style1", COPIER)}
    out = tmp_path / "out"
    out.mkdir()
    compare_students(students, [notebook], out, out / "work")
    assert len(csv_rows(out)) == 1
    students[COPIER][notebook].write_text('{"cells": [', encoding="utf-8")
    compare_students(students, [notebook], out, out / "work")
    assert csv_rows(out) == []


def csv_rows(out) -> list:
    with open(out / "similarity.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_a_rerun_with_no_code_changed_compares_nothing_and_writes_the_same(report, monkeypatch):
    out, _ = report
    files = [out / "similarity.csv", out / "similarity.html"]
    before = [f.read_text(encoding="utf-8") for f in files]
    students = sorted(p.name for p in (out / "work" / "similarity").iterdir())
    starters = similarity.starters(NOTEBOOKS)
    monkeypatch.setattr(similarity, "compare", lambda *a: pytest.fail("compared again"))
    write_similarity(students, starters, out, out / "work")
    assert [f.read_text(encoding="utf-8") for f in files] == before


def test_own_code_is_solutions_and_changed_cells_never_tests_or_untouched_course_cells():
    notebook = NOTEBOOKS[1]
    course = CourseNotebook.load(notebook)
    starter = similarity.Starter.of(course)
    nb = submission(notebook, solved=False)
    given, test = next(iter(course.given)), next(iter(course.tests))
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == given:
            cell.source = "def hidden_in_a_given_cell(x):\n    return x * 2\n"
        if cell.metadata.get("nbgrader", {}).get("grade_id") == test:
            cell.source = "def hidden_in_a_test_cell(x):\n    return x * 3\n"
    nb.cells.append(nbformat.v4.new_code_cell("def added_by_the_student():\n    pass\n"))
    code = similarity.own_code(nb, starter.test_ids, starter.sources)
    assert "hidden_in_a_given_cell" in code and "added_by_the_student" in code
    assert "hidden_in_a_test_cell" not in code
    assert not any(source.strip() and source in code for source in starter.sources)


def test_the_similarity_command_refuses_a_folder_that_was_not_graded(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "similarity", str(tmp_path)], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 2 and "not a grade output folder" in run.stdout + run.stderr


def test_students_who_pasted_the_same_code_are_one_group_with_the_code_shown_once(tmp_path):
    """Twelve students with one code (some copies renamed) are one group — their names, the code once —
    not 66 pairs; a copied pair outside the group is still shown side by side, and similarity.csv keeps
    every pair, the group's marked with its number."""
    notebook = NOTEBOOKS[1]
    sources = solution_sources(notebook)
    one = style(notebook, 1)
    copies = {}
    for i in range(12):
        code = {c: one.get(c, sources[c]) for c in sources}
        if i % 2:
            code = {c: disguised(s).replace("my_", f"s{i}_") for c, s in code.items()}
        copies[f"copy{i:02}"] = submission(notebook, replace=code)
    copies["ref"] = submission(notebook)
    copies["refcopy"] = submission(notebook, replace={c: disguised(s) for c, s in sources.items()})
    copies["style2"] = submission(notebook, replace=style(notebook, 2))
    students = {s: {notebook: write(nb, tmp_path / s / f"{notebook}.ipynb")} for s, nb in copies.items()}
    out = tmp_path / "out"
    out.mkdir()
    write_roster({"copy00": "Анна <i>Первая</i>"}, out)
    compare_students(students, [notebook], out, out / "work")
    rows = csv_rows(out)
    group = {frozenset((r["student_a"], r["student_b"])) for r in rows if r["group"] == "1"}
    assert group == {
        frozenset((a, b)) for a in copies for b in copies if a < b and a.startswith("copy") and b.startswith("copy")
    }
    assert not [r for r in rows if r["group"] not in ("", "1")]
    page = (out / "similarity.html").read_text(encoding="utf-8")
    assert page.count("Группа 1: 12 студентов") == 1 and "Группа 2" not in page
    assert "Анна &lt;i&gt;Первая&lt;/i&gt; (copy00)" in page and all(f"copy{i:02}" in page for i in range(12))
    assert page.count('<div class="pair">') == 1  # ref and refcopy, side by side
    assert page.count("<pre>") == 1 + 2 and "<mark>" in page  # the group's code once, the pair's two
