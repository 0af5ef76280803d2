"""Attacks on what 08's streaming tests measure (issue 29 item 2): when a generator's ids come out and how
much memory it holds. The grader hands over the lines itself (`protocol.Stream`: one at a time where it
counts when ids come out, eight at a time where it watches only memory), so it knows how many lines it had
given when each id arrived, and reads the sandbox's memory from outside (its cgroup's peak, the processes'
high-water marks, the resident memory it samples at every batch of lines).
Each attack is graded in a real sandbox against the same code without the attack: it must score no
more than that honest figure; an honest streaming solution keeps full marks."""

import tempfile
from dataclasses import asdict
from pathlib import Path

import pytest
from local_session import remote_of

from autograder.course.course import CourseNotebook
from autograder.course.simulate import submission, write
from autograder.notebook.pipeline import NotebookGrader
from autograder.wall import cgroup, protocol
from autograder.wall.sandbox import Sandbox
from autograder.wall.session import KernelSession

NB = "08_shipping_tokenizer"
STREAM_TESTS = [
    "test_encode_lines",
    "test_encode_lines_hidden",
    "test_fixed_lines",
    "test_fixed_lines_hidden",
    "test_encode_iterable",
    "test_encode_iterable_hidden",
]


def stream_scores(replace: dict, cgroups: str = "auto", mode: str = "auto", tests=STREAM_TESTS) -> dict:
    """{test: score} of 08's streaming `tests` for the solved notebook with `replace`d cells, graded in a sandbox."""
    result = stream_result(replace, cgroups, mode, tests)
    return {t["name"]: t["score"] for t in result["tests"]}


def stream_result(replace: dict, cgroups: str = "auto", mode: str = "auto", tests=STREAM_TESTS) -> dict:
    """The result (as a dict) of 08's streaming `tests` for the solved notebook with `replace`d cells."""
    course = CourseNotebook.load(NB)
    course.tests = {name: course.tests[name] for name in tests}
    with tempfile.TemporaryDirectory(prefix="bpe-stream-") as tmp:
        path = write(submission(NB, solved=True, replace=replace), Path(tmp) / f"{NB}.ipynb")
        graded = NotebookGrader(run_only_needed=True).grade(
            course, path, lambda: KernelSession(Sandbox(cgroups=cgroups, mode=mode))
        )
    result = asdict(graded.result)
    assert result["status"] == "graded", result["message"]
    return result


# not streaming: the whole input is read before the first id
NON_STREAMING = {
    "encode_lines": "def encode_lines(lines, merges, pattern=GPT2_PATTERN):\n"
    '    yield from encode_chunked("".join(lines), merges, pattern)',
    "encode_iterable": "def encode_iterable(lines, merges, pattern=GPT2_PATTERN, special_tokens=None, "
    "allowed_special=()):\n"
    '    yield from encode("".join(lines), merges, pattern, special_tokens, allowed_special)',
}

# the attack of the issue: the in-kernel measuring helpers replaced through the agent's module, so that
# every timeline says "the first line" and every memory figure says 0 (they measured inside the kernel)
FAKED_HELPERS = """
import sys
_agent = sys.modules.get("_bpe_" + "agent")
if _agent is not None:
    def _timeline(fn, items, *args):
        return [(1, piece) for piece in fn(iter(items), *args)]
    def _steps(fn, items, *args):
        return [(1, piece) for piece in fn(iter(items), *args)], 1, None
    def _memory(fn, sizes, *args):
        return [0] * len(sizes)
    _agent.agent.helpers.update(timeline=_timeline, stream_steps=_steps, stream_memory=_memory)
"""

