"""What runs inside the sandbox: an IPython shell that executes the notebook's cells, and the
grader's agent next to it, both served over one socket in frames — no Jupyter kernel.

The grader (`autograder.wall.session.KernelSession`) starts this process in the sandbox with the
socket as a file descriptor, sends it this module's source with the agent's and the wire's
(`BOOTSTRAP` installs them), and from then on sends requests, one at a time:

- `protocol.RunCell`: the cell runs in an IPython `InteractiveShell` (magics, `display`,
  tracebacks as students know them from Jupyter); its outputs go back as they come, each in an
  output frame (the request's sequence number with `OUTPUT` set: a message of `protocol.OUTPUTS`),
  then the answer `CellDone` (with the cell's `Error`, if any) or `Timeout(limit="wall")`;
- any other request is the agent's (`autograder.wall.agent`), answered with its message; a `Stream`
  is a conversation: the agent's `Yielded` frames go out under the request's sequence number, and
  the grader's reply to one that wants a line (`NextLines`, `NoMoreLines`) comes back under it.

A frame is `FRAME` (sequence number, payload bytes) and the payload, a message of
`autograder.wall.protocol` as JSON in UTF-8 (lone surrogates pass): every frame, both ways, the
first one (`protocol.Install`) included. A cell or a request that
runs past its `wall` seconds is interrupted here (SIGALRM); the grader, which trusts none of
this, stops the whole sandbox a little later if no answer came. Everything here lives in the
student's process and may be replaced by their code: that can change only what their own
notebook appears to do, never what the grader does with it.

Only the standard library and IPython are imported (the grader's package is not in the sandbox).
"""

import base64
import io
import json
import os
import signal
import struct
import sys

FRAME = struct.Struct(">II")  # sequence number, payload bytes; then the payload
OUTPUT = 1 << 31  # set in the sequence number of an output frame
STREAM_CHUNK = 1 << 16  # stream text is sent at least every 64 KiB

# Run as `python -P -c BOOTSTRAP FD`: the first frame on FD is `protocol.Install`, the modules to install.
BOOTSTRAP = """
import json, os, struct, sys, types
fd = int(sys.argv[1])
def read(size):
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise SystemExit(0)
        data += chunk
    return data
_, size = struct.unpack(">II", read(8))
install = json.loads(read(size))
if install.get("kind") != "install":
    raise SystemExit("the first frame is not the grader's install message")
for name, source in install["modules"]:
    module = sys.modules[name] = types.ModuleType(name)
    exec(compile(source, "<" + name + ">", "exec"), module.__dict__)
del fd, read, size, install, name, source, module, json, os, struct, sys, types
__import__("sys").modules["_bpe_host"].main(int(__import__("sys").argv[1]))
"""


try:
    import _bpe_protocol as protocol  # in the sandbox, installed by BOOTSTRAP
    from _bpe_agent import CallTimedOut, cpu_limit
except ImportError:  # in the grader, which reads this module's constants
    from . import protocol
    from .agent import CallTimedOut, cpu_limit


class CellTimedOut(CallTimedOut):
    """The wall-clock limit of a cell or a request ran out (SIGALRM); for the agent, a call's timeout."""

    kind = "wall"


class wall_limit(cpu_limit):
    """Raise CellTimedOut in the main thread after `seconds` of wall-clock time (None: no limit)."""

    timer, signum, exception = signal.ITIMER_REAL, signal.SIGALRM, CellTimedOut


class Channel:
    """The sandbox's end of the socket: frames in, frames out."""

    def __init__(self, fd: int):
        self.fd = fd
        self.inbox = bytearray()  # read from the socket, not yet taken

    def receive(self):
        """(sequence, the request's payload), or None when the grader has closed its end."""
        header = self.read(FRAME.size)
        if header is None:
            return None
        sequence, size = FRAME.unpack(header)
        payload = self.read(size)
        if payload is None:
            return None
        return sequence, payload

    def send(self, sequence: int, message: "protocol.Message") -> None:
        """A message of `protocol`: an answer, a frame in the middle of a request, or an output of the running cell."""
        data = protocol.dumps(message)
        view = memoryview(FRAME.pack(sequence, len(data)) + data)
        while view:
            view = view[os.write(self.fd, view) :]

    def read(self, size: int):
        """`size` bytes of the grader's frames (what came in the same read is kept for the next), or None at
        the end."""
        inbox = self.inbox
        while len(inbox) < size:
            chunk = os.read(self.fd, max(size - len(inbox), 1 << 16))
            if not chunk:
                return None
            inbox += chunk
        data = bytes(inbox[:size])
        del inbox[:size]
        return data


