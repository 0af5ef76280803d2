"""The student's sandboxed process from the grader's side: calls are limited, a stuck one is stopped, what it
sends is bounded."""

import os
import time

import pytest
from local_session import remote_of

from autograder.wall.remote import KernelGone
from autograder.wall.sandbox import Sandbox, bwrap_works
from autograder.wall.session import KernelDied, KernelSession, KernelStuck
from bpe_course import checks


@pytest.fixture
def kernel():
    session = KernelSession(Sandbox(), interrupt_grace=3).start()
    yield session
    session.close()


def define(session, code):
    run = session.run_cell(code)
    assert run.error is None, run.error


def test_a_call_that_loops_runs_out_of_cpu_time_and_the_kernel_goes_on(kernel):
    define(kernel, "def spin():\n    while True:\n        pass\ndef ok():\n    return 42")
    remote = remote_of(kernel, call_seconds=1, wall_factor=30, wall_extra=30)
    with pytest.raises(checks.TookTooLong) as raised:
        remote.call("spin", (), {})
    assert not raised.value.wall
    assert remote.call("ok", (), {}) == 42


def test_a_call_that_sleeps_is_stopped_by_the_wall_clock_limit(kernel):
    define(kernel, "import time\ndef nap():\n    time.sleep(1000)\ndef ok():\n    return 'awake'")
    remote = remote_of(kernel, call_seconds=1, wall_factor=2, wall_extra=3)
    with pytest.raises(checks.TookTooLong) as raised:
        remote.call("nap", (), {})
    assert raised.value.wall
    assert remote.call("ok", (), {}) == "awake"


def test_a_kernel_that_ignores_interrupts_is_stopped_and_says_so(kernel):
    define(
        kernel,
        "import time\ndef stubborn():\n    while True:\n        try:\n            time.sleep(1000)\n"
        "        except BaseException:\n            pass",
    )
    remote = remote_of(kernel, call_seconds=1, wall_factor=2, wall_extra=1)
    with pytest.raises(KernelGone):
        remote.call("stubborn", (), {})
        remote.call("stubborn", (), {})
    assert kernel.dead


def test_values_and_errors_come_back_as_plain_data(kernel):
    define(
        kernel,
        "from collections import Counter\nANSWER = Counter('aab')\nclass Mine: pass\nOBJ = Mine()\n"
        "def boom(x):\n    raise KeyError(x)\ndef gen():\n    yield from 'аб'",
    )
    remote = remote_of(kernel)
    bound = remote.bind({"ANSWER", "OBJ", "boom", "gen", "MISSING"})
    assert bound["ANSWER"] == {"a": 2, "b": 1} and type(bound["ANSWER"]) is dict
    assert repr(bound["OBJ"]) == "<объект типа __main__.Mine>" and "MISSING" not in bound
    with pytest.raises(KeyError) as raised:
        bound["boom"]("ключ")
    assert "ключ" in str(raised.value) and "boom" in str(raised.value)
    assert list(bound["gen"]()) == ["а", "б"]


def test_calls_and_cells_take_turns_and_a_calls_output_stays_out_of_the_cells(kernel):
    define(kernel, "calls = []\ndef twice(x):\n    print('inside', x)\n    calls.append(x)\n    return x * 2")
    remote = remote_of(kernel)
    assert [remote.call("twice", (i,), {}) for i in range(100)] == [2 * i for i in range(100)]
    run = kernel.run_cell("print(len(calls))")
    assert run.error is None and [o.text for o in run.outputs] == ["100\n"]
    assert remote.call("twice", ("a\ud800",), {}) == "a\ud800a\ud800"  # lone surrogates cross both ways


def test_a_frame_nobody_asked_for_is_dropped_and_one_above_the_cap_stops_the_sandbox(kernel):
    define(
        kernel,
        "import os, struct\n"
        "def ok():\n    return 1\n"
        "def forge(fd, size):\n    os.write(fd, struct.pack('>II', 7, size))\n    return 0",
    )
    remote = remote_of(kernel)
    kernel.run_cell(f"os.write({kernel.agent_fd}, struct.pack('>II', 1, 2) + b'{{}}')")  # an answer to nothing
    assert remote.call("ok", (), {}) == 1
    with pytest.raises(KernelGone, match="одним куском"):
        remote.call("forge", (kernel.agent_fd, 2**31), {})
    assert kernel.dead and kernel.process.poll() is not None


