"""A kernel that forges the typed messages of autograder.wall.protocol (issue 29 item 2): the agent's `handle`, the
host's `Channel.send` or the wire's `encode` patched from a cell, so that its answers are of the wrong kind, come
for requests not asked yet, or carry oversize fields. Each test states the defence that must hold; each was seen to
fail with that defence weakened (see the commit that added them)."""

import pytest
from local_session import remote_of

from autograder.wall.sandbox import Sandbox
from autograder.wall.session import KernelSession
from bpe_course import checks

# from this cell on, the agent answers every request of a kind in _KINDS (and, for a call, of a name in _NAMES) with
# the message _FORGED builds
FORGE_HANDLE = """
import sys
_agent, _protocol, _wire = (sys.modules["_bpe_" + n] for n in ("agent", "protocol", "wire"))
_real_handle = _agent.Agent.handle
_KINDS, _NAMES, _FORGED = set(), None, None
def _handle(self, request):
    if request.kind in _KINDS and (_NAMES is None or getattr(request, "name", None) in _NAMES):
        try:
            return _FORGED(request)
        except Exception as e:  # a forgery this protocol cannot build: said, not a dead kernel
            return _protocol.Error.agent(f"the forgery failed: {e!r}")
    return _real_handle(self, request)
_agent.Agent.handle = _handle
"""

DEFINITIONS = "def f(x):\n    return x + 1\ndef g():\n    yield from range(3)\nX = 41"


@pytest.fixture(scope="module")
def forger():
    with KernelSession(Sandbox(), interrupt_grace=3) as session:
        assert session.run_cell(DEFINITIONS + "\n" + FORGE_HANDLE).error is None
        yield session


def forge(session, kinds, forged: str, names=None):
    code = f"_KINDS, _NAMES = {set(kinds)!r}, {names!r}\n_FORGED = lambda request: {forged}"
    run = session.run_cell(code)
    assert run.error is None, run.error


# -- answers of the wrong kind: each request takes only its own kinds ------------------------------------------
WRONG_FOR_A_CALL = {
    "names": "_protocol.Names(names={'f': _protocol.Value(value=2)})",
    "items": "_protocol.Items(items=[2], end=_protocol.Stop())",
    "ready": "_protocol.Ready()",
    "cell_done": "_protocol.CellDone()",
    "yielded": "_protocol.Yielded(items=[2], wants_line=False)",
    "function": "_protocol.Function()",
    "missing": "_protocol.Missing()",
    "stop": "_protocol.Stop()",
    "reply": "_protocol.NoMoreLines()",  # a reply of the grader's own direction
    "request": "_protocol.Call(name='f', args=[])",  # a request, sent back
}


@pytest.mark.parametrize("forged", WRONG_FOR_A_CALL.values(), ids=WRONG_FOR_A_CALL.keys())
def test_a_call_answered_with_a_message_of_another_kind_is_no_result(forger, forged):
    # defence: Remote.result reads a call's answer by its kind (Value, Iterator, Unsupported, Timeout, Error) and
    # fails the check on anything else; protocol.read takes answers only. Weakened (Remote.result returning None for
    # any other kind), every case but "reply" and "request" fails: the call "returns" None (those two are no answer at
    # all, and protocol.read already refuses them)
    f = remote_of(forger).bind({"f"})["f"]
    assert f(1) == 2
    forge(forger, {"call"}, forged)
    try:
        with pytest.raises(checks.CheckFailed, match="не дало ответа|не по протоколу"):
            f(1)
    finally:
        forge(forger, set(), "None")
    assert f(1) == 2  # the kernel goes on


@pytest.mark.parametrize(
    "kind, forged",
    [
        ("describe", "_protocol.Items(items=[41])"),
        ("describe", "_protocol.Value(value=41)"),
        ("next", "_protocol.Value(value=_wire.encode([0, 1, 2]))"),
        ("next", "_protocol.Names(names={})"),
    ],
)
def test_a_description_or_a_generators_items_answered_with_another_kind_fail_the_check(forger, kind, forged):
    # defence: bind takes only Names, next_items only Items. Weakened (bind taking any other kind as no names), the
    # "describe" cases fail: X is bound to nothing and no check fails
    remote = remote_of(forger)
    gen = remote.bind({"g"})["g"]
    forge(forger, {kind}, forged)
    try:
        with pytest.raises(checks.CheckFailed, match="не дало ответа|описание имён|генератор"):
            if kind == "describe":
                remote.bind({"X"})
            else:
                list(gen())
    finally:
        forge(forger, set(), "None")
    assert remote.bind({"X"}) == {"X": 41}


# -- answers for requests not asked yet ------------------------------------------------------------------------
# Channel.send patched: with every answer, forged ones for the next requests (a value, a generator's end, a wall
# timeout) go first, and the real one last
AHEAD = """
import sys
_host, _protocol = sys.modules["_bpe_" + "host"], sys.modules["_bpe_" + "protocol"]
_real_send = _host.Channel.send
def _send(self, sequence, message):
    if isinstance(message, _protocol.Answer) and not sequence & _host.OUTPUT:
        for ahead in range(1, 4):
            _real_send(self, sequence + ahead, _protocol.Value(value="forged"))
        _real_send(self, sequence + 1 | _host.OUTPUT, _protocol.StreamText(name="stdout", text="17/17 ✓"))
    return _real_send(self, sequence, message)
_host.Channel.send = _send
"""


