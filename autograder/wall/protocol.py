"""The messages that cross the sandbox's wall: each a kind and typed fields, in one place.

Requests go from the grader to the sandbox (`autograder.wall.session` sends them, `host` and `agent`
serve them); answers come back (`remote` reads them by their kind). On the socket a message is a
JSON object `{"kind": ..., field: value, ...}` (`to_wire`); `from_wire` rebuilds it and refuses
anything else: an unknown kind, a kind that is not expected in that direction, a missing,
unknown or mistyped field. What the sandbox sends is hostile, so `read` never raises: a frame that
is not a well-formed answer becomes `Malformed` (a kind that never crosses), and the grader reports
it as the kernel's failure to answer. A value of the notebook travels inside `Value.value` (and
`Items.items`) in `wire`'s format, decoded by `wire.decode` with its own limits.

Every frame that crosses is one of these messages: the grader's first frame too (`Install`, the
modules the sandbox's bootstrap installs), and a running cell's outputs (`OUTPUTS`: `StreamText`,
`DisplayData`, `ExecuteResult`, `Error` with its traceback, `ClearOutput`, `OutputCut`), which the
grader rebuilds as nbformat outputs by their kind (`autograder.wall.cell_outputs`).

Adding an operation is one request class here (the agent serves it with its method `op_<kind>`).
One request is a conversation: `Stream` runs a generator of the notebook on lines the grader supplies
— the sandbox sends `Yielded` (what came out so far; its input wants a line) and the grader replies
`NextLines` (one line, or a few while only memory is watched) or `NoMoreLines` — so the grader itself
knows how much input had gone in when each item came out.
One error shape (`Error`) serves every answer and a cell's error output; one timeout (`Timeout`, "cpu" or
"wall") every answer.
This module uses only the standard library: the grader sends its source into the sandbox.
"""

import dataclasses
import json
import types
import typing
from dataclasses import dataclass, field

REQUESTS: dict = {}  # kind → request class (grader → sandbox)
ARGUMENTS: dict = {}  # kind → a call's argument (inside a Call)
ANSWERS: dict = {}  # kind → answer class (sandbox → grader)
REPLIES: dict = {}  # kind → what the grader sends back in the middle of a request (to a Yielded that wants a line)
OUTPUTS: dict = {}  # kind → an output of the running cell (sandbox → grader, in the middle of a RunCell)
SETUP: dict = {}  # kind → the grader's first frame (read by the sandbox's bootstrap before this module exists)


class ProtocolError(ValueError):
    """A frame that is not a message of the expected direction, kind and fields."""


class Message:
    kind = ""

    def to_wire(self) -> dict:
        wire = {"kind": self.kind}
        for name, walk in _layout(type(self))[1]:
            value = getattr(self, name)
            wire[name] = _to_wire(value) if walk else value
        return wire

    @classmethod
    def from_wire(cls, raw, kinds: dict | None = None) -> "Message":
        """The message `raw` (parsed JSON) holds, of one of `kinds` (default: this class's own)."""
        kinds = kinds if kinds is not None else {cls.kind: cls}
        if type(raw) is not dict:
            raise ProtocolError(f"a message is a JSON object, not {type(raw).__name__}")
        kind = raw.get("kind")
        if type(kind) is not str or kind not in kinds:
            raise ProtocolError(f"unexpected message kind {str(kind)[:40]!r}")
        message_class = kinds[kind]
        fields, _, names = _layout(message_class)
        if len(raw) > len(names) or not names.issuperset(raw):
            unknown = set(raw) - names
            raise ProtocolError(f"a {kind} message has no field {sorted(map(str, unknown))[0][:40]!r}")
        values = {}
        for name, read, required in fields:
            if name in raw:
                values[name] = read(raw[name], f"{kind}.{name}")
            elif required:
                raise ProtocolError(f"a {kind} message lacks its field {name!r}")
        return message_class(**values)


_LAYOUTS: dict = {}  # message class → how its fields are read and written, worked out once


