"""Shared helpers: grading through the real command line, as an instructor runs it."""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import autograder  # noqa: F401  first, before nbformat: its __init__ spares each test process rfc3987_syntax's ~1 CPU-s

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

# A secret in the grader's environment: no student code, output or feedback may ever show it.
SECRET = "instructor-token-5f3a9c1e"


def grade(submissions: Path, out: Path, *options: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m autograder grade`, as an instructor runs it (with a secret in the environment)."""
    return subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(submissions), "--out", str(out), *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "INSTRUCTOR_TOKEN": SECRET, **(env or {})},
    )


def results_of(out: Path) -> dict:
    return {(r["student"], r["notebook"]): r for r in json.loads((out / "results.json").read_text(encoding="utf-8"))}


KEPT_IN_TMP = ("bpe-course-tiktoken-",)  # tiktoken's verified cache, kept on purpose (bpe_course.vocab)


@contextlib.contextmanager
def private_tmp():
    """A fresh TMPDIR for a command, and what it left there at the end (apart from KEPT_IN_TMP).
    /tmp itself is shared with the tests running in parallel, so it cannot tell who left what.
    Kept short: the kernel's unix sockets live in it (at most 107 characters)."""
    folder = Path(tempfile.mkdtemp(prefix="bpe-t-", dir="/tmp"))
    left = []
    try:
        yield folder, left
        left += sorted(n for n in os.listdir(folder) if not n.startswith(KEPT_IN_TMP))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def lives_on(pid: int) -> bool:
    """Whether process `pid` is there and not on its way out: not a zombie and no SIGKILL pending for it.
    A process sent SIGKILL has it pending from the moment kill() returns until it is gone, so a test can
    ask this as soon as whatever should kill a process returns, with no pause for the kill to land."""
    import signal

    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    pending = int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)
    return fields["State"].strip()[:1] not in ("Z", "X") and not pending & (1 << (signal.SIGKILL - 1))
