"""Put a submission back into the course's shape before it is graded.

Students delete, edit, move and re-tag cells. Whatever they did, the graded notebook has the
course's test cells and read-only cells, with their original metadata, each right after the cell
that precedes it in the course notebook; the student's answers (solution cells, matched by
grade_id) and their own extra cells are kept in their order. nbgrader then restores the test
sources (hidden tests included) from the gradebook.
"""
import copy

import nbformat


def nbgrader_meta(cell) -> dict:
    """A cell's nbgrader metadata, {} when it is missing or not a dict (students edit metadata too)."""
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    nb = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nb if isinstance(nb, dict) else {}


def grade_id(cell) -> str | None:
    value = nbgrader_meta(cell).get("grade_id")
    return value if isinstance(value, str) else None


def is_solution(cell) -> bool:
    return bool(nbgrader_meta(cell).get("solution"))


def is_test(cell) -> bool:
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade")) and not meta.get("solution") and cell.get("cell_type") == "code"


def restore_course_cells(submitted: nbformat.NotebookNode, release: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `submitted` in which every cell of the course is where the course put it."""
    originals = {grade_id(c): c for c in release.cells if grade_id(c)}
    course_ids = {c.get("id") for c in originals.values()}
    kept, answered = [], set()
    for cell in submitted.cells:
        g = grade_id(cell)
        if g in originals and is_solution(originals[g]) and g not in answered:
            cell = copy.deepcopy(cell)                     # the student's answer, with the course's metadata
            cell.cell_type = originals[g].cell_type
            cell.metadata = copy.deepcopy(originals[g].metadata)
            cell["id"] = originals[g].get("id", cell.get("id"))
            if cell.cell_type == "code":
                cell.setdefault("outputs", [])
                cell.setdefault("execution_count", None)
            kept.append(cell)
            answered.add(g)
        elif g is None and not nbgrader_meta(cell):
            cell = copy.deepcopy(cell)                     # a lesson cell or the student's own
            if cell.get("id") in course_ids:               # e.g. a test cell stripped of its tags
                cell["id"] = f"student-{len(kept)}"
            kept.append(cell)
        # anything else (a test or read-only cell, a duplicate, a forged id) comes from the course

    # every other course cell (tests, read-only cells, deleted answers as stubs) goes right after
    # the cell that precedes it in the course notebook, if the student still has that cell
    placed = {c.get("id") for c in kept} | {c.get("id") for c in release.cells if grade_id(c) and grade_id(c) not in answered}
    followers, previous = {}, None
    for cell in release.cells:
        if grade_id(cell) and grade_id(cell) not in answered:
            followers.setdefault(previous, []).append(cell)
        if cell.get("id") in placed:
            previous = cell.get("id")

    def chain(anchor):
        for cell in followers.get(anchor, []):
            yield copy.deepcopy(cell)
            yield from chain(cell.get("id"))

    cells, done = list(chain(None)), set()
    for cell in kept:
        cells.append(cell)
        if cell.get("id") not in done:
            done.add(cell.get("id"))
            cells.extend(chain(cell.get("id")))
    notebook = copy.deepcopy(submitted)
    notebook.cells = cells
    notebook.metadata = copy.deepcopy(release.metadata)
    return notebook
