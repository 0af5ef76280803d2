"""Finding each student's notebooks in a submissions folder.

The layout is SUBMISSIONS_DIR/<student_id>/<NN_name>.ipynb. Anything that does not fit is
reported, never silently dropped.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]*$")
IGNORED = {".ipynb_checkpoints", "__MACOSX", ".DS_Store"}


@dataclass
class Class:
    students: dict[str, dict[str, Path]] = field(default_factory=dict)  # student → notebook → file
    problems: list[str] = field(default_factory=list)                   # what could not be used


def find_submissions(folder: Path, notebooks: list[str]) -> Class:
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"submissions folder not found: {folder}")
    found = Class()
    for entry in sorted(folder.iterdir()):
        if entry.name in IGNORED or entry.name.startswith("."):
            continue
        if not entry.is_dir():
            found.problems.append(f"{entry.name}: not in a student folder (expected <student_id>/<notebook>.ipynb)")
            continue
        if not STUDENT_ID.match(entry.name):
            found.problems.append(f"{entry.name}/: not a usable student id (letters, digits, _ . @ - only)")
            continue
        found.students[entry.name] = files = {}
        for path in sorted(entry.rglob("*")):
            if path.is_dir() or any(part in IGNORED or part.startswith(".") for part in path.relative_to(entry).parts):
                continue
            if path.suffix == ".ipynb" and path.stem in notebooks and path.parent == entry:
                files[path.stem] = path
            else:
                found.problems.append(f"{entry.name}/{path.relative_to(entry)}: not a course notebook "
                                      f"(expected one of: {', '.join(n + '.ipynb' for n in notebooks)})")
    return found
