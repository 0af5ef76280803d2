"""Faults and bad input: the class is graded, the faulty notebook as far as possible, with a clear
status. One class of faulty submissions of notebook 01 is graded once (real CLI, real nbgrader)."""
import nbformat
import pytest

from autograder.simulate import solution_sources, submission, write
from conftest import grade, results_of

NB = "01_hand_example"
EARLY = ["test_count_pairs", "test_count_pairs_hidden", "test_merge_pair", "test_merge_pair_hidden"]
LATE = ["test_learn_merges", "test_learn_merges_hidden"]
SLOW = "import time\ntime.sleep(8)\n"


def with_test_cells(notebook, change):
    """The notebook with its cells changed by `change(cells)` (as a student might)."""
    change(notebook.cells)
    return notebook


def index_of(cells, grade_id):
    return next(i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def tamper(cells):
    cells.insert(0, cells.pop(index_of(cells, "test_merge_pair")))          # moved
    del cells[index_of(cells, "test_learn_merges")]                          # deleted
    cells[index_of(cells, "test_count_pairs")].source = "pass"               # edited
    hidden = cells[index_of(cells, "test_count_pairs_hidden")]
    hidden.metadata = {"tags": ["skip-execution"]}                           # re-tagged


def cheat(cells):
    """An untouched notebook whose visible tests are replaced by `pass`."""
    for cell in cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.source = "pass"


FAULTS = {
    "kernel_killed": submission(NB, replace={"learn_merges": "import os\nos._exit(1)"}),
    "sys_exit": submission(NB, replace={"learn_merges": "import sys\nsys.exit(0)"}),
    "memory_hog": submission(NB, replace={"learn_merges": "hog = bytearray(64 * 2**30)"}),
    "endless_loop": submission(NB, replace={"learn_merges": "while True:\n    pass"}),
    "too_slow_overall": submission(NB, replace={g: SLOW + src for g, src in solution_sources(NB).items()
                                                if g in ("count_pairs", "merge_pair", "learn_merges")}),
    "output_flood": submission(NB, replace={"quiz_answers": "for i in range(200_000):\n    print('спам', i)\n"
                                            + solution_sources(NB)["quiz_answers"]}),
    "tests_tampered": with_test_cells(submission(NB), tamper),
    "tests_blanked_unsolved": with_test_cells(submission(NB, solved=False), cheat),
}


@pytest.fixture(scope="module")
def faults(tmp_path_factory):
    base = tmp_path_factory.mktemp("faults")
    for student, notebook in FAULTS.items():
        write(notebook, base / "class" / student / f"{NB}.ipynb")
    old = submission(NB)
    (base / "class" / "old_format").mkdir(parents=True)
    nbformat.write(nbformat.convert(old, 3), str(base / "class" / "old_format" / f"{NB}.ipynb"), version=3)
    run = grade(base / "class", base / "out", "--no-feedback", "--jobs", "2",
                "--cell-timeout", "15", "--notebook-timeout", "20")
    return results_of(base / "out"), run


def scores(result):
    return {t["name"]: t for t in result["tests"]}


@pytest.mark.parametrize("student", ["kernel_killed", "sys_exit", "memory_hog", "endless_loop", "too_slow_overall"])
def test_a_fault_keeps_the_points_before_it_and_says_what_happened(faults, student):
    results, _ = faults
    r = results[student, NB]
    assert r["status"] == "graded", r["message"]
    tests = scores(r)
    for name in EARLY:
        assert tests[name]["score"] == tests[name]["max_score"], (name, tests[name]["message"])
    for name in LATE:
        assert tests[name]["score"] == 0, name
    message = tests["test_learn_merges"]["message"]
    expected = {"kernel_killed": "ядро Python остановилось", "sys_exit": "learn_merges", "memory_hog": "learn_merges",
                "endless_loop": "learn_merges", "too_slow_overall": "исчерпал"}[student]
    assert expected in message, message


def test_a_flood_of_output_is_cut_and_graded(faults):
    results, _ = faults
    r = results["output_flood", NB]
    assert r["status"] == "graded" and r["score"] == r["max_score"], r["message"]


def test_moved_deleted_edited_and_retagged_tests_run_as_the_course_wrote_them(faults):
    results, _ = faults
    r = results["tests_tampered", NB]
    assert r["score"] == r["max_score"], r["message"]
    assert set(scores(r)) == set(scores(results["old_format", NB]))   # every test ran, once


def test_blanked_tests_give_no_points(faults):
    results, _ = faults
    assert results["tests_blanked_unsolved", NB]["score"] == 0


def test_an_old_nbformat_notebook_is_graded(faults):
    results, _ = faults
    r = results["old_format", NB]
    assert r["status"] == "graded" and r["score"] == r["max_score"], r["message"]


def test_ctrl_c_keeps_what_was_graded_and_a_rerun_finishes(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    from conftest import ROOT
    for i in range(4):
        write(submission(NB), tmp_path / "class" / f"s{i}" / f"{NB}.ipynb")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "autograder", "grade", str(tmp_path / "class"), "--out", str(out),
               "--no-feedback", "--jobs", "1"]
    grader = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    results = out / "work" / "results"
    deadline = time.monotonic() + 600
    while not list(results.rglob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.5)
    grader.send_signal(signal.SIGINT)
    output, _ = grader.communicate(timeout=300)
    assert grader.returncode == 130, output
    kept = {key: r for key, r in results_of(out).items() if key[1] == NB}
    assert 1 <= len(kept) < 4 and all(r["score"] == r["max_score"] for r in kept.values()), output
    rerun = grade(tmp_path / "class", out, "--no-feedback", "--jobs", "1")
    graded = {key: r for key, r in results_of(out).items() if key[1] == NB}
    assert rerun.returncode == 0 and len(graded) == 4 and all(r["score"] == r["max_score"] for r in graded.values())
