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
REPLIES = [
    protocol.NextLines(values=["строка \ud800"]),
    protocol.NextLines(values=[{"L": [1]}, "b"]),
    protocol.NoMoreLines(),
]


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


def test_while_only_memory_is_watched_lines_go_a_few_at_a_time_and_the_last_alone():
    # fewer round trips where no timeline is kept; a generator that stops before the input's end is still seen to
    import local_session

    from autograder.wall.remote import MEMORY_BATCH
    from bpe_course import checks

    session = local_session.LocalSession()
    replies = []
    request = session.request

    def counted(message, timeout, feed=None):
        def watched(frame):
            reply = feed(frame)
            replies.append(reply)
            return reply

        return request(message, timeout, feed=watched if feed else None)

    session.request = counted
    source = "def every(lines):\n    for line in lines:\n        yield len(line)\n"
    source += "def all_but_last(lines):\n    for k, line in zip(range(20 - 1), lines):\n        yield k\n"
    assert session.run_cell(source).error is None
    bound = remote_of(session).bind({"every", "all_but_last"})
    assert len(checks.stream_memory(bound["every"], [20])) == 1
    sizes = [len(r.values) for r in replies if isinstance(r, protocol.NextLines)]
    assert sizes == [MEMORY_BATCH, MEMORY_BATCH, 20 - 2 * MEMORY_BATCH - 1, 1] and MEMORY_BATCH > 1
    with pytest.raises(checks.CheckFailed, match="прочитала не все строки входа \\(19 из 20\\)"):
        checks.stream_memory(bound["all_but_last"], [20])
    replies.clear()  # where a timeline is kept, one line at a time
    assert checks.stream_steps(bound["every"], ["ab", "c"]) == ([(1, 2), (2, 1)], 2, None)
    assert [len(r.values) for r in replies if isinstance(r, protocol.NextLines)] == [1, 1]


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
    # fields of wire values (typed Any inside) are read without a walk of their items, but their container is checked
    "items that are no list": b'{"kind": "items", "items": {"L": [1]}}',
    "yielded items that are a string": b'{"kind": "yielded", "items": "12"}',
    "a value missing": b'{"kind": "value"}',
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


# -- every frame is a message: a cell's outputs and the grader's first frame too (issue 29 item 9) -----
OUTPUTS = [
    protocol.StreamText(name="stdout", text="шаг 1 \ud800\n"),
    protocol.StreamText(name="stderr", text=""),
    protocol.DisplayData(data={"text/plain": "x", "image/png": "iVBORw0KGgo="}, metadata={"isolated": True}),
    protocol.DisplayData(data={"application/json": {"a": [1, None]}}),
    protocol.ExecuteResult(data={"text/plain": "42"}, execution_count=3),
    protocol.ExecuteResult(data={"text/plain": "42"}),
    protocol.Error(type="ValueError", message="m", traceback=["\x1b[31mValueError\x1b[0m: m"]),
    protocol.ClearOutput(),
    protocol.OutputCut(),
]


@pytest.mark.parametrize("message", OUTPUTS, ids=lambda m: m.kind)
def test_every_output_comes_back_as_itself_and_is_no_answer_where_an_answer_goes(message):
    assert protocol.read_output(protocol.dumps(message)) == message
    if not isinstance(message, protocol.Error):  # the one error shape is an answer too
        assert isinstance(protocol.read(protocol.dumps(message)), protocol.Malformed)


def test_the_graders_first_frame_is_a_message_the_bootstrap_reads_with_json_alone():
    from autograder.wall import host

    install = protocol.Install(modules=[["_bpe_x", "X = 1"]])
    assert protocol.loads(protocol.dumps(install), protocol.SETUP) == install
    assert json.loads(protocol.dumps(install))["modules"] == [["_bpe_x", "X = 1"]]
    assert '"install"' in host.BOOTSTRAP and 'install["modules"]' in host.BOOTSTRAP


MALFORMED_OUTPUTS = {
    "the old shape of an output": b'{"output_type": "stream", "name": "stdout", "text": "x"}',
    "an answer where an output goes": b'{"kind": "value", "value": 1}',
    "a stream of another name": b'{"kind": "text", "name": "stdin", "text": "x"}',
    "text that is not a string": b'{"kind": "text", "name": "stdout", "text": ["x"]}',
    "data that is a list": b'{"kind": "display", "data": ["x"]}',
    "metadata that is a list": b'{"kind": "display", "data": {}, "metadata": []}',
    "a count that is a bool": b'{"kind": "result", "data": {}, "execution_count": true}',
    "an error without a type": b'{"kind": "error", "message": "m", "traceback": []}',
    "a traceback of lists": b'{"kind": "error", "type": "E", "message": "m", "traceback": [["x"]]}',
    "nested as deep as JSON goes": (
        '{"kind": "error", "type": "E", "message": "m", "traceback": ' + DEEP + "}"
    ).encode(),
}


@pytest.mark.parametrize("data", MALFORMED_OUTPUTS.values(), ids=MALFORMED_OUTPUTS.keys())
def test_an_output_frame_that_is_no_well_formed_output_is_left_out(data):
    from autograder.wall.cell_outputs import LimitedOutputs

    assert protocol.read_output(data) is None
    outputs = LimitedOutputs(1000)
    outputs.add_frame(data)
    assert outputs.outputs == []


