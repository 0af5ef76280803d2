"""Submissions made from the course itself: a student notebook with its TODO cells filled in.

The demo class and the tests use this to play students: one who solved everything, one who
made a particular mistake (a solution cell replaced by other code), one who did nothing.
"""

from pathlib import Path

import nbformat

from .cells import grade_id
from .course import NOTEBOOKS, SOLUTIONS

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def solution_sources(name: str, solutions: Path = SOLUTIONS) -> dict[str, str]:
    """grade_id → the code a student who solved that cell would have written."""
    notebook = nbformat.read(str(solutions / f"{name}.ipynb"), as_version=4)
    return {
        grade_id(c): "\n".join(line for line in c.source.splitlines() if line.strip() not in MARKERS)
        for c in notebook.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }


def student_notebook(name: str, notebooks: Path = NOTEBOOKS) -> nbformat.NotebookNode:
    return nbformat.read(str(notebooks / f"{name}.ipynb"), as_version=4)


def submission(name: str, solved: bool = True, replace: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """The student notebook `name`, solved (or not), with some cells' sources replaced."""
    notebook = student_notebook(name)
    sources = solution_sources(name) if solved else {}
    sources.update(replace or {})
    unknown = set(replace or {}) - {grade_id(c) for c in notebook.cells}
    if unknown:
        raise KeyError(f"{name} has no cells {sorted(unknown)}")
    for cell in notebook.cells:
        if grade_id(cell) in sources:
            cell.source = sources[grade_id(cell)]
    return notebook


def write(notebook: nbformat.NotebookNode, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))
    return path
