"""The grader's layers import only the layers below them (autograder/__init__.py says which)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "autograder"
# each layer and the layers it may import
ALLOWED = {
    "course": set(),
    "wall": set(),
    "notebook": {"course", "wall"},
    "platforms": {"course", "notebook"},
    "classroom": {"course", "wall", "notebook", "platforms"},
    "server": {"course", "wall", "notebook", "platforms", "classroom"},
    None: {"course", "wall", "notebook", "platforms", "classroom", "server"},  # cli.py and the package's top
}


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
