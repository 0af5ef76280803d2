"""The class grader's worker processes: `jobs` of them, each grading one notebook at a time, and a watchdog.

Each worker (autograder.classroom.worker) is a process of its own, started with `spawn`: it is sent a `Task`
and answers with a `Reply`. A worker that dies costs only the notebook it was grading: that task
comes back `Lost`, with the reason, and a new worker takes the slot. So does a worker whose
notebook runs past `limit` seconds (`watchdog_seconds`: the notebook's own limits plus a grace):
the watchdog stops it (SIGTERM, then SIGKILL; the kernel dies with it) — whatever the notebook or
the grader's own work on it does, the class finishes.

Each worker gets a tag of its own (`Sandbox.owner`), which names its sandboxes' cgroups, folders and
uid claims. A worker cleans up after each notebook and when it is stopped; once a worker is gone —
however it ended, also killed before it could (a Ctrl-C or SIGTERM of the class, the watchdog) — the
pool removes whatever its tag names (`autograder.wall.sandbox.remove_left_by`), so an interrupted
run leaves no cgroup and no folder behind.
"""

import multiprocessing
import os
import secrets
import time
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from ..wall.sandbox import remove_left_by
from . import worker
from .settings import setting
from .worker import Reply, Task


@dataclass
class Lost:
    """No answer for a task: why (its worker died, or the watchdog stopped it)."""

    reason: str


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def watchdog_seconds(overrides: dict, grace: float = 120) -> float:
    """How long one notebook may take in a worker before the watchdog stops it: the kernel's start,
    the notebook's time, one more cell (the notebook's time is checked between cells) and the two
    interrupt graces, plus `grace` for the tests and the grader's own work."""
    from ..course.course import load_config
    from ..notebook.pipeline import NotebookGrader
    from ..wall.session import KernelSession

    config = load_config(overrides)
    return (
        setting(config, KernelSession, "startup_timeout")
        + setting(config, NotebookGrader, "notebook_timeout")
        + setting(config, KernelSession, "cell_timeout")
        + 2 * setting(config, KernelSession, "interrupt_grace")
        + grace
    )


class Workers:
    """`jobs` worker processes; each takes one task at a time, for at most `limit` seconds."""

    def __init__(self, jobs: int, course_root: Path, overrides: dict, limit: float | None = None):
        self.context = multiprocessing.get_context("spawn")
        self.course_root, self.overrides = str(course_root), overrides
        self.slots: dict[int, tuple] = {}  # slot → (process, connection)
        self.owners: dict[int, str] = {}  # slot → the tag of its worker's sandboxes (Sandbox.owner)
        self.busy: dict[int, Task] = {}  # slot → its task
        self.started: dict[int, float] = {}  # slot → when its task was sent (monotonic)
        self.limit = limit
        for slot in range(jobs):
            self.start(slot)

    def start(self, slot: int) -> None:
        mine, theirs = self.context.Pipe()
        owner = f"{os.getpid()}w{secrets.token_hex(4)}"
        process = self.context.Process(
            target=worker.main, daemon=True, args=(theirs, self.course_root, self.overrides, os.getpid(), owner)
        )
        process.start()
        theirs.close()
        self.slots[slot], self.owners[slot] = (process, mine), owner

    def replace(self, slot: int) -> None:
        """A worker that is gone: what its sandboxes left is removed, and a new worker takes the slot."""
        self.clean_up(slot)
        self.start(slot)

    def clean_up(self, slot: int) -> None:
        remove_left_by(self.owners[slot])

    def idle(self) -> list[int]:
        return [s for s in self.slots if s not in self.busy]

    def send(self, slot: int, task: Task) -> None:
        self.busy[slot] = task
        self.started[slot] = time.monotonic()
        self.slots[slot][1].send(task)

    def answers(self, timeout: float = 1.0) -> list[tuple[Task, Reply | Lost]]:
        """(task, its answer) for each finished task; `Lost` when the worker died on it or was stopped."""
        ready = wait([c for _, c in self.slots.values()] + [p.sentinel for p, _ in self.slots.values()], timeout)
        done = self.watch()
        for slot, (process, conn) in list(self.slots.items()):
            if conn in ready or process.sentinel in ready:
                try:
                    answer = conn.recv()
                except (EOFError, OSError):
                    answer = None
                task = self.busy.pop(slot, None)
                if answer is None:
                    process.join(1)
                    self.replace(slot)
                    answer = Lost(
                        f"the grader's worker process stopped while grading this notebook "
                        f"(exit code {process.exitcode})"
                    )
                if task is not None:
                    done.append((task, answer))
        return done

    def watch(self) -> list[tuple[Task, Lost]]:
        """The watchdog: a worker whose task has run past `limit` is stopped and replaced; the task
        comes back `Lost`, with the reason."""
        done = []
        for slot, task in list(self.busy.items()):
            if self.limit is None or time.monotonic() - self.started[slot] <= self.limit:
                continue
            process, conn = self.slots[slot]
            process.terminate()  # the worker shuts its kernel down on SIGTERM…
            process.join(5)
            if process.is_alive():  # …unless it is stuck in C code: then SIGKILL (the kernel
                process.kill()  # dies with its parent)
                process.join(5)
            conn.close()
            del self.busy[slot]
            self.replace(slot)
            done.append(
                (
                    task,
                    Lost(
                        f"the notebook ran past the grader's limit of {self.limit:g} s (its time "
                        f"limits plus a grace), so its worker was stopped and replaced"
                    ),
                )
            )
        return done

    def stop(self, now: bool = False) -> None:
        """Stop every worker: at once (`now`: after a Ctrl-C or SIGTERM), or by asking each to exit (it is sent
        None); then remove what their sandboxes left."""
        for process, conn in self.slots.values():
            try:
                if now:
                    process.terminate()
                else:
                    conn.send(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 5
        for slot, (process, conn) in self.slots.items():
            process.join(max(0.1, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(1)
            conn.close()
            self.clean_up(slot)
