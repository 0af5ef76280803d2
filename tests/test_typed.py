"""The house, typed and templated (issue 42 item 4): one class named `Answer`, one default for `jobs`,
typed messages between the course server and its grading workers, and no HTML built in f-strings."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autograder"


def sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text())


def test_one_class_is_named_answer():
    named = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path, tree in sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.name == "Answer"
    ]
    assert [n.rsplit(":", 1)[0] for n in named] == ["autograder/wall/protocol.py"], named


def test_jobs_has_one_default():
    """pool.default_jobs is called in one place, the class grader's; everything above passes None."""
    calls = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path, tree in sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "default_jobs"
    ]
    assert [c.rsplit(":", 1)[0] for c in calls] == ["autograder/classroom/batch.py"], calls

    from autograder.classroom.workflow import Assignment
    from autograder.cli import parser

    assert Assignment().jobs is None
    assert parser().parse_args(["grade", "subs"]).jobs is None
    assert parser().parse_args(["demo"]).jobs is None
