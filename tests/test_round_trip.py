"""The instructor's round trip: the LMS's export zip in, grades for the LMS's gradebook out.

A Moodle "download all submissions" zip of a class that did notebooks 01–03 (one student also
handed in notebook 05, one a broken file, one forgot a notebook) is graded as the assignment
`--notebooks 01,02,03`, and the grades come out as Moodle's grading worksheet and a Canvas
gradebook import, with the right identifiers, names and totals; shards merge to the same files.
"""
import csv
import json
import subprocess
import sys
import zipfile

import nbformat
import pytest

from autograder.course import CourseNotebook
from autograder.demo import OVERLAPPING_MERGE
from autograder.report import CANVAS_COLUMNS, MOODLE_COLUMNS
from autograder.sandbox import bwrap_works
from autograder.simulate import submission
from conftest import ROOT, grade, results_of

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available (.ci/run installs it)")
NB1, NB2, NB3, NB5 = "01_hand_example", "02_byte_level_training", "03_encode_order", "05_regex_pretokenization"
MAX = CourseNotebook.load(NB1).max_score + CourseNotebook.load(NB2).max_score + CourseNotebook.load(NB3).max_score
FULL = f"{MAX:g}"          # the assignment's maximum, as the exports write it
CLASS = {  # participant id: (name, files)
    "1001": ("Иван Петров", {NB1: submission(NB1), NB2: submission(NB2), NB3: submission(NB3),
                             NB5: submission(NB5)}),
    "1002": ("Анна Иванова", {NB1: submission(NB1), NB2: submission(NB2, replace={"merge": OVERLAPPING_MERGE}),
                              NB3: submission(NB3)}),
    "1003": ("Olga Smith", {NB1: submission(NB1, solved=False), NB2: "{not json"}),
}


def moodle_zip(path):
    with zipfile.ZipFile(path, "w") as z:
        for pid, (name, files) in CLASS.items():
            for nb, content in files.items():
                text = content if isinstance(content, str) else nbformat.writes(content)
                z.writestr(f"{name}_{pid}_assignsubmission_file_/{nb}.ipynb", text)
    return path


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("round")
    archive = moodle_zip(base / "moodle.zip")
    run = grade(archive, base / "out", "--notebooks", "01,02,03", "--export", "moodle", "--export", "canvas",
                "--assignment", "Домашнее задание 1 (4711)", "--jobs", "2")
    return base, run


def test_the_assignment_is_only_its_notebooks(graded):
    base, run = graded
    results = results_of(base / "out")
    assert {nb for _, nb in results} == {NB1, NB2, NB3}
    assert run.returncode == 1, run.stdout                      # 1003's broken file is reported
    assert "not part of this assignment" in run.stdout and NB5 in run.stdout
    assert "graded 7" in run.stdout and "missing 1 " in run.stdout, run.stdout
    assert json.loads((base / "out" / "grading.json").read_text())["notebooks"] == [NB1, NB2, NB3]


def test_moodles_grading_worksheet(graded):
    base, _ = graded
    table = rows(base / "out" / "moodle_grading_worksheet.csv")
    assert table[0] == MOODLE_COLUMNS == ["Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments"]
    by_id = {row[0]: row for row in table[1:]}
    assert set(by_id) == {"Participant 1001", "Participant 1002", "Participant 1003"}
    results = results_of(base / "out")
    total = lambda pid: sum(results[pid, nb]["score"] for nb in (NB1, NB2, NB3))
    assert by_id["Participant 1001"][1:4] == ["Иван Петров", FULL, FULL]
    assert by_id["Participant 1002"][1] == "Анна Иванова" and float(by_id["Participant 1002"][2]) == total("1002") < MAX
    assert by_id["Participant 1003"][2] == "0" and "не сдан" in by_id["Participant 1003"][4]
    assert "файл не читается" in by_id["Participant 1003"][4]


def test_canvas_gradebook_import(graded):
    base, _ = graded
    table = rows(base / "out" / "canvas_grades_import.csv")
    assert table[0] == [*CANVAS_COLUMNS, "Домашнее задание 1 (4711)"]
    assert CANVAS_COLUMNS == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert table[1][0].strip() == "Points Possible" and table[1][-1] == FULL
    assert ["Иван Петров", "1001", "", "", "", FULL] in table


def test_the_wide_table_shows_status_and_problems_have_structure(graded):
    base, _ = graded
    with open(base / "out" / "grades_wide.csv", encoding="utf-8") as f:
        wide = {row["student_id"]: row for row in csv.DictReader(f)}
    assert wide["1001"]["status"] == "graded" and wide["1001"]["max_total"] == FULL
    assert wide["1003"]["status"].startswith("broken: 02")
    problems = json.loads((base / "out" / "problems.json").read_text(encoding="utf-8"))
    assert all(set(p) == {"file", "student_id", "notebook", "problem"} for p in problems)
    assert any(p["student_id"] == "1003" and p["notebook"] == NB2 and "broken" in p["problem"] for p in problems)
    assert any(p["student_id"] == "1001" and NB5 in p["file"] for p in problems)


def test_shards_merge_into_the_same_files_with_the_roster(graded, tmp_path):
    base, _ = graded
    work = str(base / "out" / "work")          # the graded class's cache: the shards reuse it
    parts = []
    for i in (1, 2):
        part = tmp_path / f"part{i}"
        run = grade(base / "moodle.zip", part, "--notebooks", "01,02,03", "--shard", f"{i}/2", "--work", work)
        assert run.returncode in (0, 1), run.stdout
        parts.append(str(part))
    merged = tmp_path / "merged"
    run = subprocess.run([sys.executable, "-m", "autograder", "merge", *parts, "--out", str(merged),
                          "--export", "moodle"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 1, run.stdout
    assert (merged / "roster.csv").read_text(encoding="utf-8") == (base / "out" / "roster.csv").read_text(encoding="utf-8")
    assert rows(merged / "moodle_grading_worksheet.csv") == rows(base / "out" / "moodle_grading_worksheet.csv")
    assert sorted(rows(merged / "grades_wide.csv")) == sorted(rows(base / "out" / "grades_wide.csv"))
