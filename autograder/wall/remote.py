"""The student's notebook as the grader sees it: plain values, and stand-ins for its functions.

A graded check runs in the grader's process. Each notebook name it reads is bound to what the
student's kernel holds, fetched through the agent: a plain value (checked by `wire`, so only
exact built-in types), or a `RemoteFunction` that forwards each call into the kernel, with plain
arguments, under a CPU-time limit, and brings back a plain result, a `RemoteIterator` for a
generator, an `Opaque` for a type that cannot cross, or the student's exception rebuilt here as
an exception of the same name and message, of the nearest built-in class it derives from (never
of a class the student defined).
"""

import builtins
import collections
import contextlib
import dataclasses
import re
import time

from bpe_course import checks

from . import protocol, wire
from .session import KernelDied, KernelStuck


class KernelGone(BaseException):
    """The student's kernel stopped; nothing more can be asked of it (a BaseException, so that a
    check's `except Exception` does not turn it into an ordinary failure)."""


class Opaque:
    """A value of the student's that cannot cross (a class of theirs, a numpy number, a set, …)."""

    __slots__ = ("bpe_type",)

    def __init__(self, type_name: str):
        self.bpe_type = type_name

    def __repr__(self):
        return f"<объект типа {self.bpe_type}>"


# exceptions that steer Python's own control flow: a student's one is rebuilt as a plain Exception
PROTOCOL_EXCEPTIONS = {"StopIteration", "StopAsyncIteration", "GeneratorExit"}


def rebuilt_exception(error: protocol.Error) -> Exception:
    """An exception of the student's code, as an exception of this process with the same name."""
    name = error.type if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", error.type) else "Exception"
    message, where = error.message, error.where
    if name == "NotImplementedError":
        return NotImplementedError(message)
    # its own name if that is a built-in exception, else the nearest built-in class it derives from
    base = Exception
    for candidate in [name, *error.bases[:8]]:
        cls = getattr(builtins, candidate, None)
        if isinstance(cls, type) and issubclass(cls, Exception) and candidate not in PROTOCOL_EXCEPTIONS:
            base = cls
            break
    text = f"{message} ({where})" if where else message
    cls = type(name, (StudentException, base), {"__str__": lambda self: text, "__init__": lambda self: None})
    return cls()


class StudentException(Exception):
    """Marks an exception raised by the student's code in the kernel."""


def refused_a_process(answer: protocol.Answer) -> bool:
    """An error of the kind a refused fork (BlockingIOError) or thread (RuntimeError) raises."""
    if not isinstance(answer, protocol.Error):
        return False
    kinds = {answer.type, *answer.bases}
    return "OSError" in kinds or answer.type == "OSError" or ("RuntimeError" in kinds and "thread" in answer.message)


MEMORY_BATCH = 8  # lines handed over at once while a Stream's memory is watched (Remote.stream)


UNPROVABLE_MEMORY = (
    "без cgroup песочницы память вне её процессов (буферы каналов и сокетов, которые никто не читает, memfd, "
    "файлы) проверке не видна"
)


