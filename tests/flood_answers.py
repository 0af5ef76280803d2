"""Run by tests/test_host_attacks.py in a process of its own (so its peak memory is the attack's): the grader's side
of a sandbox whose every answer is a prebuilt frame at the frame cap (issue 29 item 4). Prints what it cost.

`flooding(limit, unit)` is the attack itself, the code a cell runs in the sandbox: test_host_attacks also puts it
in a student's notebook (FLOOD_EVERY_ANSWER)."""

import json
import resource
import sys
import time

from autograder.notebook.evaluate import Evaluator
from autograder.wall.remote import KernelGone, Remote
from autograder.wall.sandbox import Sandbox
from autograder.wall.session import KernelSession

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


def flooding(limit, unit='{"S":[]}'):
    """Code that patches the sandbox's Channel.send: from then on every answer of the kernel is one prebuilt frame
    of a list of `unit` (JSON of the wire's protocol) just under `limit` bytes. Its names start with _ so that
    appended to a student's cell it changes none of the notebook's."""
    return PATCH % (limit, unit)


def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(unit):
    with KernelSession(Sandbox()) as session:
        assert session.run_cell("def f(x):\n    return x + 1").error is None
        remote = Remote(session, **Evaluator().limits())
        f = remote.bind({"f"})["f"]
        assert f(1) == 2
        cpu, memory, received = time.process_time(), rss(), session.received
        session.run_cell(flooding(session.max_answer_chars, unit))
        calls, message = 0, None
        for _ in range(1000):
            try:
                f(1)
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
                    "ceiling": session.max_received_bytes,
                    "frame": session.max_answer_chars,
                }
            )
        )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else '{"S":[]}')
