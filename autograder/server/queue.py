"""The course server's grading queue: huey (a maintained task queue) on SQLite in the data folder,
or on Redis for workers on other hosts.

A job carries everything a worker needs — the notebook's name, the submitted file's bytes, the
student's id and name: a `GradeJob` — and answers with a `Graded` (the result, the feedback page), kept
in huey's result store until the server records it; both cross the queue in their plain form
(autograder.server.messages). A worker therefore needs only the queue and a work
folder of its own (the prepared course, the files it grades); it never sees the server's records.
Each job is graded in the class grader's worker process (autograder.classroom.pool: the sandbox,
the watchdog), one process per consumer thread.
"""

import contextlib
import hashlib
import os
import threading
import time
from pathlib import Path

from huey import RedisHuey, SqliteHuey

from ..classroom.pool import Lost, Workers, watchdog_seconds
from ..classroom.worker import Task
from ..notebook.results import ERROR, Result
from .messages import Graded, GradeJob

QUEUE_NAME = "bpe-course"
RUNNING = "running:"  # huey's key-value store: a job a worker is grading (its attempt's task id) → its last beat
HEARTBEAT = 2.0  # seconds between a grading worker's beats: "still on it"
LEASE = 60.0  # the server's default: a job whose worker has not beaten for this long is queued again


def make_queue(data: Path | None = None, redis_url: str = ""):
    """The queue: huey on DATA/queue.db (SQLite), or on Redis at `redis_url`."""
    if redis_url:
        return RedisHuey(QUEUE_NAME, url=redis_url, results=True)
    return SqliteHuey(QUEUE_NAME, filename=str(Path(data) / "queue.db"), results=True)


class Grading:
    """What a consumer's job runs: the prepared course in `work`, one grading process per thread."""

    def __init__(self, work: Path, overrides: dict | None = None):
        self.work, self.overrides = Path(work), overrides or {}
        self.local = threading.local()
        self.lock = threading.Lock()
        self.course = None

    def prepared(self):
        from ..course.course import PreparedCourse

        with self.lock:
            if self.course is None:
                self.course = PreparedCourse(self.work / "course").prepare()
        return self.course

    def workers(self) -> Workers:
        if getattr(self.local, "workers", None) is None:
            self.local.workers = Workers(1, self.prepared().root, self.overrides, watchdog_seconds(self.overrides))
        return self.local.workers

    def grade(self, job: GradeJob) -> Graded:
        """Grade one submitted file: its result and feedback page."""
        folder = self.work / "uploads"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{hashlib.sha256(job.content).hexdigest()}.ipynb"  # named by its hash, never by the student
        path.write_bytes(job.content)
        workers = self.workers()
        workers.send(0, Task(job.student, job.notebook, str(path), True, name=job.name))
        while True:
            for _, answer in workers.answers():
                if isinstance(answer, Lost):
                    return Graded(result=Result(job.student, job.notebook, 0, job.max_score, ERROR, answer.reason))
                if answer.feedback_error:
                    answer.result.feedback_error = f"the feedback page could not be made: {answer.feedback_error}"
                return Graded(result=answer.result, feedback=answer.feedback)

    def log(self, line: str) -> None:
        """work/graded.log: one line per job a worker finished (how a test counts gradings)."""
        with open(self.work / "graded.log", "a", encoding="utf-8") as f:
            f.write(f"{line} {os.getpid()} {time.time():.3f}\n")


def register(huey, grading: Grading):
    """The grading job on `huey`; returns the task function (call it to enqueue)."""

    @huey.task(name="grade_notebook")
    def grade_notebook(wire: dict) -> dict:
        """A GradeJob's plain form in, a Graded's out (autograder.server.messages)."""
        job = GradeJob.from_wire(wire)
        with heartbeat(huey, RUNNING + job.attempt):
            graded = grading.grade(job)
        grading.log(job.attempt)
        return graded.to_wire()

    return grade_notebook


@contextlib.contextmanager
def heartbeat(huey, key: str):
    """While the block runs, `key` holds the time of the last beat (every HEARTBEAT seconds): the server
    tells a worker still grading (on this host or another) from one that died with its job."""
    stop = threading.Event()

    def beat():
        while True:
            huey.put(key, time.time())
            if stop.wait(HEARTBEAT):
                return

    beating = threading.Thread(target=beat, name="heartbeat", daemon=True)
    beating.start()
    try:
        yield
    finally:
        stop.set()
        beating.join()


# an idle consumer looks at the queue at least every second (huey's default backs off to 10 s, which a
# student waiting for the first job after a quiet spell would feel)
CONSUMER = {"worker_type": "thread", "periodic": False, "max_delay": 1.0}


def start_consumer(huey, threads: int = 1):
    """Consumer threads in this process (they take jobs until the process ends)."""
    consumer = huey.create_consumer(**CONSUMER, workers=threads, check_worker_health=False)
    consumer.start()
    return consumer
