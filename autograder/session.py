"""Where a student's notebook runs while it is graded: a sandboxed kernel, or (for the course's own
tests) this process.

Both sessions do the same two things: run a cell of the notebook, and pass a request to the
agent next to the notebook's names (`autograder.agent`), returning its answer as a parsed dict.
`KernelSession` is the real thing — an IPython kernel started by `autograder.sandbox` and driven
over Jupyter's messaging protocol, with the agent's requests on a socket pair of their own (one
kernel execution serves a run of requests: a call costs a fraction of a millisecond, not the ~7 ms
of an execution each). The kernel is hostile, so what it sends on Jupyter's sockets is read raw
and bounded before any of it is parsed (`iopub_message`), and every wait has a deadline.
`LocalSession` runs the same cells and the same agent in this process, which makes the catalogue
of student mistakes provable in seconds. Neither decides a grade: answers are checked by
`autograder.remote` and compared by `autograder.evaluate`.
"""
import builtins
import contextlib
import io
import json
import queue
import select
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import zmq
from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpec
from nbformat import NotebookNode
from nbformat.v4 import output_from_msg
from traitlets import Float, Integer
from traitlets.config import LoggingConfigurable

from . import agent as agent_module
from . import wire
from .sandbox import Sandbox

AGENT_FILES = (("_bpe_wire", wire.__file__), ("_bpe_agent", agent_module.__file__))
DELIM = b"<IDS|MSG>"      # Jupyter's separator between a message's routing ids and its frames
SMALL_FRAME = 4096        # a header, or a parent header (our own request's header, echoed back)


def agent_error(message: str) -> dict:
    return {"error": {"type": "AgentError", "message": message, "where": ""}}


def parse_answer(data: bytes) -> dict:
    try:
        answer = json.loads(data.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError):
        answer = None
    return answer if isinstance(answer, dict) else agent_error("(ответ — не данные)")


class KernelDied(RuntimeError):
    """The kernel process is gone (os._exit, a crash, memory, the CPU-time limit)."""


class KernelStuck(RuntimeError):
    """The kernel neither finished nor answered an interrupt, and was stopped."""


def reply_error(reply: dict, split: bool = False):
    """The exception an execute_reply reports, as "ename: evalue" (or a pair), or None."""
    content = reply["content"]
    if content.get("status") != "error":
        return None
    ename, evalue = str(content.get("ename"))[:200], str(content.get("evalue"))[:2000]
    return (ename, evalue) if split else f"{ename}: {evalue}"


