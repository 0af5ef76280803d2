"""Plain data across the sandbox wall: the only thing the grader accepts from a student's kernel.

A value crosses as JSON in which every container is tagged, so that the reader rebuilds exactly
the built-in types it names and nothing else:

    None, bool, int, float, str   as themselves (NaN and ±inf as JSON's NaN/Infinity)
    list  {"L": [...]}     tuple  {"T": [...]}     dict  {"D": [[key, value], ...]}
    set   {"S": [...]}     frozenset {"F": [...]}  bytes {"B": "<base64>"}

`decode` is the grader's side and trusts nothing: it refuses any other shape, values nested deeper
than `max_depth` and more than `max_items` elements, so a hostile kernel can make a call fail but
can never hand the grader an object with behaviour of its own (an `__eq__` that says yes to
everything), exhaust its memory or stack, or make it build a set of values that all share one hash.
(The frame that carries a value is size-capped and parsed as JSON by the channel that reads it:
autograder.wall.session.)

`encode` is the sender's side: the agent in the kernel encodes answers with it (and the grader a
test's arguments). In the student's process nothing depends on it being honest; it converts
subclasses of the built-in types through the base type's own methods (a `Counter` crosses as the dict it is), and names the type of anything else (`Unsupported`).
This module uses only the standard library: the grader sends its source into the kernel.
"""  # noqa: E501

import base64

MAX_DEPTH = 64
MAX_ITEMS = 2_000_000
MAX_SAME_HASH = 32  # distinct elements of one container that may share a hash
_SMALL = 2**61 - 1  # ints below this in size hash to themselves (CPython): they cannot flood


class WireError(ValueError):
    """A payload that is not plain data within the limits."""


class Unsupported(TypeError):
    """A value of a type that cannot cross (raised on the kernel's side, with the type's name)."""

    def __init__(self, type_name: str):
        super().__init__(type_name)
        self.type_name = type_name


def _encode(value, depth: int):
    if depth > MAX_DEPTH:
        raise Unsupported("слишком глубоко вложенный объект")
    kind = type(value)
    if value is None or kind in (bool, str, int, float):
        return value
    if kind is list:
        return {"L": [_encode(v, depth + 1) for v in value]}
    if kind is tuple:
        return {"T": [_encode(v, depth + 1) for v in value]}
    if kind is dict:
        return {"D": [[_encode(k, depth + 1), _encode(v, depth + 1)] for k, v in value.items()]}
    if kind is bytes:
        return {"B": base64.b64encode(value).decode("ascii")}
    if kind is set:
        return {"S": [_encode(v, depth + 1) for v in value]}
    if kind is frozenset:
        return {"F": [_encode(v, depth + 1) for v in value]}
    # subclasses of the built-in types cross as their base type, read through the base's methods
    if isinstance(value, dict):
        return {"D": [[_encode(k, depth + 1), _encode(v, depth + 1)] for k, v in dict.items(value)]}
    if isinstance(value, tuple) and not isinstance(value, (str, bytes)):
        return {"T": [_encode(v, depth + 1) for v in tuple.__iter__(value)]}
    if isinstance(value, list):
        return {"L": [_encode(v, depth + 1) for v in list.__iter__(value)]}
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, bytes):
        return {"B": base64.b64encode(bytes(memoryview(value))).decode("ascii")}
    if isinstance(value, frozenset):
        return {"F": [_encode(v, depth + 1) for v in frozenset.__iter__(value)]}
    if isinstance(value, set):
        return {"S": [_encode(v, depth + 1) for v in set.__iter__(value)]}
    raise Unsupported(f"{kind.__module__}.{kind.__qualname__}" if kind.__module__ != "builtins" else kind.__name__)


def encode(value):
    """The JSON structure of `value`; raises Unsupported naming the first type that cannot cross."""
    return _encode(value, 0)


def decode(raw, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS):
    """The plain value of a parsed JSON structure, or WireError. Only exact built-in types come out."""
    return _decode(raw, 0, max_depth, [max_items])


def _decode(raw, depth: int, max_depth: int, budget: list):
    if depth > max_depth:
        raise WireError(f"the value is nested deeper than {max_depth} levels")
    budget[0] -= 1
    if budget[0] < 0:
        raise WireError("the value has too many elements")
    kind = type(raw)
    if raw is None or kind in (bool, str, int, float):
        return raw
    if kind is not dict or len(raw) != 1:
        raise WireError(f"unexpected {kind.__name__} in the payload")
    ((tag, body),) = raw.items()
    if tag in ("L", "T"):
        if type(body) is not list:
            raise WireError(f"a {tag} tag must hold a list")
        items = [_decode(v, depth + 1, max_depth, budget) for v in body]
        _no_hash_flood(items, hashable_only=True)
        return items if tag == "L" else tuple(items)
    if tag in ("S", "F"):
        if type(body) is not list:
            raise WireError(f"a {tag} tag must hold a list")
        items = [_decode(v, depth + 1, max_depth, budget) for v in body]
        _no_hash_flood(items)
        try:
            return set(items) if tag == "S" else frozenset(items)
        except TypeError:
            raise WireError("a set element is not hashable") from None
    if tag == "D":
        if type(body) is not list:
            raise WireError("a D tag must hold a list of pairs")
        pairs = []
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise WireError("a D tag must hold [key, value] pairs")
            pairs.append(
                (_decode(pair[0], depth + 1, max_depth, budget), _decode(pair[1], depth + 1, max_depth, budget))
            )
        _no_hash_flood([key for key, _ in pairs])
        try:
            return dict(pairs)
        except TypeError:
            raise WireError("a dict key is not hashable") from None
    if tag == "B":
        if type(body) is not str:
            raise WireError("a B tag must hold base64 text")
        try:
            return base64.b64decode(body.encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError):
            raise WireError("a B tag must hold base64 text") from None
    raise WireError(f"unknown tag {tag!r} in the payload")


def _no_hash_flood(items: list, hashable_only: bool = False) -> None:
    """Refuse many distinct values that share one hash (ints that differ by multiples of 2**61 − 1,
    crafted tuples): a set or dict of them, or one a test builds from a list, takes quadratic time.
    Linear: each value is hashed once and compared with at most MAX_SAME_HASH others. Strings and
    bytes are skipped (their hashes are salted per process); so are small ints (their own hashes)."""
    first: dict = {}  # hash → the first value with it
    more: dict = {}  # hash → the other distinct values with it (rare in honest data)
    for value in items:
        kind = type(value)
        if kind is int:
            if -_SMALL < value < _SMALL:
                continue
        elif kind is not tuple and kind is not float and kind is not frozenset:
            if hashable_only or kind is str or kind is bytes or kind is bool or value is None:
                continue
        try:
            h = hash(value)
        except TypeError:
            if hashable_only:
                continue
            raise WireError("a set element or dict key is not hashable") from None
        seen = first.get(h, first)
        if seen is first:
            first[h] = value
            continue
        if value is seen or value == seen:
            continue
        others = more.setdefault(h, [])
        if any(value is other or value == other for other in others):
            continue
        if len(others) + 1 >= MAX_SAME_HASH:
            raise WireError(f"more than {MAX_SAME_HASH} different values share one hash (a hash-collision flood)")
        others.append(value)
