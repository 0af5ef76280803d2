"""Grading a whole class: worker processes, a cache that makes reruns instant, interrupts that lose nothing.

The class grader prepares the course once (autograder.course.PreparedCourse), looks up every
submitted notebook in its cache (keyed by the SHA-256 of the file, of the course notebook and of the
settings that change a grade, autograder.settings),
and sends the rest to `jobs` worker processes (autograder.worker). As each result arrives it is
cached (atomically), recorded in the class gradebook (autograder.gradebook) and its feedback
kept; at the end — or at a Ctrl-C — the output files are written for everything known.

- A worker that dies costs the notebook it was grading (status `error`, tried again next run);
  a new worker takes its place. So does a worker whose notebook runs past its limits plus a grace
  (`watchdog_seconds`): the watchdog stops it (SIGTERM, then SIGKILL; the kernel dies with it) —
  whatever the notebook or the grader's own work on it does, the class finishes.
- Ctrl-C stops the workers at once; results that arrive while stopping are dropped, never cached.
  The outputs list everything graded so far, this run or before, so an interrupted run never
  leaves a less complete grades.csv than the one it started with.
- `force` regrades everything graded before the run started; if such a run is interrupted, the
  next run (with or without --force) regrades exactly what it had not reached.
"""
import hashlib
import json
import multiprocessing
import os
import shutil
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

import nbformat
from tqdm import tqdm

from . import gradebook, worker
from .course import PreparedCourse, load_config
from .report import read_roster, terminal_text, write_grades_csv, write_results_json, write_roster, write_wide_csv
from .results import BROKEN, ERROR, GRADED, MISSING, NOT_GRADED, Result, result_from_dict, safe_strings, safe_text
from .settings import grading_settings, settings_digest
from .submissions import Class, Problem


@dataclass
class Outcome:
    results: list[Result] = field(default_factory=list)
    problems: list = field(default_factory=list)          # submissions.Problem: files that could not be used
    seconds: float = 0.0
    interrupted: bool = False
    from_cache: int = 0
    notebooks: list[str] = field(default_factory=list)   # the notebooks graded (an assignment)
    pending: list[tuple[str, str]] = field(default_factory=list)  # (student, notebook) submitted, not graded yet

    @property
    def complete(self) -> bool:
        """Every submitted notebook has a result: only then are upload files final."""
        return not self.pending and not self.interrupted

    def count(self, *statuses: str) -> int:
        return sum(r.status in statuses for r in self.results)

    def summary(self) -> str:
        cached = f" ({self.from_cache} from earlier runs)" if self.from_cache else ""
        return (f"graded {self.count(GRADED)}{cached}, failed {self.count(*NOT_GRADED)}, missing {self.count(MISSING)}"
                f" notebooks in {self.seconds:.0f} s" + (" (interrupted: the rest is not graded yet)" if self.interrupted else ""))


def shard_of(student: str, shards: int) -> int:
    """A student's shard, 1..shards: stable across runs, machines and class lists."""
    return int(hashlib.sha1(student.encode("utf-8")).hexdigest(), 16) % shards + 1