# the new machinery patched instead: every line is taken before the function is called, and the items are
# sent in frames of their own before the answer (they still arrive after the lines they needed)
PATCHED_STREAM = """
import sys
_agent = sys.modules.get("_bpe_" + "agent")
if _agent is not None:
    _protocol = sys.modules["_bpe_protocol"]
    def _op_stream(self, request):
        lines = []
        while True:
            line = self.next_line()
            if line is None:
                break
            lines.append(line)
        args = [lines if isinstance(a, _protocol.Lines) else self.argument(a) for a in request.args]
        items = [self.wire.encode(i) for i in self.namespace[request.name](*args)]
        for item in items:
            self.exchange(_protocol.Yielded(items=[item], wants_line=False))
        return _protocol.Items(items=[], end=_protocol.Stop())
    _agent.Agent.op_stream = _op_stream
"""

# streams its ids on time but keeps every line it read (its memory grows with the input) ...
KEEPS_LINES = """
def encode_lines(lines, merges, pattern=GPT2_PATTERN):
    cache, tail, seen = {}, "", []
    for line in lines:
        seen.append(line)
        chunks = pretokenize(tail + line, pattern)
        for chunk in chunks[:-2]:
            yield from encode_chunk(chunk, merges, cache)
        tail = "".join(chunks[-2:])
    seen.clear()
    for chunk in pretokenize(tail, pattern):
        yield from encode_chunk(chunk, merges, cache)
"""

# ... and hides it: a thread of the kernel resets the process's own high-water mark all the time, and the
# lines are let go before the end, so the mark the grader reads at the end shows little
HIDES_ITS_PEAK = """
import threading, time
def _reset_forever():
    while True:
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            return
        time.sleep(0.0005)
threading.Thread(target=_reset_forever, daemon=True).start()
"""


@pytest.fixture(scope="module")
def honest():
    return stream_scores({})


@pytest.fixture(scope="module")
def non_streaming():
    return stream_scores(NON_STREAMING)


def test_an_honest_streaming_solution_keeps_full_marks(honest):
    course = CourseNotebook.load(NB)
    assert honest == {name: course.tests[name].points for name in STREAM_TESTS}


MEMORY_TESTS = ["test_encode_lines_hidden", "test_encode_iterable_hidden"]  # those that read the sandbox's memory


def assert_memory_left_to_the_instructor(result: dict, honest: dict) -> None:
    """Without a cgroup: every memory check fails saying the instructor judges it, the notebook is listed For
    review with the reason, and every other streaming test scores what the honest solution scores."""
    tests = {t["name"]: t for t in result["tests"]}
    for name in MEMORY_TESTS:
        assert tests[name]["score"] == 0 and "память оценивает преподаватель" in tests[name]["message"], tests[name]
    assert {n: t["score"] for n, t in tests.items() if n not in MEMORY_TESTS} == {
        n: v for n, v in honest.items() if n not in MEMORY_TESTS
    }
    assert any("не засчитана" in line and "буферы каналов" in line for line in result["review"]), result["review"]


def test_without_cgroups_memory_is_left_to_the_instructor(honest):
    # issue 40 item 2: no memory figure the grader cannot prove decides a grade (KEEPS_LINES_IN_PIPES below)
    assert_memory_left_to_the_instructor(stream_result({}, cgroups="off"), honest)


def test_a_solution_that_reads_everything_first_loses_the_streaming_points(non_streaming, honest):
    assert non_streaming["test_encode_lines"] < honest["test_encode_lines"]
    assert non_streaming["test_encode_iterable"] < honest["test_encode_iterable"]


@pytest.mark.parametrize("attack", [FAKED_HELPERS, PATCHED_STREAM], ids=["faked_helpers", "patched_stream"])
def test_a_non_streaming_solution_with_the_kernels_measures_faked_scores_no_more_than_its_honest_figure(
    attack, non_streaming
):
    # 30/30 before (honest figure 23/30): timeline and stream_memory ran in the kernel and said what it said
    faked = stream_scores({**NON_STREAMING, "encode_lines": attack + NON_STREAMING["encode_lines"]})
    assert all(faked[name] <= non_streaming[name] for name in STREAM_TESTS), (faked, non_streaming)


