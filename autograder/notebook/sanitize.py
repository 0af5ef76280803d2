"""The first step of grading: a submitted file becomes a notebook in the course's shape, or a
clear reason why it cannot.

Whatever the file holds — not JSON, JSON nested a million levels deep, a notebook whose cells
have odd metadata, an old nbformat — this step either returns the notebook put back into the
course's shape (autograder.notebook.normalize) with the guard's findings for the instructor, or raises
SubmissionError saying what is wrong — in English for the instructor's terminal and in Russian for the
student's feedback page (`russian`). It never raises anything else.
"""

import json
from pathlib import Path

import nbformat

from .guard import cell_changes, tampering
from .normalize import restore_course_cells
from .results import CellChange

MAX_NOTEBOOK_BYTES = 50 * 2**20  # the largest notebook read (in a zip too: autograder.platforms.submissions)
MAX_CELLS = 2000  # the course's notebooks have about a hundred
MAX_CODE_CHARS = 2 * 2**20  # all code cells together; outputs do not count
TOO_DEEP = ("JSON nested too deeply to be a notebook", "JSON вложен слишком глубоко для блокнота")


class SubmissionError(ValueError):
    """A submitted file that is not a gradable notebook: why, in English (str) and in Russian (`russian`)."""

    def __init__(self, english: str, russian: str):
        super().__init__(english)
        self.russian = russian


def read_submission(path: Path) -> nbformat.NotebookNode:
    """The submitted notebook, upgraded to nbformat 4, or a SubmissionError saying what is wrong."""
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise SubmissionError(
            f"the file cannot be read: {e.strerror or e}", f"файл не читается: {e.strerror or e}"
        ) from None
    if len(raw) > MAX_NOTEBOOK_BYTES:
        raise SubmissionError(
            f"{len(raw)} bytes, too large for a notebook (at most {MAX_NOTEBOOK_BYTES})",
            f"{len(raw)} байт: слишком большой файл для блокнота (не больше {MAX_NOTEBOOK_BYTES})",
        )
    if not raw.strip():
        raise SubmissionError("the file is empty", "файл пустой")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SubmissionError(
            "the file is not UTF-8 text (is it really a .ipynb?)",
            "файл — не текст в UTF-8 (точно ли это .ipynb?)",
        ) from None
    except json.JSONDecodeError as e:
        raise SubmissionError(
            f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
            "the notebook was probably damaged while saving or uploading",
            f"файл — некорректный JSON (строка {e.lineno}, позиция {e.colno}); "
            "вероятно, блокнот повредился при сохранении или загрузке",
        ) from None
    except RecursionError:
        raise SubmissionError(*TOO_DEEP) from None
    if not isinstance(data, dict) or "cells" not in data and "worksheets" not in data:
        raise SubmissionError(
            "valid JSON, but not a Jupyter notebook (no cells)", "это JSON, но не блокнот Jupyter (в нём нет ячеек)"
        )
    try:
        notebook = nbformat.reads(json.dumps(data), as_version=4)
        for cell in notebook.cells:
            if not isinstance(cell.get("source"), str) or cell.get("cell_type") not in ("code", "markdown", "raw"):
                raise ValueError("a cell without text or of an unknown type")
    except RecursionError:
        raise SubmissionError(*TOO_DEEP) from None
    except Exception as e:  # nbformat raises several kinds of errors for malformed notebooks
        raise SubmissionError(
            f"not a readable Jupyter notebook: {type(e).__name__}: {e}"[:500],
            "файл не читается как блокнот Jupyter: его структура повреждена",
        ) from None
    if len(notebook.cells) > MAX_CELLS:
        raise SubmissionError(
            f"{len(notebook.cells)} cells, more than a notebook of this course can have ({MAX_CELLS})",
            f"{len(notebook.cells)} ячеек: больше, чем может быть в блокноте курса ({MAX_CELLS})",
        )
    code = sum(len(c.source) for c in notebook.cells if c.cell_type == "code")
    if code > MAX_CODE_CHARS:
        raise SubmissionError(
            f"{code} characters of code, more than a notebook of this course can have",
            f"{code} символов кода: больше, чем может быть в блокноте курса",
        )
    return notebook


def sanitize(path: Path, release: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, list[CellChange], list[str]]:
    """(the submission in the course's shape, what it did to the course's graded cells — each a typed record
    whose text is listed For review, autograder.notebook.guard.cell_changes —, the guard's findings)."""
    submitted = read_submission(path)
    try:
        changes = cell_changes(submitted, release)
        findings = []
    except Exception as e:  # a report only, like the guard's
        changes, findings = [], [f"сравнение тестов с курсом не выполнилось ({type(e).__name__}: {e}"[:300] + ")"]
    try:
        notebook = restore_course_cells(submitted, release)
    except Exception as e:
        raise SubmissionError(
            f"the notebook's cells could not be matched to the course: {type(e).__name__}: {e}"[:500],
            "ячейки блокнота не удалось сопоставить с ячейками курса",
        ) from None
    try:
        findings += tampering(notebook, release)
    except Exception as e:  # a report only: it must never stop grading, and its failure is reported
        findings.append(f"проверка на подмену не выполнилась ({type(e).__name__}: {e}"[:300] + "): прочитайте код сами")
    return notebook, changes, findings