def _layout(cls) -> tuple:
    """([(field, its reader, required)], [(field, whether writing it walks into it)], {"kind", fields…})
    of a message class. A field that can hold no message (plain JSON: a wire value typed Any, a list or
    an object of them, str, int, …) is written as it is, and read with its container's type checked
    only: its items are a wire value's, which `wire.decode` checks with its own limits."""
    layout = _LAYOUTS.get(cls)
    if layout is None:
        hints = typing.get_type_hints(cls)
        fields = dataclasses.fields(cls)
        layout = _LAYOUTS[cls] = (
            [
                (
                    f.name,
                    _reader(hints[f.name]),
                    f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
                )
                for f in fields
            ],
            [(f.name, not _plain(hints[f.name])) for f in fields],
            frozenset(hints) | {"kind"},
        )
    return layout


def message(kind: str, table: dict):
    """Register a frozen dataclass as the message of `kind` in `table` (REQUESTS, ARGUMENTS or ANSWERS)."""

    def register(cls):
        cls = dataclass(frozen=True, kw_only=True)(cls)
        cls.kind = kind
        table[kind] = cls
        return cls

    return register


def _to_wire(value):
    if isinstance(value, Message):
        return value.to_wire()
    if type(value) is list:
        return [_to_wire(v) for v in value]
    if type(value) is dict:
        return {k: _to_wire(v) for k, v in value.items()}
    return value


