"""Submissions as instructors get them: LMS export zips, and duplicates."""

import csv
import os
import zipfile

import nbformat
from conftest import grade, results_of

from autograder.course.course import course_notebooks
from autograder.course.simulate import submission
from autograder.platforms.submissions import find_submissions, import_zip

NB = "01_hand_example"
NOTEBOOKS = course_notebooks()


def text(notebook) -> str:
    return nbformat.writes(notebook)


def test_a_moodle_zip_goes_to_grades_in_one_command(tmp_path):
    archive = tmp_path / "moodle.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"Ivan Petrov_1001_assignsubmission_file_/{NB}.ipynb", text(submission(NB)))
        z.writestr(f"Анна Иванова_1002_assignsubmission_file_{NB}.ipynb", text(submission(NB, solved=False)))
        z.writestr("Анна Иванова_1002_assignsubmission_file_notes.txt", "my notes")
        z.writestr("Ivan Petrov_1001_assignsubmission_file_/homework.ipynb", "{}")
    out = tmp_path / "out"
    run = grade(archive, out, "--no-feedback")
    assert run.returncode == 0, run.stdout
    results = results_of(out)
    assert results["1001", NB]["score"] == results["1001", NB]["max_score"]
    assert results["1002", NB]["score"] == 0
    with open(out / "roster.csv", encoding="utf-8") as f:
        assert dict(csv.reader(f)) == {"student_id": "name", "1001": "Ivan Petrov", "1002": "Анна Иванова"}
    assert "notes.txt: not a notebook" in run.stdout
    assert "homework.ipynb: not a course notebook" in run.stdout


def test_canvas_names_and_resubmissions(tmp_path):
    archive = tmp_path / "canvas.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"petrovivan_12345_678910_{NB}.ipynb", "first")
        z.writestr(f"petrovivan_late_12345_678911_{NB}-1.ipynb", "second")
        z.writestr(f"sidorova_777_1_{NB}.ipynb", "only")
        z.writestr("__MACOSX/._junk", "x")
    problems, names = import_zip(archive, tmp_path / "class", NOTEBOOKS)
    assert (tmp_path / "class" / "12345" / f"{NB}.ipynb").read_text() == "second"
    assert (tmp_path / "class" / "777" / f"{NB}.ipynb").read_text() == "only"
    assert names == {"12345": "petrovivan", "777": "sidorova"}
    assert [(p.file, p.student_id, p.problem) for p in problems] == [
        (
            f"petrovivan_12345_678910_{NB}.ipynb",
            "12345",
            f"two submissions of {NB}; graded petrovivan_late_12345_678911_{NB}-1.ipynb, "
            f"ignored petrovivan_12345_678910_{NB}.ipynb",
        ),
        (
            f"petrovivan_late_12345_678911_{NB}-1.ipynb",
            "12345",
            f"Canvas marks this submission of {NB} late (graded as usual; Canvas's late policy applies in its gradebook)",  # noqa: E501
        ),
    ]


def test_other_platforms_by_a_regex(tmp_path):
    archive = tmp_path / "other.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"hw1--s042--{NB}.ipynb", "x")
    problems, _ = import_zip(
        archive, tmp_path / "class", NOTEBOOKS, pattern=r"hw1--(?P<student_id>\w+)--(?P<file_id>.+)"
    )
    assert problems == [] and (tmp_path / "class" / "s042" / f"{NB}.ipynb").exists()


def test_a_zip_cannot_write_outside_the_class_folder(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"../../x_1_assignsubmission_file_/{NB}.ipynb", "x")
        z.writestr(f"../escape/{NB}.ipynb", "x")
    import_zip(archive, tmp_path / "class", NOTEBOOKS)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.ipynb"))
    assert all(p.parts[0] == "class" for p in written), written


def test_two_copies_of_a_notebook_in_a_folder_keep_the_newer(tmp_path):
    folder = tmp_path / "class" / "ivan"
    folder.mkdir(parents=True)
    (folder / f"{NB}.ipynb").write_text("old")
    (folder / f"{NB} (1).ipynb").write_text("new")
    os.utime(folder / f"{NB}.ipynb", (1_000_000, 1_000_000))
    found = find_submissions(tmp_path / "class", NOTEBOOKS)
    assert found.students["ivan"][NB].name == f"{NB} (1).ipynb"
    assert any("two submissions" in p.problem and p.student_id == "ivan" for p in found.problems)


def test_nbgraders_zip_collect_reads_moodle_names_with_the_course_plugin(tmp_path):
    """The README's recipe for nbgrader's own zip_collect, run as written."""
    import subprocess
    import sys

    from conftest import ROOT

    course = tmp_path / "course"
    archive = course / "downloaded" / NB / "archive"
    archive.mkdir(parents=True)
    (course / "nbgrader_config.py").write_text("c = get_config()\n")
    with zipfile.ZipFile(archive / "moodle.zip", "w") as z:
        z.writestr(f"Ivan Petrov_1001_assignsubmission_file_/{NB}.ipynb", text(submission(NB)))
        z.writestr(f"Анна Иванова_1002_assignsubmission_file_{NB}.ipynb", text(submission(NB, solved=False)))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "nbgrader",
            "zip_collect",
            NB,
            "--ZipCollectApp.collector_plugin=autograder.platforms.submissions.LmsCollector",
        ],
        cwd=course,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    for student in ("1001", "1002"):
        assert (course / "submitted" / student / NB / f"{NB}.ipynb").exists(), run.stderr[-2000:]
