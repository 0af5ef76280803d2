"""Grading a whole class: in parallel, resumable, in shards, with a progress bar and a summary."""
import hashlib
import json
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from .grading import GRADED, MISSING, NOT_GRADED, Grader, Result, result_from_dict
from .report import write_grades_csv, write_results_json, write_wide_csv
from .submissions import Class


@dataclass
class Outcome:
    results: list[Result] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False

    def count(self, *statuses: str) -> int:
        return sum(r.status in statuses for r in self.results)

    def summary(self) -> str:
        return (f"graded {self.count(GRADED)}, failed {self.count(*NOT_GRADED)}, missing {self.count(MISSING)}"
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


def grade_class(found: Class, grader: Grader, out: Path, jobs: int = 1, feedback: bool = True,
                shard: tuple[int, int] | None = None) -> Outcome:
    """Grade every student of `found` (or a shard of them); write the outputs even when interrupted."""
    students = sorted(found.students)
    if shard:
        students = [s for s in students if shard_of(s, shard[1]) == shard[0]]
    outcome = Outcome(problems=list(found.problems))
    started = time.monotonic()
    feedback_dir = out / "feedback" if feedback else None
    done: dict[str, list[Result]] = {}
    bar = tqdm(total=len(students), unit="student", desc="grading", file=sys.stderr, disable=None)
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = {pool.submit(grader.grade_student, s, found.students[s], feedback_dir): s for s in students}
        for future in as_completed(futures):
            student = futures[future]
            done[student] = future.result()
            failures = sum(r.status in NOT_GRADED for rs in done.values() for r in rs)
            bar.set_postfix(failed=failures)
            bar.update()
            for r in done[student]:
                tqdm.write(f"  {r.student:<20} {r.notebook:<28} {r.score:g}/{r.max_score:g}  {r.status}")
    except KeyboardInterrupt:
        outcome.interrupted = True
        pool.shutdown(wait=False, cancel_futures=True)
    finally:
        bar.close()
        pool.shutdown(wait=not outcome.interrupted)
    outcome.results = [r for s in students if s in done for r in done[s]]
    outcome.seconds = time.monotonic() - started
    write_outputs(outcome, grader.notebooks, out)
    return outcome


def write_outputs(outcome: Outcome, notebooks: list[str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_grades_csv(outcome.results, out / "grades.csv")
    write_wide_csv(outcome.results, notebooks, out / "grades_wide.csv")
    write_results_json(outcome.results, out / "results.json")
    (out / "problems.json").write_text(json.dumps(outcome.problems, ensure_ascii=False, indent=1), encoding="utf-8")


def merge_outputs(parts: list[Path], out: Path, notebooks: list[str]) -> Outcome:
    """Combine the output folders of shard runs into the files one run would have written."""
    outcome = Outcome()
    for part in parts:
        results = json.loads((part / "results.json").read_text(encoding="utf-8"))
        outcome.results += [result_from_dict(r) for r in results]
        problems = part / "problems.json"
        if problems.exists():
            outcome.problems += [p for p in json.loads(problems.read_text(encoding="utf-8")) if p not in outcome.problems]
        if (part / "feedback").is_dir() and part.resolve() != out.resolve():
            shutil.copytree(part / "feedback", out / "feedback", dirs_exist_ok=True)
    seen = {}
    for r in outcome.results:
        seen[r.student, r.notebook] = r
    outcome.results = sorted(seen.values(), key=lambda r: (r.student, notebooks.index(r.notebook)
                                                           if r.notebook in notebooks else len(notebooks)))
    write_outputs(outcome, notebooks, out)
    return outcome