class CellOutputs:
    """The outputs of the cell that is running, sent to the grader as they come: stream text in
    chunks, everything else at once, nothing more once `max_chars` have gone. The grader cuts and
    counts for itself; this spares it what it would drop, and keeps every frame of an honest cell
    far below the grader's frame limit (`KernelSession.max_answer_chars`)."""

    def __init__(self, send, max_chars: int):
        self.send, self.max_chars, self.sent = send, max_chars, 0
        self.pending: list[tuple[str, str]] = []  # (stream name, text) not yet sent
        self.pending_size = 0

    def stream(self, name: str, text: str) -> None:
        self.pending.append((name, text))
        self.pending_size += len(text)
        if self.pending_size >= STREAM_CHUNK:
            self.flush()

    def flush(self) -> None:
        pending, self.pending, self.pending_size = self.pending, [], 0
        merged: list[list[str]] = []
        for name, text in pending:
            if merged and merged[-1][0] == name:
                merged[-1][1] += text
            else:
                merged.append([name, text])
        for name, text in merged:
            self.emit(protocol.StreamText(name=name, text=text), len(text))

    def display(self, kind: str, data: dict, metadata: dict, count=None) -> None:
        self.flush()
        data = {
            mime: base64.b64encode(value).decode("ascii") if isinstance(value, bytes) else value
            for mime, value in data.items()
            if isinstance(value, (str, bytes, dict, list))
        }  # images as Jupyter sends them
        try:
            json.dumps(metadata)
        except (TypeError, ValueError):
            metadata = {}
        if kind == "execute_result":
            output = protocol.ExecuteResult(data=data, metadata=metadata or {}, execution_count=count)
        else:
            output = protocol.DisplayData(data=data, metadata=metadata or {})
        self.emit(output, max(sum(len(str(v)) for v in data.values()), 100))

    def error(self, ename: str, evalue: str, traceback: list) -> None:
        self.flush()
        left, evalue = self.max_chars - self.sent, evalue[:2000]
        kept, used = [], len(ename) + len(evalue)
        for line in map(str, traceback):
            if used + len(line) > left:
                break
            kept.append(line)
            used += len(line)
        self.emit(protocol.Error(type=ename, message=evalue, traceback=kept), min(used, left))

    def clear(self) -> None:
        self.pending, self.pending_size, self.sent = [], 0, 0
        self.send(protocol.ClearOutput())

    def emit(self, output: "protocol.Output", size: int) -> None:
        """Send one output, cut to what is left of `max_chars` (a display that does not fit is not sent)."""
        left = self.max_chars - self.sent
        if left <= 0:
            return
        if size > left and isinstance(output, protocol.StreamText):
            output, size = protocol.StreamText(name=output.name, text=output.text[:left]), left
        elif size > left and not isinstance(output, protocol.Error):
            output, size = protocol.OutputCut(), left
        self.sent += size
        try:
            self.send(output)
        except (TypeError, ValueError):  # data that JSON cannot carry is left out
            pass


