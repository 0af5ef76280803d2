"""The walls around a student's kernel.

`Sandbox` (a configurable, settings below) says how a kernel is started; the command it builds is
`python -m autograder.wall.sandbox CONFIG`, this module's `main`, which

- applies resource limits: address space, CPU time, file size (setrlimit), and — as the last
  step before the kernel starts — a process-count limit;
- under bubblewrap (`mode = "bwrap"`), re-executes the kernel in new namespaces: no network, its
  own process tree, and a file system of read-only system folders (`/usr`, the libraries),
  the Python environment, the course helpers and data, a small `/etc` of its own (a `passwd`
  entry, the linker cache, the time zone — not the host's `/etc`), and an empty, size-limited
  `/tmp` that holds its work folder. On the host it can write nothing; its one way out is the
  socket it inherits from the grader (`autograder.wall.host` is what runs on it).
  The course sources, the graded notebook, hidden tests, the gradebook and other students'
  work are simply not there;
- gives the kernel an explicit environment (`--clearenv`): the variables listed in
  `kernel_env()` and `Sandbox.extra_env`, nothing inherited from the grader;
- runs it as an unprivileged user with no capabilities: when the grader is root, the kernel
  drops to a uid of its own, fresh for each sandbox (`claim_uid`: no two sandboxes at a time share
  one, so one student's fork bomb cannot use up another's process limit, not even a `check`'s)
  with `no_new_privs` set by bubblewrap; otherwise bubblewrap maps the grader's user to `uid_base`
  in a user namespace of its own;
- puts the whole sandbox in a cgroup of its own (`autograder.wall.cgroup`, where the host allows it):
  memory for all its processes together (shared memory and memfd included), a CPU quota, a
  process count — so forked children, `setsid` and memfd escape none of them;
- runs Python with -P, so a module the student writes next to the notebook cannot shadow one
  that the notebook imports.
Without bubblewrap (`mode = "limits"`) only the limits and the clean environment apply, and
the grader says so loudly; `mode = "off"` is for trusted notebooks only.
"""

import json
import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from traitlets import Dict, Enum, Float, Integer, List, Unicode
from traitlets.config import LoggingConfigurable

import bpe_course
from bpe_course.paths import DATA_DIR

from . import cgroup

UID_CLAIMS = Path("/run/bpe-grader-uids")
FOLDER_PREFIX = "bpe-kernel-"  # each sandbox's folder on the host, in the grader's temporary folder
SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32"]
ETC_FILES = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/fonts"]

# The first thing that runs inside the walls: the process limit (it counts this uid's processes,
# so it is set here, not in the launcher, which may still be root), then the drop to the
# unprivileged uid when the sandbox was entered as root, then the kernel.
DROP_PRIVILEGES = """
import os, resource, sys
uid, gid, nproc = map(int, sys.argv[1:4])
resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
if os.getuid() == 0:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
os.execv(sys.argv[5], sys.argv[5:])
"""


