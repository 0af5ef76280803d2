"""One class, end to end: the real command line, real nbgrader, the sandbox, two workers.

The class: a student who solved everything, one who submitted the untouched notebooks, carol's
typical mistake, broken and odd files, and one student per attack of tests/attacks.py (each an
extra cell in the untouched notebook 01). It is graded once; the tests read what an instructor
and a student get: grades.csv, results.json, the feedback pages, nbgrader's gradebook.
"""

import csv
import html
import json
import os
import re
import socket
import subprocess
import sys
import threading

import nbformat
import pytest
from attacks import ATTACKS, HIDDEN_SOURCE, NB, network_attack
from conftest import SECRET, grade, private_tmp, results_of

from autograder.course.cells import grade_id
from autograder.course.course import course_notebooks
from autograder.course.demo import OVERLAPPING_MERGE
from autograder.course.simulate import submission, write
from autograder.wall.sandbox import bwrap_works

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available (.ci/run installs it)")
NAMES = course_notebooks()


def with_code(notebook, source: str, cell: str = "count_pairs"):
    """The notebook with `source` added to the end of the solution cell `cell` (which always runs)."""
    target = next(c for c in notebook.cells if grade_id(c) == cell)
    target.source += "\n" + source
    return notebook


def deep_json(depth: int) -> str:
    return '{"cells": [' + "[" * depth + "]" * depth + "]}"


@pytest.fixture(scope="module")
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.5)
    received, stop = [], threading.Event()

    def accept():
        while not stop.is_set():
            try:
                received.append(server.accept())
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    stop.set()
    thread.join()
    server.close()


@pytest.fixture(scope="module")
def graded(tmp_path_factory, listener):
    """The class above, graded once; (results, out, work, run, what it left in its TMPDIR)."""
    port, _ = listener
    base = tmp_path_factory.mktemp("class")
    klass = base / "class"
    for name in NAMES:
        write(submission(name), klass / "solved" / f"{name}.ipynb")
        write(submission(name, solved=False), klass / "untouched" / f"{name}.ipynb")
    write(
        submission("02_byte_level_training", replace={"merge": OVERLAPPING_MERGE}),
        klass / "carol" / "02_byte_level_training.ipynb",
    )
    broken = klass / "broken"
    broken.mkdir()
    (broken / f"{NAMES[0]}.ipynb").write_text('{"cells": [', encoding="utf-8")
    (broken / f"{NAMES[1]}.ipynb").write_text("", encoding="utf-8")
    (broken / f"{NAMES[2]}.ipynb").write_text('{"name": "not a notebook"}', encoding="utf-8")
    (broken / f"{NAMES[3]}.ipynb").write_text(deep_json(200_000), encoding="utf-8")
    (broken / "notes.txt").write_text("not a notebook", encoding="utf-8")
    odd = submission(NB)
    odd.cells[0].metadata["nbgrader"] = None  # metadata a student's editor left
    odd.cells[1].metadata = {"nbgrader": None}
    solution = next(c for c in odd.cells if grade_id(c) == "count_pairs")
    solution.source += "\n# ### BEGIN HIDDEN TESTS (a comment that once stopped the feedback)\n"
    write(odd, klass / "odd_metadata" / f"{NB}.ipynb")
    old = submission(NB)
    (klass / "old_format").mkdir()
    nbformat.write(nbformat.convert(old, 3), str(klass / "old_format" / f"{NB}.ipynb"), version=3)
    write(
        with_code(submission(NB), ATTACKS["print_environment"] + ATTACKS["read_secrets"]),
        klass / "nosy_but_solved" / f"{NB}.ipynb",
    )
    for attack, source in {**ATTACKS, "network": network_attack(port)}.items():
        write(with_code(submission(NB, solved=False), source), klass / f"attack_{attack}" / f"{NB}.ipynb")
    skipped = submission(NB, solved=False)
    for cell in skipped.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata.setdefault("tags", []).append("skip-execution")
            cell.source = "pass"
    write(skipped, klass / "attack_blank_tests" / f"{NB}.ipynb")
    # 30 s a cell: several times what any solution needs, and the limit that stops attack_patch_builtins's hang
    with private_tmp() as (tmp, left):
        run = grade(
            klass,
            base / "out",
            "--work",
            str(base / "work"),
            "--jobs",
            "2",
            "--cell-timeout",
            "30",
            env={"TMPDIR": str(tmp)},
        )
    return results_of(base / "out"), base / "out", base / "work", run, left


