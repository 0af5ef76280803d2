"""One cgroup per sandbox: its memory (every process, shared memory and memfd included), its CPU
share and its process count are limited together, whatever the kernel forks or however it names
its children.

cgroup v2 where the host mounts it at /sys/fs/cgroup (the controllers `memory`, `cpu` and `pids`
enabled for the grader's own cgroup); v1 where that is what it has (one folder each under
/sys/fs/cgroup/memory, cpu, pids). Each sandbox's cgroup is made inside the grader's own, so the
limits a container or a batch system puts on the grader still hold. It needs write access to those
folders (root, or a delegated cgroup); without it, `available()` says why and the sandbox runs with
its per-process limits only.

The grader makes the cgroup (`SandboxCgroup.create`), the sandbox's launcher moves itself into it
before anything of the student's runs (`join`), and the grader kills what is left in it and
removes it when the notebook is done (`remove`). A cgroup's name carries its owner's tag (the class
grader's worker that made it): when a worker is stopped before it could remove its own (a Ctrl-C or
SIGTERM it could not act on in time, the watchdog's SIGKILL), the class grader removes them by that
tag (`remove_left_by`).
"""

import os
import signal
import time
import uuid
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
V1 = ("memory", "cpu", "pids")
V1_ACCOUNTING = "cpuacct"  # v1's CPU usage, where it is not mounted together with `cpu`
PREFIX = "bpe-sandbox-"
STALE_SECONDS = 3600
REMOVE_SECONDS = 20  # how long `remove` waits for the killed processes to leave (exiting 4 GiB takes time)
V2_CONTROLLERS = {"memory", "cpu", "pids"}
PERIOD_US = 100_000


