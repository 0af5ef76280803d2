"""Run by tests/test_host_attacks.py in a process of its own (so its peak memory and CPU are the attack's): the
grader's side of a sandbox that floods it (issue 29 item 4), one of FLOODS; prints what it cost the grader.

- "answers": every answer a prebuilt frame at the frame cap (the kernel's Channel.send patched), to a function's calls;
- "generator": the same, to the items of a generator the grader iterates (RemoteIterator asks for more and more);
- "empty": before every answer, 65,536 empty frames for no request (4 million in 32 MiB: dropped unparsed, each one
  cost the grader its reading);
- "outputs": a cell whose output frames are all empty text of one stream (merged into one output, never cut by size:
  each one parsed).

`flooding(limit, unit)` is the first attack's code, run by a cell in the sandbox: test_host_attacks also puts it
in a student's notebook (FLOOD_EVERY_ANSWER), and EMPTY_FRAMES the third's."""

import contextlib
import json
import resource
import sys
import time

from autograder.notebook.evaluate import Evaluator
from autograder.wall.remote import KernelGone, Remote
from autograder.wall.sandbox import Sandbox
from autograder.wall.session import KernelDied, KernelSession

PATCH = """
import os, sys
_host, _protocol = sys.modules["_bpe_" + "host"], sys.modules["_bpe_" + "protocol"]
_LIMIT, _UNIT = %d, %r
_body = b'{"kind":"value","value":{"L":[' + b",".join([_UNIT.encode()] * ((_LIMIT - 40) // (len(_UNIT) + 1))) + b"]}}"
_real = _host.Channel.send
def _send(self, sequence, message):
    if not isinstance(message, _protocol.Message):
        return _real(self, sequence, message)
    view = memoryview(_host.FRAME.pack(sequence, len(_body)) + _body)
    while view:
        view = view[os.write(self.fd, view):]
_host.Channel.send = _send
"""


EMPTY_FRAMES = """
import os, sys
_host = sys.modules["_bpe_" + "host"]
_real, _junk = _host.Channel.send, _host.FRAME.pack(2**31 - 1, 0) * 65536
def _send(self, sequence, message):
    view = memoryview(_junk)
    while view:
        view = view[os.write(self.fd, view):]
    return _real(self, sequence, message)
_host.Channel.send = _send
"""

EMPTY_OUTPUTS = """
import json, os, struct, time
_frame = json.dumps({"kind": "text", "name": "stdout", "text": ""}).encode()
_frames = (struct.pack(">II", SEQ | 2**31, len(_frame)) + _frame) * 4096
while True:
    os.write(FD, _frames)
"""

FLOODS = ("answers", "generator", "empty", "outputs")


def flooding(limit, unit='{"S":[]}'):
    """Code that patches the sandbox's Channel.send: from then on every answer of the kernel is one prebuilt frame
    of a list of `unit` (JSON of the wire's protocol) just under `limit` bytes. Its names start with _ so that
    appended to a student's cell it changes none of the notebook's."""
    return PATCH % (limit, unit)


def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(kind="answers", unit='{"S":[]}', **settings):
    with KernelSession(Sandbox(), **settings) as session:
        assert session.run_cell("def f(x):\n    return x + 1\ndef g():\n    while True:\n        yield 1").error is None
        remote = Remote(session, **Evaluator().limits())
        f, g = remote.bind({"f", "g"}).values()
        assert f(1) == 2
        cpu, memory, received = time.process_time(), rss(), session.received
        if kind == "outputs":
            session.cell_timeout = 600
            with contextlib.suppress(KernelDied):  # it floods until the sandbox is stopped
                session.run_cell(f"FD, SEQ = {session.agent_fd}, {session.sequence + 1}\n" + EMPTY_OUTPUTS)
        else:
            session.run_cell(EMPTY_FRAMES if kind == "empty" else flooding(session.max_answer_chars, unit))
        calls, message = 0, None
        for _ in range(1000):
            try:
                for _ in g() if kind == "generator" else [f(1)]:
                    calls += 1
            except KernelGone as e:
                message = str(e)
                break
            except Exception:
                pass
            calls += 1
        print(
            json.dumps(
                {
                    "cpu": time.process_time() - cpu,
                    "memory": rss() - memory,
                    "calls": calls,
                    "message": message,
                    "received": session.received - received,
                    "reading": session.reading,
                    "ceiling": session.max_received_bytes,
                    "seconds": session.max_reading_seconds,
                    "frame": session.max_answer_chars,
                }
            )
        )


if __name__ == "__main__":
    main(*sys.argv[1:3], **{k: json.loads(v) for k, v in (a.split("=") for a in sys.argv[3:])})
