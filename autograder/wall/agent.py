"""The grader's agent inside the student's kernel: it answers questions about the notebook's names.

The grader never runs a test in the student's process. It asks this agent for plain data —
"what is `ANSWER_1`?", "call `merge` with these arguments" — and compares the answers itself.
Requests and answers are the typed messages of `protocol` (values inside them in the format of
`wire`); in the sandbox they travel over the host's socket (`autograder.wall.host`), in the
grader's own tests they are passed as a frame's payload (`serve`). The agent lives in the student's
process, so nothing depends on it being left alone: a student who replaces it can only change
what their own functions appear to return, which they could do anyway.

Each call runs under a CPU-time limit (ITIMER_PROF: CPU seconds, so a busy machine does not
make a correct solution time out); the grader keeps a generous wall-clock limit of its own for
code that sleeps or swallows the limit's exception.

The grader sends this module's source into the sandbox, where it is installed as the module
`_bpe_agent` (with `wire` as `_bpe_wire`, `protocol` as `_bpe_protocol`); it imports the
standard library only, and the course's check helpers where they are installed (`check_helpers`).
"""

import collections
import gc
import signal
import sys
import traceback

try:
    import _bpe_protocol as protocol  # in the sandbox, installed by the host's BOOTSTRAP
except ImportError:
    from . import protocol


class CallTimedOut(BaseException):
    """The CPU-time limit of one call ran out (a BaseException, so `except Exception` keeps out).
    The answer is Timeout(limit=kind): "cpu", or "wall" for the host's wall-clock limit (a subclass)."""

    kind = "cpu"