@pytest.mark.parametrize("cgroups", ["auto", "off"])
def test_memory_kept_and_hidden_from_the_processs_own_high_water_mark_still_counts(cgroups, honest):
    kept = stream_scores({"encode_lines": KEEPS_LINES}, cgroups=cgroups)
    assert kept["test_encode_lines_hidden"] < honest["test_encode_lines_hidden"]
    hidden = stream_scores({"encode_lines": HIDES_ITS_PEAK + KEEPS_LINES}, cgroups=cgroups)
    assert all(hidden[name] <= kept[name] for name in STREAM_TESTS), (hidden, kept)


# ... or keeps every line in a file that lives in memory but in no process: a memfd, or its private /tmp (bubblewrap's
# is a memory file system). Without a cgroup that hid from every figure: 2/2 on test_encode_lines_hidden
KEEPS_LINES_IN_A_FILE = """
import os
def encode_lines(lines, merges, pattern=GPT2_PATTERN):
    cache, tail = {}, ""
    if KIND == "memfd":
        kept = os.memfd_create("kept")
    else:
        kept = os.open("/tmp/kept-%d" % id(lines), os.O_RDWR | os.O_CREAT, 0o600)
    for line in lines:
        os.write(kept, line.encode())
        chunks = pretokenize(tail + line, pattern)
        for chunk in chunks[:-2]:
            yield from encode_chunk(chunk, merges, cache)
        tail = "".join(chunks[-2:])
    os.close(kept)
    for chunk in pretokenize(tail, pattern):
        yield from encode_chunk(chunk, merges, cache)
"""


@pytest.mark.parametrize("kind", ["memfd", "tmp"])
@pytest.mark.parametrize("cgroups", ["auto", "off"])
def test_lines_kept_in_a_file_in_memory_still_count(kind, cgroups, honest):
    # KernelSession.memory_in_files: the memfds the cells' process holds and what the sandbox's memory file systems
    # hold, read from outside at every sample, added to the processes' figures
    replace = {"encode_lines": f"KIND = {kind!r}\n" + KEEPS_LINES_IN_A_FILE}
    kept = stream_scores(replace, cgroups=cgroups, tests=["test_encode_lines_hidden"])  # the memory test alone
    assert kept["test_encode_lines_hidden"] < honest["test_encode_lines_hidden"], (kept, honest)


def test_without_bubblewrap_streaming_and_memory_are_still_the_graders_figures(honest, non_streaming):
    # limits only (no bubblewrap, no cgroup): the grader still hands over every line itself; memory, as without
    # cgroups, is left to the instructor; the kernel's faked helpers and its own reset high-water mark gain nothing
    limits = {"mode": "limits", "cgroups": "off"}
    assert_memory_left_to_the_instructor(stream_result({}, **limits), honest)
    faked = stream_scores({**NON_STREAMING, "encode_lines": FAKED_HELPERS + NON_STREAMING["encode_lines"]}, **limits)
    assert all(faked[name] <= non_streaming[name] for name in STREAM_TESTS), (faked, non_streaming)
    hidden = stream_scores({"encode_lines": HIDES_ITS_PEAK + KEEPS_LINES}, **limits)
    assert hidden["test_encode_lines_hidden"] < honest["test_encode_lines_hidden"], (hidden, honest)


# ... or keeps every line in pipes nobody reads (1 MiB each, non-blocking): the pipe buffers are the kernel's memory,
# in no process's resident memory and no file. Without a cgroup: 2/2 on test_encode_lines_hidden, 100 MiB held while
# VmRSS stayed at 13 MiB (issue 40); with one, the cgroup counts them
KEEPS_LINES_IN_PIPES = """
import fcntl, os
def encode_lines(lines, merges, pattern=GPT2_PATTERN):
    cache, tail, pipes = {}, "", []
    def new_pipe():
        r, w = os.pipe2(os.O_NONBLOCK)
        try:
            fcntl.fcntl(w, 1031, 2**20)                          # F_SETPIPE_SZ: 1 MiB (the unprivileged most)
        except OSError:
            pass
        pipes.append((r, w))
    for line in lines:
        data = line.encode()
        while data:
            try:
                data = data[os.write(pipes[-1][1], data) if pipes else 0:]
            except BlockingIOError:                               # this one is full: the next
                pass
            if data:
                new_pipe()
        chunks = pretokenize(tail + line, pattern)
        for chunk in chunks[:-2]:
            yield from encode_chunk(chunk, merges, cache)
        tail = "".join(chunks[-2:])
    for r, w in pipes:
        os.close(r), os.close(w)
    for chunk in pretokenize(tail, pattern):
        yield from encode_chunk(chunk, merges, cache)
"""