def error_output(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


@dataclass
class CellRun:
    outputs: list = field(default_factory=list)
    error: tuple[str, str] | None = None      # (ename, evalue) of an exception in the cell


class LimitedOutputs:
    """Outputs of one cell as nbformat nodes, with streams merged and cut at `max_chars`."""

    def __init__(self, max_chars: int):
        self.outputs, self.max_chars, self.size, self.cut = [], max_chars, 0, False

    def add(self, msg: dict) -> None:
        kind = msg["header"]["msg_type"]
        if kind == "clear_output":
            self.outputs, self.size, self.cut = [], 0, False
            return
        if kind not in ("stream", "display_data", "execute_result", "error"):
            return
        if self.size >= self.max_chars:
            self.mark_cut()             # already cut: a flood costs no more than reading it
            return
        out = output_from_msg(msg)
        left = self.max_chars - self.size
        if kind == "error":             # errors count too (25 tracebacks of 40 MB are a flood as well)
            out.ename, out.evalue = str(out.ename)[:200], str(out.evalue)[:min(left, 2000)]
            lines = out.traceback if isinstance(out.traceback, list) else []
            out.traceback, used = [], len(out.ename) + len(out.evalue)
            for line in map(str, lines):
                if used + len(line) > left:
                    break
                out.traceback.append(line)
                used += len(line)
            size = used
        elif kind == "stream":
            out.text = str(out.text)
            size = len(out.text)
        else:
            size = sum(len(str(v)) for v in out.get("data", {}).values())
        if kind != "stream":
            size = max(size, 100)       # a flood of empty outputs is a flood too
        if self.size + size > self.max_chars:
            if kind == "stream":
                out.text, size = out.text[:left], left
            elif kind != "error":
                self.mark_cut()
                return
        self.size += size
        last = self.outputs[-1] if self.outputs else None
        if kind == "stream" and last is not None and last.output_type == "stream" and last.name == out.name:
            last.text += out.text
        else:
            self.outputs.append(out)
        if self.size >= self.max_chars:
            self.mark_cut()

    def mark_cut(self) -> None:
        if not self.cut:
            self.cut = True
            note = f"\n… (вывод обрезан: больше {self.max_chars} символов)\n"
            self.outputs.append(NotebookNode(output_type="stream", name="stdout", text=note))


class KernelSession(LoggingConfigurable):
    """One notebook's sandboxed kernel, driven directly over the messaging protocol."""

    cell_timeout = Integer(120, help="Wall-clock seconds one notebook cell may run before it is interrupted."
                           ).tag(config=True)
    startup_timeout = Integer(180, help="Seconds the sandboxed kernel may take to start.").tag(config=True)
    interrupt_grace = Float(10, help="Seconds an interrupted cell or call may take to stop before the kernel "
                            "is killed.").tag(config=True)
    max_output_chars = Integer(200_000, help="Output kept per cell; the rest is cut with a note.").tag(config=True)
    max_message_bytes = Integer(32 * 2**20, help="The largest frame of a Jupyter message the grader accepts from "
                                "the kernel (zmq's MAXMSGSIZE), and the largest content it parses. A bigger frame "
                                "ends zmq's iopub connection: the outputs of that kernel's later cells are lost "
                                "(a 10 MB print is about 20 MB).").tag(config=True)
    receive_queue = Integer(64, help="Messages from the kernel the grader's sockets hold unread (zmq's RCVHWM); "
                            "more are dropped.").tag(config=True)
    output_grace = Float(5, help="Seconds the grader still reads a cell's outputs after the kernel replied that "
                         "the cell is done (they normally end at once).").tag(config=True)
    max_answer_chars = Integer(16 * 2**20, help="The largest answer (bytes) the agent may send for one request; "
                               "a bigger one ends the answers from that kernel "
                               "(the course's largest honest answer, a big merge table, is about 2 MB)."
                               ).tag(config=True)

    def __init__(self, sandbox: Sandbox, **kwargs):
        super().__init__(**kwargs)
        self.sandbox = sandbox
        self.km = self.kc = None
        self.dead: str | None = None          # why the kernel is gone, once it is
        self.channel: socket.socket | None = None   # the grader's end of the agent's request channel
        self.agent_fd = -1                    # the kernel's end, as a file descriptor in the kernel
        self.serving: str | None = None       # msg_id of the execution in which the agent answers requests
        self.broken: str | None = None        # why the channel carries no more answers
        self.sequence = 0
        self.current: str | None = None       # msg_id of the execution whose messages are read
        self.context: zmq.Context | None = None
        self.folder = Path(tempfile.mkdtemp(prefix="bpe-kernel-"))   # short: unix sockets ≤ 107 chars
        self.uid: int | None = None
        self.cgroup = None                    # autograder.cgroup.SandboxCgroup, where the host has them

    # -- life cycle ------------------------------------------------------------------------------
    def start(self) -> "KernelSession":
        workdir, sockets = self.folder / "work", self.folder / "ipc"
        workdir.mkdir()
        sockets.mkdir()
        self.uid = self.sandbox.claim_uid()
        self.cgroup = self.sandbox.make_cgroup()
        argv = self.sandbox.kernel_argv(workdir, sockets, self.uid, self.cgroup)
        self.km = SandboxKernelManager(spec=KernelSpec(argv=argv, language="python", display_name="sandbox",
                                                       interrupt_mode="message"),
                                       transport="ipc", ip=str(sockets / "kernel"),
                                       connection_file=str(self.folder / "connection.json"))
        log = self.folder / "kernel.log"
        self.channel, kernel_end = socket.socketpair()
        self.agent_fd = kernel_end.fileno()    # inherited under the same number
        try:
            with open(log, "wb") as out:   # the kernel's own messages: for a start that fails
                self.km.start_kernel(env=self.sandbox.launcher_env(), cwd=str(workdir), stdout=out, stderr=out,
                                     stdin=subprocess.DEVNULL, pass_fds=(self.agent_fd,))
        finally:
            kernel_end.close()
        # the kernel is hostile: no frame above max_message_bytes, no more than receive_queue messages held
        self.context = zmq.Context()
        self.context.setsockopt(zmq.MAXMSGSIZE, self.max_message_bytes)
        self.context.setsockopt(zmq.RCVHWM, self.receive_queue)
        self.kc = self.km.client(context=self.context)
        self.kc.start_channels()
        try:
            self.kc.wait_for_ready(timeout=self.startup_timeout)
        except RuntimeError as e:
            said = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            raise KernelDied(f"the sandboxed kernel did not start: {e}" + "".join("\n  " + l for l in said)) from None
        if self.sandbox.resolved_mode() == "bwrap":
            self.sandbox.lock(sockets)
        self.install_agent()
        return self

    def install_agent(self) -> None:
        modules = {name: Path(path).read_text(encoding="utf-8") for name, path in AGENT_FILES}
        code = ("def _bpe_install(sources):\n"
                "    import sys, types\n"
                "    for name, source in sources.items():\n"
                "        module = types.ModuleType(name)\n"
                "        sys.modules[name] = module\n"
                "        exec(compile(source, '<bpe-agent>', 'exec'), module.__dict__)\n"
                "    sys.modules['_bpe_agent'].install(get_ipython())\n"
                f"_bpe_install({modules!r})\n"
                "del _bpe_install\n")
        run = self.execute(code, silent=True, timeout=self.startup_timeout)
        if run.error:
            raise KernelDied(f"the grader's agent could not be installed: {run.error[0]}: {run.error[1]}")

    def close(self) -> None:
        try:
            if self.channel is not None:
                self.channel.close()
            if self.kc is not None:
                self.kc.stop_channels()
            if self.km is not None and self.km.has_kernel:
                self.km.shutdown_kernel(now=True)
            if self.context is not None:
                self.context.destroy(linger=0)
        except Exception:
            pass
        finally:
            if self.km is not None:
                self.km.cleanup_resources()
            if self.cgroup is not None:      # children that left the kernel's session end here too
                self.cgroup.remove()
            if self.uid is not None:
                self.sandbox.release_uid(self.uid)
            self.sandbox.remove(self.folder)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc):
        self.close()
        return False

    # -- what the grader asks --------------------------------------------------------------------
    def run_cell(self, source: str) -> CellRun:
        """Run one notebook cell; a cell that runs too long is interrupted and reported."""
        return self.execute(source, silent=False, timeout=self.cell_timeout)

    def request(self, request: dict, timeout: float) -> dict:
        """Pass one request to the agent; its parsed answer (a dict), or {"timeout": "wall"}.

        Requests go over the channel while the agent serves it, in one execution of the kernel
        that lasts until the grader runs a cell again (`stop_serving`)."""
        if self.dead:
            raise KernelDied(self.dead)
        self.discard_unasked()
        if self.broken:
            return agent_error(self.broken)
        if self.serving is None:
            self.serving = self.current = self.kc.execute(f"__import__('sys').modules['_bpe_agent'].agent.serve_channel("
                                           f"{self.agent_fd})", silent=True, store_history=False,
                                           allow_stdin=False, stop_on_error=False)
        self.sequence += 1
        payload = json.dumps(request, ensure_ascii=False).encode("utf-8", "surrogatepass")   # lone surrogates too
        deadline, interrupted = time.monotonic() + timeout, False
        try:
            self.channel.settimeout(timeout)
            self.channel.sendall(agent_module.FRAME.pack(self.sequence, len(payload)) + payload)
        except OSError:           # the agent does not read: it will not answer either
            self.broken = "(агент проверки в ядре не принимает запросы)"
            return agent_error(self.broken)
        while True:
            now = time.monotonic()
            if now > deadline:
                deadline = self.overdue(interrupted, f"ядро Python не остановилось после прерывания (лимит {timeout:g} с)")
                interrupted, now = True, time.monotonic()
            if select.select([self.channel], [], [], min(0.2, max(deadline - now, 0)))[0]:
                frame = self.read_frame(deadline)
                if frame is None:
                    return agent_error(self.broken)
                sequence, data = frame
                if sequence != self.sequence:
                    continue              # an answer to a request given up on, or not asked for
                return {"timeout": "wall"} if interrupted else parse_answer(data)
            self.check_alive()
            ended = self.serving_ended()
            if ended is not None:
                return {"timeout": "wall"} if interrupted else agent_error(f"(агент проверки в ядре не ответил: {ended})")

    def read_frame(self, deadline: float) -> tuple[int, bytes] | None:
        """One answer frame; None (and the channel broken) when it is too big, cut or late."""
        try:
            self.channel.settimeout(max(deadline - time.monotonic(), 0.01))
            header = self.receive(agent_module.FRAME.size)
            sequence, size = agent_module.FRAME.unpack(header)
            if size > self.max_answer_chars:
                self.broken = "(ответ слишком большой)"
                return None
            return sequence, self.receive(size)
        except (OSError, EOFError):
            self.check_alive(wait=self.interrupt_grace)    # a closed channel: most likely a dead kernel
            self.broken = "(агент проверки в ядре ответил не полностью)"
            return None

    def receive(self, size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk = self.channel.recv(min(size - len(data), 1 << 20))
            if not chunk:
                raise EOFError
            data += chunk
        return bytes(data)

    def discard_unasked(self) -> None:
        """Bytes nobody asked for (the agent answers only requests) are dropped."""
        self.channel.setblocking(False)
        try:
            while self.channel.recv(1 << 20):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as e:
            self.broken = f"(канал агента проверки закрыт: {e})"

    def serving_ended(self, budget: float = 0.05) -> str | None:
        """If the execution serving the channel has ended: how (else None). Reads what has arrived
        for at most `budget` seconds, so that a flood of messages cannot hold the caller."""
        reply = self.shell_reply()     # on a socket of its own, which an iopub flood cannot crowd out
        if reply is not None:
            self.serving = self.current = None
            self.drain_shell()
            return reply_error(reply) or "приём запросов остановлен"
        error, until = None, time.monotonic() + budget
        while time.monotonic() < until:
            try:
                msg = self.iopub_message(0)
            except queue.Empty:
                return None
            if msg is None:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "error":
                error = f"{str(content.get('ename'))[:200]}: {str(content.get('evalue'))[:2000]}"
            if kind == "status" and content.get("execution_state") == "idle":
                self.serving = self.current = None
                self.drain_shell()
                return error or "приём запросов остановлен"
        return None

    def iopub_message(self, timeout: float) -> dict | None:
        """The next message on iopub: parsed if it belongs to the current execution, None if it was
        dropped unparsed (too big, malformed, or not ours); queue.Empty if none came in `timeout` s.

        jupyter_client would parse every frame first (a parent header of 200,000 dates takes
        seconds); here the sizes and the parent's msg_id are checked on the raw frames, and extra
        buffers are never read."""
        socket = self.kc.iopub_channel.socket
        if not socket.poll(int(timeout * 1000)):
            raise queue.Empty
        return self.checked_message(socket.recv_multipart(copy=False))

    def shell_reply(self, most: int = 100) -> dict | None:
        """The kernel's execute_reply to the current execution, if it has come (other messages on
        the shell socket are dropped unparsed; at most `most` are read at a time)."""
        socket = self.kc.shell_channel.socket
        for _ in range(most):
            if not socket.poll(0):
                return None
            msg = self.checked_message(socket.recv_multipart(copy=False))
            if msg is not None and msg["header"]["msg_type"] == "execute_reply":
                return msg
        return None

    def checked_message(self, frames: list) -> dict | None:
        for k, frame in enumerate(frames):
            if len(frame) == len(DELIM) and frame.bytes == DELIM:
                break
        else:
            return None
        parts = frames[k + 1:k + 6]          # signature, header, parent, metadata, content; buffers ignored
        if len(parts) < 5 or self.current is None:
            return None
        _, header, parent, metadata, content = parts
        if (len(header) > SMALL_FRAME or len(parent) > SMALL_FRAME or len(metadata) > 16 * SMALL_FRAME
                or len(content) > self.max_message_bytes):
            return None
        try:
            if json.loads(parent.bytes).get("msg_id") != self.current:
                return None
            msg = self.kc.session.deserialize([p.bytes for p in parts])
        except Exception:                   # a bad signature, not JSON, a parent that is not a dict…
            return None
        ok = (isinstance(msg.get("header"), dict) and isinstance(msg["header"].get("msg_type"), str)
              and isinstance(msg.get("content"), dict))
        return msg if ok else None

    def check_alive(self, wait: float = 0) -> None:
        """Raise KernelDied if the kernel is gone (or goes within `wait` seconds)."""
        deadline = time.monotonic() + wait
        while True:
            if not self.km.is_alive():
                self.dead = "ядро Python остановилось (os._exit, сбой, нехватка памяти или процессорного времени)"
                if self.cgroup is not None and self.cgroup.oom_killed():
                    self.dead = (f"ядро Python остановлено: процессы блокнота вместе заняли больше "
                                 f"{self.sandbox.memory_bytes / 2**30:g} ГиБ памяти")
                raise KernelDied(self.dead)
            if time.monotonic() >= deadline:
                return
            time.sleep(0.05)

    def stop_serving(self) -> None:
        """End the agent's execution (an empty frame), so that the next cell can run."""
        try:
            self.channel.settimeout(self.interrupt_grace)
            self.channel.sendall(agent_module.FRAME.pack(0, 0))
        except OSError:
            pass
        deadline, interrupted = time.monotonic() + self.interrupt_grace, False
        while self.serving_ended() is None:
            self.check_alive()
            if time.monotonic() > deadline:
                deadline, interrupted = self.overdue(interrupted, "агент проверки в ядре не вернул управление"), True
            time.sleep(0.005)

    def overdue(self, interrupted: bool, reason: str) -> float:
        """A deadline has passed: the first time the kernel is interrupted and gets `interrupt_grace`
        more seconds (the new deadline is returned); the second time it is killed."""
        if interrupted:
            self.kill(reason)
            raise KernelStuck(self.dead)
        self.km.interrupt_kernel()
        return time.monotonic() + self.interrupt_grace

    # -- the protocol ----------------------------------------------------------------------------
    def execute(self, code: str, silent: bool, timeout: float) -> CellRun:
        if self.dead:
            raise KernelDied(self.dead)
        if self.serving is not None:
            self.stop_serving()
        msg_id = self.current = self.kc.execute(code, silent=silent, store_history=not silent,
                                                allow_stdin=False, stop_on_error=False)
        outputs = LimitedOutputs(self.max_output_chars)
        run = CellRun()
        deadline, interrupted, replied = time.monotonic() + timeout, False, None
        while True:
            now = time.monotonic()
            if now > deadline:
                deadline = self.overdue(interrupted, f"ядро Python не остановилось после прерывания (лимит {timeout:g} с)")
                interrupted = True
            if replied is None:
                reply = self.shell_reply()
                if reply is not None:
                    replied = now
                    run.error = run.error or reply_error(reply, split=True)
            elif now > replied + self.output_grace:
                break            # the reply came, iopub's "idle" did not: a kernel flooding its own iopub
            try:
                msg = self.iopub_message(0.2)
            except queue.Empty:
                self.check_alive()
                continue
            if msg is None:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "status" and content.get("execution_state") == "idle":
                break
            if kind == "error":
                run.error = (str(content.get("ename"))[:200], str(content.get("evalue"))[:2000])
            if not silent:
                try:
                    outputs.add(msg)
                except Exception:           # an output nbformat cannot make sense of is left out
                    pass
        self.current = None
        self.drain_shell()
        run.outputs = outputs.outputs
        if interrupted:
            run.error = ("Timeout", f"{timeout:g}")
        return run

    def drain_shell(self, most: int = 100) -> None:
        """Drop the kernel's replies on the shell socket unread (the grader uses none of them); at
        most `most` at a time, so that a flood cannot hold the grader."""
        socket = self.kc.shell_channel.socket
        for _ in range(most):
            if not socket.poll(0):
                return
            socket.recv_multipart(copy=False)

    def kill(self, reason: str) -> None:
        self.dead = reason
        try:
            self.km.shutdown_kernel(now=True)
        except Exception:
            pass


class SandboxKernelManager(KernelManager):
    """A KernelManager whose kernel command is given, not looked up among installed kernelspecs."""

    def __init__(self, spec: KernelSpec, **kwargs):
        super().__init__(**kwargs)
        self._sandbox_spec = spec

    @property
    def kernel_spec(self):
        return self._sandbox_spec


class LocalSession:
    """The same cells and the same agent, in this process: for proving the graded checks fast.

    Cells run under a CPU-time limit; their output is captured. Not a sandbox: only for the
    course's own solutions and catalogued mistakes."""

    def __init__(self, cell_seconds: float = 60):
        self.namespace = {"__name__": "__main__", "__builtins__": builtins}
        self.agent = agent_module.Agent(self.namespace, wire)
        self.cell_seconds = cell_seconds
        self.dead = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def close(self) -> None:
        pass

    def run_cell(self, source: str) -> CellRun:
        from IPython.core.inputtransformer2 import TransformerManager
        run, out = CellRun(), io.StringIO()
        try:
            code = compile(TransformerManager().transform_cell(source), "<cell>", "exec")
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
                    agent_module.cpu_limit(self.cell_seconds):
                exec(code, self.namespace)
        except agent_module.CallTimedOut:
            run.error = ("Timeout", f"{self.cell_seconds:g}")
        except BaseException as e:
            run.error = (type(e).__name__, str(e))
        if out.getvalue():
            run.outputs.append(NotebookNode(output_type="stream", name="stdout", text=out.getvalue()))
        if run.error:
            run.outputs.append(error_output(*run.error))
        return run

    def request(self, request: dict, timeout: float) -> dict:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return json.loads(self.agent.serve(json.dumps(request, ensure_ascii=False)))
