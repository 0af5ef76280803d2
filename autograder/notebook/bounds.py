"""The grader's own work on what a submission controls, bounded where no test author can forget it.

A test cell runs in the grader's process on plain data from the student's kernel. Most of what it
does is linear in that data (the wire refuses hash-collision floods, `autograder.wall.wire`), but a
regular expression is a program: a pattern a student's function returns (05's `number_pattern`)
can backtrack for hours inside `regex.findall`, in C, where no signal reaches it. So a test's
namespace imports a bounded `regex`: the same module, each matching call given the `timeout=` of
what is left of the test's budget (`Evaluator.regex_seconds`, generous: honest patterns take
milliseconds). Over budget, the test fails with `RegexTimeout` naming the cause, and the notebook
goes on. The test source needs nothing special: `import regex as reference_regex` gets this one.

Everything else a test does here runs under a CPU budget too (`cpu_budget`, Evaluator.grader_seconds,
generous): the grader's own CPU time (ITIMER_VIRTUAL; time spent waiting for the kernel does not
count) interrupts a test that loops in Python with `OverBudget`; it waits while the grader is in the
middle of talking to the kernel, so the channel is never cut mid-answer. Work inside one C call (a
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
    """The grader's regular-expression work of one test ran out of its budget."""

    def __init__(self, seconds: float):
        super().__init__(
            f"регулярное выражение не завершилось за {seconds:g} с: похоже, в шаблоне вложенные "
            "повторения, и перебор вариантов растёт экспоненциально (catastrophic backtracking)"
        )


class Budget:
    """Wall-clock seconds of regex work one test may spend; `start()` at each test."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def start(self) -> None:
        self.deadline = time.monotonic() + self.seconds

    def left(self) -> float:
        return max(self.deadline - time.monotonic(), 0.001)

    def bounded(self, fn):
        def call(*args, **kwargs):
            if kwargs.get("timeout") is None:
                kwargs["timeout"] = self.left()
            kwargs["timeout"] = min(kwargs["timeout"], self.left())
            try:
                return fn(*args, **kwargs)
            except TimeoutError:
                raise RegexTimeout(self.seconds) from None

        call.__name__ = getattr(fn, "__name__", "regex")
        return call


class BoundedPattern:
    """A compiled pattern whose matching methods run under the test's budget."""

    def __init__(self, pattern, budget: Budget):
        self._pattern, self._budget = pattern, budget

    def __getattr__(self, name):
        value = getattr(self._pattern, name)
        return self._budget.bounded(value) if name in MATCHING else value

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


# code where an interrupt would cut the grader's conversation with the kernel in half: wait until it returns
_WALL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "wall")
_CHANNEL_CODE = tuple(os.path.join(_WALL, name) for name in ("session.py", "remote.py", "wire.py"))


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
