"""The typed messages at the wall (autograder.wall.protocol): every message survives its round trip,
and every frame a hostile sandbox can send that is not a well-formed answer is the kernel's failure to
answer — a clear message in the grader, never a crash of it."""

import json
import sys

import pytest
from local_session import remote_of

from autograder.wall import protocol
from autograder.wall.remote import Opaque, RemoteFunction, RemoteIterator, StudentException

ERROR = protocol.Error(type="EmptyTokens", message="пусто \ud800", where="строка 3: x", bases=["ValueError"])
REQUESTS = [
    protocol.RunCell(source="print(1)", max_chars=10, wall=5.0),
    protocol.Describe(names=["a", "b"]),
    protocol.Call(
        name="f", args=[protocol.Plain(value={"L": [1]}), protocol.Ref(name="g")], kwargs={"k": protocol.Plain(value=2)}
    ),
    protocol.Call(name="f", helper="changed_args", gc_off=True, seconds=3, wall=9),
    protocol.Collect(),
    protocol.Collect(trim=True),
    protocol.Stream(
        name="g",
        args=[protocol.Lines(), protocol.Plain(value=1)],
        kwargs={"k": protocol.Ref(name="h")},
        overrides={"CACHE_LIMIT": protocol.Plain(value=64)},
        max_items=10,
    ),
    protocol.Next(handle=3, count=8),
    protocol.Release(),
]
ANSWERS = [
    protocol.Ready(),
    protocol.Done(),
    protocol.CellDone(),
    protocol.CellDone(error=ERROR),
    protocol.Value(value={"D": [["a", 1]]}),
    protocol.Iterator(handle=1),
    protocol.Unsupported(type_name="numpy.int64"),
    ERROR,
    protocol.Timeout(limit="cpu"),
    protocol.Timeout(limit="wall"),
    protocol.Names(names={"f": protocol.Function(), "x": protocol.Value(value=1), "m": protocol.Missing()}),
    protocol.Items(items=[1, 2]),
    protocol.Items(items=[], end=protocol.Stop()),
    protocol.Items(items=[1], end=ERROR),
    protocol.Items(items=[1], end=protocol.Timeout(limit="cpu")),
    protocol.Yielded(items=[1, 2]),
    protocol.Yielded(items=[], wants_line=False),
]
REPLIES = [protocol.Line(value="строка \ud800"), protocol.Line(value={"L": [1]}), protocol.NoMoreLines()]


@pytest.mark.parametrize("message", REQUESTS, ids=lambda m: m.kind)
def test_every_request_comes_back_as_itself(message):
    assert protocol.loads(protocol.dumps(message), protocol.REQUESTS) == message


@pytest.mark.parametrize("message", ANSWERS, ids=lambda m: m.kind)
def test_every_answer_comes_back_as_itself(message):
    assert protocol.read(protocol.dumps(message)) == message


@pytest.mark.parametrize("message", REPLIES, ids=lambda m: m.kind)
def test_every_reply_in_the_middle_of_a_stream_comes_back_as_itself_and_is_no_request(message):
    assert protocol.loads(protocol.dumps(message), protocol.REPLIES) == message
    with pytest.raises(protocol.ProtocolError):
        protocol.loads(protocol.dumps(message), protocol.REQUESTS)
    assert isinstance(protocol.read(protocol.dumps(message)), protocol.Malformed)


def test_a_stream_is_one_conversation_the_grader_counts():
    # the grader hands over each line; what came out before a line was asked for is counted against the lines given
    import local_session

    from bpe_course import checks

    session = local_session.LocalSession()
    assert session.run_cell("def g(lines, k):\n    for line in lines:\n        yield from [line] * k").error is None
    g = remote_of(session).bind({"g"})["g"]
    assert checks.stream_steps(g, ["a", "b"], 2) == ([(1, "a"), (1, "a"), (2, "b"), (2, "b")], 2, None)
    assert checks.stream_steps(g, [], 2) == ([], 0, None)
    assert session.run_cell("def g(lines, k):\n    yield next(iter(lines))\n    raise KeyError(k)").error is None
    pieces, taken, error = checks.stream_steps(g, ["a", "b", "c"], 7)
    assert pieces == [(1, "a")] and taken == 1 and isinstance(error, KeyError)


def test_a_request_is_no_answer_and_an_answer_no_request():
    # the sandbox cannot answer with a request (nor the grader's own Malformed), nor pass an answer as a request
    for request in REQUESTS:
        assert isinstance(protocol.read(protocol.dumps(request)), protocol.Malformed)
    assert isinstance(protocol.read(b'{"kind":"malformed","reason":"x"}'), protocol.Malformed)
    with pytest.raises(protocol.ProtocolError):
        protocol.loads(protocol.dumps(protocol.Done()), protocol.REQUESTS)


