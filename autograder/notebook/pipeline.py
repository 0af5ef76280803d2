"""Grading one notebook: sanitize → execute (kernel) and evaluate (grader) → result.

- sanitize: the submitted file becomes a notebook in the course's shape (autograder.notebook.sanitize):
  the course's cells in the course's order;
- which cells run is declared, not inferred: every cell up to the last test runs, except the
  lesson's demonstrations that the author tagged `demo` in solutions/ and the student left
  unchanged (a demonstration still runs when a cell that runs reads what it defines:
  autograder.course.plan); nothing after the last test cell ever runs (it cannot change a grade);
- execute: those cells run, in order, in the student's sandboxed kernel (autograder.wall.session);
- evaluate: at each test cell's place, the course's test runs here, in the grader, against
  plain data from the kernel (autograder.notebook.evaluate);
- the result: each test's points and message, and the executed notebook — the student's cells
  with their outputs, and the test cells with the grader's verdicts — for the gradebook
  (autograder.classroom.gradebook) and the feedback (autograder.notebook.feedback).

A dying kernel, a cell that runs too long or a notebook out of time costs only the tests after
it; the tests before keep their points. Nothing a submission does ends in an exception here.
When a wall-clock limit cut the notebook short (a cell interrupted, the notebook's time out, a
kernel that had to be killed) and tests were lost to it, a busy machine may be the cause: the
result is then `error` (never cached; the command asks to run it again), its tests kept for a look.
"""

import builtins
import time
from dataclasses import dataclass, field
from pathlib import Path

from nbformat import NotebookNode
from traitlets import Bool, Integer
from traitlets.config import LoggingConfigurable

from ..course.cells import grade_id, is_solution, is_test
from ..course.course import CourseNotebook
from ..course.plan import analyse, needed_cells, syntax_problem
from ..wall.session import KernelDied, KernelStuck, error_output
from .bounds import GraderFault
from .evaluate import Evaluator
from .reference import CourseSolutions
from .results import BROKEN, ERROR, GRADED, Result, TestResult
from .sanitize import SubmissionError, sanitize


@dataclass
class Graded:
    """Everything grading one notebook produced."""

    result: Result
    notebook: NotebookNode | None = None  # the executed submission (None if never run)
    ran: set = field(default_factory=set)  # indexes of the cells that ran in the kernel


