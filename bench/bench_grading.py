"""Benchmark: what grading costs, measured side by side in one run (never asserted in a test).

    python bench/bench_grading.py [--students 4] [--class-students 6]

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
4. the projected time for 500 students on this machine (core-seconds per submission × 500 / cores);
5. where a solved submission's core-seconds go: each notebook of it graded again alone (`--force`, the
   same work folder), less what the same command costs when it has nothing to grade;
6. `python -m autograder check` of a solved 07 (the student's own command: wall seconds), and a
   rerun of a graded class with nothing new next to `check` of a solved 01 (issue 42 item 7);
7. the peer: bare `nbgrader autograde` of the *same* solved submission (a plain kernel running every
   cell, the lessons' demonstrations included, as a user of stock nbgrader would grade it);
   and the floor: the code cells the grader runs for that submission and every test cell, hidden tests
   included, in one plain Python process per notebook (bench/floor.py: no kernel, no sandbox, no
   nbgrader) — the CPU of the student's cells and the tests' own calls, which no grader can avoid;
8. the goals of issues 29 and 42 next to each measured ratio.

Core-seconds are read from a cpuacct cgroup of the benchmark's own (made for the run where it can
be, as root), which counts this benchmark's processes and every sandbox they start and nothing
else: other work on a shared machine does not enter the figures (it still slows them a little: caches,
frequency). Without it, the whole machine's CPU time (/proc/stat): run it on an idle machine then.

Every run grades from scratch (a fresh work folder; the prepared course is reused, as it is for
an instructor). Machines are shared and noisy: compare the ratios, measured in one run.
"""

import argparse
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.course.course import PreparedCourse, course_notebooks, use_venv_tools  # noqa: E402
from autograder.course.simulate import submission, write  # noqa: E402
from autograder.wall.cgroup import own_path  # noqa: E402

GOALS = {  # issue 29, "Done when": the figures this benchmark prints next to what it measured
    "solved": 1.5,  # a solved nine-notebook submission in a class ≤ 1.5 bare-nbgrader notebooks (core-s)
    "untouched": 0.13,  # untouched notebooks ≤ 0.13× bare nbgrader (core-s)
    "check07": 4.0,  # `check` of a solved 07 ≤ 4 s (wall)
}


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


class OwnCgroup:
    """A cpuacct cgroup (v1) holding this benchmark, inside the one it was started in: every process it
    starts, and the sandboxes' cgroups the grader makes inside its own (autograder.wall.cgroup), are
    counted in its cpuacct.usage — other users' work on the machine is not."""

    ROOT = Path("/sys/fs/cgroup/cpuacct")

    def __init__(self):
        self.parent = self.ROOT / own_path("cpuacct")
        self.folder = self.parent / f"bench-grading-{os.getpid()}"
        self.folder.mkdir()
        (self.folder / "cgroup.procs").write_text(str(os.getpid()))

    @classmethod
    def make(cls) -> "OwnCgroup | None":
        """None where it cannot be made (not root, no cgroup v1 cpuacct)."""
        try:
            return cls()
        except OSError:
            return None

    def cpu(self) -> float:
        return int((self.folder / "cpuacct.usage").read_text()) / 1e9

    def remove(self) -> None:
        try:
            (self.parent / "cgroup.procs").write_text(str(os.getpid()))
            self.folder.rmdir()
        except OSError:
            pass


children_cpu = machine_cpu


