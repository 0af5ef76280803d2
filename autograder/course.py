"""The course notebooks, and the nbgrader course directory the grader builds from them.

nbgrader wants a directory of its own (source/, release/, submitted/, autograded/, feedback/,
gradebook.db). We build one in a work folder outside the source tree, from solutions/.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from bpe_course.paths import DATA_DIR
from bpe_course.vocab import offline_tiktoken

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
CONFIG = Path(__file__).with_name("nbgrader_config.py")


class CourseError(RuntimeError):
    """The course itself could not be prepared (not a student's fault)."""


def course_notebooks(solutions: Path = SOLUTIONS) -> list[str]:
    """Names of the course notebooks ("01_hand_example", …), in course order."""
    names = sorted(p.stem for p in solutions.glob("[0-9][0-9]_*.ipynb"))
    if not names:
        raise CourseError(f"no course notebooks in {solutions}")
    return names


def nbgrader_env(work: Path) -> dict:
    """The environment for nbgrader and the kernels it starts."""
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)  # nbgrader runs `alembic` from here
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["TIKTOKEN_CACHE_DIR"] = str(offline_tiktoken(work / "tiktoken-cache"))
    env["BPE_COURSE_DATA"] = str(DATA_DIR)
    env["BPE_COURSE_STATIC"] = "1"          # no widget frontend while grading
    env["MPLCONFIGDIR"] = str(work / "matplotlib")
    env["PYTHONWARNINGS"] = "ignore"        # a library warning on stderr would zero a test cell
    return env


RUNTIME_DIRS = ("submitted", "autograded", "feedback", "tiktoken-cache", "matplotlib")


class CourseDirectory:
    """An nbgrader course directory with every course notebook as its own assignment."""

    def __init__(self, root: Path, solutions: Path | None = SOLUTIONS, env: dict | None = None):
        """Make a course directory at root from `solutions`, or open an existing one (solutions=None)."""
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        if solutions is not None:
            shutil.copy(CONFIG, self.root / "nbgrader_config.py")
            for name in course_notebooks(solutions):
                target = self.root / "source" / name / f"{name}.ipynb"
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(solutions / f"{name}.ipynb", target)
        self.notebooks = sorted(p.name for p in (self.root / "source").iterdir())
        self.env = env or nbgrader_env(self.root)
        self.gradebook = self.root / "gradebook.db"

    def copy_to(self, root: Path) -> "CourseDirectory":
        """A private copy (config, sources, generated assignments, gradebook) without any submissions:
        each student is graded in a copy of their own, so parallel graders share no gradebook."""
        root = Path(root)
        if root.exists():
            shutil.rmtree(root)
        shutil.copytree(self.root, root, ignore=lambda d, names: [n for n in names if n in RUNTIME_DIRS]
                        if Path(d) == self.root else [])
        return CourseDirectory(root, solutions=None, env=self.env)

    def nbgrader(self, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess:
        """Run one nbgrader command in this course directory, capturing its log."""
        return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=self.root,
                              env=self.env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    def generate(self, name: str) -> Path:
        """Make the student version of one notebook (and its gradebook entries)."""
        done = self.nbgrader("generate_assignment", name, "--force", "--create")
        released = self.released(name)
        if done.returncode != 0 or not released.exists():
            raise CourseError(f"nbgrader generate_assignment {name} failed:\n{done.stdout}{done.stderr}")
        return released

    def released(self, name: str) -> Path:
        return self.root / "release" / name / f"{name}.ipynb"

    def submitted(self, student: str, name: str) -> Path:
        return self.root / "submitted" / student / name / f"{name}.ipynb"

    def autograded(self, student: str, name: str) -> Path:
        return self.root / "autograded" / student / name / f"{name}.ipynb"

    def feedback(self, student: str, name: str) -> Path:
        return self.root / "feedback" / student / name / f"{name}.html"
