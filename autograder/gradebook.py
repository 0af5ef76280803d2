"""The grades of a class in nbgrader's own gradebook, so formgrader and `nbgrader export` see them.

One gradebook for the class: the prepared course directory's `gradebook.db`. Each course
notebook is its own nbgrader assignment (of one notebook, same name). A graded notebook becomes a
submission there with an automatic score per test cell — exactly what nbgrader's SaveAutoGrades
records — and its executed notebook is written where formgrader reads it
(`autograded/<student>/<assignment>/<notebook>.ipynb`, test cells with the grader's verdicts), next
to the normalized submission (`submitted/…`). Only the grading process writes here, one notebook
at a time, so parallel workers never contend for the database.
"""
import re
import warnings
from datetime import datetime, timezone
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from .results import GRADED, Result, safe_strings

SAFE_OUTPUTS = ("text/plain", "image/png", "image/jpeg")     # shown as text, or decoded as an image


def review_notebook(notebook) -> nbformat.NotebookNode:
    """The notebook as an instructor may open it: passive outputs only, every string writable."""
    from nbconvert.filters import clean_html
    nb = nbformat.from_dict(safe_strings(notebook))
    for cell in nb.cells:
        if cell.cell_type != "code" and re.search(r"<\s*[A-Za-z!/?]", cell.source):
            cell.source = clean_html(cell.source)    # formgrader's template does not sanitise Markdown
        for output in cell.get("outputs", []):
            data = output.get("data")
            if not isinstance(data, dict):
                continue
            dropped = sorted(k for k in data if k not in SAFE_OUTPUTS or not isinstance(data[k], (str, list)))
            for kind in dropped:
                del data[kind]
            if dropped and "text/plain" not in data:
                data["text/plain"] = f"[вывод {', '.join(dropped)} убран: он мог бы выполнить код при просмотре]"
            output["metadata"] = {}
        for name, bundle in list(cell.get("attachments", {}).items()):
            cell.attachments[name] = {k: v for k, v in bundle.items() if k in SAFE_OUTPUTS[1:]}
    return nb


def record(course_root: Path, result: Result, notebook: nbformat.NotebookNode | None,
           submitted: nbformat.NotebookNode | None = None) -> None:
    """Store one graded notebook: its scores in the gradebook, its files for formgrader."""
    if result.status != GRADED:
        return
    root = Path(course_root)
    name, student = result.notebook, result.student
    timestamp = datetime.now(timezone.utc)
    for folder, nb in (("submitted", submitted), ("autograded", notebook)):
        if nb is None:
            continue
        target = root / folder / student / name / f"{name}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(review_notebook(nb), str(target))
        (target.parent / "timestamp.txt").write_text(timestamp.isoformat(" "), encoding="utf-8")
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")     # nbgrader's own SQLAlchemy warnings while adding a submission
        gb.update_or_create_student(student)
        try:
            gb.find_submission(name, student)
        except MissingEntry:
            gb.add_submission(name, student, timestamp=timestamp.isoformat(" "))
        for test in result.tests:
            try:
                grade = gb.find_grade(test.name, name, name, student)
            except MissingEntry:
                continue
            grade.auto_score = test.score
            grade.needs_manual_grade = grade.manual_score is not None
        gb.db.commit()