@cache
def bwrap_works() -> bool:
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return False
    probe = subprocess.run(
        [bwrap, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"], capture_output=True
    )
    return probe.returncode == 0


class Sandbox(LoggingConfigurable):
    """How a student's kernel is walled in while it is graded."""

    mode = Enum(
        ["auto", "bwrap", "limits", "off"],
        "auto",
        help="bwrap: namespaces + limits; limits: resource limits and a clean environment only; "
        "off: a plain kernel (trusted notebooks only); auto: bwrap where it works, else limits.",
    ).tag(config=True)
    memory_bytes = Integer(4 * 2**30, help="Address space of the kernel (RLIMIT_AS).").tag(config=True)
    cpu_seconds = Integer(
        900, help="CPU seconds for the whole notebook (RLIMIT_CPU); the kernel is stopped after that."
    ).tag(config=True)
    file_bytes = Integer(256 * 2**20, help="The largest file the kernel may write (RLIMIT_FSIZE).").tag(config=True)
    tmp_bytes = Integer(256 * 2**20, help="Size of the kernel's private /tmp.").tag(config=True)
    processes = Integer(
        128, help="Processes and threads the sandbox may have (RLIMIT_NPROC of its own uid, and its cgroup's pids.max)."
    ).tag(config=True)
    open_files = Integer(256, help="Files each process of the kernel may have open (RLIMIT_NOFILE).").tag(config=True)
    cpus = Float(
        1.0, help="CPUs the whole sandbox may use at once (its cgroup's CPU quota), however many processes it forks."
    ).tag(config=True)
    cgroups = Enum(
        ["auto", "on", "off"],
        "auto",
        help="A cgroup per sandbox (memory of all its processes, CPU quota, process count): auto: where "
        "the host allows it (the grader warns otherwise); on: required; off: never.",
    ).tag(config=True)
    uid_base = Integer(
        2_100_000,
        help="When the grader runs as root, each sandbox runs as a fresh uid (and gid) "
        "from uid_base to uid_base + uid_count - 1; otherwise the grader's user is mapped to "
        "uid_base.",
    ).tag(config=True)
    uid_count = Integer(1_000_000, help="How many uids the sandboxes may use (see uid_base).").tag(config=True)
    extra_env = Dict(
        Unicode(), help="More environment variables for the kernel (nothing else of the grader's environment passes)."
    ).tag(config=True)
    read_only_paths = List(Unicode(), help="More folders the kernel may read.").tag(config=True)
    owner = Unicode(
        "",
        help="Who makes these sandboxes (the class grader's tag for one worker): it names their cgroups, "
        "folders and uid claims, so that what a stopped worker left is removed by it (remove_left_by). "
        "Not a setting: the worker pool gives it.",
    )

    def resolved_mode(self) -> str:
        if self.mode == "auto":
            return "bwrap" if bwrap_works() else "limits"
        return self.mode

    def kernel_env(self, workdir: Path) -> dict:
        """Every environment variable the kernel gets."""
        from bpe_course.vocab import default_cache_dir

        env = {
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
            "HOME": "/tmp",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONIOENCODING": "utf-8",
            "IPYTHONDIR": "/tmp/ipython",
            "MPLCONFIGDIR": "/tmp/matplotlib",
            "MPLBACKEND": "agg",
            "JUPYTER_RUNTIME_DIR": "/tmp/jupyter-runtime",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONWARNINGS": "ignore",
            "TIKTOKEN_CACHE_DIR": os.environ.get("TIKTOKEN_CACHE_DIR") or str(default_cache_dir()),
            "BPE_COURSE_DATA": str(DATA_DIR),
            "BPE_COURSE_STATIC": "1",  # no widget frontend while grading
            # one thread each is plenty for a notebook, and keeps within the process limit
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "RAYON_NUM_THREADS": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }
        if self.resolved_mode() != "bwrap":  # no private /tmp: keep the kernel's files in its folder
            for key, sub in (
                ("HOME", "home"),
                ("IPYTHONDIR", "ipython"),
                ("MPLCONFIGDIR", "matplotlib"),
                ("JUPYTER_RUNTIME_DIR", "runtime"),
            ):
                env[key] = str(workdir.parent / sub)
        env.update(self.extra_env)
        return env

    def launcher_env(self) -> dict:
        """The launcher's own environment: enough to start Python, nothing of the grader's."""
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}

    def use_cgroups(self) -> bool:
        if self.cgroups == "off" or self.resolved_mode() == "off":
            return False
        if self.cgroups == "on" and cgroup.available():
            raise OSError(f"Sandbox.cgroups is on, but: {cgroup.available()}")
        return cgroup.available() is None

    def make_cgroup(self) -> "cgroup.SandboxCgroup | None":
        """A fresh cgroup for one sandbox, or None where cgroups are off or not available."""
        if not self.use_cgroups():
            return None
        return cgroup.SandboxCgroup.create(self.memory_bytes, self.cpus, self.processes, self.owner)

    def make_folder(self) -> Path:
        """A fresh folder on the host for one sandbox (its work folder, its launcher's files)."""
        return Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX + (f"{self.owner}-" if self.owner else "")))

    def claim_uid(self) -> int:
        """A uid no other sandbox is using now (claimed by a file in /run/bpe-grader-uids; see
        `release_uid`); `uid_base` when the grader is not root (a user namespace maps it)."""
        if os.getuid() != 0:
            return self.uid_base
        folder = UID_CLAIMS
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        for _ in range(1000):
            uid = self.uid_base + secrets.randbelow(self.uid_count)
            try:
                fd = os.open(folder / str(uid), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except FileExistsError:
                continue
            try:
                os.write(fd, self.owner.encode())
            finally:
                os.close(fd)
            return uid
        raise OSError(f"no free sandbox uid in {folder}")

    def release_uid(self, uid: int) -> None:
        if os.getuid() == 0:
            (UID_CLAIMS / str(uid)).unlink(missing_ok=True)

    def kernel_argv(self, workdir: Path, uid: int, group: "cgroup.SandboxCgroup | None", fd: int) -> list[str]:
        """The command that starts the sandbox: the launcher, with everything it needs in a file; the
        process inside talks to the grader on the socket `fd` (see `autograder.wall.host`)."""
        from .host import BOOTSTRAP

        folder = workdir.parent
        config = {
            "mode": self.resolved_mode(),
            "workdir": str(workdir),
            "etc": str(folder / "etc"),
            "uid": uid,
            "cgroup": group.procs_files if group else [],
            "limits": {
                "RLIMIT_AS": self.memory_bytes,
                "RLIMIT_CPU": self.cpu_seconds,
                "RLIMIT_FSIZE": self.file_bytes,
                "RLIMIT_NOFILE": self.open_files,
            },
            "processes": self.processes,
            "tmp_bytes": self.tmp_bytes,
            "env": self.kernel_env(workdir),
            "read_only": [*self.default_read_only_paths(), *self.read_only_paths],
            "kernel": [python_inside(), "-P", "-c", BOOTSTRAP, str(fd)],
        }
        path = folder / "sandbox.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        return [sys.executable, "-m", "autograder.wall.sandbox", str(path)]

    @staticmethod
    def default_read_only_paths() -> list[str]:
        paths = [
            sys.base_prefix,
            sys.prefix,
            str(Path(bpe_course.__file__).resolve().parent),
            str(DATA_DIR),
            os.environ.get("TIKTOKEN_CACHE_DIR", ""),
        ]
        return [str(Path(p).resolve()) for p in paths if p and Path(p).exists()]

    @staticmethod
    def remove(folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)


def remove_left_by(owner: str) -> None:
    """Everything the sandboxes of `owner` (`Sandbox.owner`) left, removed: their cgroups (whatever is still
    in them killed), host folders and uid claims — for a worker that is gone, whatever stopped it."""
    if not owner:
        return
    cgroup.remove_left_by(owner)
    for folder in Path(tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}{owner}-*"):
        Sandbox.remove(folder)
    if os.getuid() == 0 and UID_CLAIMS.is_dir():
        for claim in UID_CLAIMS.iterdir():
            try:
                if claim.read_bytes() == owner.encode():
                    claim.unlink()
            except OSError:
                pass


# -- the launcher (runs as the kernel command) --------------------------------------------------
def write_etc(etc: Path, uid: int) -> None:
    etc.mkdir(exist_ok=True)
    (etc / "passwd").write_text(f"root:x:0:0::/:/bin/false\nstudent:x:{uid}:{uid}::/tmp:/bin/false\n")
    (etc / "group").write_text(f"root:x:0:\nstudent:x:{uid}:\n")


def bwrap_command(config: dict, kernel: list[str]) -> list[str]:
    root = os.getuid() == 0
    args = [shutil.which("bwrap"), "--die-with-parent", "--new-session", "--clearenv"]
    if root:  # no user namespace: the process count of the dropped uid then counts for real
        args += [
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
        ]
    else:
        args += ["--unshare-all", "--unshare-user", "--uid", str(config["uid"]), "--gid", str(config["uid"])]
    # /tmp is the kernel's (HOME, matplotlib's and IPython's folders): writable by it, sticky as usual
    args += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--perms",
        "1777",
        "--size",
        str(config["tmp_bytes"]),
        "--tmpfs",
        "/tmp",
    ]
    for path in SYSTEM_DIRS:  # on merged-/usr systems /lib and friends are symlinks
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    args += ["--perms", "0755", "--dir", "/etc"]
    for path in ETC_FILES:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    # folders on the way to the bound ones: readable by the kernel's user (bwrap would make them 0700)
    made = set()
    for path in config["read_only"]:
        for parent in reversed(Path(path).parents):
            if (
                str(parent) != "/"
                and str(parent) not in made
                and not any(str(parent) == d or str(parent).startswith(d + "/") for d in SYSTEM_DIRS)
            ):
                made.add(str(parent))
                args += ["--perms", "0755", "--dir", str(parent)]
    etc = config["etc"]
    args += ["--ro-bind", f"{etc}/passwd", "/etc/passwd", "--ro-bind", f"{etc}/group", "/etc/group"]
    for path in config["read_only"]:
        args += ["--ro-bind", path, path]
    for key, value in config["env"].items():
        args += ["--setenv", key, value]
    # its work folder is in its own size-limited /tmp: nothing it writes reaches the host's disks
    args += ["--perms", "0777", "--dir", "/tmp/work", "--chdir", "/tmp/work", "--"]
    return args + [
        python_inside(),
        "-c",
        DROP_PRIVILEGES,
        str(config["uid"]),
        str(config["uid"]),
        str(config["processes"]),
        "--",
        *kernel,
    ]


