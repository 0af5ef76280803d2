"""Where a student's notebook runs while it is graded: a sandboxed process.

A session does two things: run a cell of the notebook, and pass a request to the agent next to
the notebook's names (`autograder.wall.agent`), returning its answer as a message of
`autograder.wall.protocol` (`Malformed` for a frame that is no answer).
`autograder.wall.sandbox` starts a Python process behind its walls and `autograder.wall.host` runs
in it — an IPython shell for the cells and the agent for the requests — answering over one socket
in frames. Nothing else crosses: no Jupyter protocol, no library that parses what the student's
process sends before a bound applies to it. Every frame is read with a size cap and a deadline; a
cell's outputs are counted and cut here (`LimitedOutputs`), whatever the other side claims. The
session decides no grade: answers are checked by `autograder.wall.remote` and compared by
`autograder.notebook.evaluate`. This module starts, stops and watches the sandbox's processes;
`autograder.wall.channel` reads and writes its frames, `autograder.wall.accounting` measures its memory and CPU.
(The tests' stand-in, tests/local_session.py, runs the same cells
and agent in the test's own process, so the catalogue is proven in seconds.)
"""

import contextlib
import dataclasses
import os
import resource
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from nbformat import NotebookNode
from traitlets import Float, Integer
from traitlets.config import LoggingConfigurable

from . import agent as agent_module
from . import host as host_module
from . import protocol, wire
from .accounting import Accounting, process_cpu_clock
from .cell_outputs import LimitedOutputs
from .channel import FRAME, OUTPUT, Channel, KernelDied, KernelStuck  # noqa: F401 (FRAME, OUTPUT: for the tests)
from .sandbox import Sandbox

# what the sandbox's bootstrap installs, in this order (the host imports the agent, the agent the wire)
HOST_FILES = (
    ("_bpe_wire", wire.__file__),
    ("_bpe_protocol", protocol.__file__),
    ("_bpe_agent", agent_module.__file__),
    ("_bpe_host", host_module.__file__),
)


