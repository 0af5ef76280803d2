"""The course notebooks as the grader reads them, and the nbgrader course directory built from them.

nbgrader wants a directory of its own (source/, release/, submitted/, autograded/, gradebook.db).
The grader prepares one in its work folder, outside the source tree, from solutions/.
"""

import hashlib
import os
import shutil
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import nbformat

from .cells import grade_id, is_optional, is_solution, is_test, nbgrader_meta
from .plan import analyse, free_names

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
CONFIG = Path(__file__).resolve().parents[1] / "nbgrader_config.py"
DEMO_TAG = "demo"  # a lesson cell that grading may skip while the student left it unchanged
NOT_ASSIGNED = "source-not-assigned"  # the prepared course's source notebooks of no graded assignment
# What the prepared course's nbgrader_config.py adds to the course's own: an exchange inside the course
# directory, which exists, so formgrader shows no "exchange directory does not exist" banner (the grader
# never releases or collects through it). Relative to the file, so a copied course keeps working.
PREPARED_CONFIG = """
import os  # noqa: E402

c.Exchange.root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exchange")
"""


class CourseError(RuntimeError):
    """The course itself could not be prepared (not a student's fault)."""


def course_notebooks(solutions: Path = SOLUTIONS) -> list[str]:
    """Names of the course notebooks ("01_hand_example", …), in course order."""
    names = sorted(p.stem for p in solutions.glob("[0-9][0-9]_*.ipynb"))
    if not names:
        raise CourseError(f"no course notebooks in {solutions}")
    return names


def is_deep_dive_notebook(name: str, solutions: Path = SOLUTIONS) -> bool:
    """A notebook that is a deep-dive as a whole (07): its notebook metadata says `bpe_course.deep_dive`."""
    meta = nbformat.read(str(solutions / f"{name}.ipynb"), as_version=4).metadata.get("bpe_course") or {}
    return bool(meta.get("deep_dive"))


def core_notebooks(solutions: Path = SOLUTIONS) -> list[str]:
    """The core path's notebooks, in course order: every notebook but the deep-dives as a whole (07).
    Inside them, a deep-dive's exercises are graded as extra (their test cells are tagged `optional`)."""
    return [n for n in course_notebooks(solutions) if not is_deep_dive_notebook(n, solutions)]


@dataclass
class TestCell:
    grade_id: str
    source: str  # as the course wrote it: visible and hidden parts
    points: float
    optional: bool = False  # a deep-dive's test: its points are extra, outside the notebook's maximum


def is_demo(cell) -> bool:
    tags = cell.get("metadata", {}).get("tags")
    return isinstance(tags, list) and DEMO_TAG in tags


class CourseNotebook:
    """One notebook of the course as the grader needs it: its tests (hidden parts included, from
    the source notebook), its given cells, and the student version submissions are compared to."""

    def __init__(self, name: str, source: nbformat.NotebookNode, release: nbformat.NotebookNode):
        self.name, self.source, self.release = name, source, release
        self.tests = {
            grade_id(c): TestCell(grade_id(c), c.source, float(nbgrader_meta(c).get("points") or 0), is_optional(c))
            for c in source.cells
            if is_test(c)
        }
        self.given = {
            grade_id(c): c.source
            for c in source.cells
            if grade_id(c) and c.cell_type == "code" and not is_test(c) and not is_solution(c)
        }
        # The core path's points are the grade's maximum; a deep-dive's points are extra («дополнительно»).
        self.max_score = sum(t.points for t in self.tests.values() if not t.optional)
        self.extra_max = sum(t.points for t in self.tests.values() if t.optional)

    @classmethod
    def load(cls, name: str, solutions: Path = SOLUTIONS, release: Path | None = None) -> "CourseNotebook":
        source = nbformat.read(str(solutions / f"{name}.ipynb"), as_version=4)
        student = nbformat.read(str(release or NOTEBOOKS / f"{name}.ipynb"), as_version=4)
        return cls(name, source, student)

    @cached_property
    def demo_sources(self) -> frozenset:
        """The sources of the lesson cells the author tagged `demo` in solutions/: demonstrations,
        plots and benchmarks that no grade depends on. Grading skips such a cell only while its source
        is exactly the course's (the student's tags and metadata are never read for this)."""
        return frozenset(
            c.source for c in self.source.cells if c.cell_type == "code" and not nbgrader_meta(c) and is_demo(c)
        )

    @cached_property
    def test_reads(self) -> set:
        """Every notebook name the tests read."""
        return set().union(*(free_names(t.source) for t in self.tests.values()))

    @cached_property
    def given_in_grader(self) -> set:
        """Given cells that define something the tests use: they also run in the grader, so that
        checks use the course's own version, whatever the student's kernel holds."""
        return {g for g, source in self.given.items() if analyse(source).binds & self.test_reads}

    @cached_property
    def title(self) -> str:
        """The notebook's heading, e.g. "01. BPE вручную: пример на буквах"."""
        for cell in self.source.cells:
            if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
                return cell.source.strip().splitlines()[0].lstrip("#").strip()
        return self.name

    @cached_property
    def digest(self) -> str:
        """What a grade depends on besides the submission: the course notebook and the config."""
        h = hashlib.sha256(nbformat.writes(self.source).encode("utf-8"))
        h.update(CONFIG.read_bytes())
        return h.hexdigest()

    @cached_property
    def parts(self) -> dict[str, str]:
        """`digest` in its parts, so a rerun can say which one changed: the tests (hidden parts
        included), the rest of the notebook, the grading config."""
        tests = [c.source for c in self.source.cells if is_test(c)]
        return {
            "tests": hashlib.sha256("\0".join(tests).encode("utf-8")).hexdigest(),
            "notebook": hashlib.sha256(nbformat.writes(self.source).encode("utf-8")).hexdigest(),
            "config": hashlib.sha256(CONFIG.read_bytes()).hexdigest(),
        }