def parse_shard(text: str) -> tuple[int, int]:
    i, _, n = text.partition("/")
    if not (i.isdigit() and n.isdigit() and 1 <= int(i) <= int(n)):
        raise ValueError(f"--shard takes i/n with 1 <= i <= n, e.g. 2/8 (got {text!r})")
    return int(i), int(n)


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class Cache:
    """work/results/<student>/<notebook>.json (+ .html, the feedback): results keyed by what they
    depend on. Written only by the class grader, each file atomically."""

    def __init__(self, work: Path):
        self.root = Path(work) / "results"
        self.force_file = Path(work) / "force.json"

    def paths(self, student: str, notebook: str) -> tuple[Path, Path]:
        folder = self.root / student
        return folder / f"{notebook}.json", folder / f"{notebook}.html"

    def get(self, student: str, notebook: str, key: str, since: float | None):
        path, html = self.paths(student, notebook)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry["key"] != key or (since is not None and entry["graded_at"] < since):
                return None
            return result_from_dict(entry["result"]), (html.read_text(encoding="utf-8") if html.exists() else None)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, result: Result, key: str, html: str | None) -> None:
        path, html_path = self.paths(result.student, result.notebook)
        path.parent.mkdir(parents=True, exist_ok=True)
        if html is not None:
            atomic_write(html_path, html)
        atomic_write(path, json.dumps({"key": key, "graded_at": time.time(), "result": result.to_dict()},
                                      ensure_ascii=False))

    def forget(self, student: str) -> None:
        """Drop a student's cached results: the next run grades them again (--student)."""
        shutil.rmtree(self.root / student, ignore_errors=True)

    def force_since(self, force: bool) -> float | None:
        """The start of the forced regrade in progress (begun now if `force`), or None."""
        try:
            return json.loads(self.force_file.read_text())["since"]
        except (OSError, ValueError, KeyError):
            pass
        if not force:
            return None
        self.force_file.parent.mkdir(parents=True, exist_ok=True)
        since = time.time()
        atomic_write(self.force_file, json.dumps({"since": since}))
        return since

    def force_done(self) -> None:
        self.force_file.unlink(missing_ok=True)


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def file_key(path: Path, digest: str) -> str:
    h = hashlib.sha256(digest.encode())
    try:
        h.update(Path(path).read_bytes())
    except OSError:
        h.update(b"<unreadable>")
    return h.hexdigest()


def setting(config, cls, name: str):
    """A setting of a configurable class: from `config` (autograder.course.load_config), else its default."""
    section = config[cls.__name__]
    return section[name] if name in section else cls.class_traits()[name].default_value


def watchdog_seconds(overrides: dict, grace: float = 120) -> float:
    """How long one notebook may take in a worker before the watchdog stops it: the kernel's start,
    the notebook's time, one more cell (the notebook's time is checked between cells) and the two
    interrupt graces, plus `grace` for the tests and the grader's own work."""
    from .course import load_config
    from .pipeline import NotebookGrader
    from .session import KernelSession
    config = load_config(overrides)
    return (setting(config, KernelSession, "startup_timeout") + setting(config, NotebookGrader, "notebook_timeout")
            + setting(config, KernelSession, "cell_timeout") + 2 * setting(config, KernelSession, "interrupt_grace")
            + grace)