def python_inside() -> str:
    """This Python as the sandbox sees it: sys.executable under the resolved sys.prefix. The sandbox binds
    resolved paths, so a venv reached through a symlink (a linked .venv, a home behind a link) is there
    only under its real path; run from it, that path still starts this venv."""
    try:
        return str(Path(sys.prefix).resolve() / Path(sys.executable).relative_to(sys.prefix))
    except ValueError:
        return sys.executable


def die_with_parent() -> None:
    """SIGKILL when the grading worker that started this process dies (kept across exec)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def apply_limits(limits: dict) -> None:
    for name, value in limits.items():
        soft, hard = resource.getrlimit(getattr(resource, name))
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(getattr(resource, name), (value, value))


def main(argv: list[str]) -> None:
    config = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    kernel = config["kernel"]
    die_with_parent()  # a worker the watchdog kills takes its kernel with it (bwrap: --die-with-parent)
    cgroup.join(config.get("cgroup", []))  # before anything of the student's runs
    if config["mode"] == "off":
        os.execve(sys.executable, kernel, {**os.environ, **config["env"]})
    apply_limits(config["limits"])
    if config["mode"] == "bwrap":
        write_etc(Path(config["etc"]), config["uid"])
        command = bwrap_command(config, kernel)
        os.execv(command[0], command)
    # limits only: the process limit is the grading user's (it counts all of that user's processes; root is exempt)
    resource.setrlimit(resource.RLIMIT_NPROC, (config["processes"], config["processes"]))
    os.execve(sys.executable, kernel, config["env"])


if __name__ == "__main__":
    main(sys.argv[1:])