class Agent:
    def __init__(self, namespace: dict, wire):
        self.namespace = namespace  # the notebook's globals
        self.wire = wire
        self.iterators: dict[int, object] = {}
        self.helpers = check_helpers()  # taken before the notebook's code runs (see check_helpers)
        # sends a frame to the grader in the middle of a request and returns its reply (a message of
        # protocol.REPLIES) when the frame asks for one: set by the host (or the tests' local session)
        self.exchange = None
        self.pending: list = []  # items of the running Stream not yet sent
        self.lines_ahead: collections.deque = collections.deque()  # lines of the running Stream not yet taken

    def handle(self, request: protocol.Request) -> protocol.Answer:
        """Answer one request (served by the method op_<its kind>); the answer always comes, whatever
        student code did."""
        try:
            return getattr(self, "op_" + request.kind)(request)
        except CallTimedOut as e:
            return protocol.Timeout(limit=e.kind)
        except BaseException as e:
            return protocol.Error.agent(f"{type(e).__name__}: {e}")

    def serve(self, payload: bytes) -> bytes:
        """Answer one request given as a frame's payload with the answer's payload."""
        try:
            request = protocol.loads(payload, protocol.REQUESTS)
        except protocol.ProtocolError as e:
            return protocol.dumps(protocol.Error.agent(f"ProtocolError: {e}"))
        return protocol.dumps(self.handle(request))

    # -- operations ------------------------------------------------------------------------------
    def op_describe(self, request: protocol.Describe) -> protocol.Names:
        """For each name: a function, a value (plain data), missing, or a value that cannot cross."""
        described = {}
        for name in request.names:
            if name not in self.namespace:
                described[name] = protocol.Missing()
                continue
            value = self.namespace[name]
            if callable(value) and not isinstance(value, type):
                described[name] = protocol.Function()
                continue
            try:
                described[name] = protocol.Value(value=self.wire.encode(value))
            except self.wire.Unsupported as e:
                described[name] = protocol.Unsupported(type_name=e.type_name)
        return protocol.Names(names=described)

    def op_call(self, request: protocol.Call) -> protocol.Answer:
        """Call a function of the notebook (or a course check helper on one) under a CPU limit."""
        function = self.namespace.get(request.name)
        if function is None or not callable(function):
            return protocol.Error(type="NameError", message=f"name {request.name!r} is not defined")
        args = [self.argument(a) for a in request.args]
        kwargs = {k: self.argument(a) for k, a in request.kwargs.items()}
        if request.helper:  # a check helper from bpe_course.checks applied here, next to the function
            if request.helper not in self.helpers:
                return protocol.Error(type="NameError", message=f"no check helper {request.helper!r}")
            target, args = self.helpers[request.helper], [function, *args]
        else:
            target = function
        if request.gc_off:  # timed by the grader: a collection of earlier garbage is not its work
            return self.answer(lambda: without_gc(lambda: target(*args, **kwargs)), request.seconds)
        return self.answer(lambda: target(*args, **kwargs), request.seconds)

    def op_collect(self, request: protocol.Collect) -> protocol.Done:
        gc.collect()
        if request.trim:
            trim_heap()
        return protocol.Done()

    def op_stream(self, request: protocol.Stream) -> protocol.Answer:
        """Run a generator of the notebook on the grader's lines to its end (see protocol.Stream). Each item
        goes to the grader before the next line is taken, so what the grader counts is what had been read."""
        function = self.namespace.get(request.name)
        if function is None or not callable(function):
            return protocol.Error(type="NameError", message=f"name {request.name!r} is not defined")
        if self.exchange is None:
            return protocol.Error.agent("no channel to the grader for its lines")
        lines = LineFeed(self)
        args = [lines if isinstance(a, protocol.Lines) else self.argument(a) for a in request.args]
        kwargs = {k: lines if isinstance(a, protocol.Lines) else self.argument(a) for k, a in request.kwargs.items()}
        overrides = {k: self.argument(v) for k, v in request.overrides.items() if k in self.namespace}
        saved = {k: self.namespace[k] for k in overrides}
        self.pending = []
        self.lines_ahead.clear()
        self.namespace.update(overrides)
        try:
            with cpu_limit(request.seconds):
                iterator = iter(function(*args, **kwargs))
                count = 0
                for item in iterator:
                    self.pending.append(self.wire.encode(item))
                    count += 1
                    if count >= request.max_items:
                        return protocol.Items(items=self.take_pending())  # end None: cut here
                    if len(self.pending) >= 4096:  # a long run of items without reading: sent on
                        self.exchange(protocol.Yielded(items=self.take_pending(), wants_line=False))
            return protocol.Items(items=self.take_pending(), end=protocol.Stop())
        except CallTimedOut as e:
            return protocol.Items(items=self.take_pending(), end=protocol.Timeout(limit=e.kind))
        except self.wire.Unsupported as e:
            return protocol.Items(items=self.take_pending(), end=protocol.Unsupported(type_name=e.type_name))
        except BaseException as e:
            return protocol.Items(items=self.take_pending(), end=describe_exception(e))
        finally:
            self.namespace.update(saved)
            self.lines_ahead.clear()

    def take_pending(self) -> list:
        items, self.pending = self.pending, []
        return items

    def next_line(self):
        """The grader's next line for a running Stream, or None at the end: one it sent before and that is not
        taken yet, else it is asked for more (the items so far go with the question)."""
        if not self.lines_ahead:
            reply = self.exchange(protocol.Yielded(items=self.take_pending(), wants_line=True))
            if not isinstance(reply, protocol.NextLines) or not reply.values:
                return None
            self.lines_ahead.extend(reply.values)
        return self.wire.decode(self.lines_ahead.popleft())

    def op_next(self, request: protocol.Next) -> protocol.Answer:
        """The next items of a generator: up to `count`, fewer when it stops or fails (said after them)."""
        iterator = self.iterators.get(request.handle)
        if iterator is None:
            return protocol.Error(type="RuntimeError", message="this generator is gone")
        items, stop = [], object()
        try:
            with cpu_limit(request.seconds):
                for _ in range(max(1, min(request.count, 1024))):
                    item = next(iterator, stop)
                    if item is stop:
                        return protocol.Items(items=items, end=protocol.Stop())
                    items.append(self.wire.encode(item))
        except CallTimedOut as e:
            return protocol.Items(items=items, end=protocol.Timeout(limit=e.kind))
        except self.wire.Unsupported as e:
            return protocol.Items(items=items, end=protocol.Unsupported(type_name=e.type_name))
        except BaseException as e:
            return protocol.Items(items=items, end=describe_exception(e))
        return protocol.Items(items=items)

    def op_release(self, request: protocol.Release) -> protocol.Done:
        self.iterators.clear()
        return protocol.Done()

    # -- helpers ---------------------------------------------------------------------------------
    def argument(self, spec: protocol.Ref | protocol.Plain):
        if isinstance(spec, protocol.Ref):  # a function of the notebook passed by name
            return self.namespace[spec.name]
        return self.wire.decode(spec.value)

    def answer(self, compute, seconds: float) -> protocol.Answer:
        try:
            with cpu_limit(seconds):
                result = compute()
                if hasattr(result, "__next__") and not isinstance(result, (str, bytes, list, tuple, dict)):
                    handle = len(self.iterators) + 1
                    self.iterators[handle] = result
                    return protocol.Iterator(handle=handle)
                return protocol.Value(value=self.wire.encode(result))
        except CallTimedOut as e:
            return protocol.Timeout(limit=e.kind)
        except self.wire.Unsupported as e:
            return protocol.Unsupported(type_name=e.type_name)
        except BaseException as e:  # the student's exception, reported as data
            return describe_exception(e)


