"""What the sandbox used, read from outside it: its memory and its CPU time.

`Accounting` is the part of `autograder.wall.session.KernelSession` that measures: `memory_mark` starts
watching the sandbox's memory (a `MemoryMark`), `memory_sample` looks at it while the grader hands over
lines, `memory_growth` says the most it took at once since the mark; `cpu_clock` is the CPU seconds the
sandbox has used. Each figure is read where nothing in the sandbox can set it: its cgroup (peak, CPU), /proc
(each process's high-water mark, reset by the grader; resident memory; memfd files; bubblewrap's /tmp and
/dev), the CPU-time clock of the process the cells run in. It relies on the session's `sandbox`, `cgroup`,
`host_pid`, `host_clock`, `sandbox_processes` and `check_alive`.
"""

import os
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class MemoryMark:
    """Where watching the sandbox's memory started (`Accounting.memory_mark`), and the most seen since."""

    seen: dict  # the sandbox's processes then (pid → its start time)
    processes: dict[int, int] = field(default_factory=dict)  # pid → its resident bytes when its peak was reset
    host: int | None = None  # the cells' process's resident bytes then (None: /proc does not show them)
    most: int | None = None  # the most it held whenever the grader looked since
    files: int = 0  # bytes in memory files then (`memory_in_files`)
    files_most: int = 0  # the most since
    cgroup: object = None  # the cgroup's peak watch, where there is a cgroup


class Accounting:
    """The measuring side of a KernelSession (a mixin: see the module's docstring)."""

    # -- memory ----------------------------------------------------------------------------------
    def memory_mark(self) -> MemoryMark:
        """Start watching the sandbox's memory from outside (see `memory_growth`)."""
        mark = MemoryMark(seen=self.sandbox_processes())
        mark.host = mark.most = process_memory(self.host_pid).get("VmRSS")
        mark.files = mark.files_most = self.memory_in_files(mark.seen)
        if self.cgroup is not None:
            mark.cgroup = self.cgroup.watch_peak()
        for pid in mark.seen:
            rss = reset_high_water_mark(pid)
            if rss is not None:
                mark.processes[pid] = rss
        return mark

    def memory_sample(self, mark: MemoryMark) -> None:
        """Look at the memory the cells' process holds now (the grader does whenever it hands over lines)."""
        if mark.most is not None:
            now = process_memory(self.host_pid).get("VmRSS")
            if now is not None:
                mark.most = max(mark.most, now)
        mark.files_most = max(mark.files_most, self.memory_in_files([self.host_pid]))

    def memory_growth(self, mark: MemoryMark) -> int | None:
        """The most memory (bytes) the sandbox took at once since `mark`, over what it held then, read from
        outside: its cgroup's peak (which nothing in the sandbox may reset), the high-water mark of each of its
        processes (reset by the grader through /proc/PID/clear_refs — which the process itself could reset
        too), and the most the cells' process held whenever the grader looked (`memory_sample`); the largest
        of them, None when none works. The memory its files took meanwhile (`memory_in_files`), which no process's
        resident memory shows, is added to the processes' figures (the cgroup's peak counts it already)."""
        figures = []
        if mark.most is not None:
            self.memory_sample(mark)
        in_files = max(mark.files_most, self.memory_in_files(self.sandbox_processes())) - mark.files
        if mark.most is not None:
            figures.append(mark.most - mark.host + in_files)
        if mark.cgroup is not None:
            grown = self.cgroup.peak_since(mark.cgroup)
            if grown is not None:
                figures.append(grown)
        if mark.processes:
            # the processes reset then and the ones started since (a process that could not be reset is left out)
            now = [pid for pid in self.sandbox_processes() if pid in mark.processes or pid not in mark.seen]
            peaks = {pid: high_water_mark(pid) for pid in now}
            before = sum(rss for pid, rss in mark.processes.items() if peaks.get(pid) is not None)
            if peaks.get(self.host_pid) is not None and self.host_pid in mark.processes:
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

    # -- CPU -------------------------------------------------------------------------------------
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