@pytest.mark.parametrize("cgroups", ["auto", "off"])
def test_lines_kept_in_pipes_nobody_reads_never_pass_the_memory_test(cgroups, honest):
    result = stream_result({"encode_lines": KEEPS_LINES_IN_PIPES}, cgroups=cgroups, tests=["test_encode_lines_hidden"])
    (test,) = result["tests"]
    assert test["score"] < honest["test_encode_lines_hidden"], test
    if cgroups == "off":  # 2/2 before (issue 40): no figure the grader cannot prove decides it, the instructor is told
        assert "память оценивает преподаватель" in test["message"], test
        assert any("не засчитана" in line for line in result["review"]), result["review"]
    elif cgroup.available() is None:  # the cgroup counts the pipe buffers: the memory check fails, not the attack
        assert "памяти" in test["message"] and "Error" not in test["message"], test


def test_the_run_says_at_its_start_when_memory_is_not_graded_automatically(capsys):
    from traitlets.config import Config

    from autograder.classroom.workflow import warn_about_sandbox

    config = Config()
    config.Sandbox.cgroups = "off"
    warn_about_sandbox(config)
    assert "memory is NOT graded automatically" in capsys.readouterr().out
    warn_about_sandbox(Config())
    assert ("memory is NOT graded automatically" in capsys.readouterr().out) == (cgroup.available() is not None)


def test_the_grader_counts_the_lines_it_handed_over_not_what_the_kernel_claims():
    # a generator that takes every line before its first item, however its frames are sent
    from bpe_course import checks

    with KernelSession(Sandbox()) as session:
        assert session.run_cell("def f(lines):\n    lines = list(lines)\n    yield from lines").error is None
        f = remote_of(session).bind({"f"})["f"]
        pieces, taken, error = checks.stream_steps(f, ["a", "b", "c"])
        assert pieces == [(3, "a"), (3, "b"), (3, "c")] and taken == 3 and error is None
        assert session.run_cell(PATCHED_STREAM).error is None  # the agent itself patched: the same figures
        assert checks.stream_steps(f, ["a", "b", "c"]) == (pieces, 3, None)


def test_a_yielded_frame_outside_a_stream_is_no_answer():
    # forged mid-request frames: a call's answer must be of its own kind
    from bpe_course import checks

    with KernelSession(Sandbox()) as session:
        seq = session.sequence + 3  # this cell, the description of f, then the call
        code = (
            "import json, os, struct\n"
            "def f():\n"
            f"    data = json.dumps({protocol.Yielded(items=[1]).to_wire()!r}).encode()\n"
            f"    os.write({session.agent_fd}, struct.pack('>II', {seq}, len(data)) + data)\n"
            "    return 5"
        )
        assert session.run_cell(code).error is None
        with pytest.raises(checks.CheckFailed, match="не дало ответа"):
            remote_of(session).bind({"f"})["f"]()


def test_a_generator_that_never_ends_is_stopped_in_the_kernel_and_the_session_goes_on():
    # it never asks for a line: its items still come in bounded frames, and the agent stops it past the grader's limit
    from bpe_course import checks

    with KernelSession(Sandbox()) as session:
        assert session.run_cell("def f(lines):\n    while True:\n        yield 1").error is None
        f = remote_of(session, max_generator_items=20_000).bind({"f"})["f"]
        with pytest.raises(checks.CheckFailed, match="больше 20000 значений"):
            checks.stream_steps(f, ["a"])
        assert session.run_cell("x = 1").error is None
        assert remote_of(session).bind({"x"}) == {"x": 1}