class Host:
    """The shell and the agent, answering the grader's frames until it closes the channel."""

    def __init__(self, fd: int):
        self.channel = Channel(fd)
        self.outputs = None  # CellOutputs of the running cell; None: output is dropped
        self.shell = make_shell(self)
        self.agent = sys.modules["_bpe_agent"].install(self.shell)
        sys.stdout, sys.stderr = Stream(self, "stdout"), Stream(self, "stderr")

    def serve(self) -> None:
        self.channel.send(0, protocol.Ready())
        while True:
            frame = self.channel.receive()
            if frame is None:
                return
            sequence, payload = frame
            self.agent.exchange = lambda message, sequence=sequence: self.exchange(sequence, message)
            try:
                request = protocol.loads(payload, protocol.REQUESTS)
                if isinstance(request, protocol.RunCell):
                    answer = self.run_cell(sequence, request)
                else:
                    with wall_limit(request.wall):
                        answer = self.agent.handle(request)
            except protocol.ProtocolError as e:
                answer = protocol.Error.agent(f"ProtocolError: {e}")
            except CellTimedOut:
                answer = protocol.Timeout(limit="wall")
            self.channel.send(sequence, answer)

    def exchange(self, sequence: int, message):
        """Send a frame in the middle of request `sequence`; the grader's reply when it asks for one. The
        limits' signals wait meanwhile: a frame is never cut in half, nor a reply left unread."""
        timers = {signal.SIGALRM, signal.SIGPROF}
        signal.pthread_sigmask(signal.SIG_BLOCK, timers)
        try:
            self.channel.send(sequence, message)
            if not getattr(message, "wants_line", False):
                return None
            frame = self.channel.receive()
            if frame is None:  # the grader has gone
                raise SystemExit(0)
            try:
                return protocol.loads(frame[1], protocol.REPLIES)
            except protocol.ProtocolError:
                return protocol.NoMoreLines()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, timers)

    def run_cell(self, sequence: int, request: "protocol.RunCell") -> "protocol.Answer":
        self.outputs = CellOutputs(lambda output: self.channel.send(sequence | OUTPUT, output), request.max_chars)
        answer = protocol.CellDone()
        try:
            with wall_limit(request.wall):
                result = self.shell.run_cell(request.source, store_history=True)
                failure = result.error_before_exec or result.error_in_exec
                if isinstance(failure, CellTimedOut):
                    answer = protocol.Timeout(limit="wall")
                elif failure is not None:
                    answer = protocol.CellDone(
                        error=protocol.Error(type=type(failure).__name__, message=safe_str(failure))
                    )
        except CellTimedOut:  # in IPython's own code, after the cell's
            answer = protocol.Timeout(limit="wall")
        finally:
            outputs, self.outputs = self.outputs, None
            outputs.flush()
        return answer


class Stream(io.TextIOBase):
    """sys.stdout or sys.stderr: text goes to the running cell's outputs (a call's is dropped)."""

    def __init__(self, host: Host, name: str):
        self.host, self.name = host, name

    @property
    def encoding(self):
        return "utf-8"

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text and self.host.outputs is not None:
            self.host.outputs.stream(self.name, text)
        return len(text)


def safe_str(value) -> str:
    try:
        return str(value)[:2000]
    except BaseException:
        return "(сообщение ошибки не удалось прочитать)"


def make_shell(host: Host):
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class Publisher(DisplayPublisher):
        def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
            if host.outputs is not None:
                host.outputs.display("display_data", data, metadata)

        def clear_output(self, wait=False):
            if host.outputs is not None:
                host.outputs.clear()

    class ResultHook(DisplayHook):
        def write_output_prompt(self):
            pass

        def write_format_data(self, format_dict, md_dict=None):
            if host.outputs is not None:
                host.outputs.display("execute_result", format_dict, md_dict, self.prompt_count)

    class GradingShell(InteractiveShell):
        def _showtraceback(self, etype, evalue, stb):
            if host.outputs is not None and not issubclass(etype, CellTimedOut):  # the grader says it
                host.outputs.error(getattr(etype, "__name__", "Exception"), safe_str(evalue), list(stb))

    config = Config()
    config.HistoryManager.enabled = False  # no sqlite file of the student's cells
    config.InteractiveShell.colors = "linux"  # tracebacks coloured as in Jupyter
    return GradingShell.instance(config=config, display_pub_class=Publisher, displayhook_class=ResultHook)


def main(fd: int) -> None:
    sys.argv = [""]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the grader stops this process
    Host(fd).serve()
