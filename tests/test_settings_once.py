"""Every grader setting has its default written once, in its traitlet (issue 28 item 3).

The course's nbgrader_config.py sets only what differs from a default (a value equal to one would
stop following the class when the default is edited), and no other code writes a literal value for
a setting under its name: a keyword default, a dataclass field or a module constant of that name.
"""

import ast
from pathlib import Path

from autograder.classroom.settings import grading_classes, grading_settings, setting
from autograder.course.course import CONFIG, load_config

ROOT = Path(__file__).resolve().parent.parent
# other names the same setting goes by where it is passed on
ALIASES = {"max_chars": "max_output_chars"}
# constants that are a traitlet's default: written here, and the traitlet reads them (wire's own limits)
SOURCES = {"autograder/wall/wire.py": {"MAX_DEPTH", "MAX_ITEMS"}}


def settings_by_name() -> dict:
    """trait name → "Class.trait" for every setting of the grading classes."""
    return {name: f"{cls.__name__}.{name}" for cls in grading_classes() for name in cls.class_traits(config=True)}


def is_literal(node) -> bool:
    """A value written out (a number, a string, arithmetic of them), not a name standing for one."""
    return all(
        isinstance(n, ast.Constant | ast.BinOp | ast.UnaryOp | ast.operator | ast.unaryop) for n in ast.walk(node)
    )


def literal_defaults(tree):
    """(line, name) of every literal default or constant in a module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            positional = node.args.posonlyargs + node.args.args
            pairs = list(zip(positional[len(positional) - len(node.args.defaults) :], node.args.defaults))
            pairs += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]
            for arg, default in pairs:
                if is_literal(default):
                    yield default.lineno, arg.arg
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            if is_literal(node.value):
                yield node.lineno, node.target.id
        elif isinstance(node, ast.Assign) and is_literal(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield node.lineno, target.id


def test_the_course_config_sets_only_what_differs_from_a_default():
    config = load_config({})
    same = []
    for cls in grading_classes():
        section = config[cls.__name__] if cls.__name__ in config else {}
        for name, trait in cls.class_traits(config=True).items():
            if name in section and section[name] == trait.default():
                same.append(f"{cls.__name__}.{name} = {section[name]!r}")
    assert not same, f"{CONFIG.name} repeats the traitlets' own defaults (set only what differs): {same}"


def test_no_code_writes_a_settings_default_a_second_time():
    names = settings_by_name()
    twice = []
    for path in sorted([*(ROOT / "autograder").rglob("*.py"), *(ROOT / "bpe_course").rglob("*.py")]):
        if path.name == "nbgrader_config.py":
            continue
        for line, name in literal_defaults(ast.parse(path.read_text())):
            setting_name = ALIASES.get(name, name)
            if name in SOURCES.get(str(path.relative_to(ROOT)), ()):
                continue
            if setting_name in names or setting_name.lower() in names:
                twice.append(f"{path.relative_to(ROOT)}:{line} {name} (the default of {names[setting_name.lower()]})")
    assert not twice, "a setting's default written outside its traitlet:\n" + "\n".join(twice)


def test_the_constants_a_default_is_read_from_are_that_default():
    from autograder.notebook.evaluate import Evaluator
    from autograder.wall import wire

    assert Evaluator.class_traits()["max_depth"].default() is wire.MAX_DEPTH
    assert Evaluator.class_traits()["max_items"].default() is wire.MAX_ITEMS


def test_the_check_finds_a_default_written_twice():
    tree = ast.parse("def f(session, call_seconds: float = 10):\n    pass\nclass M:\n    max_chars: int = 200_000\n")
    assert {ALIASES.get(name, name) for _, name in literal_defaults(tree)} & set(settings_by_name()) == {
        "call_seconds",
        "max_output_chars",
    }


def test_the_effective_settings_are_one_computation():
    config = load_config({"KernelSession": {"cell_timeout": 7}})
    from autograder.wall.session import KernelSession

    assert setting(config, KernelSession, "cell_timeout") == 7
    assert (
        setting(config, KernelSession, "startup_timeout") == KernelSession.class_traits()["startup_timeout"].default()
    )
    assert grading_settings(config)["KernelSession.cell_timeout"] == 7


def test_no_constant_is_written_twice():
    """A constant of the grader's (a limit such as MAX_NOTEBOOK_BYTES) is defined once and imported: no
    two modules define the same name with the same value."""
    where: dict = {}
    for path in sorted([*(ROOT / "autograder").rglob("*.py"), *(ROOT / "bpe_course").rglob("*.py")]):
        for node in ast.parse(path.read_text()).body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            for target in targets:
                if isinstance(target, ast.Name) and target.id.isupper() and len(target.id) > 1:
                    key = (target.id, ast.dump(node.value))
                    where.setdefault(key, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    twice = {name: places for (name, _), places in where.items() if len(places) > 1}
    assert not twice, f"defined in more than one place: {twice}"
