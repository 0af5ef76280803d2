"""What formgrader shows an instructor: the lesson as the course wrote it, the student's own Markdown
defused, rendered by formgrader's own exporter and template (nbgrader's FormgradeExtension config)."""

import json
import os
import re
import shutil
import unicodedata
import urllib.request

import nbformat
import pytest
from nbconvert.exporters import HTMLExporter
from nbgrader.server_extensions.formgrader import handlers
from traitlets.config import Config

from autograder.classroom.gradebook import NAME_CHARS, lesson_texts, review_notebook, split_name
from autograder.course.course import NOT_ASSIGNED, CourseNotebook
from autograder.notebook.feedback import student_label

NB = "02_byte_level_training"  # its lesson has `<unk>` in code spans and <details> hints
NB1 = "01_hand_example"


def formgrader_html(notebook, tmp_path) -> str:
    """The submission page as formgrader's SubmissionHandler renders it."""
    path = tmp_path / "nb.ipynb"
    nbformat.write(notebook, str(path))
    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    resources = dict(
        assignment_id=NB,
        notebook_id=NB,
        submission_id="s",
        index=0,
        total=1,
        base_url="",
        student="1001",
        last_name="Петров",
        first_name="Иван",
        notebook_path="/x",
    )
    html, _ = HTMLExporter(config=config).from_filename(str(path), resources=resources)
    return html


@pytest.fixture(scope="module")
def release():
    return CourseNotebook.load(NB).release


def test_the_lesson_text_is_shown_as_the_course_wrote_it(release, tmp_path):
    html = formgrader_html(review_notebook(release, lesson_texts(release)), tmp_path)
    assert "<code>&lt;unk&gt;</code>" in html
    assert "&amp;lt;unk" not in html  # escaped once, not twice
    assert "<details>" in html and "&lt;details&gt;" not in html  # hints fold as in the lesson


def test_without_the_lesson_the_same_cells_are_defused(release, tmp_path):
    """The check above can fail: the same notebook, not recognised as the course's, is sanitised."""
    html = formgrader_html(review_notebook(release), tmp_path)
    assert "&lt;details&gt;" in html


@pytest.mark.parametrize(
    "payload",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<a href='javascript:alert(1)'>x</a>",
        "<details open ontoggle=alert(1)>",
        "<iframe srcdoc='<script>alert(1)</script>'>",
    ],
)
def test_a_students_markdown_cannot_run_in_formgrader(release, tmp_path, payload):
    """A student's own Markdown (a new cell, or a lesson cell edited) is never trusted as the course's."""
    nb = nbformat.from_dict(release)
    nb.cells.append(nbformat.v4.new_markdown_cell(f"Мой ответ: {payload}"))
    edited = next(c for c in nb.cells if c.cell_type == "markdown" and "<details>" in c.source)
    edited.source += f"\n{payload}"
    html = formgrader_html(review_notebook(nb, lesson_texts(release)), tmp_path)
    tags = re.findall(r"<\s*(script|img|iframe|a|details)\b([^>]*)>", html, flags=re.I)
    assert not [t for t in tags if re.search(r"\son\w+\s*=|javascript:|srcdoc", t[1], flags=re.I)], tags
    assert not re.search(r"<script>\s*alert", html)


def test_the_feedback_page_names_the_student():
    assert student_label("1001", "Иван Петров") == "Иван Петров (1001)"
    assert student_label("1001") == "1001" and student_label("1001", "1001") == "1001"


# -- formgrader itself, over HTTP: a Moodle class of 01 graded by `grade`, then jupyter server with
# nbgrader's formgrader extension on the course directory the grader prepared, as the guide says
STUDENTS = {  # participant id → the full name in Moodle's worksheet, as Moodle gives it
    1001: "Штраус, Анна-Мария Д'Ёлкина фон",  # Moodle's full name in its "Last, First" format
    1002: "\u202eMallory\u2066 \u200b<script>alert(1)</script>\x1b[31m,\u2028 Eve\x07",  # what a student may type
    1003: "Иван Петров",
}


# `jupyter server` (ServerApp.launch_instance) with one more callback on its loop: the server binds its port
# in a callback its initialisation queued, so one queued after it runs once the port listens, and says so
LAUNCH = """
import sys
from jupyter_server.serverapp import ServerApp

app = ServerApp.instance()
app.initialize(sys.argv[1:])
app.io_loop.add_callback(lambda: print("listening on", app.port, flush=True))
app.start()
"""


