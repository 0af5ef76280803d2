"""Attacks of a hostile student on what crosses the sandbox's socket and on the grader's timing from
outside (autograder.wall.host, autograder.wall.session, autograder.wall.cell_outputs, Remote.timed_calls): each test
states the defence that must hold."""

import json
import os
import signal
import time
from pathlib import Path

import nbformat
import pytest
from conftest import lives_on
from flood_answers import flooding
from local_session import remote_of

from autograder.classroom.gradebook import review_notebook
from autograder.wall import protocol
from autograder.wall.cell_outputs import LimitedOutputs
from autograder.wall.sandbox import Sandbox
from autograder.wall.session import FRAME, KernelSession, may_raise_limits

BUSY_IN_A_CHILD = (
    "import os\ndef busy(n):\n    r, w = os.pipe()\n    if os.fork() == 0:\n"
    "        os.write(w, str(sum(i * i for i in range(n))).encode())\n        os._exit(0)\n"
    "    os.close(w)\n    os.wait()\n    return int(os.read(r, 100))"
)


ORPHAN = (
    "import os, time\ndef busy(n):\n    r, w = os.pipe()\n    if os.fork() == 0:\n        if os.fork() == 0:\n"
    "            os.write(w, str(sum(i * i for i in range(n))).encode())\n            os._exit(0)\n"
    "        os._exit(0)\n    os.close(w)\n    os.wait()\n    out = int(os.read(r, 100))\n    time.sleep(0.3)\n"
    "    return out"
)  # the worker's parent is gone before it works: it is the sandbox's init's orphan
NOT_WAITED = (
    "import os, time\ndef busy(n):\n    r, w = os.pipe()\n    if os.fork() == 0:\n"
    "        os.write(w, str(sum(i * i for i in range(n))).encode())\n        os._exit(0)\n"
    "    os.close(w)\n    out = int(os.read(r, 100))\n    time.sleep(0.3)\n    return out"
)  # a zombie
IN_A_THREAD = (
    "import threading\ndef busy(n):\n    out = []\n"
    "    t = threading.Thread(target=lambda: out.append(sum(i * i for i in range(n))))\n"
    "    t.start()\n    t.join()\n    return out[0]"
)
STILL_ALIVE = (
    "import os\ndef busy(n):\n    r, w = os.pipe()\n    if os.fork() == 0:\n"
    "        os.write(w, str(sum(i * i for i in range(n))).encode())\n        os.read(os.open('/dev/zero', 0), 1)\n"
    "        import time\n        time.sleep(1000)\n    os.close(w)\n    return int(os.read(r, 100))"
)


IGNORED_CHILD = (
    "import os, signal, time\ndef busy(n):\n    signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n    r, w = os.pipe()\n"
    "    if os.fork() == 0:\n        os.write(w, str(sum(i * i for i in range(n))).encode())\n        os._exit(0)\n"
    "    os.close(w)\n    out = int(os.read(r, 100))\n    time.sleep(0.3)\n    return out"
)  # the kernel reaps it by itself: its CPU reaches nobody's cutime


def outcome(session, code, n=5_000_000):
    """(CPU seconds the grader timed, None) or (None, the message the timed call failed with)."""
    from bpe_course import checks

    run = session.run_cell(code)
    assert run.error is None, run.error
    try:
        ((result, seconds),) = remote_of(session).bind({"busy"})["busy"].timed_calls([[n]])
    except checks.CheckFailed as e:
        return None, str(e)
    assert result == sum(i * i for i in range(n))
    return seconds, None


ATTACKS = [BUSY_IN_A_CHILD, ORPHAN, NOT_WAITED, STILL_ALIVE, IN_A_THREAD, IGNORED_CHILD]
ATTACK_IDS = ["waited", "orphan", "zombie", "alive", "thread", "sigchld-ignored"]


@pytest.mark.parametrize("code", ATTACKS, ids=ATTACK_IDS)
def test_without_cgroups_no_work_hides_from_a_timed_call_in_processes_the_grader_does_not_see(code):
    # no cgroup (a host that does not allow them): a child that the kernel reaps by itself (SIGCHLD ignored)
    # takes its CPU time out of every figure /proc shows, and faked 07's speed figures. Now no process or thread
    # may start during a timed call (RLIMIT_NPROC set to 0 from outside, soft and hard): the call fails, saying why
    with KernelSession(Sandbox(cgroups="off")) as session:
        assert session.cgroup is None
        seconds, message = outcome(session, code)
        refused = "потоки в песочнице запрещены" if may_raise_limits() else "скорость оценивает преподаватель"
        assert seconds is None and refused in message, (seconds, message)
        again = code.replace("def busy", "def again") + "\nprint(again(10))"
        assert session.run_cell(again).error is None  # the limits are back after the call


