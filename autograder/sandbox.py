"""The kernel a student's notebook runs in while it is graded: limited, and walled in.

nbgrader starts kernels from a kernelspec; ours (`bpe-sandbox`, written by `install_kernelspec`)
runs `python -m autograder.sandbox -f CONNECTION_FILE`, which
- applies resource limits (address space, CPU time, file size) with setrlimit;
- where bubblewrap works, re-executes the kernel in new namespaces: no network, its own process
  tree, and a file system made of the system's read-only directories, the Python environment,
  the course helpers and data, and two writable folders — the notebook's own work folder and
  the folder of the kernel's connection sockets (the kernel talks to nbgrader over unix sockets,
  KernelManager.transport = "ipc" with KernelManager.ip in a private folder, since it has no
  network). The course sources, hidden tests,
  the gradebook and the other students' work are simply not there.
- runs Python with -P, so a module the student writes next to the notebook cannot shadow one
  that the tests import.
Without bubblewrap only the limits apply, and the grader says so loudly.
"""
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

from bpe_course.paths import DATA_DIR

ROOT = Path(__file__).resolve().parent.parent
KERNEL_NAME = "bpe-sandbox"
LIMITS = {
    "RLIMIT_AS": 4 * 2**30,      # memory: a MemoryError instead of the OOM killer
    "RLIMIT_CPU": 900,           # CPU seconds for the whole notebook
    "RLIMIT_FSIZE": 256 * 2**20,  # the largest file it may write
}
SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc"]


def bwrap_works() -> bool:
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return False
    probe = subprocess.run([bwrap, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"],
                           capture_output=True)
    return probe.returncode == 0


def install_kernelspec(jupyter_dir: Path) -> None:
    """Write the kernelspec under jupyter_dir/kernels (put jupyter_dir on JUPYTER_PATH)."""
    spec = jupyter_dir / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "autograder.sandbox", "-f", "{connection_file}"],
        "display_name": "Python 3 (sandboxed grader)",
        "language": "python",
        "interrupt_mode": "message",   # a signal would stop at bubblewrap, a message reaches the kernel
    }, indent=1))


def read_only_paths() -> list[str]:
    paths = [sys.base_prefix, sys.prefix, str(ROOT / "bpe_course"), str(DATA_DIR),
             os.environ.get("TIKTOKEN_CACHE_DIR", "")]
    return [str(Path(p).resolve()) for p in paths if p and Path(p).exists()]


def bwrap_command(kernel: list[str], workdir: str, connection_file: str) -> list[str]:
    args = [shutil.which("bwrap"), "--die-with-parent", "--new-session", "--unshare-all",
            "--proc", "/proc", "--dev", "/dev", "--size", str(256 * 2**20), "--tmpfs", "/tmp"]
    for path in SYSTEM_DIRS:  # on merged-/usr systems /lib and friends are symlinks
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in read_only_paths():
        args += ["--ro-bind", path, path]
    # the connection file, and the folder of the unix sockets named by its "ip" (KernelManager.ip)
    sockets = str(Path(json.loads(Path(connection_file).read_text())["ip"]).parent)
    args += ["--ro-bind", connection_file, connection_file]
    for path in (workdir, sockets):
        args += ["--bind", path, path]
    # the parent's pid means nothing in the new pid namespace: ipykernel would think it is orphaned
    args += ["--unsetenv", "JPY_PARENT_PID"]
    args += ["--chdir", workdir, "--setenv", "HOME", "/tmp", "--setenv", "IPYTHONDIR", "/tmp/ipython",
             "--setenv", "MPLCONFIGDIR", "/tmp/matplotlib"]
    return args + ["--", *kernel]


def apply_limits() -> None:
    for name, value in LIMITS.items():
        soft, hard = resource.getrlimit(getattr(resource, name))
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(getattr(resource, name), (value, value))


def main(argv: list[str]) -> None:
    connection_file = str(Path(argv[argv.index("-f") + 1]).resolve())
    kernel = [sys.executable, "-P", "-m", "ipykernel_launcher", "-f", connection_file]
    apply_limits()
    if os.environ.get("BPE_SANDBOX_LOG"):  # for debugging the sandbox itself
        log = os.open(os.environ["BPE_SANDBOX_LOG"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        os.dup2(log, 1)
        os.dup2(log, 2)
    if os.environ.get("BPE_SANDBOX") == "bwrap":
        command = bwrap_command(kernel, os.getcwd(), connection_file)
        os.execv(command[0], command)
    os.execv(sys.executable, kernel)


if __name__ == "__main__":
    main(sys.argv[1:])
