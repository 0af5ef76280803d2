"""The student's kernel from the grader's side: calls are limited, a stuck kernel is stopped."""
import pytest

from autograder.remote import KernelGone, Remote
from autograder.sandbox import Sandbox
from autograder.session import KernelSession
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
    remote = Remote(kernel, call_seconds=1, wall_factor=30, wall_extra=30)
    with pytest.raises(checks.TookTooLong) as raised:
        remote.call("spin", (), {})
    assert not raised.value.wall
    assert remote.call("ok", (), {}) == 42


def test_a_call_that_sleeps_is_stopped_by_the_wall_clock_limit(kernel):
    define(kernel, "import time\ndef nap():\n    time.sleep(1000)\ndef ok():\n    return 'awake'")
    remote = Remote(kernel, call_seconds=1, wall_factor=2, wall_extra=3)
    with pytest.raises(checks.TookTooLong) as raised:
        remote.call("nap", (), {})
    assert raised.value.wall
    assert remote.call("ok", (), {}) == "awake"


def test_a_kernel_that_ignores_interrupts_is_stopped_and_says_so(kernel):
    define(kernel, "import time\ndef stubborn():\n    while True:\n        try:\n            time.sleep(1000)\n"
                   "        except BaseException:\n            pass")
    remote = Remote(kernel, call_seconds=1, wall_factor=2, wall_extra=1)
    with pytest.raises(KernelGone):
        remote.call("stubborn", (), {})
        remote.call("stubborn", (), {})
    assert kernel.dead


def test_values_and_errors_come_back_as_plain_data(kernel):
    define(kernel, "from collections import Counter\nANSWER = Counter('aab')\nclass Mine: pass\nOBJ = Mine()\n"
                   "def boom(x):\n    raise KeyError(x)\ndef gen():\n    yield from 'аб'")
    remote = Remote(kernel)
    bound = remote.bind({"ANSWER", "OBJ", "boom", "gen", "MISSING"})
    assert bound["ANSWER"] == {"a": 2, "b": 1} and type(bound["ANSWER"]) is dict
    assert repr(bound["OBJ"]) == "<объект типа __main__.Mine>" and "MISSING" not in bound
    with pytest.raises(KeyError) as raised:
        bound["boom"]("ключ")
    assert "ключ" in str(raised.value) and "boom" in str(raised.value)
    assert list(bound["gen"]()) == ["а", "б"]


def test_calls_and_cells_take_turns_and_a_calls_output_stays_out_of_the_cells(kernel):
    define(kernel, "calls = []\ndef twice(x):\n    print('inside', x)\n    calls.append(x)\n    return x * 2")
    remote = Remote(kernel)
    assert [remote.call("twice", (i,), {}) for i in range(100)] == [2 * i for i in range(100)]
    run = kernel.run_cell("print(len(calls))")
    assert run.error is None and [o.text for o in run.outputs] == ["100\n"]
    assert remote.call("twice", ("a\ud800",), {}) == "a\ud800a\ud800"     # lone surrogates cross both ways


def test_a_frame_nobody_asked_for_is_dropped_and_a_huge_one_ends_the_answers(kernel):
    define(kernel, "import os, struct\n"
                   "def ok():\n    return 1\n"
                   "def forge(fd, size):\n    os.write(fd, struct.pack('>II', 2, size))\n    return 0")
    remote = Remote(kernel)
    kernel.run_cell(f"os.write({kernel.agent_fd}, struct.pack('>II', 1, 2) + b'{{}}')")   # before any request
    assert remote.call("ok", (), {}) == 1
    with pytest.raises(Exception, match="ответ слишком большой"):
        remote.call("forge", (kernel.agent_fd, 2**31), {})
    with pytest.raises(Exception, match="ответ слишком большой"):
        remote.call("ok", (), {})            # the channel carries nothing more from this kernel
    assert kernel.run_cell("print(2)").outputs[0].text == "2\n"   # cells still run


@pytest.mark.parametrize("mode", ["limits", "off"])
def test_without_bubblewrap_the_kernel_still_grades_with_a_clean_environment(mode, monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_TOKEN", "not-for-students")
    session = KernelSession(Sandbox(mode=mode)).start()
    try:
        define(session, "import os\nENV = dict(os.environ)\ndef double(x):\n    return 2 * x")
        remote = Remote(session)
        bound = remote.bind({"ENV", "double"})
        assert bound["double"](21) == 42
        if mode == "limits":    # the limits and a clean environment still apply
            assert "INSTRUCTOR_TOKEN" not in bound["ENV"] and bound["ENV"]["BPE_COURSE_STATIC"] == "1"
    finally:
        session.close()