class Remote:
    """Requests to the agent in the student's kernel, with their answers checked."""

    def __init__(
        self,
        session,
        *,
        call_seconds: float,
        wall_factor: float,
        wall_extra: float,
        max_depth: int,
        max_items: int,
        test_seconds: float,
        max_generator_items: int,
    ):
        """The limits are the Evaluator's settings (autograder.notebook.evaluate), where their
        defaults and meaning are written: `Evaluator.remote` passes them all."""
        self.session = session
        self.call_seconds, self.wall_factor, self.wall_extra = call_seconds, wall_factor, wall_extra
        self.max_depth, self.max_items = max_depth, max_items
        self.test_seconds, self.max_generator_items = test_seconds, max_generator_items
        self.spent = 0.0  # wall-clock seconds of requests in the current test
        self.review: list[str] = []  # what the instructor should look at (a figure the grader could not prove)

    def fixed_processes(self):
        """Where the sandbox has no cgroup, its process set held fixed around a timed call
        (`KernelSession.fixed_processes`): with a cgroup, every process's work is counted anyway."""
        if getattr(self.session, "cgroup", None) is not None or not hasattr(self.session, "fixed_processes"):
            return contextlib.nullcontext(None)
        return self.session.fixed_processes()

    def unprovable_memory(self, name: str) -> None:
        """Without a cgroup, no memory figure decides a grade: a sandbox can hold memory outside every process's
        resident memory that the grader cannot read (pipe and socket buffers nobody reads, memfds another process
        holds, …), so a figure within a limit proves nothing. The check fails saying the instructor judges it, and
        the notebook is listed For review — as speed is where it cannot be proven (`timed_calls`)."""
        if getattr(self.session, "cgroup", None) is not None or not hasattr(self.session, "fixed_processes"):
            return  # the cgroup counts all of it (and the course's own tests run in no sandbox at all)
        note = f"память {name} не засчитана: {UNPROVABLE_MEMORY}"
        if note not in self.review:
            self.review.append(note)
        raise checks.NotMeasured(
            f"память, которую держит {name}, не удалось доказать ({UNPROVABLE_MEMORY}); в этом режиме проверки "
            "память оценивает преподаватель"
        )

    def ask(self, request: protocol.Request, seconds: float, feed=None) -> protocol.Answer:
        """The answer to `request`, under `seconds` of the kernel's CPU; an answer that is not one
        (`protocol.Malformed`) fails the check with what was wrong."""
        if self.session.dead:
            raise KernelGone(self.session.dead)
        left = self.test_seconds - self.spent
        if left <= 0:
            raise checks.TookTooLong("тест", self.test_seconds, wall=True)
        started = time.monotonic()
        try:
            request = dataclasses.replace(request, seconds=seconds)
            timeout = min(seconds * self.wall_factor + self.wall_extra, left)
            if feed is None:
                answer = self.session.request(request, timeout=timeout)
            else:
                answer = self.session.request(request, timeout=timeout, feed=feed)
        except (KernelDied, KernelStuck) as e:
            raise KernelGone(str(e)) from None
        finally:
            self.spent += time.monotonic() - started
        if isinstance(answer, protocol.Malformed) or not isinstance(answer, protocol.Answer):
            if self.session.dead:
                raise KernelGone(self.session.dead)
            reason = answer.reason if isinstance(answer, protocol.Malformed) else "не сообщение"
            raise checks.CheckFailed(f"ядро ответило проверке не по протоколу ({reason})")
        return answer

    def value(self, raw):
        try:
            return wire.decode(raw, self.max_depth, self.max_items)
        except wire.WireError as e:
            raise checks.CheckFailed(f"результат нельзя принять для проверки: {e}") from None

    def bind(self, names) -> dict:
        """The notebook's current values of `names`; names it does not define are left out."""
        names = sorted(names)
        if not names:
            return {}
        answer = self.ask(protocol.Describe(names=names), self.call_seconds)
        if not isinstance(answer, protocol.Names):
            raise checks.CheckFailed(self.problem(answer, "описание имён блокнота"))
        bound = {}
        for name in names:
            match answer.names.get(name):
                case protocol.Function():
                    bound[name] = RemoteFunction(self, name)
                case protocol.Value(value=value):
                    bound[name] = self.value(value)
                case protocol.Unsupported(type_name=type_name):
                    bound[name] = Opaque(type_name)
        return bound

    def call(self, name: str, args: tuple, kwargs: dict, seconds: float | None = None, helper: str | None = None):
        seconds = seconds or checks.call_seconds() or self.call_seconds
        return self.result(self.ask(self.call_request(name, args, kwargs, helper), seconds), name, seconds)

    def call_request(self, name: str, args, kwargs: dict, helper: str | None = None, **extra) -> protocol.Call:
        try:
            return protocol.Call(
                name=name,
                helper=helper,
                args=[self.argument(a) for a in args],
                kwargs={k: self.argument(v) for k, v in kwargs.items()},
                **extra,
            )
        except wire.Unsupported as e:
            raise TypeError(f"a check passed a {e.type_name} to the student's {name}") from None

    def timed_calls(self, name: str, calls, seconds: float | None = None) -> list:
        """checks.cpu_seconds while grading: [[result, CPU seconds], …] for each args of `calls`, each
        call timed by the grader from outside the student's process (`session.cpu_clock`), from the
        moment its arguments arrive to the moment its result has gone: nothing the notebook does to
        its clocks or to the agent changes the figure (a student's process can only make it larger)."""
        seconds = seconds or checks.call_seconds() or self.call_seconds
        if self.session.cpu_clock() is None:
            raise checks.CheckFailed("время вызова не удалось измерить: часы процессорного времени ядра недоступны")
        out = []
        for args in calls:
            request = self.call_request(name, args, {}, gc_off=True)
            self.ask(protocol.Collect(), self.call_seconds)  # earlier garbage is not this call's work
            with self.fixed_processes() as unprovable:
                start = self.session.cpu_clock()
                answer = self.ask(request, seconds)
                used = self.session.cpu_clock() - start
            if unprovable is not None and refused_a_process(answer):
                raise checks.NotMeasured(
                    f"{name} завершилась с ошибкой {answer.type}: {answer.message[:300]}. Без cgroups, пока "
                    "проверка замеряет время вызова, новые процессы и потоки в песочнице запрещены: их "
                    "работу она не может измерить"
                )
            if unprovable:
                note = f"время {name} не засчитано: {unprovable[0]}"
                if note not in self.review:
                    self.review.append(note)
                raise checks.NotMeasured(
                    f"время вызова {name} не удалось доказать ({unprovable[0]}); в этом режиме проверки "
                    "скорость оценивает преподаватель"
                )
            if isinstance(answer, protocol.Iterator):  # its work would be done later, when its items are asked for
                raise checks.CheckFailed(
                    f"{name} вернула генератор, а не готовый результат: время его работы так не измерить"
                )
            out.append([self.result(answer, name, seconds), used])
        return out

    def stream(self, name: str, lines, args: tuple, memory: bool = False, overrides: dict | None = None):
        """checks.stream_steps and checks.stream_memory while grading: the student's generator function
        `name` is called in the kernel with an iterator whose every item is asked of the grader (`lines`)
        and the other `args`, and run to its end. What it yields comes back before its input is asked for
        more, so `taken` — how many lines the grader had handed over when a piece arrived — is the grader's
        own count: no code in the kernel can make a piece look earlier than the lines it needed. The lines
        go one at a time; with `memory`, where only how much the sandbox holds is watched and the pieces are
        only counted, MEMORY_BATCH at a time (the input's last line alone, so a generator that stops before
        the end is still seen to), and the sandbox's peak memory over the call is read from outside
        (`session.memory_growth`), the memory it holds sampled at each batch. Returns a StreamRun."""
        seconds = checks.call_seconds() or self.call_seconds
        limit = self.max_generator_items * (10 if memory else 1)  # counted only, never kept, while memory is watched
        request = protocol.Stream(
            name=name,
            args=[protocol.Lines(), *(self.argument(a) for a in args)],
            overrides={k: protocol.Plain(value=wire.encode(v)) for k, v in (overrides or {}).items()},
            max_items=limit + 1,
        )
        run = StreamRun(keep=not memory)  # while memory is watched, the pieces are counted only
        source, stop = iter(lines), object()
        ahead = [next(source, stop)]  # the next line: the last one is known as such before it goes
        batch = MEMORY_BATCH if memory else 1

        def next_lines() -> list:
            out = []
            while ahead[0] is not stop and len(out) < batch:
                following = next(source, stop)
                if out and following is stop:  # the input's last line goes alone
                    break
                out.append(ahead[0])
                ahead[0] = following
            return out

        def feed(message: protocol.Yielded):
            # never raises: the kernel waits for the reply; a problem is kept and said after the answer
            run.last = time.monotonic()
            if run.problem is None:
                try:  # while memory is watched the pieces are only counted: no need to read them
                    values = [self.value(item) for item in message.items] if run.keep else message.items
                    run.add(values, limit)
                except checks.CheckFailed as e:
                    run.problem = e
            if mark is not None:  # memory held across lines is seen at every batch
                self.session.memory_sample(mark)
            if not message.wants_line or run.problem is not None:
                return protocol.NoMoreLines()
            out = next_lines()
            if not out:
                return protocol.NoMoreLines()
            run.taken += len(out)
            return protocol.NextLines(values=[wire.encode(line) for line in out])

        mark = None
        if memory:
            self.ask(protocol.Collect(trim=True), self.call_seconds)  # what was freed before is not the call's
            mark = self.session.memory_mark()
        run.started = run.last = time.monotonic()
        answer = self.ask(request, seconds, feed=feed)
        if memory:
            run.memory = self.session.memory_growth(mark)
        if run.problem is not None:
            raise run.problem
        if not isinstance(answer, protocol.Items):
            try:
                self.result(answer, name, seconds)
            except BaseException as e:
                run.ended(e)
                return run
            raise checks.CheckFailed(self.problem(answer, f"генератор {name}"))
        run.add([self.value(item) for item in answer.items] if run.keep else answer.items, limit)
        match answer.end:
            case protocol.Stop():
                pass
            case None:
                raise checks.CheckFailed(
                    f"генератор {name} выдал больше {limit} значений: похоже, он не останавливается"
                )
            case protocol.Unsupported(type_name=type_name):
                run.add([Opaque(type_name)], limit)
            case _:
                try:
                    self.result(answer.end, name, seconds)
                except BaseException as e:
                    run.ended(e)
        return run

    def next_items(self, handle: int, name: str, count: int) -> tuple[list, BaseException | None]:
        """Up to `count` next items of a generator, and what ended them (StopIteration, an error) or None."""
        seconds = checks.call_seconds() or self.call_seconds
        answer = self.ask(protocol.Next(handle=handle, count=count), seconds)
        if not isinstance(answer, protocol.Items):
            try:
                self.result(answer, name, seconds)
            except BaseException as e:
                return [], e
            return [], checks.CheckFailed(self.problem(answer, f"генератор {name}"))
        values = [self.value(item) for item in answer.items]
        match answer.end:
            case None:
                return values, None
            case protocol.Stop():
                return values, StopIteration()
            case protocol.Unsupported(type_name=type_name):  # that item crosses as a placeholder; it goes on
                return values + [Opaque(type_name)], None
        try:
            self.result(answer.end, name, seconds)
        except BaseException as e:
            return values, e
        return values, None

    def release(self) -> None:
        if not self.session.dead:
            self.ask(protocol.Release(), self.call_seconds)

    @staticmethod
    def argument(value) -> protocol.Ref | protocol.Plain:
        if isinstance(value, RemoteFunction):
            return protocol.Ref(name=value.__name__)
        return protocol.Plain(value=wire.encode(value))

    def result(self, answer: protocol.Answer, name: str, seconds: float):
        """What a call's answer means: its value, or the exception it stands for."""
        match answer:
            case protocol.Value(value=value):
                return self.value(value)
            case protocol.Iterator(handle=handle):
                return RemoteIterator(self, handle, name)
            case protocol.Unsupported(type_name=type_name):
                return Opaque(type_name)
            case protocol.Timeout(limit=limit):
                raise checks.TookTooLong(name, seconds, wall=limit == "wall")
            case protocol.Error():
                raise rebuilt_exception(answer)
        raise checks.CheckFailed(self.problem(answer, f"вызов {name}"))

    def problem(self, answer: protocol.Answer, what: str) -> str:
        if self.session.dead:
            raise KernelGone(self.session.dead)
        detail = answer.message if isinstance(answer, protocol.Error) else f"(сообщение {answer.kind!r})"
        return f"{what}: ядро не дало ответа, который проверка может принять {detail}".strip()


