"""Put a submission back into the course's shape before it is graded.

Students delete, edit, move and re-tag cells. Whatever they did, the graded notebook has the
course's cells — the student's answers (solution cells, matched by grade_id), the course's own
read-only cells and test cells with their original metadata — in the course's order; the lesson
cells and the student's own cells are kept, each after the course cell it follows in the
submission. The grader takes the test sources (hidden tests included) from the course, never
from the submission.
"""

import copy

import nbformat

from ..course.cells import grade_id, is_solution, nbgrader_meta


def restore_course_cells(submitted: nbformat.NotebookNode, release: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `submitted` with the course's cells in the course's order.

    The course's cells (solutions, given read-only cells, tests) come in the order of the course
    notebook, whatever the student moved: the student's answer in each solution cell, the course's
    own copy of every other one (a deleted answer becomes the stub). Every other cell — the
    lesson's text and demonstrations, the student's own cells — stays after the course cell it
    follows in the submission, in the submission's order. So moving a cell never moves a given
    cell below the tests that need it, nor a test above the code it checks."""
    originals = {grade_id(c): c for c in release.cells if grade_id(c)}
    course_ids = {c.get("id") for c in originals.values()}
    answers, after, anchor = {}, {None: []}, None
    for cell in submitted.cells:
        g = grade_id(cell)
        if g in originals:
            if is_solution(originals[g]) and g not in answers:
                answers[g] = answer_cell(cell, originals[g])
            anchor = g
        elif g is None and not nbgrader_meta(cell):
            cell = copy.deepcopy(cell)  # a lesson cell or the student's own
            if cell.get("id") in course_ids:  # e.g. a test cell stripped of its tags
                cell["id"] = f"student-{sum(map(len, after.values()))}"
            after.setdefault(anchor, []).append(cell)
        # anything else (a duplicate, a forged grade_id, a cell with odd nbgrader metadata) is dropped:
        # the course's copy takes its place

    cells = list(after[None])
    for original in release.cells:
        g = grade_id(original)
        if g is None:
            continue
        cells.append(answers.get(g) or copy.deepcopy(original))
        cells.extend(after.get(g, []))
    notebook = copy.deepcopy(submitted)
    notebook.cells = cells
    notebook.metadata = copy.deepcopy(release.metadata)
    return notebook


def answer_cell(cell, original):
    """The student's answer with the course's metadata and id."""
    cell = copy.deepcopy(cell)
    cell.cell_type = original.cell_type
    cell.metadata = copy.deepcopy(original.metadata)
    cell["id"] = original.get("id", cell.get("id"))
    if cell.cell_type == "code":
        cell.setdefault("outputs", [])
        cell.setdefault("execution_count", None)
    return cell