ATTACKERS = sorted(["attack_" + a for a in [*ATTACKS, "network", "blank_tests"]])


def text_of_feedback(out, student, name=NB):
    path = out / "feedback" / student / f"{name}.html"
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8"))) if path.exists() else ""


def outputs_in_feedback(out, student, name=NB):
    """What the student's code printed, as their feedback page shows it (not the code itself)."""
    page = (out / "feedback" / student / f"{name}.html").read_text(encoding="utf-8")
    return "\n".join(
        html.unescape(t) for t in re.findall(r'<div class="(?:output|error)"><pre>(.*?)</pre></div>', page, re.S)
    )


# -- the class is graded, whatever is in it ---------------------------------------------------------
def test_the_whole_class_is_graded_and_the_exit_code_reports_the_broken_files(graded):
    results, out, _, run, *_ = graded
    # done; some files were broken (1), and some notebooks cut short by a time limit are to be retried (4)
    retry = any(r["status"] == "error" for r in results.values())
    assert run.returncode == (4 if retry else 1), run.stdout[-3000:] + run.stderr[-3000:]
    students = {s for s, _ in results}
    assert {"solved", "untouched", "carol", "broken", "odd_metadata", *ATTACKERS} <= students
    assert "broken/notes.txt: not a course notebook" in run.stdout


@pytest.mark.parametrize("notebook", NAMES)
def test_solutions_score_full_marks_and_stubs_zero_in_the_sandbox(graded, notebook):
    results, *_ = graded
    solved, untouched = results["solved", notebook], results["untouched", notebook]
    assert solved["status"] == "graded" and solved["score"] == solved["max_score"], solved
    assert untouched["status"] == "graded" and untouched["score"] == 0, untouched


def test_carols_mistake_loses_points_with_a_message(graded):
    results, *_ = graded
    r = results["carol", "02_byte_level_training"]
    failed = {t["name"]: t["message"] for t in r["tests"] if t["score"] < t["max_score"]}
    assert "без перекрытий" in failed["test_merge"]
    assert results["carol", NAMES[0]]["status"] == "missing"


def test_broken_files_are_reported_with_a_reason(graded):
    results, *_ = graded
    messages = {n: results["broken", n]["message"] for n in NAMES[:4]}
    assert all(results["broken", n]["status"] == "broken" for n in NAMES[:4])
    assert "not valid JSON" in messages[NAMES[0]] and "empty" in messages[NAMES[1]]
    assert "not a Jupyter notebook" in messages[NAMES[2]] and "nested too deeply" in messages[NAMES[3]]


def test_odd_metadata_and_old_formats_are_graded_with_feedback(graded):
    results, out, *_ = graded
    for student in ("odd_metadata", "old_format"):
        r = results[student, NB]
        assert r["status"] == "graded" and r["score"] == r["max_score"], r
        assert text_of_feedback(out, student), f"no feedback for {student}"


# -- attacks gain nothing and leak nothing ----------------------------------------------------------
@pytest.mark.parametrize("student", ATTACKERS)
def test_an_attack_gains_no_points_over_the_untouched_stub(graded, student):
    results, *_ = graded
    r = results[student, NB]
    assert r["score"] == results["untouched", NB]["score"] == 0, (r["status"], [t for t in r["tests"] if t["score"]])


@pytest.mark.parametrize("student", [*ATTACKERS, "nosy_but_solved"])
def test_no_output_carries_hidden_tests_or_the_graders_environment(graded, student):
    results, out, *_ = graded
    assert (out / "feedback" / student / f"{NB}.html").exists(), "no feedback page: nothing would be checked"
    shown = text_of_feedback(out, student) + json.dumps(results[student, NB], ensure_ascii=False)
    assert SECRET not in shown and "INSTRUCTOR_TOKEN" not in shown
    for marker in HIDDEN_SOURCE:
        assert marker not in shown, marker


def test_a_nosy_but_correct_student_keeps_full_marks_and_sees_nothing_secret(graded):
    results, out, *_ = graded
    r = results["nosy_but_solved", NB]
    assert r["score"] == r["max_score"]
    printed = outputs_in_feedback(out, "nosy_but_solved")
    found = re.search(r"FOUND (\[.*?\])", printed).group(1)  # no notebook, gradebook or solution in view
    assert ".ipynb" not in found and "gradebook" not in found, found
    assert "'HOME': '/tmp'" in printed and "PATH" in printed  # the kernel's own small environment