PROGRESS_SEEN = 0.1  # a stream that reported within this last share of its time was still progressing


@dataclasses.dataclass
class StreamRun:
    """What the grader saw of one Stream: each piece with how many lines it had handed over when the piece
    arrived, how many it handed over in all, what ended the generator, and the memory it took."""

    pieces: list = dataclasses.field(default_factory=list)  # [(lines handed over, piece), …]
    taken: int = 0
    error: BaseException | None = None
    memory: int | None = None
    problem: BaseException | None = None
    count: int = 0
    keep: bool = True
    started: float = 0.0  # time.monotonic() when the call was asked for, and when the kernel last reported
    last: float = 0.0

    def ended(self, error: BaseException) -> None:
        """The generator stopped with `error`; out of time, it is told whether it was still progressing."""
        if isinstance(error, checks.TookTooLong):
            error.progress = self.progress()
        self.error = error

    def progress(self) -> str:
        """What the generator was seen doing, when it ran out of time while still giving pieces (it reported
        in the last PROGRESS_SEEN of its time, having given some): a stream that grows too slow, not one
        that hangs; "" otherwise."""
        elapsed = time.monotonic() - self.started
        if not self.count or self.last - self.started < (1 - PROGRESS_SEEN) * elapsed:
            return ""
        return f"прочитано строк: {self.taken}, выдано значений: {self.count}, и они шли до самого конца"

    def add(self, values: list, limit: int) -> None:
        self.count += len(values)
        if self.count > limit:
            raise checks.CheckFailed(f"генератор выдал больше {limit} значений: похоже, он не останавливается")
        if self.keep:
            self.pieces.extend((self.taken, value) for value in values)


