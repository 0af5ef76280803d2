"""The wire: only plain data crosses from the student's kernel, within limits."""

import json
from collections import Counter, OrderedDict, namedtuple

import pytest

from autograder.wall import wire


def crossed(value):
    """`value` as a test in the grader gets it from the kernel: encoded (the agent), sent as JSON, decoded."""
    return wire.decode(json.loads(json.dumps(wire.encode(value), ensure_ascii=False)))


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -5,
        2**100,
        1.5,
        float("inf"),
        "",
        "привет ₽ € 🙂",
        b"\x00\xff",
        [],
        (),
        {},
        [1, (2, 3), {"a": [b"x"]}],
        {(104, 105): 256, (256, 32): 257},
        {1, 2},
        frozenset({"a"}),
        [[[[]]]],
    ],
)
def test_plain_values_cross_unchanged_with_their_exact_types(value):
    back = crossed(value)
    assert back == value and type(back) is type(value)
    if isinstance(value, (list, tuple)):
        assert [type(x) for x in back] == [type(x) for x in value]


def test_subclasses_cross_as_their_base_type_read_through_the_base():
    class Sneaky(dict):
        def items(self):
            return [("forged", 1)]

        def __eq__(self, other):
            return True

    value = Sneaky(real=1)
    assert crossed(value) == {"real": 1}
    assert type(crossed(Counter("aab"))) is dict
    assert crossed(OrderedDict(b=1, a=2)) == {"b": 1, "a": 2}
    Pair = namedtuple("Pair", "a b")
    assert type(crossed(Pair(1, 2))) is tuple
    assert crossed(type("S", (str,), {"__eq__": lambda s, o: True})("x")) == "x"


@pytest.mark.parametrize("value", [object(), lambda: 1, bytearray(b"x"), range(3), 1j])
def test_anything_else_is_named_not_sent(value):
    with pytest.raises(wire.Unsupported):
        wire.encode(value)


@pytest.mark.parametrize(
    "payload, problem",
    [
        ('{"X": 1}', "unknown tag"),
        ("[1, 2]", "unexpected list"),
        ('{"L": 1}', "must hold a list"),
        ('{"D": [[{"L": []}, 1]]}', "not hashable"),
        ('{"B": "not base64!"}', "base64"),
        ('{"L": [' * 100 + "]}" * 100, "nested deeper"),
        ('{"S": [{"L": []}]}', "not hashable"),
    ],
)
def test_the_reader_refuses_what_is_not_plain_data(payload, problem):
    with pytest.raises(wire.WireError, match=problem):
        wire.decode(json.loads(payload))


def test_the_element_limit():
    with pytest.raises(wire.WireError, match="too many"):
        wire.decode(wire.encode(list(range(1000))), max_items=100)


M = 2**61 - 1  # ints that differ by multiples of it hash alike


@pytest.mark.parametrize(
    "flood",
    [
        lambda n: {"S": [k * M for k in range(1, n)]},  # a set of ints that all hash to 0
        lambda n: {"F": [{"T": [k * M]} for k in range(1, n)]},  # tuples of them
        lambda n: {"D": [[k * M, 0] for k in range(1, n)]},  # dict keys
        lambda n: {"L": [k * M for k in range(1, n)]},  # a list a test may turn into a set
    ],
)
def test_a_hash_collision_flood_is_refused_in_linear_time(flood):
    # what a kernel that replaced its own encoder sends (built here as JSON: as Python sets they would
    # take the test itself minutes); 40k of them took 37 s to decode before
    n = 40_000
    with pytest.raises(wire.WireError, match="share one hash"):
        wire.decode(flood(n))


class CountingList(list):
    """A list that counts how many of its values were looked at."""

    seen = 0

    def __iter__(self):
        for value in super().__iter__():
            CountingList.seen += 1
            yield value


def test_the_flood_check_stops_after_a_bounded_number_of_colliding_values():
    """Counted work, not a stopwatch: the check looks at no more than MAX_SAME_HASH values of a flood
    before it refuses it, so refusing 40,000 costs what refusing 33 does."""
    CountingList.seen = 0
    with pytest.raises(wire.WireError, match="share one hash"):
        wire._no_hash_flood(CountingList(k * M for k in range(1, 40_000)))
    assert CountingList.seen <= wire.MAX_SAME_HASH + 1


def test_honest_values_that_share_a_few_hashes_still_cross():
    value = {-1: "a", -2: "b", M: "c", 0: "d", 0.5: "e", 2**60: "f"}  # -1/-2, 0/M and 0.5/2**60 hash alike
    assert crossed(value) == value
    tokens = [k * M for k in range(3)] * 1000  # many repeats of a few values: not a flood
    assert crossed(tokens) == tokens
