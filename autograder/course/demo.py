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


def build_demo_class(folder: Path) -> Path:
    """alice solved everything, bob submitted untouched notebooks, carol made a typical mistake
    in notebook 02, dave submitted notebook 01 only."""
    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    names = course_notebooks()
    (folder / "bob").mkdir(parents=True)
    for name in names:
        write(submission(name), folder / "alice" / f"{name}.ipynb")
        shutil.copy(NOTEBOOKS / f"{name}.ipynb", folder / "bob" / f"{name}.ipynb")
        mistakes = {"merge": OVERLAPPING_MERGE} if name == "02_byte_level_training" else {}
        write(submission(name, replace=mistakes), folder / "carol" / f"{name}.ipynb")
    write(submission(names[0]), folder / "dave" / f"{names[0]}.ipynb")
    return folder
