"""The instructor's round trip: the LMS's export zip in, grades for the LMS's gradebook out.

A Moodle "download all submissions" zip of a class that did notebooks 01–03 (one student also
handed in notebook 05, one a broken file, one forgot a notebook) is graded as the assignment
`--notebooks 01,02,03`, and the grades come out as Moodle's grading worksheet and a Canvas
gradebook import, with the right identifiers, names and totals; shards merge to the same files.
The Moodle files are fed to Moodle's importers as reimplemented from its source (lms_importers):
the worksheet in an English and a Russian Moodle, and the feedback files zip.
"""

import csv
import json
import re
import shutil
import subprocess
import sys
import time
import zipfile

import lms_importers
import nbformat
import pytest
from conftest import ROOT, grade, results_of

from autograder.course.course import CourseNotebook
from autograder.course.demo import OVERLAPPING_MERGE
from autograder.course.simulate import submission
from autograder.platforms.lms import moodle_columns
from autograder.platforms.report import CANVAS_COLUMNS
from autograder.wall.sandbox import bwrap_works

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available (.ci/run installs it)")
NB1, NB2, NB3, NB5 = "01_hand_example", "02_byte_level_training", "03_encode_order", "05_regex_pretokenization"
MAX = CourseNotebook.load(NB1).max_score + CourseNotebook.load(NB2).max_score + CourseNotebook.load(NB3).max_score
FULL = f"{MAX:g}"  # the assignment's maximum, as the exports write it (the core path's points)
# formgrader's maximum is nbgrader's: every test cell's points, the deep-dives' (optional, extra) too
NBGRADER_MAX = MAX + sum(CourseNotebook.load(n).extra_max for n in (NB1, NB2, NB3))
CLASS = {  # participant id: (name, files)
    "1001": ("Иван Петров", {NB1: submission(NB1), NB2: submission(NB2), NB3: submission(NB3), NB5: submission(NB5)}),
    "1002": (
        "Анна Иванова",
        {NB1: submission(NB1), NB2: submission(NB2, replace={"merge": OVERLAPPING_MERGE}), NB3: submission(NB3)},
    ),
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
    run = grade(
        archive,
        base / "out",
        "--notebooks",
        "01,02,03",
        "--export",
        "moodle",
        "--export",
        "canvas",
        "--assignment",
        "Домашнее задание 1 (4711)",
        "--lms-language",
        "ru",
        "--jobs",
        "2",
    )
    return base, run


def test_the_assignment_is_only_its_notebooks(graded):
    base, run = graded
    results = results_of(base / "out")
    assert {nb for _, nb in results} == {NB1, NB2, NB3}
    assert run.returncode == 1, run.stdout  # 1003's broken file is reported
    assert "not part of this assignment" in run.stdout and NB5 in run.stdout
    assert "graded 7" in run.stdout and "missing 1 " in run.stdout, run.stdout
    assert json.loads((base / "out" / "grading.json").read_text())["notebooks"] == [NB1, NB2, NB3]


def printed_maximum(output: str) -> float:
    return float(re.search(r"maximum grade in Moodle to ([\d.]+)", output).group(1))


def test_moodles_grading_worksheet(graded):
    base, run = graded
    table = rows(base / "out" / "moodle_grading_worksheet.csv")  # --lms-language ru
    assert table[0] == moodle_columns("ru")
    assert table[0][:3] == ["Идентификатор", "Полное имя", "Оценка"] and "Последнее изменение (оценка)" in table[0]
    by_id = {row[0]: row for row in table[1:]}
    assert set(by_id) == {"Участник1001", "Участник1002", "Участник1003"}
    assert by_id["Участник1001"][1:4] == ["Иван Петров", FULL, FULL]
    assert by_id["Участник1003"][2] == "0" and "не сдан" in by_id["Участник1003"][5]
    assert "файл не читается" in by_id["Участник1003"][5] and "сдайте заново" in by_id["Участник1003"][5]
    assert f"set the assignment's maximum grade in Moodle to {FULL}" in run.stdout


def moodle_accepts(base, out, language, output):
    """Every student's row is applied by Moodle's importer, with the right grade, under the printed maximum."""
    results = results_of(base / "out")
    total = lambda pid: sum(results[pid, nb]["score"] for nb in (NB1, NB2, NB3))
    maximum = printed_maximum(output)
    assert maximum == MAX
    text = (out / "moodle_grading_worksheet.csv").read_text(encoding="utf-8")
    applied = lms_importers.moodle_worksheet(text, language, {1001, 1002, 1003, 1004}, maximum)
    assert {pid: row["grade"] for pid, row in applied.items()} == {int(p): total(p) for p in ("1001", "1002", "1003")}
    assert applied[1002]["grade"] < MAX and "из" in applied[1002]["feedback"]
    assert 1001 not in lms_importers.moodle_worksheet(text, language, {1001}, maximum - 1)  # why the maximum matters
    other = "ru" if language == "en" else "en"
    with pytest.raises(lms_importers.Refused):  # the other language's Moodle cannot find the columns
        lms_importers.moodle_worksheet(text, other, {1001}, maximum)


def test_moodle_accepts_the_worksheet_in_english_and_in_russian(graded, tmp_path):
    base, run = graded
    out = base / "out"
    chosen = re.search(r"moodle upload \((\w\w) interface", run.stdout).group(1)
    assert chosen == "ru"  # as asked (--lms-language ru), never guessed from the names
    moodle_accepts(base, out, "ru", run.stdout)
    for language in ("en", "ru"):
        again = subprocess.run(
            [
                sys.executable,
                "-m",
                "autograder",
                "merge",
                str(out),
                "--out",
                str(tmp_path / language),
                "--export",
                "moodle",
                "--lms-language",
                language,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert again.returncode == 1, again.stdout  # 1003's broken file is still reported
        moodle_accepts(base, tmp_path / language, language, again.stdout)


def test_moodle_attaches_every_feedback_page_to_its_student(graded):
    base, run = graded
    path = base / "out" / "moodle_feedback_files.zip"
    assert "moodle feedback files" in run.stdout and path.is_file()
    attached = lms_importers.moodle_feedback_zip(path, {1001, 1002, 1003})
    pages = {
        int(p.parent.name): sorted(p.name for p in p.parent.glob("*.html"))
        for p in (base / "out" / "feedback").glob("*/*.html")
    }
    assert {pid: sorted(names) for pid, names in attached.items()} == pages
    assert set(pages) == {1001, 1002, 1003} and f"{NB1}.html" in pages[1001]
    with zipfile.ZipFile(path) as z:
        assert any(n.startswith("Иван Петров_1001_assignsubmission_file_/") for n in z.namelist())
    page = (base / "out" / "feedback" / "1001" / f"{NB1}.html").read_text(encoding="utf-8")
    assert "Студент: Иван Петров (1001)" in page  # the name from the roster, not the id alone


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
    work = str(base / "out" / "work")  # the graded class's cache: the shards reuse it
    parts = []
    for i in (1, 2):
        part = tmp_path / f"part{i}"
        run = grade(base / "moodle.zip", part, "--notebooks", "01,02,03", "--shard", f"{i}/2", "--work", work)
        assert run.returncode in (0, 1), run.stdout
        parts.append(str(part))
    merged = tmp_path / "merged"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "merge",
            *parts,
            "--out",
            str(merged),
            "--export",
            "moodle",
            "--lms-language",
            "ru",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stdout
    assert (merged / "roster.csv").read_text(encoding="utf-8") == (base / "out" / "roster.csv").read_text(
        encoding="utf-8"
    )
    from nbgrader.api import Gradebook, SubmittedAssignment

    with Gradebook(f"sqlite:///{merged / 'work' / 'course' / 'gradebook.db'}") as gb:  # merge writes it too
        merged_scores = {(s.student.id, s.assignment.name): s.score for s in gb.db.query(SubmittedAssignment)}
        assert sorted(a.name for a in gb.assignments) == [NB1, NB2, NB3]
    results = results_of(base / "out")
    assert merged_scores == {k: r["score"] for k, r in results.items() if r["status"] in ("graded", "broken")}
    assert (merged / "work" / "course" / "autograded" / "1001" / NB1 / f"{NB1}.ipynb").is_file()
    written = lambda path: [row[:4] + row[5:] for row in rows(path)]  # all but the time of writing
    assert written(merged / "moodle_grading_worksheet.csv") == written(base / "out" / "moodle_grading_worksheet.csv")
    assert sorted(rows(merged / "grades_wide.csv")) == sorted(rows(base / "out" / "grades_wide.csv"))


def test_formgrader_shows_the_class_with_names_counts_and_the_broken_file(graded):
    """What formgrader's pages are made of: nbgrader's own API over the class's course directory."""
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    base, _ = graded
    root = base / "out" / "work" / "course"
    api = NbGraderAPI(coursedir=CourseDirectory(root=str(root)), config=None)
    assert api.get_assignment(NB1)["num_submissions"] == 3
    assert api.get_assignment(NB2)["num_submissions"] == 3  # 1003's broken 02 counts, with 0
    students = {s["id"]: s for s in api.get_students()}
    assert (students["1001"]["first_name"], students["1001"]["last_name"]) == ("Иван", "Петров")
    assert {s["max_score"] for s in students.values()} == {NBGRADER_MAX}  # the assignment's total, not the course's
    with api.gradebook as gb:  # the totals count only the graded notebooks
        assert sorted(a.name for a in gb.assignments) == [NB1, NB2, NB3]
    submissions = {s["student"]: s for s in api.get_submissions(NB2)}
    assert submissions["1003"]["score"] == 0 and submissions["1003"]["autograded"], submissions["1003"]
    assert submissions["1001"]["score"] == CourseNotebook.load(NB2).max_score and submissions["1001"]["autograded"]
    reason = (root / "autograded" / "1003" / NB2 / f"{NB2}.ipynb").read_text(encoding="utf-8")
    assert "файл не читается" in reason


def test_the_gradebook_holds_the_graded_assignments_and_gets_the_next_ones_back(tmp_path):
    """formgrader totals every assignment of the gradebook: a run for 01 leaves only 01 there; a later
    run in the same work folder for 02 puts 02 back (nbgrader's generate_assignment) and keeps 01 only
    if it was graded."""
    from nbgrader.api import Gradebook

    from autograder.classroom.gradebook import keep_assignments
    from autograder.course.course import PreparedCourse

    course = PreparedCourse(tmp_path / "course").prepare()
    names = lambda: sorted(a.name for a in Gradebook(f"sqlite:///{course.gradebook}").assignments)
    assert names() == course.notebooks
    keep_assignments(course.root, [NB1], course.generate_assignments)
    assert names() == [NB1]
    keep_assignments(course.root, [NB2], course.generate_assignments)
    assert names() == [NB2]
    with Gradebook(f"sqlite:///{course.gradebook}") as gb:
        assert [c.name for c in gb.find_assignment(NB2).notebooks[0].grade_cells]  # its tests are back too


def test_a_rerun_keeps_a_grade_changed_by_hand_in_a_russian_moodle_and_delivers_the_resubmission(graded, tmp_path):
    """Issue 45 item 1 and issue 41 item 4 through `grade`: the first run's worksheet uploaded to a
    Russian Moodle, 1003's grade changed there by hand, the worksheet downloaded again, 1002 hands
    in a corrected notebook 02 and the class is rerun with that worksheet: Moodle's importer takes
    1002's new grade (it can read the row's time) and leaves 1003's hand grade alone."""
    base, _ = graded
    out = tmp_path / "out"
    shutil.copytree(base / "out", out)
    names = {int(pid): name for pid, (name, _) in CLASS.items()}
    moodle = {pid: lms_importers.MoodleGrade(None, 0) for pid in names}
    first = (out / "moodle_grading_worksheet.csv").read_text(encoding="utf-8")
    moodle = lms_importers.moodle_upload(first, "ru", moodle, MAX, time.time())
    before = {pid: g.grade for pid, g in moodle.items()}
    moodle[1003] = lms_importers.MoodleGrade(5.0, time.time() + 3600, moodle[1003].feedback)  # by hand, later
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text(lms_importers.moodle_download(moodle, "ru", names, MAX), encoding="utf-8")
    again = {**CLASS, "1002": (CLASS["1002"][0], {**CLASS["1002"][1], NB2: submission(NB2)})}
    archive = tmp_path / "moodle.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for pid, (name, files) in again.items():
            for nb, content in files.items():
                text = content if isinstance(content, str) else nbformat.writes(content)
                z.writestr(f"{name}_{pid}_assignsubmission_file_/{nb}.ipynb", text)
    run = grade(archive, out, "--worksheet", str(worksheet))
    assert run.returncode == 1, run.stdout  # 1003's broken file is still reported
    assert "1 grade(s) entered by hand in Moodle" in run.stdout and "1003 Olga Smith: Moodle 5,00" in run.stdout
    text = (out / "moodle_grading_worksheet.csv").read_text(encoding="utf-8")
    after = lms_importers.moodle_upload(text, "ru", moodle, MAX, time.time() + 7200)
    assert before[1002] < MAX and after[1002].grade == MAX  # the resubmission arrives
    assert after[1003].grade == 5 and after[1001].grade == before[1001]  # the hand grade stays