class RemoteFunction:
    """A function of the student's notebook, called in their kernel."""

    def __init__(self, remote: Remote, name: str):
        self._remote = remote
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        return self._remote.call(self.__name__, args, kwargs)

    def remote_helper(self, helper: str, *args, seconds: float | None = None):
        """A check helper of bpe_course.checks applied to this function inside the kernel."""
        return self._remote.call(self.__name__, args, {}, seconds=seconds, helper=helper)

    def timed_calls(self, calls) -> list:
        """checks.cpu_seconds for this function: each call timed by the grader, from outside the kernel."""
        return self._remote.timed_calls(self.__name__, calls)

    def stream_steps(self, items, *args):
        """checks.stream_steps for this generator function: fed and watched by the grader (Remote.stream)."""
        run = self._remote.stream(self.__name__, items, args)
        return [(taken, piece) for taken, piece in run.pieces if checks.is_piece(piece)], run.taken, run.error

    def stream_memory(self, sizes, *args, new_chunks: bool = True) -> list:
        """checks.stream_memory for this generator function: the sandbox's peak memory, read by the grader
        from outside while it hands over each generated line (with new chunks on every line, the chunk cache
        held to checks.stream_cache_limit() chunks; else under the notebook's own settings)."""
        self._remote.unprovable_memory(self.__name__)
        peaks = []
        for n in sizes:
            run = self._remote.stream(
                self.__name__,
                checks.generated_lines(n, new_chunks),
                args,
                memory=True,
                overrides={"CACHE_LIMIT": checks.stream_cache_limit()} if new_chunks else None,
            )
            if run.error is not None:
                raise run.error
            if run.taken < n:
                raise checks.CheckFailed(
                    f"{self.__name__} прочитала не все строки входа ({run.taken} из {n}) и остановилась: "
                    "генератор должен дочитать вход до конца"
                )
            peaks.append(run.memory)
        return peaks

    def __repr__(self):
        return f"<функция {self.__name__} из блокнота>"


class RemoteIterator:
    """A generator of the student's, advanced in their kernel one item at a time."""

    bpe_type = "generator"

    def __init__(self, remote: Remote, handle: int, name: str):
        self._remote, self._handle, self._name = remote, handle, name
        self._count, self._batch = 0, 1
        self._buffer, self._end = collections.deque(), None

    def __iter__(self):
        return self

    def __next__(self):
        # items come in growing batches (1, 2, 4, … 256): few round trips for a long generator
        if not self._buffer and self._end is None:
            items, self._end = self._remote.next_items(self._handle, self._name, self._batch)
            self._buffer.extend(items)
            self._batch = min(self._batch * 2, 256)
        if self._buffer:
            self._count += 1
            if self._count > self._remote.max_generator_items:
                raise checks.CheckFailed(
                    f"генератор {self._name} выдал больше {self._remote.max_generator_items} "
                    "значений: похоже, он не останавливается"
                )
            return self._buffer.popleft()
        raise self._end

    def __repr__(self):
        return f"<генератор из {self._name}>"