@pytest.mark.skipif(not may_raise_limits(), reason="the grader lacks CAP_SYS_RESOURCE here: no figure is provable")
def test_without_cgroups_an_honest_timed_call_is_still_timed():
    with KernelSession(Sandbox(cgroups="off")) as session:
        seconds, message = outcome(session, "def busy(n):\n    return sum(i * i for i in range(n))")
        assert message is None and seconds > 0.05


def test_without_cgroups_or_cap_sys_resource_speed_is_never_claimed(monkeypatch):
    # a grader that may not raise hard limits cannot put a lowered one back: nothing stops a hidden child, so no
    # figure is claimed — the check fails saying so, and the notebook is listed for review
    import autograder.wall.session as session_module

    with KernelSession(Sandbox(cgroups="off")) as session:
        monkeypatch.setattr(session_module, "may_raise_limits", lambda: False)
        remote = remote_of(session)
        assert session.run_cell("def busy(n):\n    return sum(i * i for i in range(n))").error is None
        from bpe_course import checks

        with pytest.raises(checks.CheckFailed, match="скорость оценивает преподаватель"):
            remote.bind({"busy"})["busy"].timed_calls([[10]])
        assert remote.review and "не засчитано" in remote.review[0]


# -- output frames that parse but are no valid notebook output ---------------------------------------
def kept(output: dict) -> nbformat.NotebookNode:
    """A notebook holding what the grader keeps of one output frame (a message of protocol.OUTPUTS, on the wire)."""
    outputs = LimitedOutputs(200_000)
    outputs.add_frame(json.dumps(output).encode("utf-8", "surrogatepass"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x")]
    nb.cells[0].outputs = outputs.outputs
    return nb


@pytest.mark.parametrize("count", [-5, 2**80, 1.5, "7", True])
def test_an_odd_execution_count_never_makes_the_graded_notebook_invalid(count):
    # a negative one passed once: nbformat wrote the notebook anyway, invalid (execution_count has a minimum of 0)
    nb = kept({"kind": "result", "data": {"text/plain": "x"}, "metadata": {}, "execution_count": count})
    nbformat.validate(nb)
    nbformat.validate(nbformat.reads(nbformat.writes(review_notebook(nb)), 4))


DEEP = json.loads("[" * 900 + "]" * 900)  # within json's own nesting limit, and under 10 000 characters


@pytest.mark.parametrize(
    "output",
    [
        {"kind": "display", "data": {"text/plain": "x"}, "metadata": {"a": DEEP}},
        {"kind": "display", "data": {"text/plain": "x", "application/json": {"a": DEEP}}, "metadata": {}},
        {
            "kind": "result",
            "data": {"text/plain": "x", "application/vnd.x+json": DEEP},
            "metadata": {},
            "execution_count": 1,
        },
    ],
)
def test_deeply_nested_output_data_is_dropped_and_the_notebook_can_be_recorded(output):
    # it passed once, and the gradebook's review_notebook (safe_strings) hit a RecursionError: an ERROR of the grader's
    nb = kept(output)
    nbformat.validate(nb)
    text = nbformat.writes(review_notebook(nb))
    nbformat.validate(nbformat.reads(text, 4))
    assert "[[[[" not in text  # the output is left out whole


@pytest.mark.parametrize("code", [ORPHAN, IGNORED_CHILD], ids=["orphan", "sigchld-ignored"])
def test_without_bubblewrap_or_cgroups_an_orphans_work_never_fakes_a_figure(code):
    # without a pid namespace an orphan goes to the host's init, out of the tree the grader times: it may not start
    with KernelSession(Sandbox(mode="limits", cgroups="off")) as session:
        seconds, message = outcome(session, code)
        assert seconds is None and ("запрещены" in message or "преподаватель" in message), (seconds, message)


def test_a_flood_of_empty_outputs_of_alternating_streams_is_cut_like_any_flood():
    # an empty stream cost nothing: stdout "" and stderr "" in turn made a new output each, never cut — a
    # sandbox writing such frames to its socket for a cell's whole time filled the grader's memory
    outputs = LimitedOutputs(50_000)
    frames = [
        protocol.dumps(protocol.StreamText(name=name, text=text))
        for name, text in (("stdout", ""), ("stderr", ""), ("stdout", "a"), ("stderr", "b"))
    ]
    for _ in range(50_000):
        for frame in frames:
            outputs.add_frame(frame)
    assert len(outputs.outputs) <= 1000 and outputs.cut


def test_honest_streams_in_turn_keep_their_text():
    outputs = LimitedOutputs(200_000)
    for i in range(500):
        outputs.add(protocol.StreamText(name="stdout", text=f"шаг {i}\n"))
        outputs.add(protocol.StreamText(name="stderr", text=f"предупреждение {i}\n"))
    assert len(outputs.outputs) == 1000 and not outputs.cut and outputs.outputs[-1].text == "предупреждение 499\n"


@pytest.mark.parametrize(
    "template",
    [
        '{"kind":"error","type":"E","message":"v","traceback":[%s]}',
        '{"kind":"error","type":%s,"message":"v"}',
        '{"kind":"display","data":{"text/plain":"x"},"metadata":{"a":%s}}',
        '{"kind":"display","data":{"application/json":%s},"metadata":{}}',
        '{"kind":"text","name":"stdout","text":%s}',
    ],
    ids=["traceback", "ename", "metadata", "json", "stream"],
)
def test_output_frames_nested_as_deep_as_json_parses_are_dropped_and_raise_nothing(template):
    # json.loads takes nesting up to the recursion limit; what the grader then does with it (json.dumps of the
    # metadata, str of an error's fields) runs a few frames deeper and raised RecursionError into the grading
    import sys

    for depth in range(sys.getrecursionlimit() - 200, sys.getrecursionlimit() + 10):
        outputs = LimitedOutputs(200_000)
        outputs.add_frame((template % ("[" * depth + "]" * depth)).encode())
        assert all(o.output_type != "display_data" or "application/json" not in o.data for o in outputs.outputs)


# -- answers of the agent: whatever parses is checked, never recursed into deeper than it parsed -------
class Forged:
    """A session whose sandbox answers every request with `text` (what a patched host can send)."""

    dead = None

    def __init__(self, text: str):
        self.text = text

    def request(self, request, timeout):
        from autograder.wall import protocol

        return protocol.read(self.text.encode())


@pytest.mark.parametrize(
    "template",
    [
        '{"kind":"value","value":%s}',
        '{"kind":"error","type":%s,"message":%s,"where":%s,"bases":%s}',
        '{"kind":"error","type":"E","message":"m","bases":[%s]}',
        '{"kind":"unsupported","type_name":%s}',
        '{"kind":"iterator","handle":%s}',
        '{"kind":"timeout","limit":%s}',
        '{"kind":"names","names":{"f":{"kind":"value","value":%s}}}',
        '{"kind":"names","names":{"f":{"kind":"unsupported","type_name":%s}}}',
        '{"kind":"items","items":[%s]}',
        '{"kind":"items","items":[],"end":{"kind":"error","type":"E","message":%s}}',
        '{"kind":%s}',
    ],
)
def test_answers_nested_as_deep_as_json_parses_fail_the_check_and_raise_nothing_else(template):
    import sys

    from bpe_course import checks

    for depth in range(sys.getrecursionlimit() - 150, sys.getrecursionlimit() + 5):
        deep = "[" * depth + "]" * depth
        remote = remote_of(Forged(template % ((deep,) * template.count("%s"))))
        try:
            if "names" in template:
                remote.bind({"f"})
            elif "items" in template:
                remote.next_items(1, "f", 1)
            else:
                remote.call("f", (), {})
        except RecursionError:
            raise
        except (checks.CheckFailed, checks.TookTooLong, Exception):
            pass


@pytest.mark.parametrize("data", [{"text/json": {"a": 1}}, {"x/y+json": [1, 2]}, {"text/plain": "x", "a/json": [None]}])
def test_json_data_under_a_mime_type_nbformat_does_not_take_as_json_is_left_out(data):
    # nbformat takes any JSON only under application/json and application/…+json; elsewhere text
    nbformat.validate(kept({"kind": "display", "data": data, "metadata": {}}))


POUR = """
import json, os, struct
frames = b""
for name in ("stdout", "stderr") * 500:
    data = json.dumps({"kind": "text", "name": name, "text": ""}).encode()
    frames += struct.pack(">II", SEQ | 2**31, len(data)) + data
sent = 0
while sent < 4 * 2**20:                 # 4 MiB of empty outputs: a count of bytes, not of seconds, so a busy machine
    os.write(FD, frames)                 # (whose grader reads slowly) pours as much as an idle one
    sent += len(frames)
print(sent)
"""


def test_a_sandbox_pouring_empty_streams_in_turn_into_its_socket_leaves_the_grader_a_bounded_cell():
    with KernelSession(Sandbox(), cell_timeout=30, interrupt_grace=2) as session:
        run = session.run_cell(f"FD, SEQ = {session.agent_fd}, {session.sequence + 1}\n" + POUR)
        assert run.error is None, run.error
        assert len(run.outputs) <= 2001, len(run.outputs)
        assert "вывод обрезан" in run.outputs[-1].text


PRE_BURNT = """
import os, time
kids = []
for i in range(60):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        sum(i * i for i in range(300_000))     # burnt before the call is timed
        os.read(r, 1)
        os._exit(0)
    os.close(r)
    kids.append((pid, w))
time.sleep(2)
def busy(n):
    for pid, w in kids:                         # reaped while the call is timed
        os.close(w)
    for pid, w in kids:
        os.waitpid(pid, 0)
    return sum(i * i for i in range(n))
"""


def test_without_cgroups_children_that_end_during_a_timed_call_make_its_figure_unprovable():
    # children forked before the call, doing the work while it is timed and reaped (or reaped by the kernel itself)
    # then: the grader cannot tell which, so the figure is refused and the notebook listed for review
    with KernelSession(Sandbox(cgroups="off")) as session:
        seconds, message = outcome(session, PRE_BURNT, n=10)
        why = "завершались или появлялись процессы" if may_raise_limits() else "преподаватель"
        assert seconds is None and why in message, (seconds, message)


# -- the speed checks time the student's call against the course's own, on the same input ----------
# A growth check (a small call against a big one, both the student's) was flattened by padding the
# small call. Now every timed call of the student's is compared with the course's solution run in the
# grader on the same arguments: padding any call can only make the student slower (the catalogue's
# nb07_attack_train_fast_pads_a_small_call is that attack, graded through the same checks).


def hidden_answers_from_memory() -> str:
    """A slow train_fast that answers the hidden speed test's inputs from memory: this repository's solutions/ show
    their seeds (the docs say so: hidden from the notebook, not from the internet), so a student can train the slow
    way at home once and paste the merges. Computed here with the course's own solution for brevity. The inputs are
    drawn from checks.fresh_seed, so what the student stored is for texts the grader never sends."""
    import builtins
    import hashlib
    import random
    import types

    from autograder.course.course import CourseNotebook
    from autograder.notebook.reference import CourseSolutions

    course = CourseNotebook.load("07_fast_bpe")
    fast = CourseSolutions(course, builtins, types.SimpleNamespace(course_patterns=set()))("train_fast")
    source = course.tests["test_train_fast_hidden"].source
    # what the repository shows: the seeds 71 and 72 and fresh_seed's code; the number fresh_seed mixes in is drawn
    # by the grader's process, and the sandbox's own import of bpe_course draws another
    namespace = {"random": random, "fresh_seed": lambda seed: seed}
    exec(source[source.index("def zipf_text") : source.index("SLOWER =")], namespace)
    known = {}
    for seed in (71, 72):
        text = namespace["zipf_text"](seed)
        known[hashlib.sha256(text.encode()).hexdigest()] = fast(text, 256 + 6000)
    return (
        f"import hashlib\n_KNOWN = {known!r}\n"
        "def train_fast(text, vocab_size, pattern=GPT2_PATTERN):\n"
        "    known = _KNOWN.get(hashlib.sha256(text.encode()).hexdigest())\n"
        "    if known is not None and vocab_size == 256 + 6000:\n"
        "        return dict(known)\n"
        "    return train_chunked(text, vocab_size, pattern)      # the slow, step-by-step training\n"
    )


def test_a_slow_train_fast_that_answers_the_hidden_inputs_from_memory_loses_the_speed_points():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from catalogue import grade_case

    result = grade_case("07_fast_bpe", {"train_fast": hidden_answers_from_memory()}, until="test_train_fast_hidden")
    failed = {t["name"]: t["message"] for t in result["tests"] if t["score"] < t["max_score"]}
    assert "test_train_fast_hidden" in failed, failed


PRE_FORKED_WORKER = (
    "import os\nrequests, answers = os.pipe(), os.pipe()\nif os.fork() == 0:\n    while True:\n"
    "        n = int(os.read(requests[0], 100))\n"
    "        os.write(answers[1], str(sum(i * i for i in range(n))).encode())\n"
    "def busy(n):\n    os.write(requests[1], str(n).encode())\n    return int(os.read(answers[0], 100))\n"
    "def inline(n):\n    return sum(i * i for i in range(n))"
)  # the work handed to a child forked long before the call, which stays alive: no process starts or ends


@pytest.mark.parametrize("cgroups", ["on", "off"])
def test_work_handed_to_a_child_forked_before_the_timed_call_is_in_its_figure(cgroups):
    # own attack: the sandbox's processes are the same before and after the call (nothing is refused), so the figure
    # must hold the child's CPU: the cgroup's, or without one the live processes' utime read from /proc
    if cgroups == "off" and not (may_raise_limits() and Sandbox().resolved_mode() == "bwrap"):
        pytest.skip("no figure is claimed here without cgroups (tested above)")
    if cgroups == "on" and cgroup_unavailable():
        pytest.skip("no cgroups here")
    with KernelSession(Sandbox(cgroups=cgroups)) as session:
        assert session.run_cell(PRE_FORKED_WORKER).error is None
        bound = remote_of(session).bind({"busy", "inline"})
        n = 5_000_000
        ((result, hidden),) = bound["busy"].timed_calls([[n]])
        ((same, inline),) = bound["inline"].timed_calls([[n]])
    assert result == same == sum(i * i for i in range(n))
    assert hidden >= 0.5 * inline, (hidden, inline)  # the same work: counted, whichever process did it


def cgroup_unavailable():
    from autograder.wall import cgroup

    return cgroup.available() is not None


LEAVE_BEHIND = (
    "import os, time\nr, w = os.pipe()\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
    "        os.write(w, str(os.getpid()).encode())\n        time.sleep(600)\n    os._exit(0)\n"
    "os.wait()\nprint(os.read(r, 20).decode())"
)


@pytest.mark.xfail(
    strict=True,
    reason="mode=limits without a cgroup: a process that leaves the kernel's session "
    "outlives the sandbox (close() kills its process group only), and when the grader is root it "
    "runs as root (the uid is dropped only under bubblewrap); not fixed here",
)
def test_without_bubblewrap_or_cgroups_nothing_the_notebook_started_outlives_its_sandbox():
    session = KernelSession(Sandbox(mode="limits", cgroups="off")).start()
    try:
        pid = int(session.run_cell(LEAVE_BEHIND).outputs[0].text)
    finally:
        session.close()
    left = outlives(pid)  # read when close() returns: no wait for the kill to take effect
    if left:
        os.kill(pid, signal.SIGKILL)  # the test's own leftover
    assert not left


def outlives(pid: int) -> bool:
    """Whether the sandbox's process `pid` (a sandboxed Python: `-P` on its command line) lives on (lives_on)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return b"-P" in command and lives_on(pid)


def test_outlives_tells_a_process_sent_sigkill_from_one_that_lives_on():
    import subprocess
    import sys

    started = "import sys, time; print('up', flush=True); time.sleep(600)"
    child = subprocess.Popen([sys.executable, "-P", "-c", started], stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline() == b"up\n"  # exec'd and running: its command line is its own now
        assert outlives(child.pid)
        child.kill()
        assert not outlives(child.pid)  # pending, a zombie or gone: decided as kill() returns
    finally:
        child.kill()
        child.wait()


def test_a_timed_call_that_returns_a_generator_is_refused_its_work_would_come_after_the_clock():
    # a generator's work is done when its items are asked for, after the call's time was read
    from bpe_course import checks

    with KernelSession(Sandbox()) as session:
        assert session.run_cell("def busy(n):\n    yield sum(i * i for i in range(n))").error is None
        with pytest.raises(checks.CheckFailed, match="генератор"):
            remote_of(session).bind({"busy"})["busy"].timed_calls([[5_000_000]])


def test_a_timeout_is_the_graders_finding_not_a_name_the_student_raises_or_a_claim_it_forges():
    # a wall-clock cut makes the notebook an `error` to retry: a student must not be able to set that off
    # (or have their notebook regraded on every run) by naming an exception Timeout or forging the answer
    with KernelSession(Sandbox(), cell_timeout=30) as session:
        run = session.run_cell("class Timeout(Exception):\n    pass\nraise Timeout('5')")
        assert run.error == ("Timeout", "5") and run.timed_out is None
        for forged in ({"kind": "timeout", "limit": "wall"}, {"error": None, "timeout": True}):
            seq = session.sequence + 1
            run = session.run_cell(
                f"import json, os, struct\ndata = json.dumps({forged!r}).encode()\n"
                f"os.write({session.agent_fd}, struct.pack('>II', {seq}, len(data)) + data)"
            )
            assert run.timed_out is None and run.error[0] == "Exception", run
        session.cell_timeout = 1
        run = session.run_cell("import time\ntime.sleep(30)")  # a real one still counts
        assert run.timed_out == 1 and run.error == ("Timeout", "1")


# -- the grader's cost per notebook is bounded (KernelSession.max_received_bytes) ----------------------
@pytest.mark.parametrize("unit", ['{"S":[]}', '{"L":[]}'], ids=["sets", "lists"])
def test_a_sandbox_answering_every_request_with_a_frame_at_the_cap_costs_the_grader_no_more_than_its_ceiling(unit):
    # every answer of the kernel a prebuilt 16 MiB frame (its own Channel.send patched) cost the grader 57.8 CPU-s
    # and 983 MB on one notebook: parsing and decoding were not bounded per notebook. Now the frames of one notebook
    # stop at max_received_bytes (the sandbox is stopped, saying why) and one frame's parse at max_answer_chars
    import subprocess
    import sys
    from pathlib import Path

    out = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "flood_answers.py"), unit],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    cost = json.loads(out.strip().splitlines()[-1])
    assert cost["received"] <= cost["ceiling"] and "МиБ ответов и вывода за блокнот" in cost["message"], cost
    assert cost["memory"] <= 80 * cost["frame"], cost  # one frame parsed at a time: about 60 times the frame
    assert cost["cpu"] <= 20, cost  # about 7 CPU-s here, against 57.8 before


def flood_cost(kind: str, *settings: str) -> dict:
    """What one of flood_answers.FLOODS cost the grader, measured in a process of its own."""
    import subprocess
    import sys
    from pathlib import Path

    script = str(Path(__file__).parent / "flood_answers.py")
    run = subprocess.run([sys.executable, script, kind, '{"S":[]}', *settings], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["empty", "outputs"])
def test_a_flood_of_frames_that_cost_nothing_in_bytes_stops_at_the_graders_reading_ceiling(kind):
    # 32 MiB of empty frames are 4 million frames: each one read (and an output one parsed) cost the grader 24 CPU-s
    # on one notebook within max_received_bytes. Now the grader's own CPU spent reading (its thread's clock) has a
    # ceiling per notebook, KernelSession.max_reading_seconds (lowered here to keep the test short); past it the
    # sandbox is stopped, saying why. Without the ceiling (count_reading a no-op) this test fails: 24 CPU-s, no message
    cost = flood_cost(kind, "max_reading_seconds=3")
    # the reading ceiling stops it (or, should reading ever get that cheap, the bytes' one first)
    assert cost["message"] and ("процессорного времени за блокнот" in cost["message"] or "МиБ" in cost["message"]), cost
    assert cost["reading"] <= 3.5 and cost["cpu"] <= 3 + 3, cost  # reading, plus what the grader does around it
    assert cost["memory"] <= 50 * 2**20, cost


def test_a_generator_whose_every_item_is_a_frame_at_the_cap_costs_the_grader_no_more_than_its_ceiling():
    # a generator whose every answer is the largest frame: at a 30 s test budget it cost the grader 94 CPU-s and
    # 3.3 GB on an idle machine (more frames arrive in the same wall time). Now reading stops at the reading ceiling
    # or the bytes' one, whichever comes first; decoding what was read is bounded by the bytes
    cost = flood_cost("generator")
    assert cost["message"] and ("МиБ" in cost["message"] or "процессорного времени" in cost["message"]), cost
    assert cost["received"] <= cost["ceiling"] and cost["reading"] <= cost["seconds"] + 0.5, cost
    assert cost["memory"] <= 80 * cost["frame"] and cost["cpu"] <= 30, cost


def test_a_notebook_flooding_every_cell_with_output_is_kept_for_formgrader_cut_and_written_once(tmp_path):
    # 400 extra cells printing 200,000 characters each: the feedback page was capped, but the notebook kept for
    # formgrader was 77 MB, written twice (submitted/ and autograded/)
    import os
    from pathlib import Path

    from autograder.classroom.gradebook import write_once
    from autograder.notebook.pipeline import NotebookGrader

    nb = nbformat.v4.new_notebook()
    for _ in range(400):
        cell = nbformat.v4.new_code_cell("print('x' * 200_000)")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 200_000)]
        nb.cells.append(cell)
    grader = NotebookGrader()
    cap = grader.max_notebook_output_chars
    text = nbformat.writes(review_notebook(grader.for_review(nb)))
    nbformat.validate(nbformat.reads(text, 4))
    assert cap <= len(text) < cap + 200_000 and "обрезан" in text
    assert len(nbformat.writes(NotebookGrader(max_notebook_output_chars=300_000).for_review(nb))) < 600_000  # a setting
    for _ in range(2):  # a second run writes over the first
        write_once(tmp_path, "s1", "01_hand_example", text, "2026-12-03 10:00:00")
    folder = tmp_path / "{}" / "s1" / "01_hand_example"
    files = [Path(str(folder).format(name)) / "01_hand_example.ipynb" for name in ("autograded", "submitted")]
    assert files[0].read_text(encoding="utf-8") == text and os.path.samefile(*files)
    assert all((f.parent / "timestamp.txt").read_text() == "2026-12-03 10:00:00" for f in files)
    assert sorted(p.name for p in files[0].parent.iterdir()) == ["01_hand_example.ipynb", "timestamp.txt"]


FLOOD_EVERY_ANSWER = flooding(KernelSession.class_traits()["max_answer_chars"].default_value)  # frames at the cap


def test_a_notebook_whose_kernel_floods_every_answer_is_graded_keeping_its_honest_tests(tmp_path):
    # from its last solution cell on, every answer of the kernel is a frame at the cap: the tests before keep their
    # points, the rest fail saying why, the notebook is graded (not an error to retry), at a bounded cost
    import time

    from autograder.course.course import CourseNotebook
    from autograder.course.simulate import solution_sources, submission, write
    from autograder.notebook.pipeline import NotebookGrader

    solved = solution_sources("01_hand_example")["learn_merges"]
    flooding = submission("01_hand_example", replace={"learn_merges": solved + "\n" + FLOOD_EVERY_ANSWER})
    path = write(flooding, tmp_path / "01.ipynb")
    started = time.process_time()
    graded = NotebookGrader().grade(
        CourseNotebook.load("01_hand_example"), path, lambda: KernelSession(Sandbox(), cell_timeout=60)
    )
    spent = time.process_time() - started
    result = graded.result
    scores = {t.name: (t.score, t.message) for t in result.tests}
    assert result.status == "graded" and result.score == 11, scores  # quizzes, count_pairs and merge_pair
    for name in ("test_learn_merges", "test_learn_merges_hidden"):
        score, message = scores[name]
        assert score == 0 and ("ядро" in message or "МиБ" in message), scores
    assert spent < 30, (spent, scores)  # the honest part takes about a second


def test_output_frames_count_against_the_notebooks_ceiling_too():
    # frames dropped unparsed once a cell's output is cut still cost the grader their reading: they count
    from autograder.wall.session import KernelDied

    with KernelSession(Sandbox(), cell_timeout=30, max_received_bytes=2**21) as session:
        with pytest.raises(KernelDied, match="МиБ ответов и вывода за блокнот"):
            session.run_cell(f"FD, SEQ = {session.agent_fd}, {session.sequence + 1}\n" + POUR)
        assert session.received <= 2**21 and session.process.poll() is not None
        # the grader reads ahead of the frame it parses, but never past the ceiling and the header that passes it
        assert session.read_bytes <= 2**21 + FRAME.size, session.read_bytes


def test_the_run_says_at_its_start_when_speed_is_not_graded_automatically(capsys):
    from traitlets.config import Config

    from autograder.classroom.workflow import warn_about_sandbox

    config = Config()
    config.Sandbox.cgroups = "off"
    warn_about_sandbox(config)
    said = "speed is NOT graded automatically" in capsys.readouterr().out
    assert said == (not (may_raise_limits() and Sandbox().resolved_mode() == "bwrap"))


# -- the course's solution is timed in the grader: the sandbox can only try to crowd it out -----------
SPINS_WHILE_NOT_TIMED = """
import mmap, os, time
_inside = mmap.mmap(-1, 1)                        # shared with the child: anonymous shared memory

if os.fork() == 0:
    while True:                                   # burns a CPU whenever train_fast is not running:
        if _inside[0]:                            # while the grader times the course's solution
            time.sleep(0.0005)
        else:
            sum(range(10_000))

def train_fast(text, vocab_size, pattern=GPT2_PATTERN):
    _inside[0] = 1
    try:
        return train_chunked(text, vocab_size, pattern)    # the slow, step-by-step training
    finally:
        _inside[0] = 0"""


def test_work_done_between_the_timed_calls_does_not_make_a_slow_train_fast_pass():
    # the student's figure is the sandbox's CPU during its own call; the course's is the grader's own
    # thread time, in another process the sandbox cannot reach: crowding the machine in between changes
    # the course's figure by far less than the ratio a slow solution is over the limit
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from autograder.course.course import CourseNotebook
    from autograder.course.simulate import submission, write
    from autograder.notebook.pipeline import NotebookGrader

    course = CourseNotebook.load("07_fast_bpe")
    names = list(course.tests)
    course.tests = {name: course.tests[name] for name in names[: names.index("test_train_fast_hidden") + 1]}
    with tempfile.TemporaryDirectory() as tmp:
        path = write(submission("07_fast_bpe", replace={"train_fast": SPINS_WHILE_NOT_TIMED}), Path(tmp) / "07.ipynb")
        result = NotebookGrader().grade(course, path, lambda: KernelSession(Sandbox())).result
    failed = {t.name: t.message for t in result.tests if t.score < t.max_score}
    assert result.status == "graded", result.message
    assert set(failed) == {"test_train_fast_hidden"} and "обучение не пошаговое" in failed["test_train_fast_hidden"]


# -- the course's solution is timed with the sandbox frozen (issue 40 item 3) -------------------------------------
# a thread and a forked child copying 2 × 64 MB over and over: memory bandwidth taken from the grader's own work (it
# slowed the course's reference 1.13–1.23× on the host's thread clock while the grader timed it)
THRASHER = """
import os, threading
def _copy():
    src, dst = bytearray(64 << 20), bytearray(64 << 20)
    while True:
        dst[:] = src
if os.fork() == 0:
    _copy()
threading.Thread(target=_copy, daemon=True).start()
"""


# the attack: the same, idle while the student's own call is timed (a flag in memory shared with the child), so
# that only the course's reference, timed by the grader in between, would run next to it
THRASHES_WHILE_NOT_TIMED = """
import mmap, os, threading, time
_inside = mmap.mmap(-1, 1)
def _copy():
    src, dst = bytearray(64 << 20), bytearray(64 << 20)
    while True:
        if _inside[0]:
            time.sleep(0.0005)
        else:
            dst[:] = src
if os.fork() == 0:
    _copy()
threading.Thread(target=_copy, daemon=True).start()
"""
TIMED_FLAG = """
_train_fast = train_fast
def train_fast(*args, **kwargs):
    _inside[0] = 1
    try:
        return _train_fast(*args, **kwargs)
    finally:
        _inside[0] = 0
"""


def cpu_after(session, start: float, more: float, seconds: float = 60) -> float:
    """The sandbox's CPU seconds once they passed `start` + `more` (waited for, at most `seconds`: a busy machine)."""
    deadline = time.monotonic() + seconds
    while session.cpu_clock() < start + more and time.monotonic() < deadline:
        time.sleep(0.05)
    return session.cpu_clock()


@pytest.mark.parametrize(
    "mode, cgroups", [("auto", "auto"), ("auto", "off"), ("limits", "off")], ids=["cgroups", "bwrap", "limits"]
)
def test_the_sandbox_is_frozen_while_the_grader_works_and_runs_again_after(mode, cgroups):
    # KernelSession.frozen: its cgroup's freezer, else SIGSTOP to every process of the sandbox; its CPU time, read
    # from outside, does not advance while frozen, and does before and after (so the figure can tell)
    with KernelSession(Sandbox(mode=mode, cgroups=cgroups)) as session:
        assert session.run_cell(THRASHER).error is None
        start = session.cpu_clock()
        assert cpu_after(session, start, 0.2) >= start + 0.2  # it thrashes
        with session.frozen():
            frozen_at = session.cpu_clock()
            time.sleep(0.5)
            assert session.cpu_clock() - frozen_at < 0.005
        thawed = session.cpu_clock()
        assert cpu_after(session, thawed, 0.2) >= thawed + 0.2  # and again after
        assert session.run_cell("x = 1").error is None  # the kernel goes on


def test_a_thrasher_in_the_sandbox_changes_no_verdict_and_is_frozen_while_the_reference_is_timed(monkeypatch):
    # the solved train_fast with a thrasher that runs whenever train_fast does not: the speed test's verdict is the
    # honest one, and every time the grader timed the course's reference (checks.reference_seconds) the sandbox's CPU
    # time stood still (without the freezer, the thrasher's copying ran there: test_the_sandbox_is_frozen_…)
    import contextlib
    import tempfile
    from pathlib import Path

    from autograder.course.course import CourseNotebook
    from autograder.course.simulate import solution_sources, submission, write
    from autograder.notebook.pipeline import NotebookGrader

    spans, frozen = [], KernelSession.frozen

    @contextlib.contextmanager
    def watched(self):
        with frozen(self):
            start = self.cpu_clock()
            yield
            spans.append(self.cpu_clock() - start)

    monkeypatch.setattr(KernelSession, "frozen", watched)
    course = CourseNotebook.load("07_fast_bpe")
    names = list(course.tests)
    course.tests = {name: course.tests[name] for name in names[: names.index("test_train_fast_hidden") + 1]}
    graded = {}
    thrasher = THRASHES_WHILE_NOT_TIMED + solution_sources("07_fast_bpe")["train_fast"] + TIMED_FLAG
    for name, replace in [("honest", {}), ("thrasher", {"train_fast": thrasher})]:
        with tempfile.TemporaryDirectory() as tmp:
            path = write(submission("07_fast_bpe", replace=replace), Path(tmp) / "07.ipynb")
            result = NotebookGrader().grade(course, path, lambda: KernelSession(Sandbox())).result
        assert result.status == "graded", result.message
        graded[name] = {t.name: (t.score, t.message) for t in result.tests}
    assert graded["thrasher"] == graded["honest"]
    assert spans and all(used < 0.005 for used in spans), spans


def test_without_cgroups_a_solved_07_is_graded_and_a_speed_it_cannot_prove_is_left_to_the_instructor(tmp_path):
    from autograder.course.course import CourseNotebook
    from autograder.course.simulate import submission, write
    from autograder.notebook.pipeline import NotebookGrader

    path = write(submission("07_fast_bpe"), tmp_path / "07.ipynb")
    session = lambda: KernelSession(Sandbox(cgroups="off"))  # noqa: E731
    result = NotebookGrader().grade(CourseNotebook.load("07_fast_bpe"), path, session).result
    failed = {t.name: t.message for t in result.tests if t.score < t.max_score}
    assert result.status == "graded"
    if may_raise_limits() and Sandbox().resolved_mode() == "bwrap":
        assert not failed and not result.review, (failed, result.review)
        return
    assert failed and all("скорость оценивает преподаватель" in m and "с ошибкой" not in m for m in failed.values())
    assert result.review and all("не засчитано" in line for line in result.review), result.review
