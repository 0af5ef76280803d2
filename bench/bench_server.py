"""Benchmark: the course server under a class's deadline rush (never asserted in a test).

    python bench/bench_server.py [--students 50] [--notebooks 01,02] [--seconds 60] [--jobs CORES]

Starts the real server (a temporary data folder, a roster of N students, --jobs worker slots) and
uploads each student's solved notebooks spread evenly over `--seconds`, through HTTP as a browser
or check.py would; waits until every job is graded and prints the median and worst wait from
upload to result, how many were graded, and the CPU: the server process's own (Tornado, the queue,
the records) per request next to the grading's (its worker processes and their sandboxed kernels)
per notebook. Then the same files go through `python -m autograder grade` (one class folder, the same
--jobs, a fresh work folder) in the same run, for its wall time and CPU side by side. Run it on an idle
machine: the grading takes every core it is given.
"""

import argparse
import os
import platform
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_server import Server, notebook_bytes  # noqa: E402

from autograder.cli import choose_notebooks  # noqa: E402
from autograder.course.simulate import submission  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int, children: bool = False) -> float:
    """CPU seconds of a process (with its reaped children's, if asked)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    used = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return used / TICKS


def machine_cpu() -> float:
    """CPU seconds the whole machine has spent (every core, every process: on a shared machine, others' too)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    return (sum(map(int, fields)) - int(fields[3]) - int(fields[4])) / TICKS  # less idle and iowait


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                        found.append(int(entry.name))
                        todo.append(int(entry.name))
                except (OSError, IndexError):
                    pass
    return found


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--students", type=int, default=50)
    p.add_argument("--notebooks", default="01,02")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    args = p.parse_args()
    notebooks = choose_notebooks(args.notebooks)
    folder = Path(tempfile.mkdtemp(prefix="bench-server-"))
    server = Server(folder)
    server.roster.write_text("student_id,name\n" + "".join(f"{2000 + i},Студент {i}\n" for i in range(args.students)))
    server.extra = ["--jobs", str(args.jobs), "--attempts-per-hour", "100"]
    server.extra[0:0] = ["--notebooks", args.notebooks]
    server.start()
    files = {}
    for n in notebooks:  # each student's file differs by a comment: nothing comes from the cache
        for i in range(args.students):
            nb = submission(n)
            nb.cells[0].source += f"\n\n<!-- {i} -->"
            files[2000 + i, n] = notebook_bytes(nb, folder, f"{i}-{n}")
    uploads = sorted(files, key=lambda k: (k[1], k[0]))
    gap = args.seconds / max(1, len(uploads))
    sent, done, lock, uploading = {}, {}, threading.Lock(), threading.Event()
    polls = [0]

    def poll():
        """Each waiting upload is asked about every 2 s, as check.py --submit does, while uploads go on."""
        while uploading.is_set() or len(done) < len(sent):
            with lock:
                waiting = [(a, s) for a, (s, _) in sent.items() if a not in done]
            for attempt, student in waiting:
                state = server.attempt(student, attempt)
                polls[0] += 1
                if state["status"] in ("graded", "error"):
                    done[attempt] = state["result"]["status"]
            time.sleep(2)

    cpu_before, machine_before = cpu_of(server.process.pid), machine_cpu()
    uploading.set()
    poller = threading.Thread(target=poll)
    poller.start()
    start = time.monotonic()
    for i, (student, n) in enumerate(uploads):
        time.sleep(max(0.0, start + i * gap - time.monotonic()))
        answer = server.submit(str(student), files[student, n], name=n.split("_")[0])
        assert answer.status_code == 202, answer.text
        with lock:
            sent[answer.json()["attempt"]] = (str(student), time.monotonic())
    uploading.clear()
    poller.join()
    finished = time.monotonic() - start
    requests_made = len(uploads) + polls[0]
    with sqlite3.connect(folder / "data" / "server.db") as db:  # upload → result recorded (what a poll then sees)
        waits = sorted(g - u for g, u in db.execute("SELECT graded, uploaded FROM attempts WHERE graded IS NOT NULL"))
    own, machine = cpu_of(server.process.pid) - cpu_before, machine_cpu() - machine_before
    grading = sum(cpu_of(pid, children=True) for pid in descendants(server.process.pid))
    graded = sum(status == "graded" for status in done.values())
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.node()}: {os.cpu_count()} cores "
        f"({cpu_model()}), load average {os.getloadavg()[0]:.1f} at the end"
    )
    print(f"{args.students} students × {len(notebooks)} notebooks uploaded over {args.seconds:g} s, jobs {args.jobs}")
    print(
        f"graded {graded} of {len(done)}; wait upload → result: median {statistics.median(waits):.1f} s, "
        f"worst {waits[-1]:.1f} s; all done after {finished:.0f} s (from the first upload)"
    )
    print(
        f"server's own CPU: {own:.2f} s for {requests_made} requests ({1000 * own / requests_made:.1f} ms each); "
        f"grading: {grading:.0f} core-s ({grading / len(done):.1f} per notebook) in the workers as reaped; "
        f"the whole machine meanwhile: {machine:.0f} core-s ({machine / len(done):.1f} per notebook)"
    )
    server.process.terminate()
    server.process.wait(30)
    server_done = done
    klass = folder / "class"
    for (student, n), content in files.items():
        (klass / str(student)).mkdir(parents=True, exist_ok=True)
        (klass / str(student) / f"{n}.ipynb").write_bytes(content)
    before, machine_before, start = resource.getrusage(resource.RUSAGE_CHILDREN), machine_cpu(), time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(klass), "--out", str(folder / "graded")]
        + ["--notebooks", args.notebooks, "--jobs", str(args.jobs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    wall, after = time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    machine = machine_cpu() - machine_before
    summary = next((line for line in run.stdout.splitlines() if line.startswith("graded ")), run.stdout[-300:])
    print(
        f"grade on the same {len(files)} files (exit {run.returncode}): {wall:.0f} s wall; {summary}; "
        f"{used:.0f} core-s ({used / len(files):.1f} per notebook) in grade and its processes; "
        f"the whole machine meanwhile: {machine:.0f} core-s ({machine / len(files):.1f} per notebook)"
    )
    assert len(server_done) == len(files)
    subprocess.run(["rm", "-rf", str(folder)], check=False)


if __name__ == "__main__":
    main()
