"""Benchmark: what grading costs, measured side by side in one run (never asserted in a test).

    python bench/bench_grading.py [--students 6] [--class-students 8]

Prints, for this machine:
1. fixed cost per notebook — `python -m autograder grade` of untouched notebooks 01 (its lesson
   cells take a fraction of a second and every test fails at once, so what is left is the cost of
   grading itself: a sandboxed kernel, the checks, the gradebook) — next to a bare
   `nbgrader autograde` of the same notebooks in a course directory of their own (stock nbgrader:
   a plain kernel, tests inside it); then the same for all the course's notebooks, where stock nbgrader
   also runs every demonstration of the lessons and this grader runs only what the tests need;
2. a solved submission of every notebook: wall-clock seconds and core-seconds (the CPU time the whole
   machine spent meanwhile: the grader, its workers, the kernels — run it on an idle machine);
3. the speed-up from --jobs 1 to --jobs 2 on a class of solved submissions;
4. the projected time for 500 students on this machine (core-seconds per submission × 500 / cores).

Every run grades from scratch (a fresh work folder; the prepared course is reused, as it is for
an instructor). Machines are shared and noisy: compare the ratios, measured in one run.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.course.course import PreparedCourse, course_notebooks, use_venv_tools  # noqa: E402
from autograder.course.simulate import submission, write  # noqa: E402


def machine_cpu() -> float:
    """CPU seconds the whole machine has spent (all cores): /proc/stat on Linux. A sandboxed kernel's
    time is lost to getrusage (its pid namespace is torn down, not waited for), so the machine's count
    is the honest one — on a machine that is otherwise idle."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()[1:]
        user, nice, system, idle, iowait, irq, softirq, steal = map(int, fields[:8])
        return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime


children_cpu = machine_cpu


def run(command: list[str], cwd: Path = ROOT) -> tuple[float, float]:
    """(wall seconds, core-seconds) of one command and everything it started."""
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"failed: {' '.join(command)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    summary = [line for line in done.stdout.splitlines() if line.startswith("graded ")]
    print(f"  {wall:7.1f} s  {' '.join(command[2:5])}  {summary[0] if summary else ''}", flush=True)
    return wall, children_cpu() - cpu


def make_class(folder: Path, students: int, notebooks: list[str], solved: bool) -> Path:
    for i in range(students):
        for name in notebooks:
            write(submission(name, solved=solved), folder / f"s{i:03d}" / f"{name}.ipynb")
    return folder


def ours(klass: Path, tmp: Path, jobs: int, *options: str) -> tuple[float, float]:
    out = tmp / f"out-{time.monotonic_ns()}"
    return run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            str(klass),
            "--out",
            str(out),
            "--jobs",
            str(jobs),
            "--no-feedback",
            *options,
        ]
    )


def bare_nbgrader(klass: Path, tmp: Path, notebooks: list[str]) -> tuple[float, float]:
    """Stock nbgrader: autograde each assignment for every student, in a course directory of its own."""
    course = tmp / f"nbgrader-{time.monotonic_ns()}"
    prepared = PreparedCourse(course / "prepared").prepare()
    shutil.copytree(prepared.root, course / "dir", ignore=shutil.ignore_patterns("autograded", "submitted"))
    (course / "dir" / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.course_id = 'bench'\n")
    for student in sorted(p.name for p in klass.iterdir()):
        for name in notebooks:
            target = course / "dir" / "submitted" / student / name / f"{name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(klass / student / f"{name}.ipynb", target)
    wall = cpu = 0.0
    for name in notebooks:
        w, c = run([sys.executable, "-m", "nbgrader", "autograde", name, "--create", "--force"], cwd=course / "dir")
        wall, cpu = wall + w, cpu + c
    return wall, cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--students", type=int, default=4, help="students in the fixed-cost class")
    p.add_argument("--class-students", type=int, default=6, help="students of solved submissions for jobs 1 → 2")
    args = p.parse_args()
    use_venv_tools()
    notebooks = course_notebooks()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        tmp = Path(tmp)
        PreparedCourse(tmp / "warm").prepare()  # the course, prepared once (as for an instructor)
        first = make_class(tmp / "first", args.students, notebooks[:1], solved=False)
        fixed = ours(first, tmp, 1, "--notebooks", notebooks[0]), bare_nbgrader(first, tmp, notebooks[:1])
        untouched = make_class(tmp / "untouched", args.students, notebooks, solved=False)
        n = args.students * len(notebooks)
        ours_wall, ours_cpu = ours(untouched, tmp, 1)
        bare_wall, bare_cpu = bare_nbgrader(untouched, tmp, notebooks)
        solved_one = make_class(tmp / "one", 1, notebooks, solved=True)
        full_wall, full_cpu = ours(solved_one, tmp, 1)
        klass = make_class(tmp / "class", args.class_students, notebooks, solved=True)
        j1_wall, j1_cpu = ours(klass, tmp, 1)
        j2_wall, j2_cpu = ours(klass, tmp, 2)
        rerun_wall, _ = run(
            [
                sys.executable,
                "-m",
                "autograder",
                "grade",
                str(klass),
                "--out",
                str(tmp / "rerun"),
                "--work",
                str(tmp / "rerun-work"),
                "--jobs",
                "2",
                "--no-feedback",
            ]
        )
        rerun_again, _ = run(
            [
                sys.executable,
                "-m",
                "autograder",
                "grade",
                str(klass),
                "--out",
                str(tmp / "rerun"),
                "--work",
                str(tmp / "rerun-work"),
                "--jobs",
                "2",
                "--no-feedback",
            ]
        )
    per_submission = j2_cpu / args.class_students
    print(f"\nmachine: {cores} cores; every figure is from this one run\n")
    (f_wall, f_cpu), (b_wall, b_cpu) = fixed
    s = args.students
    print(f"1. fixed cost per notebook: {s} untouched {notebooks[0]} (each command's start-up included)")
    print(f"   autograder grade (sandboxed):  {f_wall / s:6.2f} s wall  {f_cpu / s:6.2f} core-s   (--jobs 1)")
    print(f"   bare nbgrader autograde:       {b_wall / s:6.2f} s wall  {b_cpu / s:6.2f} core-s")
    print(f"   ratio (ours / nbgrader):       {f_wall / b_wall:6.2f}× wall  {f_cpu / b_cpu:6.2f}× core-s")
    print(
        f"   all {len(notebooks)} untouched notebooks ({n}): ours {ours_wall / n:.2f} s wall {ours_cpu / n:.2f} core-s per "  # noqa: E501
        f"notebook, nbgrader {bare_wall / n:.2f} s wall {bare_cpu / n:.2f} core-s "
        f"({ours_wall / bare_wall:.2f}×, {ours_cpu / bare_cpu:.2f}×)"
    )
    print(f"2. a solved submission of all {len(notebooks)} notebooks")
    print(f"   {full_wall:.1f} s wall, {full_cpu:.1f} core-s (one student, --jobs 1)")
    print(
        f"3. a class of {args.class_students} solved submissions: --jobs 1 {j1_wall:.1f} s, --jobs 2 {j2_wall:.1f} s"
        f" → {j1_wall / j2_wall:.2f}× speed-up; {per_submission:.1f} core-s per submission"
    )
    print(
        f"4. projected for 500 students on {cores} cores: {500 * per_submission / cores / 3600:.2f} h"
        f" (500 × {per_submission:.1f} core-s / {cores})"
    )
    print(f"   a rerun with nothing new: {rerun_again:.1f} s for the whole class (first run {rerun_wall:.1f} s)")


if __name__ == "__main__":
    main()
