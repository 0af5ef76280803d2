"""What formgrader shows an instructor: the lesson as the course wrote it, the student's own Markdown
defused, rendered by formgrader's own exporter and template (nbgrader's FormgradeExtension config)."""

import re

import nbformat
import pytest
from nbconvert.exporters import HTMLExporter
from nbgrader.server_extensions.formgrader import handlers
from traitlets.config import Config

from autograder.classroom.gradebook import lesson_texts, review_notebook
from autograder.course.course import CourseNotebook
from autograder.notebook.feedback import student_label

NB = "02_byte_level_training"  # its lesson has `<unk>` in code spans and <details> hints


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