class LineFeed:
    """The lines of a Stream as the notebook's function sees them: an iterator that asks the grader for
    each next line (what the function does with it is the function's own business)."""

    def __init__(self, agent: Agent):
        self._agent, self._ended = agent, False

    def __iter__(self):
        return self

    def __next__(self):
        if not self._ended:
            line = self._agent.next_line()
            if line is not None:
                return line
            self._ended = True
        raise StopIteration


def trim_heap() -> None:
    """Give the heap's free memory back to the system (glibc's malloc_trim), so that what the grader then
    sees the process take is what it takes anew; nothing where there is no such call."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def without_gc(compute):
    gc.disable()
    try:
        return compute()
    finally:
        gc.enable()


class cpu_limit:
    """Raise CallTimedOut in this (main) thread after `seconds` of the process's CPU time (a falsy
    `seconds`: no limit). Subclasses change the clock and the exception (the host's `wall_limit`)."""

    timer, signum, exception = signal.ITIMER_PROF, signal.SIGPROF, CallTimedOut

    def __init__(self, seconds: float | None):
        self.seconds = seconds

    def __enter__(self):
        if self.seconds:

            def expired(signum, frame):
                raise self.exception

            self.previous = signal.signal(self.signum, expired)
            signal.setitimer(self.timer, max(float(self.seconds), 0.01))

    def __exit__(self, *exc):
        if self.seconds:
            signal.setitimer(self.timer, 0)
            signal.signal(self.signum, self.previous)
        return False


def describe_exception(e: BaseException) -> "protocol.Error":
    """The exception's type, message, and the last line of the student's code it passed through."""
    try:
        with cpu_limit(5):  # a student's __str__ may loop too
            return _describe(e)
    except CallTimedOut:
        return protocol.Error(type="Exception", message="(сообщение ошибки не удалось прочитать)")


def _describe(e: BaseException) -> "protocol.Error":
    where = ""
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        if is_notebook_code(frame.filename):
            name = "" if frame.name == "<module>" else f"в функции {frame.name}, "
            where = f"{name}строка {frame.lineno}: {(frame.line or '').strip()}"[:300]
            break
    try:
        message = str(e)
    except BaseException:
        message = "(сообщение ошибки не удалось прочитать)"
    # the built-in classes it derives from, nearest first: the grader rebuilds it as the nearest one
    import builtins

    bases = [c.__name__ for c in type(e).__mro__[1:] if getattr(builtins, c.__name__, None) is c][:8]
    return protocol.Error(type=str(type(e).__name__), message=message[:2000], where=where, bases=bases)


def is_notebook_code(filename: str) -> bool:
    """A frame of the notebook's own cells (IPython names them like this), not of a library."""
    return "ipykernel_" in filename or filename.startswith(("<ipython-input", "<cell"))


def check_helpers() -> dict:
    """bpe_course.checks' helpers, imported when the agent is installed, before the notebook's code
    runs. None of them measures anything: what a grade rests on is measured by the grader from outside
    this process — a call's CPU time (`Remote.timed_calls`), when a generator's items come out and how
    much memory the sandbox takes meanwhile (`Remote.stream`, over the lines the grader supplies)."""
    try:
        from bpe_course import checks
    except ImportError:  # outside the course (a bare kernel in tests): no helpers
        return {}
    return {name: getattr(checks, name) for name in ("changed_args", "calls_on_one_table") if hasattr(checks, name)}


def install(shell) -> Agent:
    """The agent for an IPython shell's namespace (the host installs it before the notebook runs)."""
    agent = Agent(shell.user_ns, sys.modules["_bpe_wire"])
    sys.modules["_bpe_agent"].agent = agent
    return agent
