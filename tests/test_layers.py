"""The grader's layers import only the layers below them (autograder/__init__.py says which), and
`bpe_course` — the course's own package, under every layer, shipped to students and into the sandbox —
imports nothing of the grader and nothing a student's environment may lack."""

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autograder"
COURSE_PACKAGE = ROOT / "bpe_course"
# each layer and the layers it may import; "bpe_course" is the course's package below them all
ALLOWED = {
    "course": {"bpe_course"},
    "wall": {"bpe_course"},  # the agent applies bpe_course.checks' helpers inside the sandbox; the sandbox binds it
    "notebook": {"course", "wall", "bpe_course"},
    "platforms": {"course", "notebook"},
    "classroom": {"course", "wall", "notebook", "platforms"},
    "server": {"course", "wall", "notebook", "platforms", "classroom"},
    None: {"course", "wall", "notebook", "platforms", "classroom", "server", "bpe_course"},  # cli.py, the top
}
# what bpe_course may import past the standard library: what the student edition's requirements install
# (bpe_course.display's widgets and IPython's display; `__main__` is the notebook's own namespace)
COURSE_PACKAGE_MAY_IMPORT = {"IPython", "ipywidgets", "__main__"}


def layer_of(path: Path):
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else None


def imported_layers(path: Path):
    """The autograder layers a module imports (relative or absolute, at the top or inside a function)."""
    here = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]  # the module's package
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                target = [*base, *(node.module.split(".") if node.module else [])]
                names = [target + [alias.name] for alias in node.names] if not node.module else [target]
            else:
                names = [node.module.split(".")] if node.module else []
        elif isinstance(node, ast.Import):
            names = [alias.name.split(".") for alias in node.names]
        else:
            continue
        for name in names:
            if name[0] == "autograder" and len(name) > 1 and name[1] in ALLOWED:
                yield node.lineno, name[1]
            elif name[0] == "bpe_course":
                yield node.lineno, "bpe_course"


def test_each_layer_imports_only_the_layers_below_it():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = layer_of(path)
        for line, other in imported_layers(path):
            if other != layer and other not in ALLOWED[layer]:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} ({layer or 'top'}) imports {other}")
    assert not wrong, "\n".join(wrong)


def test_every_module_is_in_a_layer():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "cli.py", "nbgrader_config.py"], top
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} == {
        layer for layer in ALLOWED if layer
    }


def top_imports(path: Path) -> set:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_bpe_course_imports_nothing_of_the_grader_and_nothing_a_student_may_lack():
    """bpe_course runs in the student's kernel and in the sandbox: no autograder, nbgrader or nbformat there."""
    wrong = {
        f"bpe_course/{path.name} imports {name}"
        for path in sorted(COURSE_PACKAGE.glob("*.py"))
        for name in top_imports(path) - set(sys.stdlib_module_names) - COURSE_PACKAGE_MAY_IMPORT
    }
    assert not wrong, sorted(wrong)


def test_the_package_docstring_says_what_each_layer_may_import():
    """Each layer's docstring names in «May import:» exactly what ALLOWED gives it, bpe_course included, and
    autograder/__init__.py says where bpe_course stands."""
    import autograder

    for layer, allowed in ALLOWED.items():
        if layer is None:
            continue
        doc = __import__(f"autograder.{layer}", fromlist=["_"]).__doc__ or ""
        assert "May import:" in doc, f"autograder/{layer}/__init__.py: no «May import:» line"
        said = doc.split("May import:", 1)[1].split("\n\n", 1)[0]
        named = set(re.findall(r"`autograder\.(\w+)`", said)) | ({"bpe_course"} if "`bpe_course`" in said else set())
        assert named == allowed, (layer, sorted(named), sorted(allowed))
    assert "`bpe_course` is the course's own code" in autograder.__doc__
    assert "imports nothing of `autograder`" in autograder.__doc__
