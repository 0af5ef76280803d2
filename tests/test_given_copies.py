"""One source for every copy: a given cell that repeats an earlier notebook's function is that function.

Later notebooks hand the student earlier answers as read-only "given" cells (`merge` appears in six of
them). Each such copy must be the code of its origin — the first solution or given cell in the course
that defines the name — compared as syntax trees with docstrings dropped (a given copy may explain
itself differently). A copy that is meant to differ is listed in VARIANTS with the reason; a listed
copy that no longer differs fails too, so the list never goes stale.
"""

import ast
import re

import nbformat
import pytest

from autograder.course.cells import is_solution, is_test, nbgrader_meta
from autograder.course.course import SOLUTIONS, course_notebooks

VARIANTS = {
    ("06", "encode_chunked"): "self-contained (06 gives no pretokenize or encode) and without a cache",
    ("06", "train_chunked"): "self-contained (06 gives no pretokenize): Counter over regex.findall",
    ("07", "encode_chunked"): "the slow version 07 starts from: every chunk encoded again, no cache",
    ("08", "decode"): "takes the special tokens 08 adds",
    ("08", "encode_chunked"): "one cache per call, through 08's own encode_chunk",
    ("08", "train_chunked"): "built on 08's train_from_counts",
}

MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$", re.M)


def _without_docstrings(node: ast.FunctionDef) -> str:
    node = ast.parse(ast.unparse(node)).body[0]
    for n in ast.walk(node):
        body = getattr(n, "body", None)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                n.body = body[1:] or [ast.Pass()]
    return ast.dump(node)


def _definitions():
    """(notebook number, cell index, kind, name, normalised code) of every top-level function in a
    solution or given cell, in course order."""
    for name in course_notebooks():
        nb = nbformat.read(str(SOLUTIONS / f"{name}.ipynb"), as_version=4)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or not nbgrader_meta(cell) or is_test(cell):
                continue
            kind = "solution" if is_solution(cell) else "given"
            for node in ast.parse(MARKER.sub("", cell.source)).body:
                if isinstance(node, ast.FunctionDef):
                    yield name[:2], index, kind, node.name, _without_docstrings(node)


def _copies():
    origin, copies = {}, []
    for number, index, kind, fn, code in _definitions():
        if fn not in origin:
            origin[fn] = (number, index, kind, code)
        elif kind == "given" and origin[fn][0] != number:
            copies.append((number, index, fn, code, origin[fn]))
    return copies


COPIES = _copies()


def test_the_course_has_given_copies():
    assert len(COPIES) >= 20  # merge, train_bpe, token_bytes… in 03–08: the test reads what it should


@pytest.mark.parametrize("copy", COPIES, ids=[f"{c[0]}-{c[2]}" for c in COPIES])
def test_given_copy_is_its_origin(copy):
    number, index, fn, code, (from_number, from_index, from_kind, from_code) = copy
    where = f"solutions/{number}_… cell {index}: `{fn}`, first defined in {from_number}'s {from_kind} cell {from_index}"
    if (number, fn) in VARIANTS:
        assert code != from_code, f"{where} is now the same code: remove it from VARIANTS"
    else:
        assert code == from_code, f"{where}: the copy drifted; copy the origin's code (docstrings may differ)"


def test_every_variant_is_a_given_copy():
    assert set(VARIANTS) <= {(c[0], c[2]) for c in COPIES}
