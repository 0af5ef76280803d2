"""Graded checks, evaluated in the grader's process against plain data from the student's kernel.

A test cell of the course (visible and hidden parts, read from the course's source notebook,
never from the submission) runs here, in a namespace of its own: the course's given cells
(trusted code, run here too), and every other name it reads bound to what the student's notebook
holds (`autograder.wall.remote`). The verdict is decided here: the test passes when its code runs to
the end, and fails with the message of the exception that stopped it. Nothing of the test — its
code, its inputs' expected values — is sent into the kernel; only the calls it makes are.
"""

import contextlib
import inspect
import io

from traitlets import Float, Integer
from traitlets.config import LoggingConfigurable

from bpe_course import checks

from ..course.plan import free_names
from ..wall import wire
from ..wall.remote import KernelGone, Remote, StudentException
from .bounds import Budget, GraderFault, OverBudget, bound_values, bounded_builtins, cpu_budget, string_constants
from .results import TestResult


class Evaluator(LoggingConfigurable):
    """Runs the course's graded checks against a student's kernel."""

    call_seconds = Float(
        checks.DEFAULT_SECONDS,
        help="CPU seconds a call of the student's function may take when a check does not "
        "say: checks.run uses it unless given seconds=. The default is the one checks.run has "
        "in Jupyter (bpe_course.checks.DEFAULT_SECONDS), so a lesson's tests time alike there.",
    ).tag(config=True)
    wall_factor = Float(
        2,
        help="A call's wall-clock limit is its CPU limit times this, plus wall_extra: only "
        "for code that sleeps or swallows the CPU limit.",
    ).tag(config=True)
    wall_extra = Float(10, help="Seconds added to every call's wall-clock limit.").tag(config=True)
    test_seconds = Float(300, help="Wall-clock seconds all the calls of one test may take together.").tag(config=True)
    max_depth = Integer(wire.MAX_DEPTH, help="The deepest nesting of a value from the kernel.").tag(config=True)
    max_items = Integer(wire.MAX_ITEMS, help="The most elements of one value from the kernel.").tag(config=True)
    regex_seconds = Float(
        30,
        help="CPU seconds of the grader's own regular-expression work one test (or given "
        "cell) may take (waiting for the kernel does not count): a student's pattern may backtrack "
        "without end (autograder.notebook.bounds). Generous: a fallback, never a measure.",
    ).tag(config=True)
    grader_seconds = Float(
        300,
        help="CPU seconds of the grader's own process one test (or given cell) may spend "
        "on the student's values; time waiting for the kernel does not count. Generous: a "
        "fallback for a test that would never end, never a measure.",
    ).tag(config=True)
    max_generator_items = Integer(
        1_000_000,
        help="The most items a check may take from one generator of the student's; one more fails "
        "the check (a generator that never stops).",
    ).tag(config=True)
    max_message_chars = Integer(4000, help="A failure message is cut to this length.").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.budget = Budget(self.regex_seconds)
        self.builtins = bounded_builtins(self.budget)

    def remote(self, session) -> Remote:
        checks.use_local_time_limits(False)  # calls are limited in the kernel, not by an alarm here
        return Remote(session, **self.limits())

    def limits(self) -> dict:
        """The settings a `Remote` enforces on the calls into the kernel (every keyword it takes)."""
        return {name: getattr(self, name) for name in inspect.signature(Remote).parameters if name != "session"}

    def run_given(self, source: str, namespace: dict, remote: Remote) -> None:
        """A given (read-only) cell of the course, run here so checks use the course's own version."""
        self.budget.start()
        namespace["__builtins__"] = self.builtins
        code = compile(source, "<given>", "exec")
        self.budget.course_patterns |= string_constants(code)
        try:
            with cpu_budget(self.grader_seconds):
                namespace.update(remote.bind(free_names(source) - set(namespace)))
                exec(code, namespace)
        except OverBudget as e:  # an ordinary failure of the given cell: the tests that need it say so
            raise RuntimeError(str(e)) from None

    def run_test(
        self,
        grade_id: str,
        source: str,
        points: float,
        given: dict,
        remote: Remote,
        explain_missing=lambda name: "",
        solutions=None,
    ) -> TestResult:
        """One test cell: full points if it runs to the end, else 0 and the reason. `solutions`
        (autograder.notebook.reference.CourseSolutions) gives the test the course's own functions."""
        namespace = {"__name__": "__main__"}
        remote.spent = 0.0
        self.budget.start()
        token = checks.use_course_solutions(solutions)
        try:
            namespace.update(given)
            namespace["__builtins__"] = self.builtins
            bound_values(namespace, self.builtins)
            namespace.update(remote.bind(free_names(source) - set(given)))
            code = compile(source, f"<{grade_id}>", "exec")
            self.budget.course_patterns |= string_constants(code)
            with contextlib.redirect_stdout(io.StringIO()), cpu_budget(self.grader_seconds):
                exec(code, namespace)
        except GraderFault:  # the course's own work failed: not the student's test to lose
            raise
        except KernelGone as e:
            return TestResult(grade_id, 0, points, f"Тест не выполнялся: {e}")
        except OverBudget as e:
            return TestResult(grade_id, 0, points, str(e))
        except NameError as e:
            if isinstance(e, StudentException):  # raised by the student's own code
                return TestResult(grade_id, 0, points, self.cut(f"NameError: {e}"))
            missing = getattr(e, "name", None) or ""
            return TestResult(grade_id, 0, points, self.cut(name_message(missing, explain_missing(missing))))
        except checks.CheckFailed as e:  # the check's own message says it all
            return TestResult(grade_id, 0, points, self.cut(str(e)))
        except BaseException as e:  # a student's exception reached the check
            return TestResult(grade_id, 0, points, self.cut(f"{type(e).__name__}: {e}".strip()))
        finally:
            checks.reset_course_solutions(token)
            with contextlib.suppress(KernelGone, Exception):
                remote.release()
        return TestResult(grade_id, points, points)

    def cut(self, message: str) -> str:
        limit = self.max_message_chars
        return (
            message
            if len(message) <= limit
            else message[:limit] + f"… (сообщение обрезано, всего {len(message)} символов)"
        )


def name_message(name: str, reason: str) -> str:
    text = (
        f"NameError: в блокноте нет имени {name}: выполните ячейку, где оно задаётся"
        if name
        else "NameError: в блокноте нет нужного проверке имени"
    )
    return f"{text}. {reason}".strip() if reason else text