def own_path(controller: str) -> str:
    """The grader's own cgroup in a v1 hierarchy (`controller`) or in v2 (``"")."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if (controller and controller in names.split(",")) or (not controller and names == ""):
            return path.lstrip("/")
    raise OSError(f"the grader is in no {controller or 'v2'} cgroup")


def own_path_or_none(controller: str) -> str:
    try:
        return own_path(controller)
    except OSError:
        return "/nonexistent"


def version() -> int | None:
    """2 or 1 when the grader can make cgroups with all three controllers, else None."""
    try:
        if (ROOT / "cgroup.controllers").exists():
            parent = ROOT / own_path("")
            enabled = set((parent / "cgroup.subtree_control").read_text().split())
            if V2_CONTROLLERS <= enabled and os.access(parent, os.W_OK):
                return 2
            return None
        if all(os.access(ROOT / c / own_path(c), os.W_OK) for c in V1):
            return 1
    except OSError:
        pass
    return None


def available() -> str | None:
    """None when per-sandbox cgroups work here, else why not (for the grader's warning)."""
    if version() is not None:
        return None
    if (ROOT / "cgroup.controllers").exists():
        return (
            "cgroup v2 is mounted, but the grader's own cgroup is not writable or its cgroup.subtree_control "
            "does not enable memory, cpu and pids (give the grader a delegated cgroup, e.g. systemd's "
            "Delegate=yes, with the controllers enabled for its children)"
        )
    return "no writable cgroup v1 memory, cpu and pids hierarchies and no cgroup v2 (run the grader as root)"


class SandboxCgroup:
    """The cgroup(s) of one sandbox: one folder in v2, one per controller in v1."""

    def __init__(self, folders: list[Path], version: int):
        self.folders, self.version = folders, version

    @classmethod
    def create(cls, memory_bytes: int, cpus: float, processes: int, owner: str = "") -> "SandboxCgroup":
        """A new cgroup with these limits, named after `owner` (see `remove_left_by`) when given."""
        v, name = version(), PREFIX + (f"{owner}-" if owner else "") + uuid.uuid4().hex[:12]
        parents = own_parents(v)
        remove_stale(parents)
        if v == 2:
            folder = parents[0] / name
            folder.mkdir()
            group = cls([folder], 2)
            group.write("memory.max", memory_bytes)
            group.write("memory.swap.max", 0, required=False)
            group.write("cpu.max", f"{int(cpus * PERIOD_US)} {PERIOD_US}")
            group.write("pids.max", processes)
            return group
        if v == 1:
            folders = [parent / name for parent in parents]
            for folder in folders:
                folder.mkdir()
            group = cls(folders, 1)
            group.write("memory.limit_in_bytes", memory_bytes)
            group.write("memory.memsw.limit_in_bytes", memory_bytes, required=False)  # no swapping past it
            group.write("cpu.cfs_period_us", PERIOD_US)
            group.write("cpu.cfs_quota_us", int(cpus * PERIOD_US))
            group.write("pids.max", processes)
            return group
        raise OSError(available())

    def write(self, name: str, value, required: bool = True) -> None:
        for folder in self.folders:
            if (folder / name).exists():
                (folder / name).write_text(str(value))
                return
        if required:
            raise OSError(f"cgroup file {name} not found in {self.folders}")

    def read(self, name: str) -> str:
        for folder in self.folders:
            if (folder / name).exists():
                return (folder / name).read_text()
        return ""

    @property
    def procs_files(self) -> list[str]:
        """What the launcher writes its pid to."""
        return [str(folder / "cgroup.procs") for folder in self.folders]

    def pids(self) -> set[int]:
        found = set()
        for folder in self.folders:
            try:
                found |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
            except OSError:
                pass
        return found

    def memory_peak(self) -> int:
        """The most memory the sandbox held at once (bytes)."""
        text = self.read("memory.max_usage_in_bytes" if self.version == 1 else "memory.peak")
        return int(text) if text.strip().isdigit() else 0

    def watch_peak(self):
        """Start a new peak of the sandbox's memory from what it holds now (v1: memory.max_usage_in_bytes set
        back; v2: memory.peak reset through an open file, Linux 6.12+); what `peak_since` needs, or None."""
        try:
            if self.version == 1:
                before = int(self.read("memory.usage_in_bytes").strip() or "x")
                self.write("memory.max_usage_in_bytes", 0)
                return before, None
            before = int(self.read("memory.current").strip() or "x")
            fd = os.open(self.folders[0] / "memory.peak", os.O_RDWR)
            try:
                os.write(fd, b"reset\n")
            except OSError:
                os.close(fd)
                return None
            return before, fd
        except (OSError, ValueError):
            return None

    def peak_since(self, watch) -> int | None:
        """The most the sandbox held at once since `watch_peak`, over what it held then (bytes)."""
        before, fd = watch
        try:
            if fd is None:
                text = self.read("memory.max_usage_in_bytes")
            else:
                text = os.pread(fd, 64, 0).decode("ascii", "replace")
            return int(text.strip()) - before
        except (OSError, ValueError):
            return None
        finally:
            if fd is not None:
                os.close(fd)

    def cpu_seconds(self) -> float | None:
        """CPU seconds all its processes have used, as the kernel counts them (None where the host does
        not account CPU per cgroup)."""
        if self.version == 2:
            for line in self.read("cpu.stat").splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec" and value.strip().isdigit():
                    return int(value) / 1e6
            return None
        text = self.read("cpuacct.usage").strip()
        return int(text) / 1e9 if text.isdigit() else None

    def freeze(self, seconds: float = 1.0) -> bool:
        """Stop every process in it (v2's cgroup.freeze: the kernel stops them all, whatever they do, forks
        and threads included) and wait until cgroup.events says it is frozen; False where it cannot be (v1:
        no freezer hierarchy of ours), or did not freeze within `seconds` (then it is thawed again)."""
        if self.version != 2 or not (self.folders[0] / "cgroup.freeze").exists():
            return False
        try:
            self.write("cgroup.freeze", 1)
        except OSError:
            return False
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if "frozen 1" in self.read("cgroup.events").splitlines():
                return True
            time.sleep(0.001)
        self.thaw()
        return False

    def thaw(self) -> None:
        """Let its processes run again (after `freeze`)."""
        try:
            self.write("cgroup.freeze", 0)
        except OSError:
            pass

    def oom_killed(self) -> int:
        """How many of its processes the memory limit killed."""
        text = self.read("memory.oom_control" if self.version == 1 else "memory.events")
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    def remove(self, seconds: float = REMOVE_SECONDS) -> None:
        """Kill everything still in it (children that left the kernel's session too), then remove it
        once its processes are gone (a killed process stays in it until it has exited; in v1 until it is reaped)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)
        for folder in self.folders:
            try:
                folder.rmdir()
            except OSError:
                pass


def own_parents(v: int | None) -> list[Path]:
    """The folders the sandboxes' cgroups are made in: the grader's own cgroup in each hierarchy (v1:
    cpuacct's too where it is not mounted with cpu and the grader may write there)."""
    if v == 2:
        return [ROOT / own_path("")]
    parents = [ROOT / c / own_path(c) for c in V1]
    accounting = ROOT / V1_ACCOUNTING / own_path_or_none(V1_ACCOUNTING)
    if not (parents[1] / "cpuacct.usage").exists() and os.access(accounting, os.W_OK):
        parents.append(accounting)
    return parents


def remove_left_by(owner: str) -> None:
    """Kill and remove every cgroup `owner` made (`create`) and did not remove: for a worker that is gone."""
    v = version()
    if v is None or not owner:
        return
    folders: dict[str, list[Path]] = {}
    for parent in own_parents(v):
        for folder in parent.glob(f"{PREFIX}{owner}-*"):
            folders.setdefault(folder.name, []).append(folder)
    for found in folders.values():
        SandboxCgroup(found, v).remove()


def remove_stale(parents: list[Path]) -> None:
    """Remove the empty cgroups of sandboxes whose worker was killed before it could (an hour old:
    never one that is being set up; a cgroup with processes in it cannot be removed anyway)."""
    now = time.time()
    for parent in parents:
        try:
            for folder in parent.glob(PREFIX + "*"):
                if now - folder.stat().st_mtime > STALE_SECONDS:
                    try:
                        folder.rmdir()
                    except OSError:
                        pass
        except OSError:
            pass


def join(procs_files: list[str]) -> None:
    """Move this process (the sandbox's launcher, before the kernel starts) into its cgroup."""
    for path in procs_files:
        with open(path, "w") as f:
            f.write(str(os.getpid()))
