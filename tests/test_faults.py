"""Faults: the faulty notebook is graded as far as it goes, with a clear reason, and the class goes on.

One class of faulty submissions of notebook 01 is graded once (real command line, sandbox) with
short limits. The tests before a fault keep their points; the tests after it say what happened.
"""

import copy

import pytest
from conftest import grade, results_of

from autograder.course.simulate import solution_sources, submission, write
from autograder.wall.sandbox import bwrap_works

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available (.ci/run installs it)")
NB = "01_hand_example"
EARLY = ["test_count_pairs", "test_count_pairs_hidden", "test_merge_pair", "test_merge_pair_hidden"]
LATE = ["test_learn_merges", "test_learn_merges_hidden"]
SOURCES = solution_sources(NB)


def late(code: str) -> str:
    """learn_merges as solved, with `code` before it: the fault happens in the third exercise."""
    return code + "\n" + SOURCES["learn_merges"]


def index_of(cells, grade_id):
    return next(i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def tampered():
    notebook = submission(NB)
    cells = notebook.cells
    cells.insert(0, cells.pop(index_of(cells, "test_merge_pair")))  # moved
    del cells[index_of(cells, "test_learn_merges")]  # deleted
    cells[index_of(cells, "test_count_pairs")].source = "pass"  # edited
    cells[index_of(cells, "test_count_pairs_hidden")].metadata = {"tags": ["skip-execution"]}  # re-tagged
    return notebook


def answers_through_main():
    """Honest but unusual: the quiz answers bound in an extra cell through `import __main__`, which no
    analysis of names sees. The student's own cells always run, so they count."""
    notebook = submission(NB, replace={"quiz_answers": "pass"})
    quiz = index_of(notebook.cells, "quiz_answers")
    extra = copy.deepcopy(notebook.cells[quiz])
    extra.metadata, extra["id"] = {}, "student-main"
    extra.source = "import __main__ as nb\n" + "\n".join(
        "nb." + line for line in SOURCES["quiz_answers"].splitlines() if line.startswith("ANSWER")
    )
    notebook.cells.insert(quiz + 1, extra)
    return notebook


FAULTS = {
    "kernel_killed": submission(NB, replace={"learn_merges": late("import os\nos._exit(1)")}),
    "sys_exit": submission(NB, replace={"learn_merges": late("import sys\nsys.exit(0)")}),
    "memory_hog": submission(NB, replace={"learn_merges": late("hog = bytearray(64 * 2**30)")}),
    "endless_loop": submission(NB, replace={"learn_merges": late("while True:\n    pass")}),
    "endless_call": submission(
        NB,
        replace={
            "learn_merges": SOURCES["learn_merges"]
            .replace("for _ in range(num_merges):", "while True:")
            .replace("break", "continue")
        },
    ),
    "dies_in_a_call": submission(
        NB, replace={"learn_merges": "def learn_merges(word_freqs, num_merges):\n    import os\n    os._exit(3)"}
    ),
    # 3 + 3 s in the first two exercises, 8 s in the third: the notebook's 12 s run out there
    "too_slow_overall": submission(
        NB,
        replace={
            "count_pairs": "import time\ntime.sleep(3)\n" + SOURCES["count_pairs"],
            "merge_pair": "import time\ntime.sleep(3)\n" + SOURCES["merge_pair"],
            "learn_merges": late("import time\ntime.sleep(8)"),
        },
    ),
    # ten megabytes of output in one print, then twenty thousand small ones
    "output_flood": submission(
        NB,
        replace={
            "quiz_answers": "print('спам ' * 2_000_000)\n"
            "for i in range(20_000):\n    print('спам', i)\n" + SOURCES["quiz_answers"]
        },
    ),
    "tests_tampered": tampered(),
    "answers_through_main": answers_through_main(),
}


@pytest.fixture(scope="module")
def faults(tmp_path_factory):
    base = tmp_path_factory.mktemp("faults")
    for student, notebook in FAULTS.items():
        write(notebook, base / "class" / student / f"{NB}.ipynb")
    write(submission(NB), base / "class" / "honest" / f"{NB}.ipynb")
    run = grade(
        base / "class",
        base / "out",
        "--no-feedback",
        "--jobs",
        "2",
        "--cell-timeout",
        "10",
        "--notebook-timeout",
        "12",
        "--call-seconds",
        "5",
    )
    return results_of(base / "out"), run


CUT_SHORT = {"endless_loop": "прервана", "too_slow_overall": "исчерпал"}


def test_a_notebook_cut_short_by_a_wall_clock_limit_is_an_error_to_retry_not_a_grade(faults):
    results, run = faults
    for student, says in CUT_SHORT.items():
        r = results[student, NB]
        assert r["status"] == "error" and says in r["message"] and "run the command again" in r["message"], r
    assert run.returncode == 4 and "run the same command again to retry" in run.stdout, run.stdout[-2000:]


def scores(result):
    return {t["name"]: t for t in result["tests"]}


@pytest.mark.parametrize(
    "student, says",
    [
        ("kernel_killed", "ядро Python остановилось"),
        ("sys_exit", "learn_merges"),
        ("memory_hog", "MemoryError"),
        ("endless_loop", "learn_merges"),
        ("endless_call", "не завершилась"),
        ("dies_in_a_call", "остановилось"),
        ("too_slow_overall", "исчерпал"),
    ],
)
def test_a_fault_keeps_the_points_before_it_and_says_what_happened(faults, student, says):
    results, run = faults
    r = results[student, NB]
    # cut short by a wall-clock limit (a busy machine can do that): error, so never cached, retried next run;
    # the others are graded, unless this machine was so busy that the notebook's 12 s ran out in them too
    if student in CUT_SHORT:
        assert r["status"] == "error", r["message"]
    else:
        assert r["status"] == "graded" or "cut short by a wall-clock limit" in r["message"], r["message"]
    tests = scores(r)
    for name in EARLY:
        assert tests[name]["score"] == tests[name]["max_score"], (name, tests[name]["message"])
    for name in LATE:
        assert tests[name]["score"] == 0, name
    assert says in tests["test_learn_merges"]["message"], tests["test_learn_merges"]["message"]


def test_the_class_goes_on(faults):
    results, run = faults
    r = results["honest", NB]
    assert r["score"] == r["max_score"] and r["status"] == "graded", r["message"]


def test_a_flood_of_output_is_cut_and_graded(faults):
    results, _ = faults
    r = results["output_flood", NB]
    assert r["status"] == "graded" and r["score"] == r["max_score"], r["message"]


def test_moved_deleted_edited_and_retagged_tests_run_as_the_course_wrote_them(faults):
    results, _ = faults
    r = results["tests_tampered", NB]
    assert r["score"] == r["max_score"], r["message"]
    assert list(scores(r)) == list(scores(results["honest", NB]))  # every test ran, once, in order


def test_answers_bound_through_main_in_an_extra_cell_count(faults):
    results, _ = faults
    r = results["answers_through_main", NB]
    assert r["score"] == r["max_score"], r["message"]