@pytest.fixture(scope="module")
def formgrader(tmp_path_factory):
    import subprocess
    import sys
    import zipfile

    import lms_importers
    from conftest import grade

    from autograder.course.simulate import submission

    base = tmp_path_factory.mktemp("formgrader")
    archive, worksheet = base / "moodle.zip", base / "worksheet.csv"
    with zipfile.ZipFile(archive, "w") as z:
        for pid, name in STUDENTS.items():
            content = nbformat.writes(submission(NB1, solved=pid != 1003))
            z.writestr(lms_importers.moodle_download_path(name, pid, f"{NB1}.ipynb"), content)
    moodle = {pid: lms_importers.MoodleGrade(None, 0) for pid in STUDENTS}
    worksheet.write_text(lms_importers.moodle_download(moodle, "en", STUDENTS, 17), encoding="utf-8")
    run = grade(archive, base / "out", "--notebooks", "01", "--worksheet", str(worksheet))
    assert run.returncode == 0, run.stdout + run.stderr
    course = base / "out" / "work" / "course"
    token = "formgrader-test-token"
    jupyter = {f"JUPYTER_{d}_DIR": str(base / f"jupyter-{d.lower()}") for d in ("CONFIG", "DATA", "RUNTIME")}
    with open(base / "jupyter.log", "w") as log:  # the child keeps its own copy of the file
        server = subprocess.Popen(
            [
                sys.executable,
                "-c",
                LAUNCH,
                "--no-browser",
                "--allow-root",
                "--ip=127.0.0.1",
                "--port=0",  # a free port, which the server says when it listens
                f"--IdentityProvider.token={token}",
                "--ServerApp.jpserver_extensions={'nbgrader.server_extensions.formgrader': True}",
            ],
            cwd=course,
            env={**os.environ, **jupyter, "HOME": str(base)},  # no user's Jupyter or nbgrader config
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
    try:
        said = server.stdout.readline()  # the server's word that it listens ("" if it died first)
        if not said.startswith("listening on "):
            pytest.fail("jupyter server did not start:\n" + (base / "jupyter.log").read_text())
        yield f"http://127.0.0.1:{int(said.split()[-1])}", token, course
    finally:
        server.terminate()
        server.wait(timeout=60)
        server.stdout.close()


def fetch(formgrader, path: str) -> str:
    url, token, _ = formgrader
    request = urllib.request.Request(url + path, headers={"Authorization": f"token {token}"})
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=60) as response:
        return response.read().decode("utf-8")


def test_formgrader_lists_only_the_graded_notebooks(formgrader):
    """Not the course's nine with 0 submissions for eight of them: the others' sources are set aside."""
    listed = {a["name"]: a["num_submissions"] for a in json.loads(fetch(formgrader, "/formgrader/api/assignments"))}
    assert listed == {NB1: 3}
    assert (formgrader[2] / NOT_ASSIGNED / "02_byte_level_training").is_dir()  # kept for a later run's notebooks


def test_formgrader_shows_no_exchange_banner(formgrader):
    page = fetch(formgrader, "/formgrader/manage_assignments")
    assert "Manage Assignments" in page  # the page itself, and nothing in it about a missing exchange
    assert "warning-exchange" not in page and "does not exist" not in page


def test_formgrader_names_the_students_as_moodle_does_and_disarms_what_a_student_typed(formgrader):
    students = {
        s["id"]: (s["last_name"], s["first_name"]) for s in json.loads(fetch(formgrader, "/formgrader/api/students"))
    }
    assert students["1001"] == ("Штраус", "Анна-Мария Д'Ёлкина фон")  # at the first comma, as Moodle writes it
    assert students["1003"] == ("Петров", "Иван")
    last, first = students["1002"]
    assert (last, first) == ("Mallory ‹script›alert(1)‹/script›[31m", "Eve")
    assert not [ch for ch in last + first if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")]


def test_formgraders_submission_page_shows_the_name_and_runs_none_of_it(formgrader):
    """formgrader's submission page puts the name into its HTML unescaped: a name is never markup there."""
    submitted = json.loads(fetch(formgrader, f"/formgrader/api/submitted_notebooks/{NB1}/{NB1}"))
    ids = {s["student"]: s["id"] for s in submitted}
    shown = lambda page: re.search(r'<a class="name-shown"[^>]*>\s*(.*?)\s*</a>', page, re.S).group(1)
    assert shown(fetch(formgrader, f"/formgrader/submissions/{ids['1001']}/")) == "Штраус, Анна-Мария Д'Ёлкина фон"
    page = fetch(formgrader, f"/formgrader/submissions/{ids['1002']}/")
    assert shown(page) == "Mallory ‹script›alert(1)‹/script›[31m, Eve"
    assert "<script>alert" not in page and "\u202e" not in page


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Штраус, Анна-Мария Д'Ёлкина фон", ("Анна-Мария Д'Ёлкина фон", "Штраус")),
        ("Анна-Мария Д'Ёлкина фон Штраус", ("Анна-Мария Д'Ёлкина фон", "Штраус")),
        ("Petrov, Ivan", ("Ivan", "Petrov")),  # Canvas's sortable name
        ("Петров", (None, "Петров")),
        ("Петров,", (None, "Петров")),
        ("\u202e\u2066\x1b", (None, None)),
        ("", (None, None)),
        ("a" * 10_000, (None, "a" * NAME_CHARS)),
    ],
)
def test_a_name_is_split_as_the_lms_writes_it(name, expected):
    assert split_name(name) == expected