def run(command: list[str], cwd: Path = ROOT, returncodes=(0, 1)) -> tuple[float, float]:
    """(wall seconds, core-seconds) of one command and everything it started."""
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in returncodes:
        sys.exit(f"failed: {' '.join(command)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    summary = [line for line in done.stdout.splitlines() if line.startswith("graded ")]
    words = [Path(w).name if "/" in w else w for w in command[2:]]
    print(f"  {wall:7.1f} s  {' '.join(words)[:70]}  {summary[0] if summary else ''}", flush=True)
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


def grade_command(klass: Path, out: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "autograder", "grade", str(klass), "--out", str(out), "--no-feedback", *options]


def per_notebook(solved_one: Path, out: Path, work: Path, notebooks: list[str]) -> dict[str, float]:
    """name → core-seconds of grading that notebook of a solved submission alone: `grade --notebooks NN
    --force` in the work folder that graded the submission, less the same command with nothing to grade
    (its start-up, the course and the gradebook opened, the reports written). What is left also holds a
    worker's start (its imports) and the sandbox's: section 1's fixed cost is most of that."""
    costs = {}
    for name in notebooks:
        options = ("--work", str(work), "--jobs", "1", "--notebooks", name[:2])
        _, start_up = run(grade_command(solved_one, out, *options))  # cached: nothing to grade
        _, graded = run(grade_command(solved_one, out, *options, "--force"))
        costs[name] = graded - start_up
    return costs


def check_of(solved_one: Path, prefix: str) -> tuple[float, float]:
    """(wall s, core-s) of `python -m autograder check` of one solved notebook, as a student runs it."""
    path = next((solved_one / "s000").glob(f"{prefix}_*.ipynb"))
    return run([sys.executable, "-m", "autograder", "check", str(path)], returncodes=(0,))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--students", type=int, default=4, help="students in the fixed-cost class")
    p.add_argument("--class-students", type=int, default=6, help="students of solved submissions for jobs 1 → 2")
    args = p.parse_args()
    use_venv_tools()
    notebooks = course_notebooks()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    global children_cpu
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))  # the cgroup is removed on the way out
    own = OwnCgroup.make()
    if own is not None:
        children_cpu = own.cpu
    load = os.getloadavg()[0]
    try:
        with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
            figures = measure(Path(tmp), args, notebooks)
    finally:
        if own is not None:
            own.remove()
    report(figures, args, notebooks, cores, own is not None, (load, os.getloadavg()[0]))


def measure(tmp: Path, args, notebooks: list[str]) -> dict:
    f = {}
    PreparedCourse(tmp / "warm").prepare()  # the course, prepared once (as for an instructor)
    first = make_class(tmp / "first", args.students, notebooks[:1], solved=False)
    f["fixed"] = ours(first, tmp, 1, "--notebooks", notebooks[0]), bare_nbgrader(first, tmp, notebooks[:1])
    untouched = make_class(tmp / "untouched", args.students, notebooks, solved=False)
    f["untouched"] = ours(untouched, tmp, 1), bare_nbgrader(untouched, tmp, notebooks)
    solved_one = make_class(tmp / "one", 1, notebooks, solved=True)
    out, work = tmp / "alone", tmp / "alone-work"
    f["full"] = run(grade_command(solved_one, out, "--work", str(work), "--jobs", "1"))
    f["per_notebook"] = per_notebook(solved_one, out, work, notebooks)
    f["check07"] = check_of(solved_one, "07")
    f["check01"] = check_of(solved_one, "01")
    f["peer"] = bare_nbgrader(solved_one, tmp, notebooks)
    floor = [sys.executable, str(ROOT / "bench" / "floor.py")]
    f["floor"] = {name: run([*floor, name], returncodes=(0,)) for name in notebooks}
    klass = make_class(tmp / "class", args.class_students, notebooks, solved=True)
    f["j1"] = ours(klass, tmp, 1)
    f["j2"] = ours(klass, tmp, 2)
    rerun = grade_command(klass, tmp / "rerun", "--work", str(tmp / "rerun-work"), "--jobs", "2")
    f["rerun"] = run(rerun)[0], run(rerun)[0]
    return f


