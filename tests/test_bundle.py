"""The student edition: unzipped into an empty folder it runs its own self-check, and it holds
no solution or hidden-test line; a bundle that would hand out answers is refused."""

import re
import subprocess
import sys
import zipfile

import nbformat
import pytest
from conftest import ROOT

from autograder.course.bundle import HIDDEN, SOLUTION, leaked_lines, release_lines, significant
from autograder.course.course import SOLUTIONS, course_notebooks
from autograder.course.simulate import submission

NB1 = "01_hand_example"


def bundle(tmp_path, notebooks, *options):
    out = tmp_path / "hw-student.zip"
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "bundle", "--notebooks", notebooks, "--out", str(out), *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return run, out


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    base = tmp_path_factory.mktemp("edition")
    run, archive = bundle(base, "01")
    assert run.returncode == 0, run.stdout
    folder = base / "unzipped"
    folder.mkdir()
    with zipfile.ZipFile(archive) as z:
        z.extractall(folder)
    return archive, folder / "hw-student"


def test_it_has_what_a_student_needs_and_nothing_of_the_grader(edition):
    archive, root = edition
    names = zipfile.ZipFile(archive).namelist()
    inside = {n.split("/", 1)[1] for n in names}
    assert {
        "notebooks/01_hand_example.ipynb",
        "bpe_course/checks.py",
        "data/en_sample.txt",
        "requirements.txt",
        "requirements-vocab.txt",
        "environment.yml",
        "pyproject.toml",
        "Makefile",
        "README.md",
        "check.py",
    } <= inside
    assert not any(n.startswith(("solutions/", "autograder/", "tests/", ".git")) for n in inside)
    assert not any(n.startswith("notebooks/") and NB1 not in n for n in inside)
    assert not any(tool in (root / "requirements.txt").read_text() for tool in ("nbgrader", "copydetect"))
    assert "**скрытые тесты**" in (root / "README.md").read_text(encoding="utf-8")
    lab = subprocess.run(["make", "-n", "lab"], cwd=root, capture_output=True, text=True)
    assert "jupyter lab notebooks/" in lab.stdout, lab.stdout + lab.stderr


def test_no_solution_or_hidden_test_line_is_in_it(edition):
    archive, _ = edition
    texts = {}
    with zipfile.ZipFile(archive) as z:
        for name in z.namelist():
            text = z.read(name).decode("utf-8", "replace")
            assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN" not in text, name
            if name.endswith(".ipynb"):
                text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
            texts[name] = text
    public = set().union(*(release_lines(n) for n in course_notebooks()))
    secret = set()
    for name in course_notebooks():
        source = (SOLUTIONS / f"{name}.ipynb").read_text(encoding="utf-8")
        cells = nbformat.reads(source, as_version=4).cells
        for cell in cells:
            secret |= set().union(set(), *(significant(m) for m in HIDDEN.findall(cell.source))) - public
            if name == NB1:  # the assignment's own answers, whatever other notebooks show later
                secret |= set().union(set(), *(significant(m) for m in SOLUTION.findall(cell.source))) - release_lines(
                    NB1
                )
    assert secret
    found = {(name, line) for name, text in texts.items() for line in significant(text) & secret}
    assert not found, sorted(found)[:10]
    with zipfile.ZipFile(archive) as z:
        assert leaked_lines({n.split("/", 1)[1]: z.read(n) for n in z.namelist()}, [NB1]) == []


def check(root, notebook):
    return subprocess.run(
        [sys.executable, "check.py", notebook],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(root)},
    )


def test_the_self_check_runs_the_visible_tests_from_the_unzipped_folder(edition):
    _, root = edition
    stub = check(root, "01")
    assert stub.returncode == 1, stub.stdout + stub.stderr
    assert "НЕТ " in stub.stdout and "Видимые тесты: 0 из" in stub.stdout
    assert "Скрытые тесты здесь не запускаются" in stub.stdout
    solved = root / "notebooks" / "solved.ipynb"
    nbformat.write(submission(NB1), str(solved))
    ok = check(root, str(solved))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "НЕТ " not in ok.stdout and re.search(r"Видимые тесты: (\d+) из \1 баллов", ok.stdout)


def test_the_self_check_says_when_the_notebook_did_not_run_to_the_end_and_passes_no_test_it_never_ran(edition):
    _, root = edition
    dying = root / "notebooks" / "dying.ipynb"
    nbformat.write(submission(NB1, replace={"count_pairs": "import os\nos._exit(1)"}), str(dying))
    run = check(root, str(dying))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "ядро Python остановилось" in run.stdout and "Traceback" not in run.stderr, run.stdout + run.stderr
    after = run.stdout[run.stdout.index("test_count_pairs") :]  # the quiz before it ran; nothing from here on
    assert "тест не запускался" in after and "ок  " not in after, run.stdout


def test_a_bundle_that_hands_out_its_own_answers_is_refused(tmp_path):
    run, out = bundle(tmp_path, "01,02,03")
    assert run.returncode == 2 and not out.exists(), run.stdout
    assert "03_encode_order's read-only cells hold the solution of 01_hand_example (count_pairs)" in run.stdout
    loud, out = bundle(tmp_path, "01,02,03", "--allow-reveal")
    assert loud.returncode == 0 and out.exists() and "WARNING: THIS EDITION HANDS OUT ANSWERS" in loud.stdout


def test_a_later_assignment_says_which_earlier_answers_it_reveals(tmp_path):
    run, out = bundle(tmp_path, "04")
    assert run.returncode == 0, run.stdout
    assert "04_decode_utf8's read-only cells hold the solution of 03_encode_order (encode)" in run.stdout
    assert "only after 03_encode_order's deadline" in run.stdout


def test_the_first_two_notebooks_are_one_assignment_nothing_in_their_data_gives_an_answer(tmp_path):
    """data/mixed_sample.txt once held 02's get_pair_counts line for line (as 'a helper'): 01,02 was refused."""
    run, out = bundle(tmp_path, "01,02")
    assert run.returncode == 0 and out.exists(), run.stdout


@pytest.mark.parametrize(
    "order",
    [
        ["--submit", "01", "--link", "{url}"],
        ["--submit", "--link", "{url}", "01"],
        ["--link", "{url}", "--submit", "01"],
        ["--submit=01", "--link={url}"],
    ],
)
def test_submit_takes_its_options_in_any_order(edition, order, tmp_path):
    """`check.py --submit --link URL 01` was refused as a usage error; every order reaches the server (here a
    port nobody listens on: «недоступен», exit 6) and a call that is wrong still gets the usage line."""
    _, root = edition
    url = "http://127.0.0.1:9/s/" + "x" * 43  # the discard port: nothing answers on loopback
    run = subprocess.run(
        [sys.executable, "check.py", *(word.format(url=url) for word in order)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 6 and "недоступен" in run.stdout, run.stdout + run.stderr
    for wrong in (["--submit"], ["--submit", "01", "02"], ["--submit", "01", "--link"], ["--submit", "01", "-x"]):
        usage = subprocess.run([sys.executable, "check.py", *wrong], cwd=root, capture_output=True, text=True)
        assert usage.returncode == 2 and "Использование" in usage.stdout, (wrong, usage.stdout)
