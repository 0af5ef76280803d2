"""Project-level promises: one list of pins, the README's test command is the one CI runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_environment_yml_installs_the_pinned_requirements():
    env = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert "- -r requirements.txt" in env
    assert re.search(r"python=3\.11", env)


def test_requirements_are_pinned():
    lines = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    pins = [line for line in lines if line and not line.startswith("#")]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][^ ]*", p) for p in pins), pins
    for needed in ("jupyterlab", "nbgrader", "regex", "matplotlib", "tiktoken"):
        assert any(p.startswith(needed + "==") for p in pins), needed


def test_ci_runs_the_test_command_of_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in readme and "make test" in ci


def test_nothing_from_shared_corpora_is_needed():
    for path in [*ROOT.glob("autograder/**/*.py"), *ROOT.glob("bpe_course/*.py"), *ROOT.glob("solutions/*.ipynb")]:
        assert "../shared" not in path.read_text(encoding="utf-8"), path


def test_test_messages_name_a_students_value_by_the_type_it_has_in_the_notebook():
    # a value that cannot cross from the kernel arrives as a placeholder: `type(x).__name__` would show the
    # student «Opaque»; checks.type_name gives the type the notebook has (exceptions are rebuilt, and fine)
    import json

    root = Path(__file__).resolve().parents[1]
    for path in sorted((root / "solutions").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code" and cell["metadata"].get("nbgrader", {}).get("grade"):
                source = "".join(cell["source"])
                found = re.findall(r"\{type\((\w+)\)\.__name__\}", source)
                assert set(found) <= {"error"}, (path.name, cell["metadata"]["nbgrader"]["grade_id"], found)
