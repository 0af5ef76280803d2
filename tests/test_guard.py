"""The guard's "For review" list is worth reading: nothing for the course's own code, with or
without cell ids, on any solved notebook; still a finding for a student reaching for the machinery."""

import nbformat
import pytest

from autograder.course.course import CourseNotebook, course_notebooks
from autograder.course.simulate import submission
from autograder.notebook.guard import tampering
from autograder.notebook.sanitize import sanitize


def review_of(tmp_path, notebook, name):
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(notebook, str(path))
    _, changes, findings = sanitize(path, CourseNotebook.load(name).release)
    return [c.text() for c in changes] + findings


def without_ids(notebook):
    """As an older JupyterLab saves it: nbformat 4.4, no cell ids."""
    notebook = nbformat.from_dict(notebook)
    notebook.nbformat_minor = 4
    for cell in notebook.cells:
        cell.pop("id", None)
    return notebook


@pytest.mark.parametrize("name", course_notebooks())
def test_a_solved_notebook_has_nothing_for_review(tmp_path, name):
    solved = submission(name)
    assert review_of(tmp_path, solved, name) == []
    assert review_of(tmp_path, without_ids(solved), name) == []


def test_reaching_for_the_machinery_is_still_reported(tmp_path):
    name = "08_shipping_tokenizer" if "08_shipping_tokenizer" in course_notebooks() else course_notebooks()[-1]
    solved = submission(name)
    solved.cells.append(
        nbformat.v4.new_code_cell("import builtins\nbuiltins.len = lambda x: 0\nexec(base64.b64decode('cHJpbnQoMSk='))")
    )
    found = review_of(tmp_path, solved, name)
    assert any("builtins" in f for f in found) and any("exec" in f for f in found), found
    first = course_notebooks()[0]
    other = submission(first)
    other.cells.append(nbformat.v4.new_code_cell("import base64\nsecret = base64.b64decode('eA==')"))
    assert any("b64decode" in f for f in review_of(tmp_path, other, first))  # not a name 01 uses


def test_a_course_line_inside_a_students_cell_is_not_a_finding():
    release = CourseNotebook.load(course_notebooks()[0]).release
    student = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("from IPython.display import display\nx = 1")])
    course_has_it = any("from IPython.display import display" in c.source for c in release.cells)
    assert (tampering(student, release) == []) == course_has_it