def _plain(hint) -> bool:
    """Whether a field of type `hint` holds plain JSON only (no message in it, at any depth)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any or hint in (str, int, float, bool, type(None)) or origin is typing.Literal:
        return True
    if origin in (typing.Union, types.UnionType, list, dict):
        return all(_plain(a) for a in args)
    return False


_READERS: dict = {}  # type hint → its reader: reader(raw, where) gives the value or raises ProtocolError


def _reader(hint):
    """The reader of values of type `hint`: str, int, float, bool, None, typing.Any (JSON left as it is: a
    wire value), a message class, Literal, unions, list[X] and dict[str, X]; made once per hint."""
    read = _READERS.get(hint)
    if read is None:
        read = _READERS[hint] = _make_reader(hint)
    return read


def _make_reader(hint):
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any:
        return lambda raw, where: raw
    if origin in (typing.Union, types.UnionType):
        options = [_reader(option) for option in args]

        def read_union(raw, where):
            for read in options:
                try:
                    return read(raw, where)
                except ProtocolError:
                    continue
            raise ProtocolError(f"{where}: not one of the kinds it may hold")

        return read_union
    if origin is typing.Literal:

        def read_literal(raw, where):
            if type(raw) is str and raw in args:
                return raw
            raise ProtocolError(f"{where}: must be one of {', '.join(args)}")

        return read_literal
    if origin is list:
        item = args[0]
        read_item = None if item is typing.Any else _reader(item)

        def read_list(raw, where):
            if type(raw) is not list:
                raise ProtocolError(f"{where}: must be a list")
            if read_item is None:  # wire values: wire.decode checks them
                return raw
            return [read_item(v, where) for v in raw]

        return read_list
    if origin is dict:
        item = args[1]
        read_value = None if item is typing.Any else _reader(item)

        def read_dict(raw, where):
            if type(raw) is not dict:
                raise ProtocolError(f"{where}: must be an object")
            if read_value is None:  # wire values (JSON's keys are strings)
                return raw
            return {key: read_value(v, f"{where}[{key[:40]!r}]") for key, v in raw.items()}

        return read_dict
    if isinstance(hint, type) and issubclass(hint, Message):
        return lambda raw, where: hint.from_wire(raw)
    name = getattr(hint, "__name__", hint)
    if hint is type(None):
        accepts = lambda raw: raw is None  # noqa: E731
    elif hint is float:
        accepts = lambda raw: type(raw) in (int, float)  # noqa: E731
    else:
        accepts = lambda raw: type(raw) is hint  # noqa: E731

    def read_value(raw, where):
        if accepts(raw):
            return raw
        raise ProtocolError(f"{where}: must be {name}")

    return read_value


def dumps(message: Message) -> bytes:
    """The payload of a frame: the message as JSON in UTF-8 (lone surrogates of the student's text pass)."""
    return json.dumps(message.to_wire(), ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def loads(data: bytes, kinds: dict) -> Message:
    """The message of one of `kinds` a frame's payload holds, or ProtocolError."""
    try:
        raw = json.loads(data.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError):
        raise ProtocolError("the frame is not JSON") from None
    try:
        return Message.from_wire(raw, kinds)
    except RecursionError:
        raise ProtocolError("the message is nested too deep") from None


def read(data: bytes) -> "Answer":
    """An answer from the sandbox, which is hostile: never raises; `Malformed` for anything that is no answer."""
    try:
        return loads(data, ANSWERS)
    except ProtocolError as e:
        return Malformed(reason=str(e)[:300])


def read_output(data: bytes) -> "Output | None":
    """An output of the running cell from the sandbox: never raises; None for anything that is no output."""
    try:
        return loads(data, OUTPUTS)
    except ProtocolError:
        return None


# -- the grader's first frame -----------------------------------------------------------------------
@message("install", SETUP)
class Install(Message):
    """The modules the sandbox's bootstrap installs, in order: [name, source] pairs (`autograder.wall.host.BOOTSTRAP`
    reads this frame with `json` alone, since this module is one of them)."""

    modules: list[list[str]]


# -- requests: grader → sandbox ---------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Request(Message):
    """Every request carries the wall-clock seconds the sandbox gives it (`wall`, set by the session)
    and the CPU seconds a call under it may take (`seconds`, set by `autograder.wall.remote` from the
    Evaluator's settings for every request it sends)."""

    wall: float | None = None
    seconds: float = 60


@message("run_cell", REQUESTS)
class RunCell(Request):
    source: str
    max_chars: int  # KernelSession.max_output_chars


@message("ref", ARGUMENTS)
class Ref(Message):
    """An argument that is a function of the notebook, passed by name."""

    name: str


@message("plain", ARGUMENTS)
class Plain(Message):
    """An argument that is plain data (in `wire`'s format)."""

    value: typing.Any


@message("describe", REQUESTS)
class Describe(Request):
    names: list[str]


@message("call", REQUESTS)
class Call(Request):
    """Call a function of the notebook (or a course check helper on it) under a CPU limit; `gc_off`:
    without the garbage collector (a call the grader times)."""

    name: str
    args: list[Ref | Plain] = field(default_factory=list)
    kwargs: dict[str, Ref | Plain] = field(default_factory=dict)
    helper: str | None = None
    gc_off: bool = False


@message("collect", REQUESTS)
class Collect(Request):
    """Collect the garbage; `trim`: and give the freed heap back to the system (before the grader
    watches the sandbox's memory from outside)."""

    trim: bool = False


@message("next", REQUESTS)
class Next(Request):
    """The next items of a generator the notebook returned: up to `count`."""

    handle: int
    count: int = 1


@message("lines", ARGUMENTS)
class Lines(Message):
    """An argument that is an iterator of lines the grader supplies while a Stream runs."""


@message("stream", REQUESTS)
class Stream(Request):
    """Call a function of the notebook with the grader's lines (a `Lines` argument) and run the iterator it
    returns to its end. Whenever the lines are asked for the next one, the sandbox sends `Yielded` with the
    items that came out since its last frame and waits for `NextLines` or `NoMoreLines`; the rest of the items
    come in the answer, `Items` (its `end`: Stop, or what stopped it; None when `max_items` were reached).
    `overrides`: names the notebook defines, set for the call and restored after (e.g. a cache's limit)."""

    name: str
    args: list[Ref | Plain | Lines] = field(default_factory=list)
    kwargs: dict[str, Ref | Plain | Lines] = field(default_factory=dict)
    overrides: dict[str, Plain] = field(default_factory=dict)
    max_items: int


@message("next_lines", REPLIES)
class NextLines(Message):
    """The next lines of a Stream's input (wire values), in order: one when the grader counts when each item
    comes out, a few at once when it watches only the memory (`autograder.wall.remote.Remote.stream`). The
    sandbox asks for more once it has taken all of them."""

    values: list[typing.Any]


@message("no_more_lines", REPLIES)
class NoMoreLines(Message):
    """A Stream's input has ended."""


@message("release", REQUESTS)
class Release(Request):
    """Forget the generators handed out for the test that ended."""


# -- answers: sandbox → grader ----------------------------------------------------------------------
class Answer(Message):
    pass


@message("ready", ANSWERS)
class Ready(Answer):
    """The sandbox's first frame: it installed the modules and serves requests."""


@message("done", ANSWERS)
class Done(Answer):
    """A request that has nothing to return (collect, release)."""


@message("cell_done", ANSWERS)
class CellDone(Answer):
    """A cell ran to its end, or stopped at `error`."""

    error: "Error | None" = None


@message("value", ANSWERS)
class Value(Answer):
    value: typing.Any  # in wire's format


@message("function", ANSWERS)
class Function(Answer):
    """A described name that is a function of the notebook."""


@message("missing", ANSWERS)
class Missing(Answer):
    """A described name the notebook does not define."""


@message("unsupported", ANSWERS)
class Unsupported(Answer):
    """A value of a type that cannot cross (named)."""

    type_name: str


@message("iterator", ANSWERS)
class Iterator(Answer):
    """A generator, kept in the kernel under `handle` (its items come with Next)."""

    handle: int


@message("error", ANSWERS)
class Error(Answer):
    """An exception: its type's name, message, the notebook's line it passed through, and the names of
    the built-in classes it derives from, nearest first. The one error shape of every answer, and of a
    cell's error output (with the `traceback` IPython shows)."""

    type: str
    message: str
    where: str = ""
    bases: list[str] = field(default_factory=list)
    traceback: list[str] = field(default_factory=list)  # as IPython shows it: a cell's error output only

    @classmethod
    def agent(cls, message: str) -> "Error":
        """A request the agent could not serve."""
        return cls(type="AgentError", message=message)


@message("timeout", ANSWERS)
class Timeout(Answer):
    """A limit ran out: the call's CPU seconds ("cpu"), or the wall-clock time of a cell or request ("wall")."""

    limit: typing.Literal["cpu", "wall"]


@message("stop", ANSWERS)
class Stop(Answer):
    """A generator ended."""


@message("yielded", ANSWERS)
class Yielded(Answer):
    """In the middle of a Stream, not its answer: the items (wire values) that came out since the previous
    frame; `wants_line`: the input is asked for its next line (the grader replies NextLines or NoMoreLines)."""

    items: list[typing.Any]
    wants_line: bool = True


@message("names", ANSWERS)
class Names(Answer):
    """What each described name is."""

    names: dict[str, Value | Function | Missing | Unsupported]


@message("items", ANSWERS)
class Items(Answer):
    """A generator's next items (wire values), and what ended them: None while it goes on."""

    items: list[typing.Any]
    end: Stop | Error | Timeout | Unsupported | None = None


# -- a running cell's outputs: sandbox → grader, under the RunCell's sequence number with OUTPUT set --
class Output(Message):
    pass


@message("text", OUTPUTS)
class StreamText(Output):
    """Text the cell wrote to one of its streams."""

    name: typing.Literal["stdout", "stderr"]
    text: str


@message("display", OUTPUTS)
class DisplayData(Output):
    """What `display` showed: values by MIME type (an image as base64 text; JSON data under a JSON type)."""

    data: dict[str, typing.Any]
    metadata: dict[str, typing.Any] = field(default_factory=dict)


@message("result", OUTPUTS)
class ExecuteResult(Output):
    """The value of the cell's last expression, as `display` would show it."""

    data: dict[str, typing.Any]
    metadata: dict[str, typing.Any] = field(default_factory=dict)
    execution_count: int | None = None


@message("clear", OUTPUTS)
class ClearOutput(Output):
    """The cell cleared its outputs so far (`clear_output`)."""


@message("cut", OUTPUTS)
class OutputCut(Output):
    """The sandbox left the rest of the cell's outputs out (they passed its share of `RunCell.max_chars`)."""


OUTPUTS[Error.kind] = Error  # an error output: the one error shape, with its traceback


@dataclass(frozen=True, kw_only=True)
class Malformed(Answer):
    """Not an answer (the grader's own reading of a frame; never on the wire, never in ANSWERS)."""

    kind = "malformed"
    reason: str