def test_a_later_run_for_other_notebooks_gets_its_sources_back_and_sets_the_ungraded_aside(tmp_path):
    """A run for 01 leaves only 01 in source/ (what formgrader lists); a later run in the same work folder
    for 02 brings 02 back from NOT_ASSIGNED/ (and its tests into the gradebook), 01 goes aside as nobody
    was graded in it, and the grader still reads every course notebook wherever it lies."""
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from autograder.classroom.gradebook import keep_assignments
    from autograder.course.course import PreparedCourse

    course = PreparedCourse(tmp_path / "course").prepare()
    listed = lambda: sorted(NbGraderAPI(coursedir=CourseDirectory(root=str(course.root))).get_source_assignments())
    assert listed() == course.notebooks  # as nbgrader prepared it
    keep_assignments(course.root, [NB1], course.generate_assignments)
    assert listed() == [NB1]
    assert course.notebook(NB).max_score == CourseNotebook.load(NB).max_score  # read from where it was put
    keep_assignments(course.root, [NB], course.generate_assignments)
    assert listed() == [NB]
    assert sorted(p.name for p in (course.root / NOT_ASSIGNED).iterdir()) == [n for n in course.notebooks if n != NB]


def test_canvas_names_come_from_its_gradebook_not_the_zips_logins(tmp_path):
    from autograder.classroom.workflow import name_students
    from autograder.platforms.report import read_roster, write_roster
    from autograder.platforms.submissions import Class

    gradebook = tmp_path / "gradebook.csv"
    gradebook.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Homework 1 (4711)\n"
        "    Points Possible,,,,,17\n"
        '"Petrov, Ivan",1001,S-1001,ipetrov,Group A,\n'
        '"Smith, Anna",1002,S-1002,asmith,Group B,\n',
        encoding="utf-8",
    )
    write_roster({"1001": "ipetrov", "1003": "osmith"}, tmp_path)  # what a Canvas zip names them
    found = Class(students={"1001": {}, "1003": {}})
    name_students(found, tmp_path, None, str(gradebook))
    assert read_roster(tmp_path) == {"1001": "Petrov, Ivan", "1003": "osmith"}  # 1002 handed in nothing
    assert split_name(read_roster(tmp_path)["1001"]) == ("Ivan", "Petrov")


def test_a_course_prepared_again_over_a_class_does_not_hand_its_grades_to_the_next_work_folder(tmp_path, monkeypatch):
    """The prepared course is kept in the user's cache for new work folders: never one made where a
    class's gradebook already was (solutions/ changed, the work folder prepared again), whose students and
    grades a fresh work folder would then start with."""
    from nbgrader.api import Gradebook

    from autograder.course.course import SOLUTIONS, PreparedCourse

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    shutil.copy(SOLUTIONS / f"{NB1}.ipynb", solutions)
    graded = PreparedCourse(tmp_path / "graded", solutions).prepare()
    with Gradebook(f"sqlite:///{graded.gradebook}") as gb:
        gb.add_student("1001", first_name="Иван", last_name="Петров")
    changed = nbformat.read(str(solutions / f"{NB1}.ipynb"), as_version=4)
    changed.cells.append(nbformat.v4.new_markdown_cell("Исправленный текст урока."))
    nbformat.write(changed, str(solutions / f"{NB1}.ipynb"))
    PreparedCourse(graded.root, solutions).prepare()  # prepared again where the class's gradebook is
    with Gradebook(f"sqlite:///{graded.gradebook}") as gb:
        assert [s.id for s in gb.students] == ["1001"]  # its own grades are kept
    fresh = PreparedCourse(tmp_path / "fresh", solutions).prepare()
    with Gradebook(f"sqlite:///{fresh.gradebook}") as gb:
        assert gb.students == [] and [a.name for a in gb.assignments] == [NB1]


def test_a_later_roster_renames_the_students_graded_before_and_an_unchanged_one_opens_nothing(tmp_path):
    """Results from the cache are not recorded again: a name the LMS gives only on a later run (Moodle's
    worksheet given with the rerun) still reaches formgrader; a roster as it was leaves the gradebook shut."""
    from nbgrader.api import Gradebook

    from autograder.classroom.gradebook import name_students, record
    from autograder.course.course import PreparedCourse
    from autograder.notebook.results import GRADED, Result

    course = PreparedCourse(tmp_path / "course").prepare()
    record(course.root, Result("1003", NB1, 0, 17, GRADED, ""), None, name="Ivan Petrov")  # the zip's name
    name_students(course.root, {"1003": "Петров, Иван Иванович"})
    with Gradebook(f"sqlite:///{course.gradebook}") as gb:
        student = gb.find_student("1003")
        assert (student.last_name, student.first_name) == ("Петров", "Иван Иванович")
    course.gradebook.unlink()
    name_students(course.root, {"1003": "Петров, Иван Иванович"})
    assert not course.gradebook.exists()  # not opened (nor nbgrader imported) for the same names
