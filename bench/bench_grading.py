"""Benchmark: grading a synthetic class with --jobs 1 and --jobs 2, side by side in one run.

    python bench/bench_grading.py [--students 40] [--notebooks 01_hand_example,02_byte_level_training]

The class is made from the course itself: students alternate between a solved notebook and the
untouched one. Each setting grades the same class from scratch (a fresh work folder, no resume).
Prints seconds per submission and the speed-up. Not a test: machines are shared and noisy, so
compare the ratio, measured in one run, not the absolute seconds.
"""
import argparse
import tempfile
import time
from pathlib import Path

from autograder.batch import grade_class
from autograder.course import course_notebooks
from autograder.grading import Grader
from autograder.simulate import submission, write
from autograder.submissions import find_submissions


def make_class(folder: Path, students: int, notebooks: list[str]) -> None:
    for i in range(students):
        for name in notebooks:
            write(submission(name, solved=i % 2 == 0), folder / f"s{i:03d}" / f"{name}.ipynb")


def timed_run(folder: Path, notebooks: list[str], jobs: int) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        grader = Grader(Path(tmp) / "work", notebooks=notebooks)
        found = find_submissions(folder, course_notebooks())
        start = time.perf_counter()
        outcome = grade_class(found, grader, Path(tmp) / "out", jobs=jobs, feedback=False)
        seconds = time.perf_counter() - start
    assert outcome.count("graded") == len(found.students) * len(notebooks), outcome.summary()
    return seconds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--students", type=int, default=40)
    p.add_argument("--notebooks", default=",".join(course_notebooks()))
    args = p.parse_args()
    notebooks = args.notebooks.split(",")
    with tempfile.TemporaryDirectory(prefix="bench-class-") as tmp:
        make_class(Path(tmp), args.students, notebooks)
        n = args.students * len(notebooks)
        times = {jobs: timed_run(Path(tmp), notebooks, jobs) for jobs in (1, 2)}
    print(f"\nclass: {args.students} students × {len(notebooks)} notebooks = {n} submissions")
    print(f"{'jobs':>4}  {'total s':>8}  {'s/submission':>12}")
    for jobs, seconds in times.items():
        print(f"{jobs:>4}  {seconds:>8.1f}  {seconds / n:>12.2f}")
    print(f"speed-up with 2 jobs: {times[1] / times[2]:.2f}×")


if __name__ == "__main__":
    main()
