"""The grader's own work on what a submission controls, bounded where no test author can forget it.

A test cell runs in the grader's process on plain data from the student's kernel. Most of what it
does is linear in that data (the wire refuses hash-collision floods, `autograder.wall.wire`), but a
regular expression is a program: a pattern a student's function returns (05's `number_pattern`)
can backtrack for hours inside `regex.findall`, in C, where no signal reaches it. So a test's
namespace imports a bounded `regex`: the same module, each matching call given what is left of
the test's budget (`Evaluator.regex_seconds`, generous: honest patterns take milliseconds), in CPU
seconds of the grader's own (`Budget`). Over budget, a student's pattern fails the test with
`RegexTimeout` naming the cause, and the notebook goes on; a pattern of the course's is a
`GraderFault` (the notebook is `error`, graded again next run). The test source needs nothing
special: `import regex as reference_regex` gets this one.

Everything else a test does here runs under a CPU budget too (`cpu_budget`, Evaluator.grader_seconds,
generous): the grader's own CPU time (ITIMER_VIRTUAL; time spent waiting for the kernel does not
count) interrupts a test that loops in Python with `OverBudget`, decoding the kernel's answers included
(`autograder.wall.remote`, `wire`); it waits only while the grader is in the middle of reading or writing
a frame (`autograder.wall.session`), so the channel is never cut mid-answer. What one notebook's sandbox
may send in all is capped as well (`KernelSession.max_received_bytes`). Work inside one C call (a
huge sort) is not interruptible: the class runner's watchdog is the last resort.
"""

import builtins
import contextlib
import os
import signal
import threading
import time
import types

import regex as _regex

from bpe_course.checks import CheckFailed

# the functions and Pattern methods of `regex` that match (and so accept timeout=)
MATCHING = (
    "match",
    "fullmatch",
    "search",
    "findall",
    "finditer",
    "split",
    "splititer",
    "sub",
    "subf",
    "subn",
    "subfn",
    "prefixmatch",
)


class RegexTimeout(CheckFailed):
    """A student's regular expression ran out of the test's budget of the grader's CPU."""

    def __init__(self, seconds: float):
        super().__init__(
            f"регулярное выражение не завершилось за {seconds:g} с: похоже, в шаблоне вложенные "
            "повторения, и перебор вариантов растёт экспоненциально (catastrophic backtracking)"
        )


class GraderFault(BaseException):
    """A failure of the course's own work in the grader (a pattern the course wrote ran out of its
    budget): never the student's; the notebook is `error`, to be graded again (a BaseException: a
    check's `except Exception` cannot turn it into a failed test)."""


class Budget:
    """CPU seconds of the grader's own regex work one test may spend (`start()` at each test): only
    the time the grader's thread spends inside a matching call counts — never time spent waiting for
    the kernel, nor the time a busy machine keeps the grader off the CPU. A timeout of a pattern the
    course wrote (`course_patterns`, the string constants of its tests and given cells) is a
    GraderFault; of any other pattern, the student's, a RegexTimeout."""

    def __init__(self, seconds: float):
        self.seconds, self.spent = seconds, 0.0
        self.course_patterns: set = set()

    def start(self) -> None:
        self.spent = 0.0

    def left(self) -> float:
        return max(self.seconds - self.spent, 0.001)

    def bounded(self, fn, pattern=None):
        def call(*args, **kwargs):
            asked = kwargs.get("timeout")
            text = pattern if pattern is not None else (args[0] if args else kwargs.get("pattern"))
            return self.run(fn, args, kwargs, asked, getattr(text, "pattern", text))

        call.__name__ = getattr(fn, "__name__", "regex")
        return call

    def run(self, fn, args, kwargs, asked, pattern):
        """fn(*args, **kwargs) under what is left of the budget, in the grader's CPU seconds: regex's own
        `timeout=` is wall-clock, so a call it stops before the CPU was spent (the grader kept off the CPU)
        runs again with more wall-clock time; a call may ask a shorter limit of its own (`asked`)."""
        stretch = 1
        while True:
            left = self.left() if asked is None else min(asked, self.left())
            started = time.thread_time()
            try:
                return fn(*args, **{**kwargs, "timeout": left * stretch})
            except TimeoutError:
                used = time.thread_time() - started
                if used < 0.9 * left and stretch < 64:
                    stretch *= 4
                    continue
                if isinstance(pattern, str) and pattern in self.course_patterns:
                    raise GraderFault(
                        f"the course's own regular expression did not finish in {self.seconds:g} s of the "
                        "grader's CPU: a fault of the grader or of the machine, not of the notebook; run "
                        "the command again to retry it"
                    ) from None
                raise RegexTimeout(self.seconds) from None
            finally:
                self.spent += time.thread_time() - started