def report(f: dict, args, notebooks: list[str], cores: int, own_cgroup: bool, load: tuple) -> None:
    per_submission = f["j2"][1] / args.class_students
    clock = (
        "core-s: this benchmark's own cpuacct cgroup (its processes and their sandboxes; others' work not counted)"
        if own_cgroup
        else "core-s: the whole machine's CPU time (/proc/stat): only meaningful on an idle machine"
    )
    print(f"\nmachine: {cores} cores, load average {load[0]:.1f} at the start, {load[1]:.1f} at the end")
    print(f"{clock}; every figure is from this one run\n")
    (f_wall, f_cpu), (b_wall, b_cpu) = f["fixed"]
    s = args.students
    print(f"1. fixed cost per notebook: {s} untouched {notebooks[0]} (each command's start-up included)")
    print(f"   autograder grade (sandboxed):  {f_wall / s:6.2f} s wall  {f_cpu / s:6.2f} core-s   (--jobs 1)")
    print(f"   bare nbgrader autograde:       {b_wall / s:6.2f} s wall  {b_cpu / s:6.2f} core-s")
    print(f"   ratio (ours / nbgrader):       {f_wall / b_wall:6.2f}× wall  {f_cpu / b_cpu:6.2f}× core-s")
    (ours_wall, ours_cpu), (bare_wall, bare_cpu) = f["untouched"]
    n = s * len(notebooks)
    bare_notebook = bare_cpu / n
    print(
        f"   all {len(notebooks)} untouched notebooks ({n}): ours {ours_wall / n:.2f} s wall "
        f"{ours_cpu / n:.2f} core-s per notebook, nbgrader {bare_wall / n:.2f} s wall {bare_notebook:.2f} core-s "
        f"({ours_wall / bare_wall:.2f}×, {ours_cpu / bare_cpu:.2f}×)"
    )
    full_wall, full_cpu = f["full"]
    print(f"2. a solved submission of all {len(notebooks)} notebooks")
    print(f"   {full_wall:.1f} s wall, {full_cpu:.1f} core-s (one student, --jobs 1, the command's start-up included)")
    j1_wall, j2_wall = f["j1"][0], f["j2"][0]
    print(
        f"3. a class of {args.class_students} solved submissions: --jobs 1 {j1_wall:.1f} s, --jobs 2 {j2_wall:.1f} s"
        f" → {j1_wall / j2_wall:.2f}× speed-up; {per_submission:.1f} core-s per submission"
    )
    print(
        f"4. projected for 500 students on {cores} cores: {500 * per_submission / cores / 3600:.2f} h"
        f" (500 × {per_submission:.1f} core-s / {cores})"
    )
    rerun_wall, rerun_again = f["rerun"]
    print(f"   a rerun with nothing new: {rerun_again:.1f} s for the whole class (first run {rerun_wall:.1f} s)")
    costs = f["per_notebook"]
    print("5. a solved submission, notebook by notebook (each graded alone, less the command's own start-up;")
    print("   a worker's and a sandbox's start are still in each: about section 1's fixed cost):")
    for name, cost in costs.items():
        print(f"   {name:28} {cost:6.2f} core-s  {cost / bare_notebook:5.2f} bare-nbgrader notebooks")
    print(f"   {'sum':28} {sum(costs.values()):6.2f} core-s")
    check_wall, check_cpu = f["check07"]
    print(f"6. python -m autograder check of a solved 07: {check_wall:.1f} s wall, {check_cpu:.1f} core-s")
    check01_wall = f["check01"][0]
    print(
        f"   a rerun of the class with nothing new {rerun_again:.2f} s wall, check of a solved 01 {check01_wall:.2f} s"
        f" ({rerun_again / check01_wall:.2f}×)"
    )
    peer_wall, peer_cpu = f["peer"]
    print("7. the same solved submission, bare nbgrader autograde (every cell, demonstrations included):")
    print(
        f"   {peer_wall:.1f} s wall, {peer_cpu:.1f} core-s; ours {full_cpu:.1f} core-s ({full_cpu / peer_cpu:.2f}×,"
        f" each command's start-up included)"
    )
    floor_cpu = sum(cpu for _, cpu in f["floor"].values())
    print(
        f"   the floor (bench/floor.py: the cells the grade needs and the tests, plain Python, one process per"
        f" notebook): {floor_cpu:.1f} core-s; ours {full_cpu / floor_cpu:.2f}× the floor, bare nbgrader"
        f" {peer_cpu / floor_cpu:.2f}×"
    )
    rows = [
        (
            "solved submission in a class, in bare-nbgrader notebooks (core-s)",
            f"≤ {GOALS['solved']}",
            f"{per_submission / bare_notebook:.2f}  ({per_submission:.1f} / {bare_notebook:.2f})",
        ),
        ("untouched notebooks, ours / bare nbgrader (core-s)", f"≤ {GOALS['untouched']}", f"{ours_cpu / bare_cpu:.3f}"),
        ("check of a solved 07 (wall s)", f"≤ {GOALS['check07']:g}", f"{check_wall:.1f}"),
        ("a rerun with nothing new / check of a solved 01 (wall)", "< 1", f"{rerun_again / check01_wall:.2f}"),
    ]
    print("8. goals of issues 29 and 42, measured in this run:")
    for what, goal, got in rows:
        print(f"   {what:66} goal {goal:7} measured {got}")


if __name__ == "__main__":
    main()
