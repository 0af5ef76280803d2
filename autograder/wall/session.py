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
`autograder.notebook.evaluate`. (The tests' stand-in, tests/local_session.py, runs the same cells
and agent in the test's own process, so the catalogue is proven in seconds.)
"""

import contextlib
import dataclasses
import os
import resource
import select
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
from .cell_outputs import LimitedOutputs
from .sandbox import Sandbox

# what the sandbox's bootstrap installs, in this order (the host imports the agent, the agent the wire)
HOST_FILES = (
    ("_bpe_wire", wire.__file__),
    ("_bpe_protocol", protocol.__file__),
    ("_bpe_agent", agent_module.__file__),
    ("_bpe_host", host_module.__file__),
)
FRAME, OUTPUT = host_module.FRAME, host_module.OUTPUT
READ_AHEAD = 1 << 16  # bytes the grader reads from the socket at once beyond the frame it is reading


class KernelDied(RuntimeError):
    """The kernel process is gone (os._exit, a crash, memory, the CPU-time limit)."""


class KernelStuck(RuntimeError):
    """The kernel neither finished nor answered an interrupt, and was stopped."""


def error_output(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


@dataclass
class CellRun:
    outputs: list = field(default_factory=list)
    error: tuple[str, str] | None = None  # (ename, evalue) of an exception in the cell
    timed_out: float | None = None  # the limit (s) that interrupted it: never a name the student raised


class KernelSession(LoggingConfigurable):
    """One notebook's sandboxed process, driven over its socket (`autograder.wall.host`)."""

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

    def memory_mark(self) -> dict:
        """Start watching the sandbox's memory from outside (see `memory_growth`)."""
        mark: dict = {"processes": {}, "seen": set(self.sandbox_processes())}
        mark["host"] = mark["most"] = process_memory(self.host_pid).get("VmRSS")
        mark["files"] = mark["files_most"] = self.memory_in_files(mark["seen"])
        if self.cgroup is not None:
            mark["cgroup"] = self.cgroup.watch_peak()
        for pid in mark["seen"]:
            rss = reset_high_water_mark(pid)
            if rss is not None:
                mark["processes"][pid] = rss
        return mark

    def memory_sample(self, mark: dict) -> None:
        """Look at the memory the cells' process holds now (the grader does whenever it hands over lines)."""
        if mark.get("most") is not None:
            now = process_memory(self.host_pid).get("VmRSS")
            if now is not None:
                mark["most"] = max(mark["most"], now)
        mark["files_most"] = max(mark["files_most"], self.memory_in_files([self.host_pid]))

    def memory_growth(self, mark: dict) -> int | None:
        """The most memory (bytes) the sandbox took at once since `mark`, over what it held then, read from
        outside: its cgroup's peak (which nothing in the sandbox may reset), the high-water mark of each of its
        processes (reset by the grader through /proc/PID/clear_refs — which the process itself could reset
        too), and the most the cells' process held whenever the grader looked (`memory_sample`); the largest
        of them, None when none works. The memory its files took meanwhile (`memory_in_files`), which no process's
        resident memory shows, is added to the processes' figures (the cgroup's peak counts it already)."""
        figures = []
        if mark.get("most") is not None:
            self.memory_sample(mark)
        in_files = max(mark["files_most"], self.memory_in_files(self.sandbox_processes())) - mark["files"]
        if mark.get("most") is not None:
            figures.append(mark["most"] - mark["host"] + in_files)
        if mark.get("cgroup") is not None:
            grown = self.cgroup.peak_since(mark["cgroup"])
            if grown is not None:
                figures.append(grown)
        if mark["processes"]:
            # the processes reset then and the ones started since (a process that could not be reset is left out)
            now = [pid for pid in self.sandbox_processes() if pid in mark["processes"] or pid not in mark["seen"]]
            peaks = {pid: high_water_mark(pid) for pid in now}
            before = sum(rss for pid, rss in mark["processes"].items() if peaks.get(pid) is not None)
            if peaks.get(self.host_pid) is not None and self.host_pid in mark["processes"]:
                figures.append(sum(p for p in peaks.values() if p is not None) - before + in_files)
        return max(figures) if figures else None

    def memory_in_files(self, pids) -> int:
        """Bytes the sandbox holds in memory that is in no process's resident memory: the memfd files open in
        `pids` (each counted once), and under bubblewrap what its own /tmp and /dev (memory file systems) hold.
        Without a cgroup, lines kept in such a file hid from every other figure (tests/test_stream_attacks.py)."""
        total, seen = 0, set()
        for pid in pids:
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for fd in fds:
                path = f"/proc/{pid}/fd/{fd}"
                try:
                    if not os.readlink(path).startswith("/memfd:"):
                        continue
                    stat = os.stat(path)
                except OSError:
                    continue
                if (stat.st_dev, stat.st_ino) not in seen:
                    seen.add((stat.st_dev, stat.st_ino))
                    total += stat.st_blocks * 512
        if self.sandbox.resolved_mode() == "bwrap" and self.host_pid is not None:
            for folder in ("tmp", "dev"):
                try:
                    fs = os.statvfs(f"/proc/{self.host_pid}/root/{folder}")
                except OSError:
                    continue
                total += (fs.f_blocks - fs.f_bfree) * fs.f_frsize
        return total

    def cpu_clock(self) -> float | None:
        """CPU seconds the sandbox has used, read from outside it, where nothing in it can set them: its
        cgroup's (every process it forked included), else the CPU-time clock of the process the cells
        run in (its threads included) plus `children_seconds` (under bubblewrap every process it forks;
        without, one orphaned to the host's init escapes); None when neither can be read."""
        used = self.cgroup.cpu_seconds() if self.cgroup is not None else None
        if used is None and self.host_clock is not None:
            try:
                used = time.clock_gettime(self.host_clock) + self.children_seconds()
            except OSError:
                self.check_alive()
        return used

    def children_seconds(self) -> float:
        """Without a cgroup: CPU seconds of the sandbox's other processes — every live one under the
        launched process (bubblewrap's own included, which reap what the sandbox orphans) and the ones
        they reaped — so work forked off the process the cells run in counts too. Children are read
        before their parents: one reaped meanwhile is then counted twice, never missed."""
        ticks = 0
        for pid in reversed(list(self.sandbox_processes())):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                utime, stime, cutime, cstime = map(int, fields[11:15])
            except (OSError, ValueError):
                continue
            ticks += cutime + cstime + (0 if pid == self.host_pid else utime + stime)  # the host's own: host_clock
        return ticks / os.sysconf("SC_CLK_TCK")

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

    # -- the socket ------------------------------------------------------------------------------
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


def reset_high_water_mark(pid: int) -> int | None:
    """Reset `pid`'s peak resident memory (VmHWM) to what it holds now, and return that (bytes); None
    where the grader may not (another user's process without the right to) or the process is gone."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return None
    return process_memory(pid).get("VmRSS")


def high_water_mark(pid: int) -> int | None:
    """`pid`'s peak resident memory (bytes) since it started or since its mark was reset."""
    return process_memory(pid).get("VmHWM")


def is_stopped(pid: int) -> bool:
    """`pid` stopped by a signal (or gone: nothing of it runs either)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("T", "t", "Z", "X")
    except (OSError, IndexError):
        return True


def process_memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of `pid` (bytes), as /proc shows them; {} when it is gone."""
    found = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM") and value.split() and value.split()[0].isdigit():
                found[key] = int(value.split()[0]) * 1024
    except OSError:
        pass
    return found


def process_cpu_clock(pid: int) -> int | None:
    """The id of `pid`'s CPU-time clock (clock_getcpuclockid), or None where there is none."""
    try:
        import ctypes

        clock = ctypes.c_int()
        if ctypes.CDLL(None, use_errno=True).clock_getcpuclockid(pid, ctypes.byref(clock)) == 0:
            return clock.value
    except (OSError, AttributeError):
        pass
    return None
