"""Comparisons for test cells.

Each check states what was called, what was expected and what came back, plus a hint about
the likely mistake, in Russian. Containers are compared element by element and in order (a dict
subclass such as Counter is fine when its order is right); single values must have exactly the
expected type, so an object that claims to be equal to everything does not pass.
"""

import contextvars
import copy
import gc
import math
import secrets
import signal
import threading
import time
import types
from contextlib import contextmanager, nullcontext, suppress


class CheckFailed(AssertionError):
    pass


class NotMeasured(CheckFailed):
    """The grader could not prove a figure of the call it timed (its own finding, passed through as it is
    worded, never as an error of the student's call)."""


class TookTooLong(Exception):
    """A call of the student's function ran out of time."""

    def __init__(self, name: str, seconds: float, wall: bool = False, progress: str = ""):
        super().__init__(name, seconds, wall)
        self.name, self.seconds, self.wall = name, seconds, wall
        self.progress = progress  # what the grader saw it do until the end (a stream still giving ids), if anything

    def __str__(self):
        unit = "с" if self.wall else "с процессорного времени"
        return f"{self.name} не завершилась за {self.seconds:g} {unit}: {self.verdict()}"

    def verdict(self) -> str:
        """What running out of time means: a loop that does not stop, or — when the call was seen to be
        progressing until the end — work that grows faster than the input."""
        if not self.progress:
            return "похоже, цикл не останавливается"
        return (
            f"она не зависла ({self.progress}), но работает слишком медленно: время растёт быстрее длины входа — "
            "похоже, на каждом шаге заново обрабатывается всё, что прочитано до него"
        )


# While grading, the student's functions run in their own kernel, which limits each call's CPU
# time itself (autograder.wall.remote); `run` then only passes its time limit on, through this variable.
_call_seconds = contextvars.ContextVar("call_seconds", default=None)
_local_time_limits = True


def use_local_time_limits(enabled: bool) -> None:
    """The grader turns off `run`'s own alarm: calls into a kernel are limited there."""
    global _local_time_limits
    _local_time_limits = enabled


def call_seconds():
    """The time limit `run` set for the calls it makes, or None."""
    return _call_seconds.get()


def type_name(value) -> str:
    return getattr(value, "bpe_type", None) or type(value).__name__


def _same(got, expected) -> bool:
    if isinstance(expected, (dict, list, tuple)):
        if not isinstance(got, type(expected)):
            return False
    elif type(got) is not type(expected):
        return False
    if isinstance(expected, dict):
        return len(got) == len(expected) and all(
            _same(gk, ek) and _same(gv, ev) for (gk, gv), (ek, ev) in zip(got.items(), expected.items())
        )
    if isinstance(expected, (list, tuple)):
        return len(got) == len(expected) and all(_same(g, e) for g, e in zip(got, expected))
    return bool(expected == got)