class NotebookGrader(LoggingConfigurable):
    """Grades one submitted notebook of a course notebook in a session (kernel or local)."""

    notebook_timeout = Integer(
        600,
        help="Wall-clock seconds for the whole notebook; the cells and tests left "
        "after that are not run (those before keep their points).",
    ).tag(config=True)
    run_only_needed = Bool(
        True,
        help="Skip the lesson's unchanged demonstrations (cells tagged `demo` in "
        "solutions/ that nothing run reads); False runs every cell of the lesson up to "
        "its last test.",
    ).tag(config=True)

    max_notebook_output_chars = Integer(
        2_000_000,
        help="The most output characters the executed notebook kept for formgrader holds in all (each "
        "cell keeps up to KernelSession.max_output_chars); the rest is cut with a note where it starts. "
        "400 cells printing 200,000 characters each once made a 77 MB file.",
    ).tag(config=True)

    def __init__(self, evaluator: Evaluator | None = None, **kwargs):
        super().__init__(**kwargs)
        self.evaluator = evaluator or Evaluator(parent=self)

    def grade(self, course: CourseNotebook, path: Path, start_session, student: str = "self") -> Graded:
        """`start_session()` gives a started session (a context manager)."""
        failed = lambda status, message, russian="": Graded(
            Result(student, course.name, 0, course.max_score, status, message, student_message=russian)
        )
        try:
            notebook, changes, findings = sanitize(path, course.release)
        except SubmissionError as e:
            return failed(BROKEN, f"{Path(path).name}: {e}", f"{Path(path).name}: {e.russian}")
        try:
            with start_session() as session:
                graded = self.run(course, notebook, session, student)
        except (KernelDied, KernelStuck) as e:
            return failed(ERROR, f"the sandboxed kernel could not be used: {e}")
        except GraderFault as e:  # the course's own work in the grader failed: graded again next run
            return failed(ERROR, f"grading failed: {e}"[:1000])
        except Exception as e:  # a fault of the grader: this notebook fails, the class goes on
            return failed(ERROR, f"grading failed: {type(e).__name__}: {e}"[:1000])
        graded.result.changes = changes
        graded.result.review = [c.text() for c in changes] + findings + graded.result.review
        return graded

    def for_review(self, notebook: NotebookNode | None) -> NotebookNode | None:
        """The executed notebook as it is kept for the instructor (formgrader): its outputs cut at
        `max_notebook_output_chars` in all (in place; the feedback page is made before, with caps of its own)."""
        if notebook is not None:
            cut_outputs(notebook.cells, self.max_notebook_output_chars)
        return notebook

    def cells_to_run(self, course: CourseNotebook, cells: list) -> tuple[set, int, dict]:
        """(indexes of the code cells to run, the index of the last test, each code cell's analysis).

        Every cell up to the last test runs but the course's own demonstrations as the course wrote
        them (tagged `demo` in solutions/, source unchanged): the student's cells, solutions, given
        cells and any lesson cell the student changed always run. A demonstration still runs when a
        cell that runs, or a test, reads what it defines (autograder.course.plan); for the course's own
        solutions that is an authoring error (tests/test_release.py). A cell after the last test
        cannot change a grade: it never runs (in the full lesson either)."""
        codes = {i: analyse(c.source) for i, c in enumerate(cells) if c.cell_type == "code" and not is_test(c)}
        order = sorted(codes)
        last_test = max(
            (i for i, c in enumerate(cells) if c.cell_type == "code" and is_test(c) and grade_id(c) in course.tests),
            default=-1,
        )
        if not self.run_only_needed:
            return set(order), last_test, codes
        always = {
            k
            for k, i in enumerate(order)
            if i < last_test and (grade_id(cells[i]) or cells[i].source not in course.demo_sources)
        }
        wanted = course.test_reads | set().union(*(analyse(course.given[g]).reads for g in course.given_in_grader))
        return {order[k] for k in needed_cells([codes[i] for i in order], always, wanted)}, last_test, codes

    def run(self, course: CourseNotebook, notebook: NotebookNode, session, student: str) -> Graded:
        """The stages, cell by cell up to the last test (as nbgrader's autograde is a list of
        preprocessors): the time policy, then a test evaluated here, or a cell run in the kernel and,
        for a given cell the grader uses, that cell replayed here. Each stage reads and writes `state`."""
        cells = notebook.cells
        needed, last_test, codes = self.cells_to_run(course, cells)
        state = NotebookRun(
            course,
            cells,
            codes,
            session,
            remote=self.evaluator.remote(session),
            solutions=CourseSolutions(
                course, self.evaluator.builtins, self.evaluator.budget, frozen=getattr(session, "frozen", None)
            ),
            deadline=time.monotonic() + self.notebook_timeout,
        )
        for i, cell in enumerate(cells):
            if cell.cell_type != "code":
                continue
            cell.outputs, cell.execution_count = [], None
            if i > last_test:
                continue
            self.apply_time_policy(state)
            if is_test(cell):
                self.evaluate_test(state, cell)
            elif i in needed and self.run_cell(state, i, cell):
                self.replay_given(state, cell)
        return Graded(self.result(state, student), notebook, state.ran)

    def apply_time_policy(self, state: "NotebookRun") -> None:
        """Past the notebook's time, nothing more runs: the cells and tests left are marked, not run."""
        if state.stopped is None and time.monotonic() > state.deadline:
            state.stopped = state.cut = f"блокнот исчерпал свои {self.notebook_timeout} с"

    def evaluate_test(self, state: "NotebookRun", cell) -> None:
        """A course test at its place: evaluated here against the kernel (or not run, and why)."""
        test = state.course.tests.get(grade_id(cell))
        if test is None:
            return
        if state.stopped:
            result = TestResult(test.grade_id, 0, test.points, f"NotRun: тест не выполнялся: {state.stopped}")
        else:
            result = self.evaluator.run_test(
                test.grade_id, test.source, test.points, state.given_ns, state.remote, state.explain, state.solutions
            )
            if state.session.dead and not state.stopped:
                state.stopped = f"ядро Python остановилось ({state.session.dead})"
        result.optional = test.optional  # the course's cell says so, never the submission's copy
        state.tests.append(result)
        cell.source = test.source  # the instructor's view: the whole test
        if result.score < result.max_score:
            cell.outputs = [error_output("TestFailed", result.message)]

    def run_cell(self, state: "NotebookRun", i: int, cell) -> bool:
        """A cell run in the student's kernel, its outputs kept; False if it did not run (the notebook
        stopped before it, or the kernel died in it)."""
        if state.stopped:
            cell.outputs = [error_output("NotRun", f"Ячейка не выполнялась: {state.stopped}")]
            return False
        try:
            run = state.session.run_cell(cell.source)
        except (KernelDied, KernelStuck) as e:
            state.stopped = f"ядро Python остановилось в ячейке {i + 1}"
            if isinstance(e, KernelStuck):
                state.cut = f"ядро Python не ответило на прерывание в ячейке {i + 1} и было остановлено"
            cell.outputs = [
                error_output(
                    "DeadKernelError",
                    f"Ядро Python остановилось в этой ячейке ({e}); следующие ячейки не выполнялись",
                )
            ]
            return False
        state.ran.add(i)
        cell.outputs = run.outputs
        if run.timed_out:  # a wall-clock cut (the grader's), never an exception the student named Timeout
            state.cut = state.cut or f"ячейка {i + 1} прервана: работала дольше {run.timed_out:g} с"
            cell.outputs.append(error_output("Timeout", f"Ячейка работала дольше {run.timed_out:g} с и была прервана"))
        if run.error and is_solution(cell):
            compiled = syntax_problem(cell.source) if run.error[0] in SYNTAX_ERRORS else None
            state.errors[grade_id(cell)] = (
                f"{COMPILE_FAILED}{compiled}" if compiled else f"{run.error[0]}: {run.error[1]}"
            )
        return True

    def replay_given(self, state: "NotebookRun", cell) -> None:
        """A given cell the grader uses, run here too (the course's version of it, for the tests)."""
        if grade_id(cell) in state.course.given_in_grader:
            try:
                self.evaluator.run_given(state.course.given[grade_id(cell)], state.given_ns, state.remote)
            except Exception as e:  # the tests that need it say so (a missing name)
                state.errors[grade_id(cell)] = f"{type(e).__name__}: {e}"

    @staticmethod
    def result(state: "NotebookRun", student: str) -> Result:
        """The notebook's result from its tests; `error` when a wall-clock cut cost tests (retry it)."""
        tests, course = state.tests, state.course
        score = sum(t.score for t in tests if not t.optional)
        failed = [t.name for t in tests if t.score < t.max_score and not t.optional]
        message = f"failed: {', '.join(failed)}" if failed else "all tests passed"
        extra = sum(t.score for t in tests if t.optional)
        if extra:
            message += f"; extra (optional deep-dives): {extra:g} of {course.extra_max:g}"
        result = Result(student, course.name, score, course.max_score, GRADED, message, tests)
        result.extra, result.extra_max = extra, course.extra_max
        result.review = list(getattr(state.remote, "review", []))  # what the grader could not prove
        if state.cut and failed:
            result.status, result.score, result.extra = ERROR, 0, 0  # like every error: 0 until a run grades it
            result.message = (
                f"cut short by a wall-clock limit ({state.cut}), and {len(failed)} test(s) did not pass: "
                "a busy machine can do this; run the command again to retry it (if it happens "
                "again, the notebook itself is too slow)"
            )
        return result