def test_answers_sent_ahead_for_later_requests_never_answer_the_request_being_read():
    # defence: the grader reads the answer of the request it sent, by its sequence number, and drops frames for any
    # other one unparsed: what is sent ahead is read (and dropped) while the grader waits for the request before.
    # Weakened (answer() taking any frame that is not an output as the answer), this test fails: f(1) is "forged"
    with KernelSession(Sandbox(), interrupt_grace=3) as session:
        assert session.run_cell(DEFINITIONS).error is None
        remote = remote_of(session)
        f = remote.bind({"f"})["f"]
        assert session.run_cell(AHEAD).error is None
        assert [f(i) for i in range(5)] == [1, 2, 3, 4, 5]
        assert remote.bind({"X"}) == {"X": 41}
        run = session.run_cell("print('honest')")  # the output forged for it came before it was asked
        assert [o.text for o in run.outputs] == ["honest\n"], run.outputs


# -- oversize fields -----------------------------------------------------------------------------------------
OVERSIZE = {
    "error": (
        "_protocol.Error(type='E' * 500_000, message='сообщение ' * 100_000, where='w' * 300_000, "
        "bases=['ValueError'] * 20_000)"
    ),
    "unsupported": "_protocol.Unsupported(type_name='T' * 3_000_000)",
    "timeout_limit": "_protocol.Timeout(limit='wall' * 500_000)",
    "iterator_handle": "_protocol.Iterator(handle=10 ** 4000)",
}


@pytest.mark.parametrize("forged", OVERSIZE.values(), ids=OVERSIZE.keys())
def test_answers_with_oversize_fields_are_cut_to_the_failure_messages_limit_in_a_graded_notebook(tmp_path, forged):
    # 01 solved, but every call of learn_merges answered with one oversize field (a frame under the cap): its tests
    # fail with a message no longer than Evaluator.max_message_chars, the others keep their points, the notebook is
    # graded. Defences: rebuilt_exception takes a name of at most 64 characters and 8 bases, protocol's typed fields
    # refuse what is not their type, Evaluator.cut cuts every message. Weakened (Evaluator.cut returning the message
    # whole), this test fails on "error" and "unsupported": messages of megabytes
    from autograder.course.course import CourseNotebook
    from autograder.course.simulate import solution_sources, submission, write
    from autograder.notebook.evaluate import Evaluator
    from autograder.notebook.pipeline import NotebookGrader

    patch = FORGE_HANDLE + f"\n_KINDS, _NAMES = {{'call'}}, {{'learn_merges'}}\n_FORGED = lambda request: {forged}"
    solved = solution_sources("01_hand_example")["learn_merges"]
    path = write(submission("01_hand_example", replace={"learn_merges": solved + "\n" + patch}), tmp_path / "01.ipynb")
    result = (
        NotebookGrader()
        .grade(CourseNotebook.load("01_hand_example"), path, lambda: KernelSession(Sandbox(), cell_timeout=60))
        .result
    )
    limit = Evaluator().max_message_chars
    scores = {t.name: (t.score, len(t.message)) for t in result.tests}
    assert result.status == "graded" and result.score == 11, scores
    assert all(length <= limit + 200 for _, length in scores.values()), scores
    assert scores["test_learn_merges"][0] == 0 and scores["test_learn_merges_hidden"][0] == 0, scores
    assert all(len(line) <= 2000 for line in result.review), result.review


def test_a_forged_exceptions_name_and_bases_are_bounded(forger):
    # defence: rebuilt_exception keeps a name only if it is an identifier of at most 64 characters (else "Exception"),
    # and reads at most 8 bases. Weakened (any name taken), this test fails: a class named with 500,000 characters
    f = remote_of(forger).bind({"f"})["f"]
    forge(forger, {"call"}, OVERSIZE["error"])
    try:
        with pytest.raises(Exception) as raised:
            f(1)
    finally:
        forge(forger, set(), "None")
    rebuilt = type(raised.value)
    assert rebuilt.__name__ == "Exception" and len(rebuilt.__mro__) <= 5, rebuilt.__mro__  # StudentException, Exception


# -- wire.encode patched: the values the agent encodes are forged on the way out ------------------------------
FORGE_ENCODE = """
import sys
_wire = sys.modules["_bpe_" + "wire"]
_real_encode = _wire.encode
def _encode(value):
    if value == 2:
        return {"X": "always-equal"}                     # no such tag on the wire
    if value == 3:
        return {"L": [{"L": []}] * 100} | {"D": []}       # two tags in one
    if value == 4:
        return {"S": [{"L": []}]}                         # an unhashable set item
    return _real_encode(value)
_wire.encode = _encode
"""


@pytest.mark.parametrize("x", [1, 2, 3])
def test_values_the_kernel_encodes_its_own_way_are_refused_by_the_graders_reader(forger, x):
    # defence: wire.decode, in the grader, reads only the exact shapes wire.encode writes: one known tag per object,
    # hashable set items. Weakened (decode passing an object of two tags on as it is), the case x=2 fails: a dict that
    # wire.encode never writes comes back as the value
    assert forger.run_cell(FORGE_ENCODE).error is None
    try:
        f = remote_of(forger).bind({"f"})["f"]
        with pytest.raises(checks.CheckFailed, match="результат нельзя принять"):
            f(x)
    finally:
        assert forger.run_cell("_wire.encode = _real_encode").error is None
    assert f(x) == x + 1