def test_student_code_runs_unprivileged_without_network_or_host_files(graded, listener):
    _, out, *_ = graded
    _, received = listener
    assert received == []
    assert "no network: [Errno" in outputs_in_feedback(out, "attack_network")
    root = outputs_in_feedback(out, "attack_become_root")
    uid = re.search(r"UID (\d+) (\d+)", root)
    assert uid and int(uid.group(1)) != 0 and int(uid.group(2)) != 0, root[:2000]
    assert re.search(r"CapEff:\s+0+\b", root), root[:3000]
    assert "/etc/shadow -> " in root and "No such file" in root.split("/etc/shadow -> ")[1][:80]
    assert "refused: " in root and "ATTEMPT None" not in root
    assert "WROTE" not in outputs_in_feedback(out, "attack_write_gradebook")
    assert re.search(r"stopped at \d+", outputs_in_feedback(out, "attack_fork_bomb"))
    assert "disk stopped: OSError" in outputs_in_feedback(out, "attack_fill_disk")


def test_the_guard_reports_tampering_for_review_without_deciding_the_grade(graded):
    results, _, _, run, *_ = graded
    for student in ("attack_patch_checks", "attack_patch_builtins", "attack_hide_tracebacks", "attack_forge_channel"):
        r = results[student, NB]
        # patch_builtins hangs its kernel until the cell's time limit: cut short, so an error to retry
        assert (r["status"] == "graded" or "cut short" in r["message"]) and r["review"], r
    assert "For review" in run.stdout


def test_feedback_is_built_from_results(graded):
    results, out, *_ = graded
    page = (out / "feedback" / "untouched" / f"{NB}.html").read_text(encoding="utf-8")
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")  # self-contained, no scripts
    text = text_of_feedback(out, "untouched")
    for t in results["untouched", NB]["tests"]:
        assert t["name"] in text
    assert "не реализована" in text
    fake = (out / "feedback" / "attack_fake_output" / f"{NB}.html").read_text(encoding="utf-8")
    assert "<script>alert" not in fake


def test_outputs_take_any_text_and_neither_terminals_nor_review_pages_run_what_a_student_wrote(graded):
    results, out, work, run, _ = graded
    r = results["attack_unwritable_text", NB]
    assert r["status"] == "graded" and any("\\udcff" in t["message"] for t in r["tests"]), r
    assert "\x1b" not in run.stdout + run.stderr and "\x07" not in run.stdout + run.stderr
    assert "\\x1b" in run.stdout  # the review line, shown as text
    student = "attack_active_outputs"
    autograded = (work / "course" / "autograded" / student / NB / f"{NB}.ipynb").read_text(encoding="utf-8")
    for active in ("text/html", "application/javascript", "image/svg+xml"):  # (the code shows as code)
        assert active not in autograded, active
    page = (out / "feedback" / student / f"{NB}.html").read_text(encoding="utf-8")
    assert "<script" not in page and not re.search(r"<[^>]*\son\w+\s*=", page)


# -- the gradebook: formgrader and nbgrader export see the class ------------------------------------
def test_one_class_gradebook_that_nbgrader_exports(graded):
    results, _, work, *_ = graded
    course = work / "course"
    export = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", "--to", str(course / "grades.csv")],
        cwd=course,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"},
    )
    assert export.returncode == 0, export.stdout + export.stderr
    with open(course / "grades.csv", encoding="utf-8") as f:
        rows = {(row["student_id"], row["assignment"]): row for row in csv.DictReader(f)}
    for name in NAMES:
        assert float(rows["solved", name]["raw_score"]) == results["solved", name]["score"]
        assert float(rows["untouched", name]["raw_score"]) == 0
    assert (
        float(rows["carol", "02_byte_level_training"]["raw_score"])
        == results["carol", "02_byte_level_training"]["score"]
    )
    autograded = course / "autograded" / "solved" / NB / f"{NB}.ipynb"
    assert autograded.exists()  # what formgrader shows the instructor


def test_grading_leaves_nothing_behind_in_tmp(graded):
    *_, left = graded
    assert not left


def test_nbgraders_own_feedback_from_the_course_directory_hides_hidden_tests(graded):
    """An instructor who makes feedback with formgrader (nbgrader generate_feedback) gets no hidden test."""
    _, _, work, *_ = graded
    course = work / "course"
    run = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", NB, "--student", "solved", "--force"],
        cwd=course,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    page = (course / "feedback" / "solved" / NB / f"{NB}.html").read_text(encoding="utf-8")
    assert "test_learn_merges_hidden" in page
    for marker in HIDDEN_SOURCE:
        assert marker not in html.unescape(page), marker
