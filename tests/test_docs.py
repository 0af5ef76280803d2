"""The README and docs/ say only what is there: links resolve, `make` targets exist, and every
`python -m autograder …` command they show is accepted by the real command line (a renamed option
or subcommand fails here, not in an instructor's terminal). What each command does is proven by the
tests of that command (test_class*.py, test_import.py, test_bundle.py, test_round_trip.py, …)."""

import re
import shlex
from pathlib import Path

import pytest

from autograder.cli import parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MAKEFILES = [ROOT / "Makefile", ROOT / "autograder/course/student_edition/Makefile.template"]  # the edition's too
TARGETS = {t for m in MAKEFILES for t in re.findall(r"^([a-z][a-z-]*):", m.read_text(), re.M)}
PLACEHOLDERS = {"…": "x", "<assignment>": "a"}


def commands(text: str):
    """Each `python -m autograder …` command line of a document (code blocks and inline code, `\\`
    continuations joined, comments, shell redirections and the end of a YAML string dropped)."""
    text = re.sub(r"\\\n\s*", " ", text)
    for match in re.finditer(r"(?:\.venv/bin/)?python -m autograder ([^`\n]*)", text):
        line = match.group(1).split(" #")[0].split(" >")[0].split(" |")[0].split(" &&")[0].split('"]')[0].strip()
        for old, new in PLACEHOLDERS.items():
            line = line.replace(old, new)
        line = re.sub(r"\$\(?\w+\)?", "1", line)  # shell variables: $SLURM_ARRAY_TASK_ID, $((…))
        if " " in line.strip():  # a bare `python -m autograder check` names the command
            yield line


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_resolve(doc):
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
        if not re.match(r"[a-z]+://", target):
            assert (doc.parent / target).exists(), f"{doc.name} links to {target}, which is not there"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_make_targets_exist(doc):
    for target in re.findall(r"`make ([a-z][a-z-]*)", doc.read_text(encoding="utf-8")):
        assert target in TARGETS, f"{doc.name} mentions `make {target}`, which the Makefile does not have"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_autograder_commands_parse(doc):
    for line in commands(doc.read_text(encoding="utf-8")):
        try:
            args = shlex.split(line)
        except ValueError:
            pytest.fail(f"{doc.name}: cannot split {line!r}")
        try:
            parser().parse_args(args)
        except SystemExit:
            pytest.fail(f"{doc.name}: `python -m autograder {line}` is not accepted by the command line")


def test_the_checks_can_fail():
    with pytest.raises(SystemExit):
        parser().parse_args(shlex.split(next(commands("`python -m autograder grade x --no-such-option`"))))
    assert "no-such-target" not in TARGETS
