"""The course's own code for a benchmark, taken from a solution notebook (one source of truth)."""

import json
from pathlib import Path

MARKERS = {"### BEGIN SOLUTION", "### END SOLUTION"}


def load_course_code(notebook: Path, solutions: tuple, needed: tuple) -> dict:
    """A namespace with the notebook's read-only cells and the given solution cells, markers stripped."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    namespace = {"__name__": f"bpe_course_{notebook.stem}"}
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] != "code" or not meta:
            continue
        given = meta.get("locked") and not meta.get("grade") and not meta.get("solution")
        if given or meta.get("grade_id") in solutions:
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            source = "\n".join(line for line in source.splitlines() if line.strip() not in MARKERS)
            exec(compile(source, f"{notebook.name}[{meta.get('grade_id')}]", "exec"), namespace)
    missing = [name for name in needed if name not in namespace]
    if missing:
        raise SystemExit(f"{notebook}: no {', '.join(missing)} in its read-only and solution cells")
    return namespace
