"""A student edition of an assignment: a zip with no answer key in it.

`python -m autograder bundle --notebooks 01,02 --out hw1-student.zip` writes the released student
notebooks (notebooks/, as `make release` made them: stubs, visible tests only), the course data, the
helper package bpe_course/, the pinned requirements (without the grader's own tools), an
environment.yml, a Makefile (`make setup`, `make lab`, `make check NB=01`), a self-check
(`check.py`: runs a notebook in the student's own Jupyter kernel and reports the visible tests) and
a README in Russian. Nothing from solutions/, the autograder, the tests or git goes in.

Later notebooks build on earlier ones: their read-only ("given") cells hold earlier solutions line
for line. A bundle refuses when one of its notebooks reveals the solution of a notebook in the same
bundle or of a later one; it lists what earlier answers it reveals (hand such a bundle out after
those deadlines). `allow_reveal=True` (`--allow-reveal`) turns the refusal into a loud warning.
"""

import ast
import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .cells import grade_id, is_solution, nbgrader_meta
from .course import NOTEBOOKS, ROOT, SOLUTIONS, course_notebooks

DATA, HELPERS = ROOT / "data", ROOT / "bpe_course"
GRADER_ONLY = ("nbgrader", "pytest", "ruff", "copydetect")  # requirements the student edition does without
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
TEMPLATES = Path(__file__).resolve().parent / "student_edition"


class BundleError(ValueError):
    pass


@dataclass
class Reveal:
    notebook: str  # the bundled notebook whose read-only cell holds …
    solution: str  # … this exercise's solution (grade_id) …
    of: str  # … of this notebook


def significant(code: str) -> set[str]:
    """The lines of code worth matching: stripped, not comments, not trivially short."""
    lines = (re.sub(r"\s+#[^\"']*$", "", line).strip() for line in code.splitlines())  # no end-of-line comments
    return {line for line in lines if len(line) >= 12 and not line.startswith("#")}


def given_lines(name: str) -> set[str]:
    """The significant lines of a released notebook's read-only code cells (not tests)."""
    released = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    return set().union(
        *(
            significant(c.source)
            for c in released.cells
            if c.cell_type == "code" and not is_solution(c) and not nbgrader_meta(c).get("grade")
        )
    )


def release_lines(name: str) -> set[str]:
    released = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    return set().union(*(significant(c.source) for c in released.cells if c.cell_type == "code"))


def secret_lines(name: str, solutions: Path = SOLUTIONS) -> dict[str, set[str]]:
    """grade_id → the significant lines of its solution, and "hidden" → of its hidden tests, that
    its own student notebook does not hold anyway (04's decode builds on the given token_bytes;
    a hidden test repeats the visible test's imports)."""
    nb = nbformat.read(solutions / f"{name}.ipynb", as_version=4)
    given = release_lines(name) if (NOTEBOOKS / f"{name}.ipynb").exists() else set()
    found = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if is_solution(cell):
            found[grade_id(cell)] = set().union(*(significant(m) for m in SOLUTION.findall(cell.source))) - given
        found.setdefault("hidden", set()).update(*(significant(m) - given for m in HIDDEN.findall(cell.source)))
    return {k: v for k, v in found.items() if v}


def reveals(bundled: list[str], solutions: Path = SOLUTIONS) -> list[Reveal]:
    """Which solutions (of any course notebook) the read-only cells of the bundled notebooks hold:
    most of a solution's lines in one cell."""
    secrets = {name: secret_lines(name, solutions) for name in course_notebooks(solutions)}
    first = {}  # a function's name → the exercise that first asks for it (08's `encode` is not 03's)
    for other in secrets:
        for exercise, names in exercise_functions(other, solutions).items():
            for function in names:
                first.setdefault(function, (other, exercise))
    found = []
    for name in bundled:
        lines = given_lines(name)
        by_name = {first[f] for f in given_functions(name) if f in first}
        for other, exercises in secrets.items():
            for exercise, secret in exercises.items():
                same_lines = len(secret & lines) >= max(2, 0.5 * len(secret))
                if exercise != "hidden" and (same_lines or (other, exercise) in by_name):
                    found.append(Reveal(name, exercise, other))
    return found