@pytest.mark.parametrize("mode", ["limits", "off"])
def test_without_bubblewrap_the_kernel_still_grades_with_a_clean_environment(mode, monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_TOKEN", "not-for-students")
    session = KernelSession(Sandbox(mode=mode)).start()
    try:
        define(session, "import os\nENV = dict(os.environ)\ndef double(x):\n    return 2 * x")
        remote = remote_of(session)
        bound = remote.bind({"ENV", "double"})
        assert bound["double"](21) == 42
        if mode == "limits":  # the limits and a clean environment still apply
            assert "INSTRUCTOR_TOKEN" not in bound["ENV"] and bound["ENV"]["BPE_COURSE_STATIC"] == "1"
    finally:
        session.close()


# -- what the sandbox sends is read in frames, capped, checked, and dropped unless it is asked for ------
FORGED = """
import json, os, struct
def frame(seq, obj):
    data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    os.write(FD, struct.pack(">II", seq, len(data)) + data)
big = "x" * 2**17                # 19 rounds stay under the 32 MiB a notebook may send
for seq in range(1, 20):        # the running cell's sequence number is one of these
    out = seq | 2**31
    frame(out, {"kind": "error", "type": "E", "message": big, "traceback": [big] * 3})
    frame(out, {"kind": "display", "data": {"text/html": big}, "metadata": {}})
    frame(out, {"kind": "text", "name": "stdout", "text": big})
    frame(out, {"kind": "display", "data": {}, "metadata": []})             # mistyped: no output
    frame(out, {"kind": "text", "name": 7, "text": ["not an output"]})      # mistyped: no output
    frame(out, {"output_type": "stream", "name": "stdout", "text": big})    # the old shape: no message
    frame(out, {"kind": "value", "value": big})                            # an answer where an output goes
    frame(out, b"[" * 100000)                                  # not JSON: too deep to parse
    frame(seq + 1000, {"kind": "value", "value": "an answer to nothing asked"})
raise ValueError("the end")
"""


def test_forged_frames_in_bulk_are_cut_at_the_output_limit_and_grading_goes_on():
    import nbformat

    session = KernelSession(Sandbox(), max_output_chars=50_000).start()
    try:
        run = session.run_cell(f"FD = {session.agent_fd}\n" + FORGED)
        assert sum(len(str(o)) for o in run.outputs) < 60_000
        assert run.error == ("ValueError", "the end")
        cell = nbformat.v4.new_code_cell("x")
        cell.outputs = run.outputs
        nbformat.validate(nbformat.v4.new_notebook(cells=[cell]))  # every output kept is a valid one
        define(session, "def double(x):\n    return 2 * x")
        assert remote_of(session).call("double", (21,), {}) == 42
    finally:
        session.close()


def test_the_shells_own_outputs_forged_in_bulk_are_cut_at_the_output_limit_errors_included():
    session = KernelSession(Sandbox(), max_output_chars=50_000).start()
    try:
        run = session.run_cell(
            "_ip = get_ipython()\n"
            "for i in range(25):\n"
            "    _ip._showtraceback(ValueError, 'x' * 2**20, ['y' * 2**20] * 3)\n"
            "    _ip.display_pub.publish({'text/plain': 'z' * 2**20})\n"
            "raise ValueError('the end')"
        )
        assert sum(len(str(o)) for o in run.outputs) < 60_000
        assert run.error == ("ValueError", "the end")
    finally:
        session.close()


def test_honest_floods_of_output_are_cut_in_the_sandbox_and_never_make_a_frame_too_big():
    session = KernelSession(Sandbox(), max_answer_chars=2**20).start()  # 1 MiB here (4 MiB by default)
    try:
        run = session.run_cell(
            "from IPython.display import HTML, display\nprint('x' * 2**22)\n"
            "display(HTML('y' * 2**22))\nraise ValueError('v' * 2**22)"
        )
        assert run.error[0] == "ValueError" and not session.dead
        assert "вывод обрезан" in run.outputs[-1].text
        define(session, "def double(x):\n    return 2 * x")
        assert remote_of(session).call("double", (21,), {}) == 42
    finally:
        session.close()


def test_the_watchdog_stops_a_worker_past_its_limit_and_puts_a_new_one_in_its_place(tmp_path):
    from autograder.classroom.pool import Lost, Workers
    from autograder.classroom.worker import Task
    from autograder.course.course import PreparedCourse
    from autograder.course.simulate import submission, write

    course = PreparedCourse(tmp_path / "course").prepare()
    path = tmp_path / "stuck.ipynb"  # a cell that outlasts every limit but the watchdog's
    write(submission("01_hand_example", replace={"count_pairs": "import time\ntime.sleep(10**6)"}), path)
    workers = Workers(1, course.root, {"KernelSession": {"cell_timeout": 10**7}}, limit=5)
    try:
        ((old, _),) = workers.slots.values()
        workers.send(0, Task("s", "01_hand_example", str(path), feedback=False))
        done = []
        while not done:
            done = workers.answers()
        ((task, answer),) = done
        assert isinstance(answer, Lost) and "limit of 5 s" in answer.reason
        ((new, _),) = workers.slots.values()
        assert not old.is_alive() and new.is_alive() and not workers.busy
    finally:
        workers.stop(now=True)


# -- a cgroup per sandbox: memory of all its processes, a CPU quota, a process count; a uid of its own --
from autograder.wall import cgroup  # noqa: E402

needs_cgroups = pytest.mark.skipif(cgroup.available() is not None, reason=f"no cgroups: {cgroup.available()}")
GiB = 2**30


@pytest.fixture
def small():
    """A sandbox of 1 GiB (the course's is 4): the attacks below then need no more than that."""
    session = KernelSession(Sandbox(memory_bytes=GiB, cgroups="on"), interrupt_grace=3).start()
    yield session
    session.close()


@needs_cgroups
def test_memfd_counts_against_the_sandboxs_memory(small):
    # memfd pages are in no process's address space: RLIMIT_AS alone let 4.5 GiB through a 4 GiB limit
    run = attack(
        small,
        "import os\nwritten = 0\nchunk = b'\\1' * 2**24\nfds = []\ntry:\n"
        "    for i in range(6):\n        fds.append(os.memfd_create(f'm{i}'))\n"
        "        for _ in range(16):\n            written += os.write(fds[-1], chunk)\n"
        "except OSError as e:\n    print('stopped:', e)\nprint(written)",
    )
    assert small.cgroup.memory_peak() <= GiB
    assert run == "died" or "stopped" in run, run  # the kernel was stopped, or its writes were
    if run == "died":
        assert "1 ГиБ памяти" in small.dead, small.dead


FORK_HOGS = """
import os
children = []
for i in range(6):
    r, w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        for fd in [r, go_w] + [go for _, go, _ in children]:   # only the parent may hold a "go" open
            os.close(fd)
        try:
            hog = bytearray(200 * 2**20)
            hog[::4096] = b"\\1" * len(hog[::4096])      # every page touched
            os.write(w, b"ok")
        except MemoryError:
            pass
        os.close(w)
        os.read(go_r, 1)                               # hold it until every child has tried
        os._exit(0)
    os.close(w)
    children.append((r, go_w, pid))
held = [os.read(r, 2) for r, _, _ in children]
for _, go, _ in children:
    os.close(go)
# a child that held its memory until the end, never killed: all of those held it at once
print(sum(h == b"ok" and os.waitpid(pid, 0)[1] == 0 for h, (_, _, pid) in zip(held, children)))
"""


@needs_cgroups
def test_forked_children_share_the_sandboxs_memory(small):
    # each child within its own 1 GiB RLIMIT_AS (the kernel's address space is ~0.7 GiB); together 1.2 GiB
    run = attack(small, FORK_HOGS)
    assert small.cgroup.memory_peak() <= GiB
    assert run == "died" or run.strip() != "6", run  # not all six held their 200 MiB


@needs_cgroups
def test_children_that_leave_the_session_get_one_cpu_between_them_and_end_with_the_sandbox():
    session = KernelSession(Sandbox(cpus=0.5, cgroups="on")).start()
    try:
        define(
            session,
            "import os, time\nfor i in range(3):\n    if os.fork() == 0:\n        os.setsid()\n"
            "        while True:\n            pass\ntime.sleep(0.5)",
        )
        before = cpu_seconds(session.cgroup.pids())
        time.sleep(3)
        used, wall = cpu_seconds(session.cgroup.pids()) - before, 3
        assert used <= 0.5 * wall + 0.5, used  # 3 spinners, at most half a CPU between them
    finally:
        session.close()
    assert not any(f.exists() for f in session.cgroup.folders)  # none outlives it: an empty cgroup is removed


@needs_cgroups
def test_each_sandbox_has_a_uid_of_its_own_so_a_fork_heavy_one_starves_no_other():
    busy = KernelSession(Sandbox(processes=64)).start()
    other = KernelSession(Sandbox(processes=64)).start()
    try:
        assert busy.uid != other.uid
        define(
            busy,
            "import os, time\nkids = []\nfor i in range(200):\n    try:\n        pid = os.fork()\n"
            "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(600)\n        os._exit(0)\n"
            "    kids.append(pid)\nprint(len(kids))",
        )
        define(
            other,
            "import threading\nts = [threading.Thread(target=lambda: None) for _ in range(20)]\n"
            "[t.start() for t in ts]\n[t.join() for t in ts]\nimport subprocess\n"
            "print(subprocess.run(['true']).returncode)",
        )
    finally:
        busy.close()
        other.close()


def attack(session, code) -> str:
    """What the cell printed, or "died" when the kernel was stopped."""
    try:
        run = session.run_cell(code)
    except KernelDied:
        return "died"
    return "".join(o.get("text", "") for o in run.outputs) + str(run.error or "")


def cpu_seconds(pids) -> float:
    total = 0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


@needs_cgroups
def test_the_cgroups_of_a_killed_worker_are_removed_later_and_a_busy_one_never():
    left, busy = cgroup.SandboxCgroup.create(GiB, 1, 64), cgroup.SandboxCgroup.create(GiB, 1, 64)
    for folder in left.folders + busy.folders:  # both an hour old, as after a SIGKILLed worker
        os.utime(folder, (time.time() - 2 * cgroup.STALE_SECONDS,) * 2)
    joined, said = os.pipe()
    pid = os.fork()
    if pid == 0:  # a process still in `busy`
        cgroup.join(busy.procs_files)
        os.write(said, b"in")  # the moment it is in
        time.sleep(60)
        os._exit(0)
    os.close(said)
    try:
        assert os.read(joined, 2) == b"in"
        assert all(str(pid) in (f / "cgroup.procs").read_text().split() for f in busy.folders)
        cgroup.SandboxCgroup.create(GiB, 1, 64).remove()
        assert not any(f.exists() for f in left.folders) and all(f.exists() for f in busy.folders)
    finally:
        os.close(joined)
        busy.remove()
        left.remove()
        os.waitpid(pid, 0)
    assert not any(f.exists() for f in busy.folders)


def test_every_kind_of_output_counts_against_a_cells_limit_and_printing_lines_does_not_reach_it():
    from autograder.wall import protocol
    from autograder.wall.cell_outputs import LimitedOutputs

    flood = LimitedOutputs(50_000)
    for _ in range(100_000):  # empty outputs cost something too
        flood.add(protocol.DisplayData(data={}))
    for _ in range(25):  # 25 tracebacks of 40 MB once wrote a 1 GB notebook
        flood.add(protocol.Error(type="E", message="x" * 2**20, traceback=["y" * 2**20] * 40))
    assert sum(len(str(o)) for o in flood.outputs) < 60_000
    honest = LimitedOutputs(200_000)
    for i in range(5000):
        honest.add(protocol.StreamText(name="stdout", text=f"строка {i}\n"))
    assert len(honest.outputs) == 1 and honest.outputs[0].text.endswith("строка 4999\n")


def test_a_clock_or_an_agent_replaced_by_the_notebook_fakes_no_speed_figure(kernel):
    """07 grades speed by CPU time (checks.cpu_seconds). While grading, the grader reads the sandbox's
    CPU time itself around each call: a notebook that replaces the clock, or the agent's own timing
    helper, reports nothing of its own making."""
    define(
        kernel,
        "import sys, time\ntime.process_time = lambda: 0.0\n"
        "sys.modules['_bpe_agent'].agent.helpers['cpu_seconds'] = lambda fn, calls: [[fn(*a), 1e-9] for a in calls]\n"
        "def busy(n):\n    return sum(i * i for i in range(n))",
    )
    ((result, seconds),) = remote_of(kernel).bind({"busy"})["busy"].timed_calls([[5_000_000]])
    assert result == sum(i * i for i in range(5_000_000)) and seconds > 0.05


@needs_cgroups
def test_work_done_in_a_forked_child_counts_in_a_calls_cpu_time():
    session = KernelSession(Sandbox(cgroups="on")).start()
    try:
        define(
            session,
            "import os\ndef busy(n):\n    r, w = os.pipe()\n    if os.fork() == 0:\n"
            "        os.write(w, str(sum(i * i for i in range(n))).encode())\n        os._exit(0)\n"
            "    os.close(w)\n    os.wait()\n    return int(os.read(r, 100))",
        )
        ((result, seconds),) = remote_of(session).bind({"busy"})["busy"].timed_calls([[5_000_000]])
        assert result == sum(i * i for i in range(5_000_000)) and seconds > 0.05
    finally:
        session.close()


def test_the_agent_knows_every_check_helper_that_runs_in_the_kernel():
    import inspect
    import re

    from autograder.wall.agent import check_helpers

    assert set(check_helpers()) == set(re.findall(r'remote_helper\("(\w+)"', inspect.getsource(checks)))


# -- the socket is the sandbox's: what it does to it can end its own grading, nothing more ----------
@pytest.mark.parametrize(
    "code",
    [
        "import os\nos.dup2(FD, 1)\nos.write(1, b'hello, grader' * 1000)",  # its output poured into the socket
        "import os\nos.close(FD)",  # the socket closed
        "import os, struct\nos.write(FD, struct.pack('>II', 5, 100) + b'{')",  # a frame that never ends
    ],
)
def test_a_sandbox_that_breaks_its_socket_is_stopped_and_says_so(code):
    session = KernelSession(Sandbox(), cell_timeout=5, interrupt_grace=2).start()
    try:
        with pytest.raises((KernelDied, KernelStuck)):
            session.run_cell(f"FD = {session.agent_fd}\n" + code)
            session.run_cell("print(1)")
        assert session.dead and session.process.poll() is not None
    finally:
        session.close()


def test_frames_for_other_requests_while_the_grader_waits_are_dropped_and_the_answer_is_the_real_one(kernel):
    define(
        kernel,
        f"import os, struct, threading, json\nFD = {kernel.agent_fd}\n"
        "def noise():\n    data = json.dumps({'value': 'forged'}).encode()\n"
        "    for seq in range(100000, 100400):\n"
        "        os.write(FD, struct.pack('>II', seq, len(data)) + data)\n"
        "def slow_double(x):\n    noise()\n    return 2 * x",
    )
    assert remote_of(kernel).call("slow_double", (21,), {}) == 42


@pytest.mark.skipif(not bwrap_works(), reason="needs bubblewrap")
def test_a_venv_reached_through_a_symlink_still_starts_the_sandboxed_kernel(tmp_path):
    """bubblewrap binds the venv by its real path: the kernel is started from there, not through the link
    (a checkout whose .venv is a link, a home behind one), which the sandbox does not have."""
    import subprocess
    import sys
    from pathlib import Path

    from conftest import ROOT

    (tmp_path / "venv").symlink_to(Path(sys.prefix).resolve())
    run = subprocess.run(
        [str(tmp_path / "venv" / "bin" / "python"), "-m", "autograder", "check", "notebooks/01_hand_example.ipynb"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1 and "0 из 17 (проверен)" in run.stdout, run.stdout  # ran, and an untouched one fails
