"""What a cell is to nbgrader: its metadata, its grade id, whether it is a solution or a test.

Students edit metadata too, so every reader here takes any shape and answers with a plain value.
"""


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


OPTIONAL_TAG = "optional"  # a test cell of a deep-dive («Углубление»): its points are extra, never in the maximum


def is_optional(cell) -> bool:
    """A test of an optional deep-dive: the course tags its cell `optional` in solutions/ (the grader
    reads the course's cell only, never the student's copy of it)."""
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    tags = meta.get("tags") if isinstance(meta, dict) else None
    return isinstance(tags, list) and OPTIONAL_TAG in tags