def defined_functions(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def exercise_functions(name: str, solutions: Path = SOLUTIONS) -> dict[str, set[str]]:
    """grade_id → the functions its solution cell defines (what a working copy elsewhere would hand out)."""
    nb = nbformat.read(solutions / f"{name}.ipynb", as_version=4)
    return {grade_id(c): defined_functions(c.source) for c in nb.cells if c.cell_type == "code" and is_solution(c)}


def given_functions(name: str) -> set[str]:
    """The functions a released notebook's read-only code cells define."""
    released = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    return set().union(
        *(
            defined_functions(c.source)
            for c in released.cells
            if c.cell_type == "code" and not is_solution(c) and not nbgrader_meta(c).get("grade")
        )
    )


def problems_of(bundled: list[str], order: list[str], found: list[Reveal]) -> tuple[list[Reveal], list[Reveal]]:
    """(refused: a solution of a bundled or later notebook, earlier: answers of earlier assignments)."""
    first = min(order.index(n) for n in bundled)
    refused = [r for r in found if r.of in bundled or order.index(r.of) > first]
    return refused, [r for r in found if r not in refused]


def requirements() -> str:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not line.lower().startswith(GRADER_ONLY)]
    return "\n".join(kept) + "\n"


def student_files(notebooks: list[str]) -> dict[str, bytes]:
    """Path in the edition → content."""
    files = {f"notebooks/{n}.ipynb": (NOTEBOOKS / f"{n}.ipynb").read_bytes() for n in notebooks}
    mentioned = "\n".join(files[f"notebooks/{n}.ipynb"].decode("utf-8") for n in notebooks)
    for folder, prefix in ((DATA, "data"), (HELPERS, "bpe_course")):
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.name.startswith("."):
                continue
            if folder == DATA and path.suffix == ".txt" and path.name not in mentioned:
                continue  # only the texts these notebooks read (the tiktoken files always)
            files[f"{prefix}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
    files["requirements.txt"] = requirements().encode()
    files["requirements-vocab.txt"] = (ROOT / "requirements-vocab.txt").read_bytes()  # notebook 09's vocabularies
    for template in sorted(TEMPLATES.iterdir()):
        text = (
            template.read_text(encoding="utf-8")
            .replace("{{NOTEBOOKS}}", "\n".join(f"- `notebooks/{n}.ipynb`" for n in notebooks))
            .replace("{{FIRST}}", notebooks[0].split("_")[0])
        )
        files[template.name.removesuffix(".template")] = text.encode()
    return files


def leaked_lines(files: dict[str, bytes], notebooks: list[str], solutions: Path = SOLUTIONS) -> list[str]:
    """What of the answer key is in the files: any hidden-test line (of any notebook), and most of
    a solution of a bundled or later notebook in one file."""
    order = course_notebooks(solutions)
    first = min(order.index(n) for n in notebooks)
    secrets = {name: secret_lines(name, solutions) for name in order}
    public = set().union(*(release_lines(name) for name in order))  # every student notebook's lines
    hidden = set().union(*(s.get("hidden", set()) for s in secrets.values())) - public
    found = []
    for path, content in files.items():
        text = content.decode("utf-8", "replace")
        if path.endswith(".ipynb"):
            text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
        lines = significant(text)
        found += [f"{path}: a hidden-test line: {line}" for line in sorted(lines & hidden)]
        for name in order[first:]:
            for exercise, secret in secrets[name].items():
                if exercise != "hidden" and len(secret & lines) >= max(2, 0.5 * len(secret)):
                    found.append(
                        f"{path}: the solution of {name} ({exercise}): " + "; ".join(sorted(secret & lines))[:200]
                    )
    return found


def build(notebooks: list[str], out: Path, allow_reveal: bool = False, say=print) -> Path:
    """Write the student edition of `notebooks` to the zip `out` (its files under one folder)."""
    order = course_notebooks()
    refused, earlier = problems_of(notebooks, order, reveals(notebooks))
    for r in earlier:
        say(
            f"reveals an earlier answer: {r.notebook}'s read-only cells hold the solution of {r.of} ({r.solution}) — "
            f"hand this out only after {r.of}'s deadline"
        )
    if refused:
        lines = [f"  {r.notebook}'s read-only cells hold the solution of {r.of} ({r.solution})" for r in refused]
        if not allow_reveal:
            raise BundleError(
                "this edition would hand out answers of its own assignment or a later one:\n"
                + "\n".join(lines)
                + "\nbundle those notebooks as separate assignments, in course order "
                "(one per deadline), or pass --allow-reveal if you mean it"
            )
        say("!" * 78, "WARNING: THIS EDITION HANDS OUT ANSWERS (--allow-reveal):", *lines, "!" * 78)
    files = student_files(notebooks)
    leaks = leaked_lines(files, notebooks)
    if leaks and not allow_reveal:
        raise BundleError("the answer key is in the edition's files:\n  " + "\n  ".join(leaks[:20]))
    if leaks:
        say(
            "!" * 78,
            "WARNING: THE EDITION'S FILES HOLD ANSWERS (--allow-reveal):",
            *("  " + x for x in leaks[:20]),
            "!" * 78,
        )
    top = Path(out).name.removesuffix(".zip")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path, content in sorted(files.items()):
            z.writestr(f"{top}/{path}", content)
    out.write_bytes(buffer.getvalue())
    return out