def output_chars(output) -> int:
    """How many characters one output holds (its text, traceback or data), as the per-cell limit counts them."""
    if output.get("output_type") == "stream":
        return len(output.get("text", ""))
    if output.get("output_type") == "error":
        return sum(len(str(line)) for line in output.get("traceback", [])) + len(str(output.get("evalue", "")))
    return sum(len(v) if isinstance(v, str) else len(str(v)) for v in (output.get("data") or {}).values())


def cut_outputs(cells, max_chars: int) -> None:
    """Outputs past `max_chars` characters over the whole notebook are left out, with a note where they start."""
    used, cut = 0, False
    for cell in cells:
        outputs = cell.get("outputs")
        if not outputs:
            continue
        if cut:
            cell.outputs = []
            continue
        for k, output in enumerate(outputs):
            used += output_chars(output)
            if used > max_chars:
                note = f"… (вывод блокнота обрезан: в нём больше {max_chars} символов; дальше вывод ячеек убран)\n"
                cell.outputs = [*outputs[:k], NotebookNode(output_type="stream", name="stdout", text=note)]
                cut = True
                break


SYNTAX_ERRORS = ("SyntaxError", "IndentationError", "TabError")
COMPILE_FAILED = "не скомпилировалась: "  # how NotebookRun.errors marks a solution cell Python could not read


@dataclass
class NotebookRun:
    """What the stages of one notebook's grading share (NotebookGrader.run)."""

    course: CourseNotebook
    cells: list
    codes: dict  # index of a code cell → its analysis (autograder.course.plan)
    session: object
    remote: object
    solutions: CourseSolutions
    deadline: float  # time.monotonic() past which nothing more runs
    given_ns: dict = field(default_factory=lambda: {"__name__": "__main__", "__builtins__": builtins})
    errors: dict = field(default_factory=dict)  # grade_id of a solution (or given) cell → the error it ended with
    tests: list = field(default_factory=list)  # the TestResults so far
    ran: set = field(default_factory=set)  # indexes of the cells that ran in the kernel
    stopped: str | None = None  # why nothing more runs, once nothing does
    cut: str | None = None  # why a wall-clock limit cut the notebook short, if one did

    def explain(self, name: str) -> str:
        """Why a name the test needs is not in the notebook, when a solution cell says why: the cell that
        binds it ended with an error, or it is the course's cell of that name and did not compile (then
        nothing of it ran, and its code says nothing of what it binds)."""
        for i, code in self.codes.items():
            cell = grade_id(self.cells[i])
            if cell not in self.errors or not (name in code.binds or code.doubtful and name in self.course_binds(cell)):
                continue
            error = self.errors[cell]
            if error.startswith("NotImplementedError"):
                return f"Ячейка {cell} ещё не написана ({error})"
            if error.startswith(COMPILE_FAILED):
                return (
                    f"Ячейка {cell} {error}. Python не смог её прочитать, поэтому из неё не выполнилось ничего "
                    f"и {name} не задана: исправьте ошибку в этой строке (отступы, скобки, двоеточия)"
                )
            return f"Ячейка {cell} завершилась с ошибкой {error}"
        return ""

    def course_binds(self, cell: str) -> set:
        """The names the course's own solution cell `cell` binds."""
        return set().union(
            *(
                analyse(c.source).binds
                for c in self.course.source.cells
                if c.cell_type == "code" and grade_id(c) == cell
            )
        )