def _short(value, limit=300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… (всего {len(text)} символов)"


def first_difference(got, expected, where: str = "") -> str:
    """Where two containers first differ, in words: the index or key, and both values there.
    Long values look alike when cut short; this line shows the place that differs."""
    if not isinstance(got, type(expected)) or not isinstance(expected, (dict, list, tuple)):
        return ""
    if isinstance(expected, dict):
        for i, ((gk, gv), (ek, ev)) in enumerate(zip(got.items(), expected.items())):
            if not _same(gk, ek):
                return (
                    f"  первое отличие — {i + 1}-й ключ{where}: ожидался {_short(ek, 120)}, а стоит {_short(gk, 120)}"
                )
            if not _same(gv, ev):
                deeper = first_difference(gv, ev, f" внутри [{_short(ek, 60)}]")
                return deeper or (
                    f"  первое отличие — значение по ключу {_short(ek, 120)}{where}: ожидалось "
                    f"{_short(ev, 120)}, получено {_short(gv, 120)}"
                )
    else:
        for i, (g, e) in enumerate(zip(got, expected)):
            if not _same(g, e):
                deeper = first_difference(g, e, f" внутри [{i}]")
                return deeper or (
                    f"  первое отличие — элемент [{i}]{where}: ожидался {_short(e, 120)}, получен {_short(g, 120)}"
                )
    if len(got) != len(expected):
        return f"  длина{where}: ожидалось {len(expected)}, получено {len(got)} (начало совпадает)"
    return ""


def check_equal(got, expected, call: str, hint: str = "") -> None:
    """Fail with a readable message unless got equals expected (same types, same order)."""
    if _same(got, expected):
        return
    lines = [f"{call}", f"  ожидалось: {_short(expected)}", f"  получено:  {_short(got)}"]
    if not isinstance(got, type(expected)):
        lines.append(f"  (тип результата {type_name(got)}, а нужен {type(expected).__name__})")
    else:
        difference = first_difference(got, expected)
        if difference:
            lines.append(difference)
    if hint:
        lines.append(f"Подсказка: {hint}")
    raise CheckFailed("\n".join(lines))


def check(condition: bool, message: str) -> None:
    """Fail with message unless condition holds."""
    if not condition:
        raise CheckFailed(message)


def own_curve(measure, text, tokens: dict) -> list | None:
    """[(size, measure(text, ids))] for each {size: ids} of `tokens` (the text's tokens by each vocabulary
    size's table, sizes in order), when `measure` — the student's bytes_per_token — gives on each a finite
    float or a whole number a float holds (what // gives): the curve a search by the student's own measure
    sees (06's smallest_vocab), so a mistake in the helper is charged in the helper's tests only. None when
    it fails or gives anything else: then only the right answer counts."""
    points = []
    for size, ids in tokens.items():
        value = None  # what a call that fails leaves: no number
        with suppress(Exception):
            value = measure(text, ids)
        if not ((type(value) is float and math.isfinite(value)) or (type(value) is int and abs(value) < 2**53)):
            return None
        points.append((size, value))
    return points


def own_answers(curve: list, target) -> set:
    """What a right search for the smallest size reaching `target` returns on `curve` ([(size, value)],
    consecutive sizes): a size that reaches it where the size before does not — one size when the values
    never fall; on a curve that falls somewhere (a measure by distinct ids, an inverted ratio) bisection
    finds one such size and a scan the first — and None when the last size does not reach it."""
    answers = {
        size
        for (_, before), (size, value) in zip([(None, None), *curve], curve)
        if value >= target and (before is None or before < target)
    }
    return answers | ({None} if curve[-1][1] < target else set())


class _Alarm(Exception):
    """The signal of `_time_limit` went off: `_calling` turns it into the TookTooLong a check sees."""


@contextmanager
def _time_limit(seconds: float, cpu: bool = False):
    """Interrupt the block after `seconds` (where the platform has SIGALRM and we are in the main thread):
    of the clock, or with `cpu` of this process's CPU time (a busy machine does not cut it short)."""
    if (
        not _local_time_limits
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def interrupt(signum, frame):
        raise _Alarm

    timer, signum = (signal.ITIMER_PROF, signal.SIGPROF) if cpu else (signal.ITIMER_REAL, signal.SIGALRM)
    previous = signal.signal(signum, interrupt)
    signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(signum, previous)


DEFAULT_SECONDS = 10  # a call's limit in Jupyter; while grading, the grader's setting (Evaluator.call_seconds)


def _call_text(fn, args) -> str:
    return f"{getattr(fn, '__name__', 'функция')}({', '.join(_short(a, 80) for a in args)})"


@contextmanager
def _calling(call: str, hint: str, seconds: float | None, cpu: bool = False):
    """The body of a check's call of a student's function: its time limit, and its crash turned into a
    readable failure (NotImplementedError and TookTooLong pass through; the caller words a timeout)."""
    suffix = f"\nПодсказка: {hint}" if hint else ""
    token = _call_seconds.set(seconds)
    try:
        with _time_limit(seconds or DEFAULT_SECONDS, cpu):
            yield
    except (NotImplementedError, TookTooLong, NotMeasured):
        raise
    except _Alarm:
        raise TookTooLong(call.split("(", 1)[0], seconds or DEFAULT_SECONDS, wall=not cpu) from None
    except Exception as e:
        raise CheckFailed(f"{call} завершилась с ошибкой {type(e).__name__}: {e}" + suffix) from None
    finally:
        _call_seconds.reset(token)


def run(fn, *args, hint: str = "", seconds: float | None = None):
    """fn(*args), with a crash or an endless loop turned into a readable failure.

    `seconds` only for a call that needs its own limit; otherwise the grader's setting applies
    (DEFAULT_SECONDS in Jupyter). NotImplementedError passes through, so an untouched exercise says
    that it is not written yet.
    """
    call = _call_text(fn, args)
    suffix = f"\nПодсказка: {hint}" if hint else ""
    try:
        with _calling(call, hint, seconds):
            return fn(*args)
    except TookTooLong as e:
        raise CheckFailed(f"{call} не завершилась за {e.seconds:g} с: {e.verdict()}" + suffix) from None


def changed_args(fn, *args) -> list:
    """Positions of the arguments that the call fn(*args) changed in place ([] if none)."""
    if hasattr(fn, "remote_helper"):  # while grading: compared inside the student's kernel
        return fn.remote_helper("changed_args", *args)
    before = copy.deepcopy(args)
    fn(*args)
    return [i for i, (old, new) in enumerate(zip(before, args)) if not _same(new, old)]


def calls_on_one_table(fn, text, tables) -> list:
    """[fn(text, table) for table in tables], every call given the same dict, refilled in place
    between calls: a cache keyed by the table's id() or size gives itself away."""
    if hasattr(fn, "remote_helper"):  # while grading: the one dict lives inside the student's kernel
        return fn.remote_helper("calls_on_one_table", text, tables)
    table, answers = {}, []
    for contents in tables:
        table.clear()
        table.update(contents)
        answers.append(fn(text, table))
    return answers


def is_piece(piece) -> bool:
    """What stream_steps counts as a piece of output: anything but an empty string, list or None."""
    return not (piece is None or (isinstance(piece, (str, bytes, list, tuple)) and len(piece) == 0))


def stream_steps(fn, items, *args) -> tuple:
    """(pieces, taken, error) for the generator fn(iter(items), *args) run to its end: pieces is
    [(how many of `items` fn had taken, piece), …] for each piece it yields (see is_piece), taken how many
    it took in all, error the exception that stopped it (None if it ran out). Shows *when* a streaming
    function gives its output. While grading the grader itself hands over each item and sees when each
    piece arrives (autograder.wall.remote.Remote.stream): nothing in the kernel counts."""
    if hasattr(fn, "stream_steps"):
        return fn.stream_steps(items, *args)
    taken, pieces = [0], []

    def feed():
        for item in items:
            taken[0] += 1
            yield item

    try:
        for piece in fn(feed(), *args):
            if is_piece(piece):
                pieces.append((taken[0], piece))
    except Exception as error:
        return pieces, taken[0], error
    return pieces, taken[0], None


def timeline(fn, items, *args) -> list:
    """[(how many of `items` fn had taken, piece), …] for each piece that the generator fn(iter(items),
    *args) yields (stream_steps); the generator's exception is raised."""
    pieces, _, error = stream_steps(fn, items, *args)
    if error is not None:
        raise error
    return pieces


_computed: dict = {}  # a function's content and its arguments → its answer: see computed_once
COMPUTED_ONCE_LIMIT = 64


def _names_read(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_read(const)
    return names


class _Identity:
    """A value known only by its identity, for computed_once's key: it keeps the value alive while the key
    is kept, so no later object can come to have its id."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return id(self.value)

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.value is self.value


def _content(value, depth: int = 0):
    """What a value is, for computed_once's key: a function by its code, defaults and (recursively) every
    global it reads, a module by its name, a hashable plain value as itself; anything else — a student's
    function, an object of its own — by its id, which no later notebook shares."""
    if isinstance(value, types.ModuleType):
        return ("module", value.__name__)
    if isinstance(value, types.FunctionType) and depth < 8 and not hasattr(value, "remote_helper"):
        namespace = value.__globals__
        reads = tuple(
            (name, _content(namespace[name], depth + 1))
            for name in sorted(_names_read(value.__code__))
            if name in namespace and namespace[name] is not value
        )
        return ("function", value.__code__, _content(value.__defaults__, depth + 1), reads)
    if isinstance(value, (tuple, frozenset)):
        return (type(value).__name__, tuple(_content(v, depth + 1) for v in value))
    if type(value) in (str, bytes, int, float, bool, type(None)):
        plain_data = value  # its own content
        return plain_data
    if isinstance(value, type) and value.__module__ == "builtins":
        return ("builtin", value.__name__)
    if isinstance(value, types.BuiltinFunctionType):
        return ("builtin", getattr(value, "__module__", None), value.__qualname__)
    return _Identity(value)


def computed_once(fn, *args):
    """fn(*args), computed once per process and then given again (a deep copy each time, so a test that
    changes it changes nothing for the next): for a test's expected value that depends on the course
    alone — the course's own function on the course's data. A class's worker grades notebook after
    notebook, and every one of them asks the same. The key is what fn is (its code, defaults and every
    global it reads, recursively: see _content) and the arguments: anything it reads that is not plain
    data — a student's function in the kernel, an object — keys by its identity, so nothing of one
    notebook is ever reused for another."""
    key = (_content(fn), _content(args))
    if key not in _computed:
        if len(_computed) >= COMPUTED_ONCE_LIMIT:
            _computed.clear()
        _computed[key] = fn(*args)
    return copy.deepcopy(_computed[key])


_drawn = secrets.randbits(64)  # drawn when the checks are imported: in the grader, never in the sandbox


def fresh_seed(seed: int) -> int:
    """A seed for a hidden test's generated input that nobody knows ahead: the course is open, so a test
    that trains on random.Random(71) can be answered by a notebook that stored the answer for 71. The
    number is `seed` mixed with a value drawn when this module is imported, so it differs from one
    grading process to the next (the sandbox's own import draws another) and stays the same within
    one, where computed_once then shares the course's work between notebooks."""
    return (_drawn ^ seed * 0x9E3779B97F4A7C15) % 2**64


_process_time = time.process_time  # taken when the checks are imported, before a notebook's own code


def cpu_seconds(fn, calls) -> list:
    """[[result, CPU seconds], …]: fn(*args) for each args of `calls`, one after another in this process,
    each timed by the process's CPU time (not the clock, so a busy machine barely changes it). Tests
    compare how the time *grows* between calls made together, never a time against a limit."""
    if hasattr(fn, "timed_calls"):  # while grading: the grader times each call from outside the kernel
        return fn.timed_calls(calls)
    out = []
    for args in calls:
        gc.collect()  # a collection of earlier garbage is not the call's own work
        gc.disable()
        try:
            start = _process_time()
            result = fn(*args)
            seconds = _process_time() - start
        finally:
            gc.enable()
        out.append([result, seconds])
    return out


# While grading, the course's own solutions are built in the grader (autograder.notebook.reference);
# a check reads them through course_solution, never from the student's kernel.
_course_solutions = contextvars.ContextVar("course_solutions", default=None)


def use_course_solutions(provider):
    """The grader's hook: `provider(name)` gives the course's own function `name` to the checks of
    one test; returns the token for reset_course_solutions."""
    return _course_solutions.set(provider)


def reset_course_solutions(token) -> None:
    _course_solutions.reset(token)


def course_solution(name: str):
    """The course's own version of the exercise `name`: while grading, the solution from solutions/,
    run in the grader, where the student's code cannot reach it; in Jupyter, the notebook's own
    (a solutions notebook run whole times itself against itself)."""
    provider = _course_solutions.get()
    if provider is not None:
        return provider(name)
    import __main__

    return getattr(__main__, name)


def _sandbox_frozen():
    """While grading: the student's sandbox stopped for the block (the grader's provider of the course's
    solutions, autograder.notebook.reference); in Jupyter, nothing."""
    frozen = getattr(_course_solutions.get(), "frozen", None)
    return frozen() if frozen is not None else nullcontext()


def reference_seconds(fn, args) -> tuple:
    """(fn(*args), CPU seconds of this thread): a trusted call, timed where it runs (the grader's), with the
    student's sandbox frozen meanwhile, so nothing it runs slows the call (a thread copying memory did 1.13–1.23×)."""
    with _sandbox_frozen():
        gc.collect()  # earlier garbage is not the call's own work
        gc.disable()
        try:
            start = time.thread_time()
            result = fn(*args)
            return result, time.thread_time() - start
        finally:
            gc.enable()


SPEED_FLOOR = 5  # CPU seconds: the least a timed call may take before it is cut as too slow
SPEED_CLEAR = 3  # a ratio within limit / SPEED_CLEAR after the course's first run needs no second one
# a call is cut at SPEED_CUT × limit × the course's time: past that its ratio fails whatever the course's
# second run gives, and is not timed again (only a ratio within limit … SPEED_CUT × limit is)
SPEED_CUT = 1.5


def speed_against_course(fn, name: str, inputs, limit: float, hint: str = "") -> list:
    """[(fn's result, the course's result, fn's seconds ÷ the course's seconds), …] for args of `inputs`:
    the course's own `name` (course_solution) is timed right before and right after fn(*args), on the
    same arguments, and the faster of the two counts; fn's call is timed by cpu_seconds (while grading:
    by the grader, from outside the kernel) and cut at SPEED_CUT × limit × the course's time (SPEED_FLOOR
    at least): its result is then None and its ratio inf. The run after is left out when the ratio against
    the run before is within limit / SPEED_CLEAR: the faster of two runs can only raise the ratio, and
    only by as much as a repeat of the course's call is faster than its first run — a few per cent on this
    machine, idle or busy, never SPEED_CLEAR times (so a call is never passed that the second run would
    fail). Only an answer just over the limit (at most SPEED_CUT × limit) is timed again, on the next args — never
    the same ones, which could be answered from memory. The check decides what the ratios mean and checks
    every result."""
    course = course_solution(name)
    out = []
    for args in inputs:
        expected, before = reference_seconds(course, args)
        try:
            with _calling(_call_text(fn, args), hint, max(SPEED_FLOOR, SPEED_CUT * limit * before), cpu=True):
                ((got, seconds),) = cpu_seconds(fn, [args])
        except TookTooLong:
            got, seconds = None, math.inf
        if seconds / max(before, 1e-6) > limit / SPEED_CLEAR:
            _, after = reference_seconds(course, args)
            before = min(before, after)
        out.append((got, expected, seconds / max(before, 1e-6)))
        if not limit < out[-1][2] <= SPEED_CUT * limit:
            break
    return out


def stream_cache_limit() -> int:
    """The course's chunk cache limit (CACHE_LIMIT) while stream_memory measures an input of new chunks:
    drawn with the checks' import (in the grader, never in the sandbox), 1100–1999 — no number the lesson
    names and not the same from one grading to the next, so a notebook cannot tell the measurement by the
    value. A notebook can still tell that it is not its own value: so a test also measures under the
    notebook's own settings (new_chunks=False). Small enough that a bounded cache is full, and flat, long
    before the shortest input measured with new chunks (4200 lines)."""
    return 1100 + _drawn % 900


def generated_line(k: int, new_chunks: bool = True) -> str:
    """The k-th line of stream_memory's input, about a kilobyte: a word of its own (a new chunk of 72 bytes
    on every line: a cache without a limit keeps a list of 72 ids for each), a long run of one letter (a
    single chunk) and a line break. What a wrong solution keeps of it is big enough to be seen from
    outside (the allocator gives blocks this big back to the system when they are freed)."""
    if not new_chunks:  # the same chunks on every line: no cache grows, only what keeps the text does
        return "a" * 1000 + "\n"
    letters, word, x = "bcdefghijklmnopqrstuvwxyz", [], k
    for digit in range(4):  # k in base 25: no two lines share their word
        word.append(letters[x // 25**digit % 25])
    x = k * 2_654_435_761 + 97  # then 68 letters from a 64-bit linear congruential generator
    for _ in range(68):
        x = (x * 6_364_136_223_846_793_005 + 1_442_695_040_888_963_407) % 2**64
        word.append(letters[(x >> 33) % 25])
    return "".join(word) + " " + "a" * 1000 + "\n"


def generated_lines(n: int, new_chunks: bool = True):
    """stream_memory's input of n lines, made one at a time and never kept."""
    return (generated_line(k, new_chunks) for k in range(n))


def _memory_now() -> dict:
    found = {}
    with open("/proc/self/status", encoding="ascii", errors="replace") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) * 1024
    return found


def own_memory_mark():
    """Start watching this process's peak memory (Linux): the freed heap is given back, the high-water
    mark reset; the memory held now (bytes), or None where this cannot be done."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _memory_now()["VmRSS"]
    except (OSError, KeyError, ValueError):
        return None


def own_memory_growth(mark) -> int | None:
    """The most memory this process took at once since own_memory_mark, over what it held then (bytes)."""
    if mark is None:
        return None
    try:
        return _memory_now()["VmHWM"] - mark
    except (OSError, KeyError, ValueError):
        return None


def stream_memory(fn, sizes, *args, new_chunks: bool = True) -> list:
    """For each n in sizes: the most memory (bytes) the process took at once, over what it held before,
    while the generator fn(lines, *args) streams n generated lines (generated_lines: made one at a time,
    never kept), as the operating system counts it (the peak resident memory). The course's chunk cache
    is held to stream_cache_limit() chunks meanwhile (CACHE_LIMIT in fn's globals), so a bounded cache stays
    flat once the input has more new chunks than that (as does any cache bounded to a few thousand). None
    where it cannot be measured. While grading the grader reads the sandbox's memory from outside
    (autograder.wall.remote.Remote.stream). With new_chunks=False every line is the same (generated_line)
    and the notebook's own settings are kept: no cache has anything to grow with, so the notebook's
    CACHE_LIMIT needs no change, and a notebook that behaves only while it is changed is seen."""
    if hasattr(fn, "stream_memory"):
        return fn.stream_memory(sizes, *args, new_chunks=new_chunks)
    namespace = getattr(fn, "__globals__", {})
    had_limit, old_limit = new_chunks and "CACHE_LIMIT" in namespace, namespace.get("CACHE_LIMIT")
    results = []
    try:
        if had_limit:
            namespace["CACHE_LIMIT"] = stream_cache_limit()
        for n in sizes:
            mark = own_memory_mark()
            for _ in fn(generated_lines(n, new_chunks), *args):
                pass
            results.append(own_memory_growth(mark))
    finally:
        if had_limit:
            namespace["CACHE_LIMIT"] = old_limit
    return results
