"""The messages between the course server and its grading workers: each a kind and typed fields, in one place.

Like the wall's protocol (autograder.wall.protocol): the code on either side handles these dataclasses only;
at the boundary — the queue (autograder.server.queue, huey on SQLite or Redis) — a message is a plain
object `{"kind": ..., field: value, ...}` (`to_wire`), which the queue pickles, and `from_wire` rebuilds it,
refusing an unknown kind, a kind not expected in that direction, and a missing, unknown or mistyped field.
The plain form is what waits in the queue across a restart of the server, so it holds no class of ours.

`GradeJob` goes from the server to a worker (one submitted file to grade), `Graded` comes back (its
result and feedback page). The result travels as `Result.to_dict()` and is rebuilt by `result_from_dict`.
"""

import dataclasses
import types
import typing
from dataclasses import dataclass

from ..notebook.results import Result, result_from_dict

TO_WORKER: dict = {}  # kind → message class (server → worker)
TO_SERVER: dict = {}  # kind → message class (worker → server)


class MessageError(ValueError):
    """A plain object that is not a message of the expected direction, kind and fields."""


def _accepts(hint, raw) -> bool:
    if hint is float:
        return type(raw) in (int, float)
    if hint is type(None):
        return raw is None
    return type(raw) is hint


class Message:
    kind: typing.ClassVar[str] = ""

    def to_wire(self) -> dict:
        wire = {"kind": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            wire[f.name] = value.to_dict() if isinstance(value, Result) else value
        return wire

    @classmethod
    def from_wire(cls, raw, kinds: dict | None = None) -> "Message":
        """The message `raw` holds, of one of `kinds` (default: this class's own), or MessageError."""
        kinds = kinds if kinds is not None else {cls.kind: cls}
        if type(raw) is not dict:
            raise MessageError(f"a message is a dict, not {type(raw).__name__}")
        kind = raw.get("kind")
        if type(kind) is not str or kind not in kinds:
            raise MessageError(f"unexpected message kind {str(kind)[:40]!r}")
        message_class = kinds[kind]
        hints = typing.get_type_hints(message_class)
        fields = {f.name: f for f in dataclasses.fields(message_class)}
        unknown = set(raw) - set(fields) - {"kind"}
        if unknown:
            raise MessageError(f"a {kind} message has no field {sorted(map(str, unknown))[0][:40]!r}")
        values = {}
        for name, f in fields.items():
            if name not in raw:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise MessageError(f"a {kind} message lacks its field {name!r}")
                continue
            values[name] = _read(hints[name], raw[name], f"{kind}.{name}")
        return message_class(**values)


def _read(hint, raw, where: str):
    options = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    for option in options:
        if option is Result:
            if type(raw) is dict:
                try:
                    return result_from_dict(raw)
                except (TypeError, KeyError, AttributeError) as e:
                    raise MessageError(f"{where}: not a result ({type(e).__name__}: {e})"[:300]) from None
        elif _accepts(option, raw):
            return raw
    names = " or ".join(getattr(o, "__name__", str(o)) for o in options)
    raise MessageError(f"{where}: must be {names}, not {type(raw).__name__}")


def message(kind: str, table: dict):
    """Register a frozen dataclass as the message of `kind` in `table` (TO_WORKER or TO_SERVER)."""

    def register(cls):
        cls = dataclass(frozen=True, kw_only=True)(cls)
        cls.kind = kind
        table[kind] = cls
        return cls

    return register


@message("grade", TO_WORKER)
class GradeJob(Message):
    """One submitted file to grade: the job's id (`attempt`: the server's, for the log), the student's id and
    name (for the feedback page), the course notebook it is graded as, the file's bytes, and the notebook's
    points (the score of a job its worker lost)."""

    attempt: str
    student: str
    name: str
    notebook: str
    content: bytes
    max_score: float


@message("graded", TO_SERVER)
class Graded(Message):
    """A job's answer: its result, and its feedback page (None if it could not be made; why, in the result)."""

    result: Result
    feedback: str | None = None