def string_constants(code) -> set:
    """Every string constant of compiled code, its functions' and classes' included."""
    found = set()
    for const in code.co_consts:
        if isinstance(const, str):
            found.add(const)
        elif hasattr(const, "co_consts"):
            found |= string_constants(const)
    return found


class BoundedPattern:
    """A compiled pattern whose matching methods run under the test's budget."""

    def __init__(self, pattern, budget: Budget):
        self._pattern, self._budget = pattern, budget

    def __getattr__(self, name):
        value = getattr(self._pattern, name)
        return self._budget.bounded(value, self._pattern.pattern) if name in MATCHING else value

    def __repr__(self):
        return repr(self._pattern)


def bounded_regex(budget: Budget) -> types.ModuleType:
    """The `regex` module as a test sees it: every match bounded by `budget`."""
    module = types.ModuleType("regex", _regex.__doc__)
    module.__dict__.update({k: v for k, v in vars(_regex).items() if not k.startswith("__")})
    for name in MATCHING:
        if hasattr(_regex, name):
            setattr(module, name, budget.bounded(getattr(_regex, name)))
    module.compile = lambda *args, **kwargs: BoundedPattern(_regex.compile(*args, **kwargs), budget)
    module.__bounded__ = True
    return module


class OverBudget(BaseException):
    """A test's own work in the grader ran out of CPU time (a BaseException: a check's `except
    Exception` cannot swallow it)."""

    def __init__(self, seconds: float):
        super().__init__(
            f"проверка этого теста не завершилась за {seconds:g} с процессорного времени проверяющего: "
            "она работает с очень большим или необычным значением из блокнота"
        )


# code where an interrupt would cut the grader's conversation with the kernel in half: wait until it returns.
# Only the socket's code (the session): decoding the answers (remote, wire) counts against the test and may be cut
_WALL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "wall")
_CHANNEL_CODE = (os.path.join(_WALL, "session.py"),)


@contextlib.contextmanager
def cpu_budget(seconds: float):
    """Raise OverBudget in the block once this process has spent `seconds` of CPU time in it (main thread
    only, where signals are delivered; elsewhere the block runs unbounded)."""
    if not seconds or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expired(signum, frame):
        while frame is not None:
            if frame.f_code.co_filename in _CHANNEL_CODE:
                signal.setitimer(signal.ITIMER_VIRTUAL, 0.05)  # talking to the kernel: ask again soon
                return
            frame = frame.f_back
        raise OverBudget(seconds)

    previous = signal.signal(signal.SIGVTALRM, expired)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def bounded_builtins(budget: Budget) -> dict:
    """Python's builtins for a test's namespace, whose `import regex` gives the bounded module."""
    module = bounded_regex(budget)
    real_import = builtins.__import__

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name == "regex":
            return module
        return real_import(name, globals, locals, fromlist, level)

    return {**vars(builtins), "__import__": importer, "__bounded_regex__": module}


def bound_values(namespace: dict, bounded: dict) -> None:
    """Names in `namespace` bound to the real `regex` module (a given cell's import) → the bounded one."""
    for name, value in list(namespace.items()):
        if value is _regex:
            namespace[name] = bounded["__bounded_regex__"]
