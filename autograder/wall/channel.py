"""The grader's end of the sandbox's socket: requests sent, frames read, every frame with a size cap and a deadline.

`Channel` is the part of `autograder.wall.session.KernelSession` that speaks to the sandbox: one request
(`autograder.wall.protocol`) sent in a frame, frames read until its answer — a running cell's outputs to its
`LimitedOutputs`, a Stream's `Yielded` to the grader's feed (and its reply sent back), anything else dropped —
within the notebook's ceilings on bytes received (`max_received_bytes`, one frame's `max_answer_chars`) and
on the grader's own CPU spent reading (`max_reading_seconds`). Past any of them, or past a deadline, the
sandbox is stopped (`kill`) and `KernelDied` or `KernelStuck` raised. It holds no state of its own: the
session's socket (`channel`), counters and limits, `check_alive` and `kill` are the session's.
"""

import select
import time

from . import host as host_module
from . import protocol
from .cell_outputs import LimitedOutputs

FRAME, OUTPUT = host_module.FRAME, host_module.OUTPUT
READ_AHEAD = 1 << 16  # bytes the grader reads from the socket at once beyond the frame it is reading


class KernelDied(RuntimeError):
    """The kernel process is gone (os._exit, a crash, memory, the CPU-time limit)."""


class KernelStuck(RuntimeError):
    """The kernel neither finished nor answered an interrupt, and was stopped."""


class Channel:
    """The socket's side of a KernelSession (a mixin: see the module's docstring)."""

    def exchange(
        self, request: protocol.Request, timeout: float, outputs: LimitedOutputs | None = None, feed=None
    ) -> protocol.Answer:
        """Send a request and read frames until its answer: the sandbox has `timeout` seconds, and
        `interrupt_grace` more to answer after it interrupted itself; then it is stopped."""
        if self.dead:
            raise KernelDied(self.dead)
        self.sequence += 1
        self.send(self.sequence, protocol.dumps(request), self.interrupt_grace)
        return self.answer(
            self.sequence, time.monotonic() + timeout + self.interrupt_grace, f"лимит {timeout:g} с", outputs, feed
        )

    def send(self, sequence: int, payload: bytes, timeout: float) -> None:
        try:
            self.channel.settimeout(timeout)
            self.channel.sendall(FRAME.pack(sequence, len(payload)) + payload)
        except OSError:  # it does not read: it is stuck, or closed its end
            self.check_alive(wait=self.interrupt_grace)
            self.kill("ядро Python не принимает запросы проверки")
            raise KernelStuck(self.dead) from None

    def answer(
        self, sequence: int, deadline: float, limit: str, outputs: LimitedOutputs | None = None, feed=None
    ) -> protocol.Answer:
        """The answer to request `sequence`; its output frames go to `outputs`, its Yielded frames to `feed`
        (whose reply is sent back), other frames (an answer given up on, or one nobody asked for) are dropped."""
        while True:
            started = time.thread_time()
            got, data = self.read_frame(deadline, limit)
            if got == sequence | OUTPUT:
                if outputs is not None:
                    outputs.add_frame(data)
            elif got == sequence:
                answer = protocol.read(data)
                self.count_reading(started)
                if feed is None or not isinstance(answer, protocol.Yielded):
                    return answer
                reply = feed(answer)
                if answer.wants_line:
                    self.send(sequence, protocol.dumps(reply or protocol.NoMoreLines()), self.interrupt_grace)
                continue  # the grader's own work on the reply (the lines it hands over) is not reading
            self.count_reading(started)

    def count_reading(self, started: float) -> None:
        """Add the grader's CPU since `started` (its thread's clock) to what reading this notebook cost it; past
        max_reading_seconds the sandbox is stopped."""
        self.reading += time.thread_time() - started
        if self.reading > self.max_reading_seconds:
            self.kill(
                f"проверка потратила на чтение того, что прислало ядро Python, больше {self.max_reading_seconds:g} с "
                "своего процессорного времени за блокнот (решённому блокноту курса хватает нескольких секунд), и "
                "ядро было остановлено"
            )
            raise KernelDied(self.dead)

    def read_frame(self, deadline: float, limit: str) -> tuple[int, bytes]:
        sequence, size = FRAME.unpack(self.receive(FRAME.size, deadline, limit))
        if size > self.max_answer_chars:
            self.kill(
                f"ядро Python прислало проверке {size} байт одним куском (можно не больше "
                f"{self.max_answer_chars}) и было остановлено"
            )
            raise KernelDied(self.dead)
        if self.received + FRAME.size + size > self.max_received_bytes:  # before it is read: never passed
            self.kill(
                f"ядро Python прислало проверке больше {self.max_received_bytes / 2**20:g} МиБ ответов и вывода "
                "за блокнот (решённый блокнот курса присылает меньше 7 МиБ) и было остановлено"
            )
            raise KernelDied(self.dead)
        self.received += FRAME.size + size
        return sequence, self.receive(size, deadline, limit)

    def receive(self, size: int, deadline: float, limit: str) -> bytes:
        """`size` bytes, read by `deadline`; the sandbox is stopped when they do not come by then. What the
        sandbox has sent already is read at once (up to READ_AHEAD bytes more than `size`: usually a frame's
        header, its payload and the frames after it in one read) and kept in `inbox` for the next frames —
        never past max_received_bytes and one more header, so what the ceiling refuses is never read."""
        inbox = self.inbox
        while len(inbox) < size:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill(f"ядро Python не ответило и не остановилось само ({limit}) и было остановлено")
                raise KernelStuck(self.dead)
            if not select.select([self.channel], [], [], min(0.2, left))[0]:
                self.check_alive()
                continue
            allowed = self.max_received_bytes + FRAME.size - self.read_bytes
            try:
                chunk = self.channel.recv(min(max(size - len(inbox), min(READ_AHEAD, allowed)), 1 << 20))
            except OSError:
                chunk = b""
            if not chunk:  # its end is closed: most likely it died
                self.check_alive(wait=self.interrupt_grace)
                self.kill("ядро Python закрыло канал проверки")
                raise KernelDied(self.dead)
            self.read_bytes += len(chunk)
            inbox += chunk
        with memoryview(inbox) as view:
            data = bytes(view[:size])
        del inbox[:size]
        return data
