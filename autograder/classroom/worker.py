"""One grading worker: a process that grades notebook after notebook, each in a fresh sandboxed kernel.

The worker pool (autograder.classroom.pool) starts as many workers as jobs. A worker imports the grading
code once, keeps the course notebooks in memory and runs the per-notebook pipeline
(autograder.notebook.pipeline) for each `Task` it is sent, answering with a `Reply`: the result, the
executed notebook and the feedback page, as objects (the pipe pickles them; nothing is encoded
on the way). It writes nothing: caching, the gradebook and the output files are the class
grader's (autograder.classroom.batch), so a worker that is stopped midway leaves nothing half-done behind.

A worker runs in a session of its own, so the terminal's Ctrl-C reaches only the class grader,
which then stops the workers; it exits when the class grader dies (PR_SET_PDEATHSIG), when it is
sent None, and SIGTERM makes it shut its kernel down before it exits.
"""

import ctypes
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from nbformat import NotebookNode

from ..notebook.results import Result

PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Task:
    """One submitted notebook to grade: what the class grader sends a worker."""

    student: str
    notebook: str  # the course notebook it is graded as
    path: str  # the submitted file
    feedback: bool  # also make the feedback page
    key: str = ""  # its cache key: the class grader's, for when the answer comes back
    name: str = ""  # the student's name from the roster, for the feedback page


@dataclass
class Reply:
    """What a worker sends back for a task."""

    result: Result
    notebook: NotebookNode | None = None  # the executed submission, for the gradebook (None if never run)
    feedback: str | None = None  # the feedback page, if asked for and made
    feedback_error: str = ""  # why the page could not be made


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Ask Linux to send `sig` when the parent process dies (a no-op elsewhere)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def stop(signum, frame):
    raise SystemExit(128 + signum)


def main(conn, course_root: str, overrides: dict, parent: int, owner: str = "") -> None:
    """Grade the tasks `conn` brings (see the module's docstring); `parent` is the class grader's pid,
    `owner` the tag of this worker's sandboxes (autograder.classroom.pool)."""
    os.setsid()
    die_with_parent()
    if os.getppid() != parent:  # the class grader died before the line above
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, stop)

    from ..course.course import PreparedCourse, load_config
    from ..notebook.feedback import feedback_html
    from ..notebook.pipeline import NotebookGrader
    from ..wall.sandbox import Sandbox
    from ..wall.session import KernelSession

    config = load_config(overrides)
    course = PreparedCourse(Path(course_root))
    notebooks = {}
    grader, sandbox = NotebookGrader(config=config), Sandbox(config=config, owner=owner)
    start = lambda: KernelSession(sandbox, config=config)
    while True:
        try:
            task: Task | None = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        if task.notebook not in notebooks:
            notebooks[task.notebook] = course.notebook(task.notebook)
        course_nb = notebooks[task.notebook]
        graded = grader.grade(course_nb, Path(task.path), start, task.student)
        answer = Reply(graded.result)
        if task.feedback:
            try:
                answer.feedback = feedback_html(
                    graded.result, graded.notebook, course_nb.release, graded.ran, course_nb.title, task.name
                )
            except Exception as e:  # reported with the grade, never silently retried
                answer.feedback_error = f"{type(e).__name__}: {e}"[:500]
        answer.notebook = grader.for_review(graded.notebook)  # cut in all: only that much crosses the pipe
        conn.send(answer)


if __name__ == "__main__":
    sys.exit("autograder.classroom.worker is started by autograder.classroom.pool")
