"""A test cell runs in the student's kernel: a name it binds replaces the lesson's.

If a later lesson cell reads a name whose last binding before it is a test cell, the lesson works
only because of the test (and breaks in the student edition, where hidden tests are stripped, or
when a test's helper shadows a course function such as `bpe_course.count`). Only `make proof` would
otherwise catch it, by running every lesson top to bottom.
"""

import ast

import nbformat
import pytest

from autograder.course.cells import is_test
from autograder.course.course import course_notebooks
from autograder.course.plan import analyse

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def literal_values(source: str) -> dict:
    """{name: value} for the cell's top-level imports and assignments of literals (`EOT = "<|endoftext|>"`)."""
    values = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return values
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:  # what an import binds: the module and the name it came from
                if isinstance(node, ast.ImportFrom):
                    values[alias.asname or alias.name] = ("import", node.module, alias.name)
                elif alias.asname:
                    values[alias.asname] = ("import", alias.name)
                else:  # `import a.b` binds the package a
                    values[alias.name.split(".")[0]] = ("import", alias.name.split(".")[0])
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            pairs = (
                zip(target.elts, value.elts)
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple)
                else [(target, value)]
            )
            for name, literal in pairs:
                if isinstance(name, ast.Name):
                    try:
                        values[name.id] = ast.literal_eval(literal)
                    except ValueError:
                        values.pop(name.id, None)
    return values


def lesson_reads_of_test_bindings(cells) -> list[str]:
    """Each (later cell, name, test cell) where a non-test cell reads a name last bound by a test cell."""
    last_bound_by = {}  # name -> (index, by a test cell, what it was bound to: an import, a literal or None)
    lesson_had = {}  # name -> what the lesson last bound it to
    found = []
    for index, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        code, test, literals = analyse(cell.source), is_test(cell), literal_values(cell.source)
        if not test:
            for name in sorted(code.needs - code.binds):  # a name the cell binds itself is its own
                where = last_bound_by.get(name)
                same_again = where and where[2] is not None and lesson_had.get(name, object()) == where[2]
                if where and where[1] and not same_again:  # the same import or the same literal again is harmless
                    found.append(f"cell {index} reads {name!r}, last bound by test cell {where[0]}")
        for name in code.binds:
            bound_to = literals.get(name)
            last_bound_by[name] = (index, test, bound_to)
            if not test:
                lesson_had[name] = bound_to
    return found


@pytest.mark.parametrize("notebook", course_notebooks())
def test_no_lesson_cell_reads_a_name_a_test_cell_bound(notebook):
    cells = nbformat.read(ROOT / "solutions" / f"{notebook}.ipynb", as_version=4).cells
    assert lesson_reads_of_test_bindings(cells) == []


def test_the_check_sees_a_test_helper_that_shadows_a_lesson_name():
    """The trap a new author fell into: a test defines `count`, a later lesson cell calls the course's."""
    lesson = nbformat.v4.new_code_cell("from bpe_course import count")
    test = nbformat.v4.new_code_cell("def count(xs):\n    return len(xs)\nassert count([1]) == 1")
    test.metadata["nbgrader"] = {"grade": True, "grade_id": "test_x", "points": 1, "solution": False}
    later = nbformat.v4.new_code_cell("print(count('abc'))")
    assert lesson_reads_of_test_bindings([lesson, test, later]) == ["cell 2 reads 'count', last bound by test cell 1"]
    assert lesson_reads_of_test_bindings([lesson, later, test]) == []
    again = nbformat.v4.new_code_cell("from bpe_course import count\nEOT = '<|endoftext|>'\nassert count([1]) == 1")
    again.metadata["nbgrader"] = test.metadata["nbgrader"]
    assert lesson_reads_of_test_bindings([lesson, again, later]) == []  # the same import, the same literal
    other = nbformat.v4.new_code_cell("EOT = '<|im_end|>'")
    other.metadata["nbgrader"] = test.metadata["nbgrader"]
    eot = nbformat.v4.new_code_cell("EOT = '<|endoftext|>'")
    assert lesson_reads_of_test_bindings([eot, other, nbformat.v4.new_code_cell("print(EOT)")]) == [
        "cell 2 reads 'EOT', last bound by test cell 1"
    ]
    elsewhere = nbformat.v4.new_code_cell("from collections import Counter as count")
    elsewhere.metadata["nbgrader"] = test.metadata["nbgrader"]
    assert lesson_reads_of_test_bindings([lesson, elsewhere, later]) == [
        "cell 2 reads 'count', last bound by test cell 1"
    ]