def test_outputs_are_rebuilt_by_their_kind_as_nbformat_outputs():
    import nbformat

    from autograder.wall.cell_outputs import LimitedOutputs

    outputs = LimitedOutputs(200_000)
    for message in OUTPUTS[:-2]:
        outputs.add_frame(protocol.dumps(message))
    kinds = [o.output_type for o in outputs.outputs]
    assert kinds == ["stream", "stream", "display_data", "display_data", "execute_result", "execute_result", "error"]
    assert outputs.outputs[-1].ename == "ValueError" and outputs.outputs[-1].traceback == OUTPUTS[6].traceback
    nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", outputs=outputs.outputs)]))
    outputs.add_frame(protocol.dumps(protocol.ClearOutput()))
    assert outputs.outputs == []
    outputs.add_frame(protocol.dumps(protocol.OutputCut()))
    assert outputs.cut and "обрезан" in outputs.outputs[-1].text


def test_every_message_kind_is_one_class_in_one_direction():
    tables = {"REQUESTS": protocol.REQUESTS, "ANSWERS": protocol.ANSWERS, "REPLIES": protocol.REPLIES}
    tables |= {"ARGUMENTS": protocol.ARGUMENTS, "OUTPUTS": protocol.OUTPUTS, "SETUP": protocol.SETUP}
    for name, table in tables.items():
        for kind, cls in table.items():
            assert cls.kind == kind, (name, kind)
    # a kind names one class wherever it crosses: the error output is the one error shape
    by_kind: dict = {}
    for table in tables.values():
        for kind, cls in table.items():
            assert by_kind.setdefault(kind, cls) is cls, kind


def test_no_module_at_the_wall_parses_a_frame_but_the_protocol():
    # answers are read by their kind, not by which keys are present: only protocol.py turns a payload into data
    import ast
    from pathlib import Path

    from autograder.wall import protocol as module

    wall = Path(module.__file__).parent  # the modules that send or read frames (wire decodes the values in them)
    for path in [
        wall / f"{name}.py" for name in ("host", "agent", "session", "channel", "accounting", "remote", "cell_outputs")
    ]:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("loads", "load")
                and getattr(node.value, "id", "") == "json"
            ):
                raise AssertionError(f"{path.name}:{node.lineno} parses JSON itself")
            if isinstance(node, ast.Constant) and node.value in ("kind", "output_type"):
                raise AssertionError(f"{path.name}:{node.lineno} reads a message by its keys ({node.value!r})")


def test_every_frame_between_the_grader_and_a_real_sandbox_is_a_message_of_its_direction(monkeypatch):
    from autograder.wall import session as session_module
    from autograder.wall.sandbox import Sandbox, bwrap_works

    if not bwrap_works():
        pytest.skip("bubblewrap is not available (.ci/run installs it)")
    sent, received = [], []
    real_send, real_read = session_module.KernelSession.send, session_module.KernelSession.read_frame

    def send(self, sequence, payload, timeout):
        sent.append(payload)
        return real_send(self, sequence, payload, timeout)

    def read_frame(self, deadline, limit):
        sequence, data = real_read(self, deadline, limit)
        received.append((bool(sequence & session_module.OUTPUT), data))
        return sequence, data

    monkeypatch.setattr(session_module.KernelSession, "send", send)
    monkeypatch.setattr(session_module.KernelSession, "read_frame", read_frame)
    cell = (
        "from IPython.display import display, clear_output, HTML\nimport sys\n"
        "print('out'); print('err', file=sys.stderr); display(HTML('<b>x</b>')); clear_output()\n"
        "display({'a': 1}, raw=True)\n"
        "def g(lines):\n    for line in lines:\n        yield line\n"
        "def f(x):\n    return [x, (x,), {x: b'x'}]\n"
        "42"
    )
    from bpe_course import checks

    with session_module.KernelSession(Sandbox()) as session:
        run = session.run_cell(cell)
        assert run.error is None and [o.output_type for o in run.outputs] == ["display_data", "execute_result"]
        assert session.run_cell("raise KeyError('k')").error == ("KeyError", "'k'")
        remote = remote_of(session)
        bound = remote.bind({"f", "g"})
        assert bound["f"](1) == [1, (1,), {1: b"x"}]
        assert checks.stream_steps(bound["g"], ["a", "b"]) == ([(1, "a"), (2, "b")], 2, None)
        remote.release()
    first, *requests = sent
    assert protocol.loads(first, protocol.SETUP).kind == "install"
    for payload in requests:
        message = protocol.loads(payload, {**protocol.REQUESTS, **protocol.REPLIES})
        assert isinstance(message, protocol.Request | protocol.NextLines | protocol.NoMoreLines)
    kinds = set()
    for is_output, data in received:
        message = protocol.read_output(data) if is_output else protocol.read(data)
        assert message is not None and not isinstance(message, protocol.Malformed), data[:200]
        kinds.add(message.kind)
    assert {"text", "display", "clear", "result", "error", "cell_done", "names", "value", "yielded", "items"} <= kinds
