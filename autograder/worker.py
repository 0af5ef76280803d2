"""One grading worker: a process that grades notebook after notebook, each in a fresh sandboxed kernel.

The class grader (autograder.batch) starts as many workers as jobs. A worker imports the grading
code once, keeps the course notebooks in memory and runs the per-notebook pipeline
(autograder.pipeline) for each task it is sent, answering with plain data: the result, the
executed notebook, the normalized submission and the feedback page. It writes nothing: caching,
the gradebook and the output files are the class grader's, so a worker that is stopped midway
leaves nothing half-done behind.

A worker runs in a session of its own, so the terminal's Ctrl-C reaches only the class grader,
which then stops the workers; it exits when the class grader dies (PR_SET_PDEATHSIG), and
SIGTERM makes it shut its kernel down before it exits.
"""
import ctypes
import os
import signal
import sys
from pathlib import Path

import nbformat

PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Ask Linux to send `sig` when the parent process dies (a no-op elsewhere)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def stop(signum, frame):
    raise SystemExit(128 + signum)


def main(conn, slot: int, course_root: str, overrides: dict, parent: int) -> None:
    os.setsid()
    die_with_parent()
    if os.getppid() != parent:        # the class grader died before the line above
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, stop)

    from .course import PreparedCourse, load_config
    from .feedback import feedback_html
    from .pipeline import NotebookGrader
    from .sandbox import Sandbox
    from .session import KernelSession

    config = load_config(overrides)
    course = PreparedCourse(Path(course_root))
    notebooks = {}
    grader, sandbox = NotebookGrader(config=config), Sandbox(config=config)
    start = lambda: KernelSession(sandbox, config=config)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        name = task["notebook"]
        if name not in notebooks:
            notebooks[name] = course.notebook(name)
        course_nb = notebooks[name]
        graded = grader.grade(course_nb, Path(task["path"]), start, task["student"])
        answer = {"id": task["id"], "result": graded.result.to_dict(), "notebook": None, "feedback": None}
        if graded.notebook is not None:
            answer["notebook"] = nbformat.writes(graded.notebook)
        if task["feedback"]:
            try:
                answer["feedback"] = feedback_html(graded.result, graded.notebook, course_nb.release, graded.ran,
                                                   course_nb.title)
            except Exception as e:   # reported with the grade, never silently retried
                answer["feedback_error"] = f"{type(e).__name__}: {e}"[:500]
        conn.send(answer)


if __name__ == "__main__":
    sys.exit("autograder.worker is started by autograder.batch")
