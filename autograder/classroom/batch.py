"""Grading a whole class: the pipeline that turns a class of submissions into grades, feedback and a gradebook.

The class grader takes the prepared course (autograder.course.course.PreparedCourse), looks up every
submitted notebook in its cache (autograder.classroom.cache), sends the rest to `jobs` worker processes
(autograder.classroom.pool, autograder.classroom.worker) and, as each result arrives, caches it, records it in the
class gradebook (autograder.classroom.gradebook) and keeps its feedback page; at the end — or at a Ctrl-C —
the output files are written for everything known (autograder.classroom.outputs).

- A worker that dies, or that the watchdog stops, costs the notebook it was grading (status
  `error`, never cached, tried again next run); the class goes on.
- Ctrl-C stops the workers at once; results that arrive while stopping are dropped, never cached.
  The outputs list everything graded so far, this run or before, so an interrupted run never
  leaves a less complete grades.csv than the one it started with.
- `force` regrades everything graded before the run started; if such a run is interrupted, the
  next run (with or without --force) regrades exactly what it had not reached.
- `shard` grades a deterministic share of the students (`shard_of`); `merge_outputs` combines the
  shards' output folders.
"""

import hashlib
import sys
import time
from collections import Counter, deque
from pathlib import Path

from tqdm import tqdm

from ..course.course import PreparedCourse, load_config
from ..notebook.results import BROKEN, ERROR, GRADED, MISSING, NOT_GRADED, Result
from ..platforms.report import read_roster, say, terminal_text
from ..platforms.submissions import Class, Problem
from . import gradebook
from .cache import NEVER, Cache, file_key, file_sha, regrade_reason
from .outputs import Outcome, write_outputs
from .pool import Lost, Workers, default_jobs, watchdog_seconds
from .settings import grading_settings, settings_digest
from .worker import Reply, Task


def shard_of(student: str, shards: int) -> int:
    """A student's shard, 1..shards: stable across runs, machines and class lists."""
    return int(hashlib.sha1(student.encode("utf-8")).hexdigest(), 16) % shards + 1


def parse_shard(text: str) -> tuple[int, int]:
    i, _, n = text.partition("/")
    if not (i.isdigit() and n.isdigit() and 1 <= int(i) <= int(n)):
        raise ValueError(f"--shard takes i/n with 1 <= i <= n, e.g. 2/8 (got {text!r})")
    return int(i), int(n)


def say_why(reasons: Counter) -> None:
    """Why a run grades again what it graded before, and how many (the notebooks never graded: a count)."""
    again = sum(n for reason, n in reasons.items() if reason != NEVER)
    if not again:
        return
    new = f" (and {reasons[NEVER]} not graded before)" if reasons[NEVER] else ""
    say(f"grading again {again} notebook(s) graded before{new}:")
    say(*(f"  {n}: {reason}" for reason, n in reasons.most_common() if reason != NEVER))


