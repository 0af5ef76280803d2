"""The feedback page as a student sees it, in a real browser (headless Chromium, where installed).

It must work offline (no scripts, fonts or styles from the network) and keep long lines inside the
window. Render one by hand to look at it:
    chromium --headless --no-sandbox --screenshot=feedback.png --window-size=1000,1400 FILE.html
"""

import re
import shutil
import subprocess

import pytest
from local_session import LocalSession

from autograder.course.course import CourseNotebook
from autograder.course.simulate import solution_sources, submission, write
from autograder.notebook.feedback import feedback_html
from autograder.notebook.pipeline import NotebookGrader

NB = "01_hand_example"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
LONG = "x" * 3000


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    course = CourseNotebook.load(NB)
    source = solution_sources(NB)["count_pairs"] + f"\nprint({LONG!r})\n" + "# " + "очень длинный комментарий " * 80
    path = write(
        submission(NB, replace={"count_pairs": source, "learn_merges": "def learn_merges(w, n):\n    return []"}),
        tmp_path_factory.mktemp("fb") / f"{NB}.ipynb",
    )
    graded = NotebookGrader().grade(course, path, LocalSession, student="ivan")
    return feedback_html(graded.result, graded.notebook, course.release, graded.ran, course.title)


def test_the_page_is_self_contained(page):
    assert "<script" not in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "@import" not in page and "url(" not in page


def test_the_page_names_every_test_with_points_and_messages(page):
    assert page.count("баллы:") == 9 and "test_learn_merges_hidden" in page
    assert "ожидалось" in page  # a failed test's message
    assert "Ваше решение: count_pairs" in page and LONG[:100] in page


@pytest.mark.skipif(not CHROMIUM, reason="Chromium is not installed (apt-get install chromium)")
def test_long_lines_stay_inside_the_window_in_a_real_browser(page, tmp_path):
    probe = page.replace(
        "</body>",
        "<script>document.title = 'width:' + document.documentElement.scrollWidth"
        " + '/' + window.innerWidth</script></body>",
    )
    path = tmp_path / "feedback.html"
    path.write_text(probe, encoding="utf-8")
    run = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=900,1200",
            "--dump-dom",
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    width = re.search(r"<title>width:(\d+)/(\d+)</title>", run.stdout)
    assert width, run.stdout[-2000:] + run.stderr[-2000:]
    assert int(width.group(1)) <= int(width.group(2)), width.group(0)


def test_a_broken_file_gets_a_russian_page_that_says_what_to_do():
    from autograder.course.course import CourseNotebook
    from autograder.notebook.feedback import feedback_html
    from autograder.notebook.results import BROKEN, ERROR, Result

    release = CourseNotebook.load("01_hand_example").release
    broken = Result(
        "1001", "01_hand_example", 0, 17, BROKEN, "01_hand_example.ipynb: not valid JSON (line 1, column 2)"
    )
    page = feedback_html(broken, None, release, set())
    assert "сдайте заново" in page and "Техническая причина" in page and "not valid JSON" in page
    error = Result("1001", "01_hand_example", 0, 17, ERROR, "grading failed: OSError")
    assert "сдавать заново не нужно" in feedback_html(error, None, release, set())


@pytest.mark.parametrize(
    "content, russian",
    [
        (b'{"cells": [', "некорректный JSON (строка 1, позиция 12)"),
        (b"", "файл пустой"),
        (b"\xff\xfe", "не текст в UTF-8"),
        (b'{"a": 1}', "не блокнот Jupyter"),
        (b"[" * 100_000 + b"]" * 100_000, "вложен слишком глубоко"),
        (b'{"cells": [{"cell_type": "code"}], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}', "повреждена"),
    ],
)
def test_a_broken_files_page_gives_its_technical_reason_in_russian_and_the_terminal_in_english(
    tmp_path, content, russian
):
    path = tmp_path / f"{NB}.ipynb"
    path.write_bytes(content)
    course = CourseNotebook.load(NB)
    result = NotebookGrader().grade(course, path, lambda: None).result
    assert result.status == "broken" and result.message.isascii(), result.message  # the instructor's terminal
    page = feedback_html(result, None, course.release, set())
    reason = re.search(r"Техническая причина: <code>(.*?)</code>", page).group(1)
    english = re.sub(r"Jupyter|JSON|UTF-8|\.ipynb|" + NB, "", reason)  # the names stay as they are
    assert russian in reason and not re.search(r"[A-Za-z]{3,}", english), reason
