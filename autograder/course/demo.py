"""The bundled example class: four students, built from the course notebooks themselves."""

import shutil
from pathlib import Path

from .course import NOTEBOOKS, course_notebooks
from .simulate import submission, write

# carol's mistake: merge() that lets pairs overlap, so [5, 5, 5] becomes [7, 7]
OVERLAPPING_MERGE = """def merge(ids, pair, new_id):
    out = []
    for i, x in enumerate(ids):
        if i + 1 < len(ids) and (x, ids[i + 1]) == pair:
            out.append(new_id)
        elif i > 0 and (ids[i - 1], x) == pair:
            continue
        else:
            out.append(x)
    return out"""


def build_demo_class(folder: Path, notebooks: list[str] | None = None) -> Path:
    """alice solved everything, bob submitted untouched notebooks, carol made a typical mistake
    in notebook 02, dave submitted notebook 01 only (of `notebooks`, default all the course's)."""
    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    names = course_notebooks()
    first = names[0]
    names = [n for n in names if n in (notebooks or names)]
    (folder / "bob").mkdir(parents=True)
    for name in names:
        write(submission(name), folder / "alice" / f"{name}.ipynb")
        shutil.copy(NOTEBOOKS / f"{name}.ipynb", folder / "bob" / f"{name}.ipynb")
        mistakes = {"merge": OVERLAPPING_MERGE} if name == "02_byte_level_training" else {}
        write(submission(name, replace=mistakes), folder / "carol" / f"{name}.ipynb")
    if first in names:
        write(submission(first), folder / "dave" / f"{first}.ipynb")
    return folder


DUE = "2026-12-01 23:59"  # the example's due date (docs/instructors.md, Late work)


def write_late_example(folder: Path) -> tuple[Path, Path]:
    """The example class's submission times (one per file: FOLDER/submitted.csv) and its extensions file
    (FOLDER/extensions.csv), for the late policy with the due date `DUE`: alice handed 01 in a day late
    but her penalty is waived, bob was on time, carol was two days late with everything, dave handed 01
    in three days late within his extension."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    times = {"alice": "2026-12-01 20:00", "bob": "2026-12-01 21:30", "carol": "2026-12-03 09:00"}
    rows = ["student_id,notebook,submitted"]
    for name in course_notebooks():
        for student, when in times.items():
            late_01 = student == "alice" and name == course_notebooks()[0]
            rows.append(f"{student},{name.split('_')[0]},{'2026-12-02 08:00' if late_01 else when}")
    rows.append(f"dave,{course_notebooks()[0].split('_')[0]},2026-12-04 12:00")
    submitted = folder / "submitted.csv"
    submitted.write_text("\n".join(rows) + "\n", encoding="utf-8")
    extensions = folder / "extensions.csv"
    extensions.write_text(
        "student,due,note\n"
        "dave,2026-12-05 23:59,болел: справка от 30 ноября\n"
        "alice,waive,сервер курса не работал вечером 1 декабря\n",
        encoding="utf-8",
    )
    return submitted, extensions