class ClassGrader:
    """Grades a class of submissions against the prepared course."""

    def __init__(
        self,
        course: PreparedCourse,
        work: Path,
        jobs: int | None = None,
        force: bool = False,
        feedback: bool = True,
        overrides: dict | None = None,
        notebooks: list[str] | None = None,
    ):
        self.course, self.work = course, Path(work)
        self.jobs = max(1, default_jobs() if jobs is None else jobs)  # the one default: pool.default_jobs
        self.force, self.feedback = force, feedback
        self.overrides = overrides or {}
        self.notebooks = notebooks or course.notebooks
        self.cache = Cache(self.work)
        self.course_notebooks = {n: course.notebook(n) for n in self.notebooks}
        self.penalties: dict = {}  # (student, notebook) → platforms.late.Penalty, shown with their grades
        self.names: dict[str, str] = {}  # student → name, for the gradebook (OUT/roster.csv)
        self.received = 0  # results this run's workers produced
        self.bases: dict[tuple[str, str], dict] = {}  # (student, notebook) → what it is graded under (the cache's)
        self.watchdog = watchdog_seconds(self.overrides)
        # a result is reused only under the same settings: they change grades (time limits, the walls)
        self.settings = grading_settings(load_config(self.overrides))
        self.settings_key = settings_digest(self.settings)

    def grade(self, found: Class, out: Path, shard: tuple[int, int] | None = None) -> Outcome:
        """Grade the class (or shard i of n): from the cache what it holds, the rest in the workers;
        then write the output files to `out`."""
        students = sorted(found.students)
        if shard:
            students = [s for s in students if shard_of(s, shard[1]) == shard[0]]
        outcome = Outcome(problems=list(found.problems), notebooks=list(self.notebooks), roster=read_roster(out))
        outcome.penalties = dict(self.penalties)
        self.names = outcome.roster
        narrowed = False
        try:
            gradebook.keep_assignments(self.course.root, self.notebooks, self.course.generate_assignments)
            narrowed = True
        except Exception as e:  # formgrader then shows more assignments; grading goes on
            outcome.problems.append(
                Problem(
                    "gradebook.db",
                    "",
                    f"the gradebook's assignments could not be narrowed "
                    f"to the graded notebooks: {type(e).__name__}: {e}",
                )
            )
        started = time.monotonic()
        since = self.cache.force_since(self.force)
        known: dict[tuple[str, str], Result] = {}  # (student, notebook) → its result
        html: dict[tuple[str, str], str | None] = {}  # (student, notebook) → its feedback page
        tasks, outcome.from_cache = self.look_up(found, students, since, known, html)
        self.received = 0
        try:
            self.run(tasks, known, html)
            if since is not None:
                self.cache.force_done()
        except KeyboardInterrupt:
            outcome.interrupted = True
        outcome.graded_now = self.received
        order = {n: i for i, n in enumerate(self.notebooks)}
        outcome.results = sorted(known.values(), key=lambda r: (r.student, order[r.notebook]))
        outcome.pending = [
            (s, n) for s in students for n in self.notebooks if (s, n) not in known and n in found.students[s]
        ]
        outcome.seconds = time.monotonic() - started
        try:
            gradebook.name_students(self.course.root, self.names)
        except Exception as e:  # the names in formgrader stay as they were; the grades are written
            outcome.problems.append(
                Problem("gradebook.db", "", f"the students' names could not be updated: {type(e).__name__}: {e}")
            )
        write_outputs(outcome, self.notebooks, out, html if self.feedback else None, self.settings, work=self.work)
        if narrowed:
            try:
                gradebook.remember_kept(self.course.root, self.notebooks)
            except OSError:
                pass  # the next run narrows the gradebook again
        return outcome

    def look_up(
        self, found: Class, students: list[str], since: float | None, known: dict, html: dict
    ) -> tuple[deque, int]:
        """Fill `known` and `html` with what needs no grading — a notebook not submitted (`missing`), a
        result cached under the same key (and graded after `since`, during a forced regrade) — and
        return the tasks for the rest, and how many came from the cache. During a forced regrade
        an older result is kept in `known` until its task replaces it."""
        tasks, hits, reasons = deque(), 0, Counter()
        for student in students:
            for name in self.notebooks:
                course_nb = self.course_notebooks[name]
                path = found.students[student].get(name)
                if path is None:
                    known[student, name] = Result(student, name, 0, course_nb.max_score, MISSING, "not submitted")
                    continue
                key = file_key(path, course_nb.digest + self.settings_key)
                hit = self.cache.get(student, name, key, since)
                if hit is None and since is not None:  # interrupted before it was regraded: keep the old grade
                    old = self.cache.get(student, name, key, None)
                    if old is not None:
                        known[student, name], html[student, name] = old
                if hit is not None:
                    known[student, name], html[student, name] = hit
                    hits += 1
                else:
                    basis = {"file": file_sha(path), "course": course_nb.parts, "settings": self.settings}
                    self.bases[student, name] = basis
                    old = self.cache.basis(student, name)
                    forced = since is not None and self.cache.get(student, name, key, None) is not None
                    reasons["--force" if forced else regrade_reason(old, basis, name)] += 1
                    tasks.append(Task(student, name, str(path), self.feedback, key, self.names.get(student, "")))
        say_why(reasons)
        return tasks, hits

    def run(self, tasks: deque, known: dict, html: dict) -> None:
        """Grade `tasks` in the workers, keeping each result as it arrives (`receive`) and showing
        progress; a Ctrl-C stops the workers at once (and is raised again)."""
        bar = tqdm(total=len(tasks), unit="notebook", desc="grading", file=sys.stderr, disable=None)
        failures, workers, interrupted = 0, None, False
        try:
            if tasks:
                workers = Workers(min(self.jobs, len(tasks)), self.course.root, self.overrides, self.watchdog)
            while tasks or (workers and workers.busy):
                for slot in workers.idle():
                    if tasks:
                        workers.send(slot, tasks.popleft())
                for task, answer in workers.answers():
                    result = self.receive(task, answer, html)
                    known[result.student, result.notebook] = result
                    failures += result.status in NOT_GRADED
                    bar.set_postfix(failed=failures)
                    bar.update()
                    tqdm.write(
                        terminal_text(
                            f"  {result.student:<20} {result.notebook:<28} {result.score:g}/{result.max_score:g}  "
                            f"{result.status}"
                        ),
                        file=sys.stderr,
                    )
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            if workers is not None:
                workers.stop(now=interrupted)
            bar.close()

    def receive(self, task: Task, answer: Reply | Lost, html: dict) -> Result:
        """Keep one finished task: cache, gradebook, feedback. Never raises for a bad answer."""
        self.received += 1
        if isinstance(answer, Lost):
            return Result(
                task.student,
                task.notebook,
                0,
                self.course_notebooks[task.notebook].max_score,
                ERROR,
                f"{answer.reason}; run the command again to retry it",
            )
        result = answer.result
        if result.status in (GRADED, BROKEN):
            try:
                gradebook.record(
                    self.course.root,
                    result,
                    answer.notebook if result.status == GRADED else None,
                    name=self.names.get(result.student, ""),
                    lesson=gradebook.lesson_texts(self.course_notebooks[result.notebook].release),
                )
            except Exception as e:
                result.status, result.message = ERROR, f"the gradebook could not record it: {type(e).__name__}: {e}"
        if answer.feedback is not None:
            html[result.student, result.notebook] = answer.feedback
        if answer.feedback_error:
            result.feedback_error = f"the feedback page could not be made: {answer.feedback_error}"
        if result.status != ERROR:  # a fault of the grader is tried again next run
            self.cache.put(result, task.key, answer.feedback, self.bases.get((task.student, task.notebook)))
        return result
