"""Run by tests/test_host_attacks.py in a process of its own (so its peak memory is the attack's): the grader's side
of a sandbox whose every answer is a prebuilt frame at the frame cap (issue 29 item 4). Prints what it cost."""

import json
import resource
import sys
import time

from autograder.notebook.evaluate import Evaluator
from autograder.wall.remote import KernelGone, Remote
from autograder.wall.sandbox import Sandbox
from autograder.wall.session import KernelSession

UNIT = sys.argv[1] if len(sys.argv) > 1 else '{"S":[]}'
PATCH = """
import os, sys
host, protocol = sys.modules["_bpe_" + "host"], sys.modules["_bpe_" + "protocol"]
LIMIT, UNIT = %d, %r
body = b'{"kind":"value","value":{"L":[' + b",".join([UNIT.encode()] * ((LIMIT - 40) // (len(UNIT) + 1))) + b"]}}"
real = host.Channel.send
def send(self, sequence, message):
    if not isinstance(message, protocol.Message):
        return real(self, sequence, message)
    view = memoryview(host.FRAME.pack(sequence, len(body)) + body)
    while view:
        view = view[os.write(self.fd, view):]
host.Channel.send = send
"""


def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


with KernelSession(Sandbox()) as session:
    assert session.run_cell("def f(x):\n    return x + 1").error is None
    remote = Remote(session, **Evaluator().limits())
    f = remote.bind({"f"})["f"]
    assert f(1) == 2
    cpu, memory, received = time.process_time(), rss(), session.received
    session.run_cell(PATCH % (session.max_answer_chars, UNIT))
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