DEEP = "[" * (sys.getrecursionlimit() + 50) + "]" * (sys.getrecursionlimit() + 50)
MALFORMED = {
    "not JSON": b"{",
    "not UTF-8": b"\xff\xfe",
    "a list": b"[1, 2]",
    "no kind": b'{"value": 1}',
    "the old shape of an answer": b'{"error": null, "timeout": true}',
    "an unknown kind": b'{"kind": "teleport"}',
    "a kind that is not a string": b'{"kind": ["value"]}',
    "a missing field": b'{"kind": "iterator"}',
    "an unknown field": b'{"kind": "done", "score": 100}',
    "a mistyped field": b'{"kind": "iterator", "handle": "1"}',
    "a bool for an int": b'{"kind": "iterator", "handle": true}',
    "a timeout of another limit": b'{"kind": "timeout", "limit": "never"}',
    "a timeout as a bool": b'{"kind": "timeout", "limit": true}',
    "an error as a two-item list": b'{"kind": "cell_done", "error": ["E", "m"]}',
    "an error without a message": b'{"kind": "error", "type": "E"}',
    "bases that are not names": b'{"kind": "error", "type": "E", "message": "m", "bases": [{"x": 1}]}',
    "a name described as a request": b'{"kind": "names", "names": {"f": {"kind": "call", "name": "f"}}}',
    "names that are a list": b'{"kind": "names", "names": ["f"]}',
    "items that end in a value": b'{"kind": "items", "items": [], "end": {"kind": "value", "value": 1}}',
    "nested as deep as JSON goes": ('{"kind": "items", "items": [], "end": ' + DEEP + "}").encode(),
    "a value nested too deep for JSON": ('{"kind": "value", "value": ' + DEEP + "}").encode(),
}


@pytest.mark.parametrize("data", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_frame_that_is_no_well_formed_answer_is_malformed_with_a_reason(data):
    answer = protocol.read(data)
    assert isinstance(answer, protocol.Malformed) and answer.reason


class Answers:
    """A session whose sandbox answers every request with `data` (what a patched host can send)."""

    dead = None

    def __init__(self, data: bytes):
        self.data = data

    def request(self, request, timeout):
        return protocol.read(self.data)


@pytest.mark.parametrize("data", MALFORMED.values(), ids=MALFORMED.keys())
def test_every_malformed_answer_fails_the_check_with_a_clear_message_and_nothing_else(data):
    from bpe_course import checks

    remote = remote_of(Answers(data))
    for ask in (lambda: remote.bind({"f"}), lambda: remote.call("f", (), {}), lambda: remote.next_items(1, "f", 1)):
        with pytest.raises(checks.CheckFailed, match="не по протоколу"):
            result = ask()
            if isinstance(result, tuple):  # next_items reports what ended the items
                raise result[1]


def test_an_answer_of_the_wrong_kind_for_its_request_is_no_result():
    from bpe_course import checks

    for wrong in (protocol.Ready(), protocol.Done(), protocol.Names(names={}), protocol.Stop(), protocol.CellDone()):
        with pytest.raises(checks.CheckFailed, match="не дало ответа"):
            remote_of(Answers(protocol.dumps(wrong))).call("f", (), {})
    with pytest.raises(checks.CheckFailed, match="описание имён"):
        remote_of(Answers(protocol.dumps(protocol.Value(value=1)))).bind({"f"})


def test_answers_are_read_by_their_kind():
    from bpe_course import checks

    def call(answer):
        return remote_of(Answers(protocol.dumps(answer))).call("f", (), {})

    assert call(protocol.Value(value={"T": [1, 2]})) == (1, 2)
    assert isinstance(call(protocol.Iterator(handle=4)), RemoteIterator)
    assert repr(call(protocol.Unsupported(type_name="numpy.int64"))) == repr(Opaque("numpy.int64"))
    with pytest.raises(checks.TookTooLong) as cpu:
        call(protocol.Timeout(limit="cpu"))
    with pytest.raises(checks.TookTooLong) as wall:
        call(protocol.Timeout(limit="wall"))
    assert str(cpu.value) != str(wall.value)
    with pytest.raises(ValueError) as raised:
        call(ERROR)
    assert isinstance(raised.value, StudentException) and type(raised.value).__name__ == "EmptyTokens"
    bound = remote_of(Answers(protocol.dumps(ANSWERS[10]))).bind({"f", "x", "m"})
    assert isinstance(bound["f"], RemoteFunction) and bound["x"] == 1 and "m" not in bound


def test_items_and_what_ended_them():
    def items(answer):
        return remote_of(Answers(protocol.dumps(answer))).next_items(1, "g", 4)

    assert items(protocol.Items(items=[1, 2])) == ([1, 2], None)
    values, end = items(protocol.Items(items=[1], end=protocol.Stop()))
    assert values == [1] and isinstance(end, StopIteration)
    values, end = items(protocol.Items(items=[1], end=ERROR))
    assert values == [1] and isinstance(end, ValueError)
    values, end = items(protocol.Items(items=[], end=protocol.Unsupported(type_name="T")))
    assert isinstance(values[0], Opaque) and end is None


def test_the_one_error_shape_is_the_same_in_a_cell_and_in_a_call():
    wire = ERROR.to_wire()
    assert protocol.CellDone(error=ERROR).to_wire()["error"] == wire
    assert protocol.Items(items=[], end=ERROR).to_wire()["end"] == wire
    assert json.loads(protocol.dumps(ERROR).decode("utf-8", "surrogatepass")) == wire


def test_adding_an_operation_is_one_request_class():
    # the agent serves a request by its kind; the framing, the session and the reading of answers stay as they are
    from autograder.wall import agent

    for kind in protocol.REQUESTS:
        if kind != "run_cell":  # the host runs cells
            assert callable(getattr(agent.Agent, "op_" + kind, None)), kind