class Workers:
    """`jobs` worker processes; each takes one task at a time, for at most `limit` seconds."""

    def __init__(self, jobs: int, course_root: Path, overrides: dict, limit: float | None = None):
        self.context = multiprocessing.get_context("spawn")
        self.course_root, self.overrides = str(course_root), overrides
        self.slots: dict[int, tuple] = {}          # slot → (process, connection)
        self.busy: dict[int, dict] = {}             # slot → task
        self.started: dict[int, float] = {}         # slot → when its task was sent (monotonic)
        self.limit = limit
        for slot in range(jobs):
            self.start(slot)

    def start(self, slot: int) -> None:
        mine, theirs = self.context.Pipe()
        process = self.context.Process(target=worker.main, daemon=True,
                                       args=(theirs, slot, self.course_root, self.overrides, os.getpid()))
        process.start()
        theirs.close()
        self.slots[slot] = (process, mine)

    def idle(self) -> list[int]:
        return [s for s in self.slots if s not in self.busy]

    def send(self, slot: int, task: dict) -> None:
        self.busy[slot] = task
        self.started[slot] = time.monotonic()
        self.slots[slot][1].send(task)

    def answers(self, timeout: float = 1.0):
        """(task, answer) for each finished task; answer None when the worker died on it."""
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
                    self.start(slot)
                    if task is not None:
                        task["exitcode"] = process.exitcode
                if task is not None:
                    done.append((task, answer))
        return done

    def watch(self) -> list:
        """The watchdog: a worker whose task has run past `limit` is stopped and replaced; the task
        comes back with the reason (and no answer)."""
        done = []
        for slot, task in list(self.busy.items()):
            if self.limit is None or time.monotonic() - self.started[slot] <= self.limit:
                continue
            process, conn = self.slots[slot]
            process.terminate()                 # the worker shuts its kernel down on SIGTERM…
            process.join(5)
            if process.is_alive():              # …unless it is stuck in C code: then SIGKILL (the kernel
                process.kill()                  # dies with its parent)
                process.join(5)
            conn.close()
            del self.busy[slot]
            task["watchdog"] = (f"the notebook ran past the grader's limit of {self.limit:g} s (its time limits "
                                f"plus a grace), so its worker was stopped and replaced")
            self.start(slot)
            done.append((task, None))
        return done

    def stop(self, now: bool = False) -> None:
        for process, conn in self.slots.values():
            try:
                if now:
                    process.terminate()
                else:
                    conn.send(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 5
        for process, conn in self.slots.values():
            process.join(max(0.1, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(1)
            conn.close()


class ClassGrader:
    """Grades a class of submissions against the prepared course."""

    def __init__(self, course: PreparedCourse, work: Path, jobs: int = 1, force: bool = False,
                 feedback: bool = True, overrides: dict | None = None, notebooks: list[str] | None = None):
        self.course, self.work = course, Path(work)
        self.jobs, self.force, self.feedback = max(1, jobs), force, feedback
        self.overrides = overrides or {}
        self.notebooks = notebooks or course.notebooks
        self.cache = Cache(self.work)
        self.course_notebooks = {n: course.notebook(n) for n in self.notebooks}
        self.names: dict[str, str] = {}     # student → name, for the gradebook (OUT/roster.csv)
        self.watchdog = watchdog_seconds(self.overrides)
        # a result is reused only under the same settings: they change grades (time limits, the walls)
        self.settings = grading_settings(load_config(self.overrides))
        self.settings_key = settings_digest(self.settings)

    def grade(self, found: Class, out: Path, shard: tuple[int, int] | None = None) -> Outcome:
        students = sorted(found.students)
        if shard:
            students = [s for s in students if shard_of(s, shard[1]) == shard[0]]
        outcome = Outcome(problems=list(found.problems), notebooks=list(self.notebooks))
        self.names = read_roster(out)
        try:
            gradebook.keep_assignments(self.course.root, self.notebooks, self.course.generate_assignments)
        except Exception as e:    # formgrader then shows more assignments; grading goes on
            outcome.problems.append(Problem("gradebook.db", "", f"the gradebook's assignments could not be narrowed "
                                                              f"to the graded notebooks: {type(e).__name__}: {e}"))
        started = time.monotonic()
        since = self.cache.force_since(self.force)
        known: dict[tuple, Result] = {}
        html: dict[tuple, str] = {}
        tasks = deque()
        for student in students:
            for name in self.notebooks:
                course_nb = self.course_notebooks[name]
                path = found.students[student].get(name)
                if path is None:
                    known[student, name] = Result(student, name, 0, course_nb.max_score, MISSING, "not submitted")
                    continue
                key = file_key(path, course_nb.digest + self.settings_key)
                hit = self.cache.get(student, name, key, since)
                if hit is None and since is not None:     # interrupted before it was regraded: keep the old grade
                    old = self.cache.get(student, name, key, None)
                    if old is not None:
                        known[student, name], html[student, name] = old[0], old[1]
                if hit is not None:
                    known[student, name], html[student, name] = hit
                    outcome.from_cache += 1
                else:
                    tasks.append({"id": len(tasks), "student": student, "notebook": name, "path": str(path),
                                  "key": key, "feedback": self.feedback})
        bar = tqdm(total=len(tasks), unit="notebook", desc="grading", file=sys.stderr, disable=None)
        failures = 0
        workers = None
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
                    tqdm.write(terminal_text(f"  {result.student:<20} {result.notebook:<28} {result.score:g}/{result.max_score:g}  "
                               f"{result.status}"), file=sys.stderr)
            if since is not None:
                self.cache.force_done()
        except KeyboardInterrupt:
            outcome.interrupted = True
        finally:
            if workers is not None:
                workers.stop(now=outcome.interrupted)
            bar.close()
        order = {n: i for i, n in enumerate(self.notebooks)}
        outcome.results = sorted(known.values(), key=lambda r: (r.student, order[r.notebook]))
        outcome.pending = [(s, n) for s in students for n in self.notebooks
                           if (s, n) not in known and n in found.students[s]]
        outcome.seconds = time.monotonic() - started
        write_outputs(outcome, self.notebooks, out, html if self.feedback else None, self.settings, work=self.work)
        return outcome

    def receive(self, task: dict, answer: dict | None, html: dict) -> Result:
        """Keep one finished task: cache, gradebook, feedback. Never raises for a bad answer."""
        course_nb = self.course_notebooks[task["notebook"]]
        if answer is None and task.get("watchdog"):
            return Result(task["student"], task["notebook"], 0, course_nb.max_score, ERROR,
                          f"{task['watchdog']}; run the command again to retry it")
        if answer is None:
            return Result(task["student"], task["notebook"], 0, course_nb.max_score, ERROR,
                          f"the grader's worker process stopped while grading this notebook "
                          f"(exit code {task.get('exitcode')}); run the command again to retry it")
        result = result_from_dict(answer["result"])
        if result.status in (GRADED, BROKEN):
            try:
                notebook = nbformat.reads(answer["notebook"], as_version=4) if result.status == GRADED else None
                gradebook.record(self.course.root, result, notebook, name=self.names.get(result.student, ""))
            except Exception as e:
                result.status, result.message = ERROR, f"the gradebook could not record it: {type(e).__name__}: {e}"
        if answer.get("feedback") is not None:
            html[result.student, result.notebook] = answer["feedback"]
        if answer.get("feedback_error"):
            result.feedback_error = f"the feedback page could not be made: {answer['feedback_error']}"
        if result.status != ERROR:        # a fault of the grader is tried again next run
            self.cache.put(result, task["key"], answer.get("feedback"))
        return result


def write_outputs(outcome: Outcome, notebooks: list[str], out: Path, html: dict | None = None,
                  settings: dict | None = None, work: Path | None = None) -> None:
    """Every output file; one that cannot be written is reported (a problem, printed with the others) and the
    others are still written (problems.json last, so that it lists the rest)."""
    out.mkdir(parents=True, exist_ok=True)
    pages = [(out / "feedback" / student / f"{name}.html", page) for (student, name), page in (html or {}).items()
             if page is not None]
    for path, page in pages:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(safe_text(page), encoding="utf-8")
        except (OSError, ValueError) as e:
            outcome.problems.append(Problem(str(path.relative_to(out)), path.parent.name,
                                            f"the feedback page could not be written: {type(e).__name__}: {e}"))
    writers = [("grading.json", lambda p: p.write_text(json.dumps(grading_record(notebooks, settings, outcome.pending, work), indent=1), encoding="utf-8")),
               ("grades.csv", lambda p: write_grades_csv(outcome.results, p)),
               ("grades_wide.csv", lambda p: write_wide_csv(outcome.results, notebooks, p, pending=outcome.pending)),
               ("results.json", lambda p: write_results_json(outcome.results, p)),
               ("problems.json", lambda p: p.write_text(json.dumps(safe_strings(problem_rows(outcome)), ensure_ascii=False,
                                                                   indent=1), encoding="utf-8"))]
    for name, write in writers:
        try:
            write(out / name)
        except (OSError, ValueError) as e:     # listed with the problems; the other files are written
            outcome.problems.append(Problem(name, "", f"could not be written: {type(e).__name__}: {e}"))


def grading_record(notebooks: list[str], settings: dict | None, pending: list | None = None,
                   work: Path | None = None) -> dict:
    """grading.json: the notebooks graded, those submitted but not graded yet, the work folder and the
    settings they were graded under."""
    return {"notebooks": notebooks, "pending": pending or [], **({"work": str(work)} if work else {}),
            **({"settings": settings} if settings is not None else {})}


def problem_rows(outcome: Outcome) -> list[dict]:
    """Everything that went wrong, one row each: files that could not be used, notebooks that could
    not be graded, feedback pages that could not be made (the keys of grades.csv where they apply)."""
    rows = [{"file": p.file, "student_id": p.student_id, "notebook": "", "problem": p.problem} for p in outcome.problems]
    for r in outcome.results:
        if r.status in NOT_GRADED:
            rows.append({"file": f"{r.student}/{r.notebook}.ipynb", "student_id": r.student, "notebook": r.notebook,
                         "problem": f"{r.status}: {r.message}"})
        if r.feedback_error:
            rows.append({"file": f"{r.student}/{r.notebook}.ipynb", "student_id": r.student, "notebook": r.notebook,
                         "problem": r.feedback_error})
    return rows


def grading_json(part: Path) -> dict:
    try:
        data = json.loads((part / "grading.json").read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def graded_notebooks(part: Path, course: list[str]) -> list[str]:
    """The notebooks an output folder was graded for (its grading.json; all of the course before it existed)."""
    return grading_json(part).get("notebooks") or course


def merge_outputs(parts: list[Path], out: Path, course: list[str]) -> Outcome:
    """Combine the output folders of shard runs into the files one run would have written."""
    chosen = {n for part in parts for n in graded_notebooks(part, course)}
    notebooks = [n for n in course if n in chosen]
    outcome, roster = Outcome(notebooks=notebooks), {}
    for part in parts:
        results = json.loads((part / "results.json").read_text(encoding="utf-8"))
        outcome.results += [result_from_dict(r) for r in results]
        problems = part / "problems.json"
        if problems.exists():
            for row in json.loads(problems.read_text(encoding="utf-8")):
                if isinstance(row, dict) and not row.get("notebook"):   # the others come back with the results
                    problem = Problem(row.get("file", ""), row.get("student_id", ""), row.get("problem", ""))
                    if problem not in outcome.problems:
                        outcome.problems.append(problem)
        roster.update(read_roster(part))
        outcome.pending += [tuple(p) for p in grading_json(part).get("pending", [])]
        if (part / "lms.txt").is_file() and part.resolve() != out.resolve():
            out.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(part / "lms.txt", out / "lms.txt")
        if (part / "feedback").is_dir() and part.resolve() != out.resolve():
            shutil.copytree(part / "feedback", out / "feedback", dirs_exist_ok=True)
    seen = {}
    for r in outcome.results:
        seen[r.student, r.notebook] = r
    outcome.results = sorted(seen.values(), key=lambda r: (r.student, notebooks.index(r.notebook)
                                                           if r.notebook in notebooks else len(notebooks)))
    settings = [grading_json(p).get("settings") for p in parts]
    write_outputs(outcome, notebooks, out, settings=settings[0] if settings and all(s == settings[0] for s in settings)
                  else None)
    if roster:
        write_roster(roster, out)
    return outcome


def merge_gradebook(parts: list[Path], outcome: Outcome, course_root: Path) -> int:
    """The merged class in one gradebook (formgrader, `nbgrader export`): each part's results with
    the autograded notebooks from that part's work folder (grading.json's `work`, else PART/work)."""
    roster, recorded = {}, 0
    for part in parts:
        roster.update(read_roster(part))
    gradebook.keep_assignments(course_root, outcome.notebooks,
                               PreparedCourse(course_root).generate_assignments)
    for part in parts:
        work = Path(grading_json(part).get("work") or part / "work")
        mine = {(r["student"], r["notebook"]) for r in json.loads((part / "results.json").read_text(encoding="utf-8"))}
        for result in outcome.results:
            if (result.student, result.notebook) not in mine or result.status not in (GRADED, BROKEN):
                continue
            path = work / "course" / "autograded" / result.student / result.notebook / f"{result.notebook}.ipynb"
            notebook = nbformat.read(str(path), as_version=4) if result.status == GRADED and path.is_file() else None
            gradebook.record(course_root, result, notebook, name=roster.get(result.student, ""))
            recorded += 1
    return recorded
