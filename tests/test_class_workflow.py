"""Whole-class workflow: resuming, shards and merge, the wide table."""
import csv
import shutil
import subprocess
import sys

from autograder.batch import shard_of
from autograder.simulate import submission, write
from conftest import ROOT, grade, results_of

NB = "01_hand_example"


def test_a_rerun_reuses_what_was_graded_and_regrades_what_changed(graded, tmp_path):
    results, out, work, *_ = graded
    # a copy of the graded class, so the other tests keep theirs
    shutil.copytree(work.parent / "submissions", tmp_path / "submissions")
    out, work = shutil.copytree(out, tmp_path / "out"), shutil.copytree(work, tmp_path / "work", symlinks=True)
    autograded = work / "students" / "solved" / "autograded" / "solved"
    stamps = {p: p.stat().st_mtime_ns for p in autograded.rglob("*.ipynb")}
    assert stamps
    rerun = grade(tmp_path / "submissions", out, "--work", str(work), "--jobs", "2")
    assert rerun.returncode == 1  # the broken submissions are still broken
    assert {p: p.stat().st_mtime_ns for p in autograded.rglob("*.ipynb")} == stamps, "graded again"
    assert results_of(out) == results

    # a changed file is graded again, and the change shows
    changed = tmp_path / "submissions" / "solved" / f"{NB}.ipynb"
    original = changed.read_bytes()
    try:
        write(submission(NB, solved=False), changed)
        again = grade(tmp_path / "submissions", out, "--work", str(work), "--jobs", "2")
        assert results_of(out)["solved", NB]["score"] == 0, again.stdout
    finally:
        changed.write_bytes(original)
        grade(tmp_path / "submissions", out, "--work", str(work), "--jobs", "2")
    assert results_of(out) == results


def test_two_shards_merged_equal_one_run(tmp_path):
    submissions = tmp_path / "class"
    students = ["ann", "ben", "eve", "fay"]
    assert len({shard_of(s, 2) for s in students}) == 2, "the example class must span both shards"
    for i, student in enumerate(students):
        write(submission(NB, solved=i % 2 == 0), submissions / student / f"{NB}.ipynb")
    whole, part1, part2, merged = (tmp_path / n for n in ("whole", "part1", "part2", "merged"))
    assert grade(submissions, whole, "--no-feedback").returncode == 0
    assert grade(submissions, part1, "--no-feedback", "--shard", "1/2").returncode == 0
    assert grade(submissions, part2, "--no-feedback", "--shard", "2/2").returncode == 0
    assert set(results_of(part1)).isdisjoint(results_of(part2))
    run = subprocess.run([sys.executable, "-m", "autograder", "merge", str(part1), str(part2), "--out", str(merged)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout
    for name in ("grades.csv", "grades_wide.csv"):
        assert sorted((merged / name).read_text().splitlines()) == sorted((whole / name).read_text().splitlines())
    assert results_of(merged) == results_of(whole)


def test_wide_table_has_a_row_per_student_and_a_total(graded):
    results, out, *_ = graded
    with open(out / "grades_wide.csv", encoding="utf-8") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    assert set(rows) == {student for student, _ in results}
    solved = rows["solved"]
    notebooks = sorted({n for _, n in results})
    assert float(solved["total"]) == sum(float(solved[n]) for n in notebooks)
    assert float(solved["total"]) == sum(results["solved", n]["max_score"] for n in notebooks)


def test_bad_shard_option_is_refused(tmp_path):
    (tmp_path / "class" / "x").mkdir(parents=True)
    run = grade(tmp_path / "class", tmp_path / "out", "--shard", "3/2")
    assert run.returncode == 2 and "--shard" in run.stdout