def course_digest(solutions: Path = SOLUTIONS) -> str:
    """A hash of everything the prepared course is made from (solutions/ and the nbgrader config)."""
    h = hashlib.sha256(CONFIG.read_bytes() + PREPARED_CONFIG.encode())
    for name in course_notebooks(solutions):
        h.update(name.encode())
        h.update((solutions / f"{name}.ipynb").read_bytes())
    return h.hexdigest()


def load_config(overrides: dict | None = None):
    """The grader's settings: autograder/nbgrader_config.py, then `overrides` {Class: {trait: value}}."""
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader(CONFIG.name, path=str(CONFIG.parent)).load_config()
    for section, values in (overrides or {}).items():
        for key, value in values.items():
            config[section][key] = value
    return config


def prepared_template(digest: str) -> Path:
    """Where a freshly prepared course is kept for new work folders (the user's cache)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "bpe-course" / f"prepared-{digest[:20]}"


def use_venv_tools() -> None:
    """nbgrader runs `alembic` as a command when it creates a gradebook: find it next to Python."""
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


class PreparedCourse:
    """The nbgrader course directory the grader keeps in its work folder: every course notebook as
    its own assignment (source/, release/, the class gradebook). It is generated from solutions/
    by nbgrader's own API, once, and reused while solutions/ and the config are unchanged."""

    def __init__(self, root: Path, solutions: Path = SOLUTIONS):
        self.root = Path(root).resolve()
        self.solutions = solutions
        self.gradebook = self.root / "gradebook.db"
        self.stamp = self.root / ".prepared"

    def prepare(self) -> "PreparedCourse":
        digest = course_digest(self.solutions)
        if self.stamp.exists() and self.stamp.read_text() == digest:
            return self
        template = prepared_template(digest)
        if not self.gradebook.exists() and (template / ".prepared").exists():
            shutil.copytree(template, self.root, dirs_exist_ok=True)  # a fresh work folder: no grades to keep
            return self
        fresh = not self.gradebook.exists()
        self.generate(digest)
        if fresh and not (template / ".prepared").exists():  # never a gradebook with a class's grades in it
            try:
                staging = template.with_name(f"{template.name}.{os.getpid()}.tmp")
                shutil.copytree(self.root, staging, ignore=shutil.ignore_patterns("autograded", "submitted"))
                staging.replace(template)
            except OSError:
                shutil.rmtree(staging, ignore_errors=True)  # another grader got there first, or no cache
        return self

    def generate(self, digest: str) -> None:
        """Generate every assignment with nbgrader (an existing gradebook keeps its grades)."""
        use_venv_tools()
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "nbgrader_config.py").write_bytes(CONFIG.read_bytes() + PREPARED_CONFIG.encode())
        (self.root / "exchange").mkdir(exist_ok=True)
        shutil.rmtree(self.root / NOT_ASSIGNED, ignore_errors=True)  # every notebook comes back to source/, new
        for name in course_notebooks(self.solutions):
            target = self.root / "source" / name / f"{name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(self.solutions / f"{name}.ipynb", target)
        self.generate_assignments(course_notebooks(self.solutions))
        self.stamp.write_text(digest)

    def generate_assignments(self, names: list[str]) -> None:
        """nbgrader's generate_assignment for each of `names`: the student version in release/ and the
        assignment with its test cells in the gradebook (existing grades are kept)."""
        from nbgrader.apps import NbGraderAPI
        from traitlets.config.loader import PyFileConfigLoader

        use_venv_tools()
        config = PyFileConfigLoader("nbgrader_config.py", path=str(self.root)).load_config()
        config.CourseDirectory.root = str(self.root)
        api = NbGraderAPI(config=config)
        for name in names:
            done = api.generate_assignment(name, force=True, create=True)
            if not done["success"] or not self.released(name).exists():
                raise CourseError(f"nbgrader generate_assignment {name} failed:\n{done.get('log', '')[-3000:]}")

    @property
    def notebooks(self) -> list[str]:
        return course_notebooks(self.solutions)

    def released(self, name: str) -> Path:
        return self.root / "release" / name / f"{name}.ipynb"

    def source(self, name: str) -> Path:
        """The folder of `name`'s source notebook: source/NAME, or NOT_ASSIGNED/NAME where show_only put it."""
        folder, aside = self.root / "source" / name, self.root / NOT_ASSIGNED / name
        return aside if not folder.is_dir() and aside.is_dir() else folder

    def show_only(self, names) -> None:
        """formgrader lists every folder of source/ as an assignment (with 0 submissions where none was
        graded): the source notebooks not in `names` go to NOT_ASSIGNED/, and those of `names` an earlier
        run put there come back (nbgrader's generate_assignment reads them in source/)."""
        source, aside = self.root / "source", self.root / NOT_ASSIGNED
        for folder in sorted(source.iterdir()) if source.is_dir() else ():
            if folder.is_dir() and folder.name not in names:
                aside.mkdir(exist_ok=True)
                shutil.rmtree(aside / folder.name, ignore_errors=True)
                folder.rename(aside / folder.name)
        for name in names:
            if (aside / name).is_dir() and not (source / name).exists():
                (aside / name).rename(source / name)

    def notebook(self, name: str) -> CourseNotebook:
        return CourseNotebook.load(name, self.source(name), self.released(name))