def error_output(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


@dataclass
class CellRun:
    outputs: list = field(default_factory=list)
    error: tuple[str, str] | None = None  # (ename, evalue) of an exception in the cell
    timed_out: float | None = None  # the limit (s) that interrupted it: never a name the student raised


class KernelSession(Channel, Accounting, LoggingConfigurable):
    """One notebook's sandboxed process, driven over its socket (`autograder.wall.host`): its life cycle and
    processes here, the socket's frames in `Channel` (autograder.wall.channel), the figures of its memory and
    CPU in `Accounting` (autograder.wall.accounting)."""

    cell_timeout = Integer(120, help="Wall-clock seconds one notebook cell may run before it is interrupted.").tag(
        config=True
    )
    startup_timeout = Integer(180, help="Seconds the sandboxed kernel may take to start.").tag(config=True)
    interrupt_grace = Float(
        10,
        help="Seconds past its limit an interrupted cell or call may take to answer "
        "before the whole sandbox is stopped.",
    ).tag(config=True)
    max_output_chars = Integer(200_000, help="Output kept per cell; the rest is cut with a note.").tag(config=True)
    max_answer_chars = Integer(
        4 * 2**20,
        help="The largest frame (bytes) the sandbox may send: one answer, or one "
        "output of a cell. A bigger one stops the sandbox (the course's largest honest "
        "answer, 08's ids of a long text, is 1.7 MB). Parsing one frame is the most memory the "
        "grader spends at once on what the sandbox sends: about 60 times the frame at worst.",
    ).tag(config=True)
    max_received_bytes = Integer(
        32 * 2**20,
        help="The grader's ceiling per notebook on what its sandbox sends: the bytes of all its "
        "frames together (answers and cells' outputs; a solved 08, the course's most talkative notebook, "
        "sends 5.8 MB). Past it the sandbox is stopped, and what "
        "is left of the notebook fails saying why: so decoding, parsing and storing one notebook's "
        "answers costs the grader at most this many "
        "bytes received; its CPU is bounded by max_reading_seconds.",
    ).tag(config=True)
    max_reading_seconds = Float(
        15,
        help="The grader's ceiling per notebook on its own CPU time (the reading thread's clock: waiting for "
        "the sandbox does not count) spent reading, parsing and keeping what its sandbox sends — frames, "
        "answers, cells' outputs, dropped frames too. Bytes alone do not bound it: 32 MiB of empty frames "
        "are 4 million frames. Past it the sandbox is stopped, and what is left of the notebook fails "
        "saying why (the course's most talkative notebook, a solved 08, spends about 1.3 CPU-s here: some "
        "17,000 frames of lines handed over, one by one where it times when ids come out).",
    ).tag(config=True)

    def __init__(self, sandbox: Sandbox, **kwargs):
        super().__init__(**kwargs)
        self.sandbox = sandbox
        self.process: subprocess.Popen | None = None
        self.dead: str | None = None  # why the kernel is gone, once it is
        self.channel: socket.socket | None = None  # the grader's end of the socket
        self.agent_fd = -1  # the sandbox's end, as a file descriptor there
        self.sequence = 0
        self.received = 0  # bytes of frames the sandbox sent in this notebook (max_received_bytes)
        self.read_bytes = 0  # bytes read from its socket: those frames and what is read ahead of them
        self.inbox = bytearray()  # bytes read from the socket and not yet taken as frames (receive)
        self.reading = 0.0  # the grader's CPU seconds spent reading them (max_reading_seconds)
        self.folder = sandbox.make_folder()
        self.uid: int | None = None
        self.cgroup = None  # autograder.wall.cgroup.SandboxCgroup, where the host has them
        self.host_clock: int | None = None  # the CPU-time clock of the process the cells run in
        self.host_pid: int | None = None  # that process

    # -- life cycle ------------------------------------------------------------------------------
    def start(self) -> "KernelSession":
        workdir = self.folder / "work"
        workdir.mkdir()
        self.uid = self.sandbox.claim_uid()
        self.cgroup = self.sandbox.make_cgroup()
        self.channel, kernel_end = socket.socketpair()
        self.agent_fd = kernel_end.fileno()  # inherited under the same number
        argv = self.sandbox.kernel_argv(workdir, self.uid, self.cgroup, self.agent_fd)
        log = self.folder / "kernel.log"
        try:
            with open(log, "wb") as out:  # what the process itself prints: for a start that fails
                self.process = subprocess.Popen(
                    argv,
                    env=self.sandbox.launcher_env(),
                    cwd=workdir,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=out,
                    pass_fds=(self.agent_fd,),
                    start_new_session=True,
                )
        finally:
            kernel_end.close()
        install = protocol.Install(
            modules=[[name, Path(path).read_text(encoding="utf-8")] for name, path in HOST_FILES]
        )
        try:
            self.send(0, protocol.dumps(install), self.startup_timeout)
            ready = self.answer(0, time.monotonic() + self.startup_timeout, "запуск")
        except (KernelDied, KernelStuck) as e:
            said = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            raise KernelDied(
                f"the sandboxed kernel did not start: {e}" + "".join("\n  " + line for line in said)
            ) from None  # noqa: E501
        if not isinstance(ready, protocol.Ready):
            self.kill("ядро Python ответило на запуск не так, как ожидалось")
            raise KernelDied(self.dead)
        self.host_pid = host_pid(self.process.pid)  # before any cell of the student's
        self.host_clock = process_cpu_clock(self.host_pid)
        return self

    def close(self) -> None:
        try:
            if self.channel is not None:
                self.channel.close()
            if self.process is not None:
                self.stop_process()
        finally:
            if self.cgroup is not None:  # children that left the kernel's session end here too
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
        timeout = self.cell_timeout
        outputs = LimitedOutputs(self.max_output_chars)
        started = time.monotonic()
        answer = self.exchange(
            protocol.RunCell(source=source, wall=timeout, max_chars=self.max_output_chars), timeout, outputs
        )
        run = CellRun(outputs=outputs.outputs)
        match answer:
            case protocol.CellDone(error=None):
                pass
            case protocol.CellDone(error=error):
                run.error = (error.type[:200], error.message[:2000])
            case protocol.Timeout() if time.monotonic() - started >= timeout:  # checked by the grader's own clock
                run.error, run.timed_out = ("Timeout", f"{timeout:g}"), timeout
            case protocol.Timeout():
                run.error = ("Exception", "ячейка сообщила о превышении времени, не исчерпав его")
            case protocol.Malformed(reason=reason):
                run.error = ("Exception", f"ядро ответило на ячейку не по протоколу проверки: {reason}")
            case _:
                run.error = ("Exception", f"ядро ответило на ячейку сообщением {answer.kind!r}, а не её итогом")
        return run

    def request(self, request: protocol.Request, timeout: float, feed=None) -> protocol.Answer:
        """Pass one request to the agent; its answer, Timeout(limit="wall") when the sandbox stopped
        the call at `timeout` seconds, Malformed when what came is no answer. `feed`: for a Stream, called
        with each `Yielded` frame on the way; its reply (NextLines or NoMoreLines) goes back when the frame
        wants one."""
        return self.exchange(dataclasses.replace(request, wall=timeout), timeout, feed=feed)

    @contextlib.contextmanager
    def frozen(self):
        """The sandbox stopped for the span of the block, so nothing it does meanwhile (a thread thrashing
        memory, spinning children) slows the grader's own work — the course's reference timed against the
        student's call (bpe_course.checks.reference_seconds). Its cgroup frozen where it has one (every process,
        forks included), else every process of the sandbox (`sandbox_processes`: under bubblewrap, its whole PID
        namespace) sent SIGSTOP, until each is stopped, and SIGCONT after. Only between requests: nothing of the
        grader's waits on the sandbox meanwhile."""
        if self.cgroup is not None and self.cgroup.freeze():
            try:
                yield
            finally:
                self.cgroup.thaw()
            return
        stopped = self.stop_every_process()
        try:
            yield
        finally:
            for pid in stopped:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGCONT)

    def stop_every_process(self, seconds: float = 1.0) -> list[int]:
        """SIGSTOP to every process of the sandbox (again for any forked meanwhile), then wait until each is
        stopped (its state T in /proc) or `seconds` passed; the pids sent it, for SIGCONT."""
        stopped: list[int] = []
        for _ in range(8):
            new = [pid for pid in self.sandbox_processes() if pid not in stopped]
            if not new:
                break
            for pid in new:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not all(map(is_stopped, stopped)):
            time.sleep(0.001)
        return stopped

    @contextlib.contextmanager
    def fixed_processes(self):
        """Around a call the grader times without a cgroup: `children_seconds` sees every process that is
        alive or was reaped by one, but not one the kernel reaps by itself (its parent ignores SIGCHLD) — so no
        process or thread may start in the sandbox meanwhile, and none may end. The grader, from outside, sets
        RLIMIT_NPROC of every process of the sandbox to 0, soft and hard (nothing inside may raise a hard limit
        again), and puts the old limits back after; the processes before and after must be the same ones. Yields
        a list, filled in after the call: empty when the figure is the sandbox's whole work, else why it is not.
        Only a grader with CAP_SYS_RESOURCE (root, not in a container that drops it) can put the limits back:
        any other one touches nothing and cannot prove it."""
        why: list[str] = []
        if not may_raise_limits():
            why.append(
                "без cgroups и без права CAP_SYS_RESOURCE проверка не может запретить песочнице запускать "
                "процессы, чью работу она не видит"
            )
            yield why
            return
        before, limits = self.sandbox_processes(), {}
        try:
            for _ in range(8):  # a process forked while the limits were being set gets its own too
                for pid in set(before) - set(limits):
                    try:
                        limits[pid] = resource.prlimit(pid, resource.RLIMIT_NPROC, (0, 0))
                    except (OSError, ValueError):
                        limits[pid] = None
                now = self.sandbox_processes()
                before, stable = now, set(now) <= set(limits)
                if stable:
                    break
            else:
                why.append("процессы песочницы всё время порождали новые, и их не удалось остановить")
            if any(limit is None for pid, limit in limits.items() if pid in before):
                why.append("ограничить процессы песочницы не удалось")
            if real_uid(self.host_pid) in (0, None):  # RLIMIT_NPROC does not bind root (mode=limits as root)
                why.append("ядро работает от root, и запретить ему новые процессы нельзя")
            if self.sandbox.resolved_mode() != "bwrap":  # no pid namespace: an orphan made earlier left the tree
                why.append("без bubblewrap процесс, отделившийся от ядра раньше, работает вне того, что видит проверка")
            yield why
            if self.sandbox_processes() != before:  # looked at before the limits go back
                why.append(
                    "во время вызова в песочнице завершались или появлялись процессы, "
                    "а без cgroups их работу проверка измерить не может"
                )
        finally:
            for pid, limit in limits.items():
                if limit is not None:
                    with contextlib.suppress(OSError, ValueError):
                        resource.prlimit(pid, resource.RLIMIT_NPROC, limit)

    def sandbox_processes(self) -> dict[int, str]:
        """The sandbox's processes now — the launched one and everything under it, each parent before its
        children — each with its start time (a pid used again is another process); one that ended while it
        was being looked up is left out."""
        children, order = process_children(), [self.process.pid]
        for pid in order:
            order.extend(children.get(pid, []))
        started = {}
        for pid in order:
            try:
                started[pid] = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
            except (OSError, IndexError):
                pass
        return started

    def check_alive(self, wait: float = 0) -> None:
        """Raise KernelDied if the kernel is gone (or goes within `wait` seconds)."""
        deadline = time.monotonic() + wait
        while True:
            if self.process.poll() is not None:
                self.dead = "ядро Python остановилось (os._exit, сбой, нехватка памяти или процессорного времени)"
                if self.cgroup is not None and self.cgroup.oom_killed():
                    self.dead = (
                        f"ядро Python остановлено: процессы блокнота вместе заняли больше "
                        f"{self.sandbox.memory_bytes / 2**30:g} ГиБ памяти"
                    )
                raise KernelDied(self.dead)
            if time.monotonic() >= deadline:
                return
            time.sleep(0.05)

    def kill(self, reason: str) -> None:
        self.dead = self.dead or reason
        self.stop_process()

    def stop_process(self) -> None:
        """SIGKILL to the sandbox's process group (under bubblewrap its pid namespace goes with it)."""
        for stop in (lambda: os.killpg(self.process.pid, signal.SIGKILL), self.process.kill):
            try:
                stop()
            except OSError:
                pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass


def real_uid(pid: int) -> int | None:
    """The real uid of `pid`, as /proc shows it; None when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def may_raise_limits() -> bool:
    """Whether this process may raise another's hard limits again: CAP_SYS_RESOURCE in its effective set."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> 24 & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def host_pid(launched: int) -> int:
    """The process the cells run in: the deepest descendant of the launched one (under bubblewrap its
    own processes come between), looked up before any cell of the student's has run."""
    children = process_children()
    pid = launched
    while len(children.get(pid, [])) == 1:
        pid = children[pid][0]
    return pid


def process_children() -> dict[int, list[int]]:
    """Every process's children, by parent pid, as /proc shows them now."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return children


def is_stopped(pid: int) -> bool:
    """`pid` stopped by a signal (or gone: nothing of it runs either)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("T", "t", "Z", "X")
    except (OSError, IndexError):
        return True
