"""The grades of a class in nbgrader's own gradebook, so formgrader and `nbgrader export` see them.

One gradebook for the class: the prepared course directory's `gradebook.db`. Each course
notebook is its own nbgrader assignment (of one notebook, same name). A graded notebook becomes a
submission there with an automatic score per test cell — exactly what nbgrader's SaveAutoGrades
records — and its executed notebook is written where formgrader reads it
(`autograded/<student>/<assignment>/<notebook>.ipynb`, test cells with the grader's verdicts), next
to the normalized submission (`submitted/…`). Only the grading process writes here, one notebook
at a time, so parallel workers never contend for the database.
"""
import warnings
from datetime import datetime, timezone
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from .results import GRADED, Result, safe_strings


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
        nbformat.write(nbformat.from_dict(safe_strings(nb)), str(target))
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
