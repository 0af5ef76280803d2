"""Whole-class workflow: reruns from the cache, shards and merge, Ctrl-C, a self-check."""

import contextlib
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from conftest import ROOT, grade, private_tmp, results_of

from autograder.classroom.batch import shard_of
from autograder.course.simulate import solution_sources, submission, write
from autograder.wall import cgroup
from autograder.wall.sandbox import FOLDER_PREFIX, bwrap_works

NB = "01_hand_example"


@pytest.fixture(scope="module")
def small_class(tmp_path_factory):
    """Four students of notebook 01 (two solved, two not), graded once."""
    base = tmp_path_factory.mktemp("small")
    for i, student in enumerate(["ann", "ben", "eve", "fay"]):
        write(submission(NB, solved=i % 2 == 0), base / "class" / student / f"{NB}.ipynb")
    run = grade(base / "class", base / "out", "--jobs", "2")
    assert run.returncode == 0, run.stdout + run.stderr
    return base


def test_a_rerun_with_nothing_new_grades_nothing_and_writes_the_same(small_class, tmp_path):
    """…and imports nothing it does not use: neither nbgrader's API (the gradebook is as the last run left
    it) nor matplotlib (no result changed, so the item analysis stands)."""
    before = results_of(small_class / "out")
    pages = {p: (small_class / "out" / p).read_bytes() for p in ("item_analysis.html", "item_analysis.csv")}
    started = time.monotonic()
    rerun = grade(small_class / "class", small_class / "out", "--jobs", "2", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "(4 from earlier runs)" in rerun.stdout, rerun.stdout
    assert results_of(small_class / "out") == before
    imported = {line.rsplit("|", 1)[-1].strip() for line in rerun.stderr.splitlines() if line.startswith("import time")}
    assert not {"nbgrader.api", "matplotlib", "matplotlib.pyplot"} & imported
    assert pages == {p: (small_class / "out" / p).read_bytes() for p in pages}
    print(f"rerun took {time.monotonic() - started:.1f} s")


def test_a_changed_file_is_graded_again(small_class, tmp_path):
    klass = tmp_path / "class"
    for student in ("ann", "ben"):
        src = small_class / "class" / student / f"{NB}.ipynb"
        (klass / student).mkdir(parents=True)
        (klass / student / f"{NB}.ipynb").write_bytes(src.read_bytes())
    work = tmp_path / "work"
    assert grade(klass, tmp_path / "out", "--work", str(work)).returncode == 0
    analysis = (tmp_path / "out" / "item_analysis.csv").read_text(encoding="utf-8")
    write(submission(NB, solved=False), klass / "ann" / f"{NB}.ipynb")
    again = grade(klass, tmp_path / "out", "--work", str(work))
    assert "(1 from earlier runs)" in again.stdout, again.stdout
    assert "grading again 1 notebook(s) graded before:\n  1: a new file" in again.stdout, again.stdout
    assert results_of(tmp_path / "out")["ann", NB]["score"] == 0
    assert (tmp_path / "out" / "item_analysis.csv").read_text(encoding="utf-8") != analysis  # written again


def test_a_rerun_says_when_the_tests_of_a_notebook_changed():
    """The hidden tests of 02 fixed: the reason names them (the cache entry keeps what it was graded under)."""
    from autograder.classroom.cache import NEVER, regrade_reason
    from autograder.course.cells import is_test
    from autograder.course.course import CourseNotebook

    before = CourseNotebook.load("02_byte_level_training")
    fixed = CourseNotebook.load("02_byte_level_training")
    cell = next(c for c in fixed.source.cells if is_test(c))
    cell.source += "\nassert True  # a hidden test fixed"
    old = {"file": "f", "course": before.parts, "settings": {"Evaluator.call_seconds": 10}}
    new = {**old, "course": CourseNotebook(fixed.name, fixed.source, fixed.release).parts}
    assert regrade_reason(old, new, fixed.name) == "the tests of 02 changed"
    assert regrade_reason(old, old, fixed.name) == "its cache entry could not be used"
    assert regrade_reason(None, new, fixed.name) == NEVER
    assert "earlier version" in regrade_reason({}, new, fixed.name)


def test_two_shards_merged_equal_one_run(small_class, tmp_path):
    students = ["ann", "ben", "eve", "fay"]
    assert len({shard_of(s, 2) for s in students}) == 2, "the example class must span both shards"
    whole, part1, part2, merged = (tmp_path / n for n in ("whole", "part1", "part2", "merged"))
    klass = small_class / "class"
    work = str(small_class / "out" / "work")  # the graded class's cache: shards reuse it
    assert grade(klass, whole, "--no-feedback", "--work", work).returncode == 0
    assert grade(klass, part1, "--no-feedback", "--shard", "1/2", "--work", work).returncode == 0
    assert grade(klass, part2, "--no-feedback", "--shard", "2/2", "--work", work).returncode == 0
    assert set(results_of(part1)).isdisjoint(results_of(part2))
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "merge", str(part1), str(part2), "--out", str(merged)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout
    for name in ("grades.csv", "grades_wide.csv", "similarity.csv"):  # shards compare the whole class
        assert sorted((merged / name).read_text().splitlines()) == sorted((whole / name).read_text().splitlines())
    assert results_of(merged) == results_of(whole)


def test_wide_table_has_a_row_per_student_and_a_total(small_class):
    with open(small_class / "out" / "grades_wide.csv", encoding="utf-8") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    assert set(rows) == {"ann", "ben", "eve", "fay"}
    assert (
        float(rows["ann"]["total"]) == float(rows["ann"][NB]) == results_of(small_class / "out")["ann", NB]["max_score"]
    )


def test_bad_shard_option_is_refused(tmp_path):
    (tmp_path / "class" / "x").mkdir(parents=True)
    run = grade(tmp_path / "class", tmp_path / "out", "--shard", "3/2")
    assert run.returncode == 2 and "--shard" in run.stdout


# -- Ctrl-C --------------------------------------------------------------------------------------
class Gate:
    """A door the sandboxed notebooks wait at, opened by the test: a FIFO in a copy of the course's data
    folder (the sandbox binds the data folder: BPE_COURSE_DATA). A notebook's `open(GATE).read()` returns
    once the test has opened the FIFO for writing and closed it again; a test that opens it and holds it
    learns the moment a notebook arrives (its open returns then) and keeps it there. So a run is stopped
    midway by events, never by a pause that a busy machine could outlast."""

    def __init__(self, folder: Path):
        self.data = folder / "data"
        shutil.copytree(ROOT / "data", self.data)
        self.path = self.data / "gate"
        os.mkfifo(self.path, 0o644)
        self.env = {"BPE_COURSE_DATA": str(self.data)}

    def code(self) -> str:
        return f"open({str(self.path)!r}).read()\n"

    @contextlib.contextmanager
    def held(self, guard_seconds=300):
        """Until a notebook is at the gate (the guard: only if none ever comes); it waits there while held."""
        opened = []
        waiter = threading.Thread(target=lambda: opened.append(os.open(self.path, os.O_WRONLY)), daemon=True)
        waiter.start()
        waiter.join(guard_seconds)
        assert opened, "no notebook came to the gate"
        try:
            yield
        finally:
            os.close(opened[0])

    @contextlib.contextmanager
    def opened(self):
        """Every notebook that comes passes."""
        stop = threading.Event()

        def serve():
            while not stop.is_set():
                os.close(os.open(self.path, os.O_WRONLY))  # returns when a notebook opens it: it reads EOF

        door = threading.Thread(target=serve, daemon=True)
        door.start()
        try:
            yield
        finally:
            stop.set()
            unblock = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # the reader its last open waits for
            door.join()
            os.close(unblock)


def gated_solved(gate: Gate):
    """Notebook 01, solved, each exercise waiting at the gate first."""
    return submission(NB, replace={g: gate.code() + s for g, s in solution_sources(NB).items() if g != "quiz_answers"})


def graded_in(out):
    return {k: r for k, r in results_of(out).items() if k[1] == NB and r["status"] == "graded"}


def cache_entries(work):
    return {p.parent.name: json.loads(p.read_text())["graded_at"] for p in (work / "results").glob(f"*/{NB}.json")}


@contextlib.contextmanager
def cgroups_of_its_own():
    """Cgroups for one command, made inside the test's own (cgroup v1, as root): every sandbox cgroup the
    command makes is made inside them, so what it leaves there is its own, whatever runs next to it.
    Yields (what the command's first step is, the names of the sandbox cgroups in them now); where the
    test cannot make cgroups, both do nothing (and the sandboxes have none)."""
    if cgroup.version() != 1:
        yield (lambda: None), (lambda: [])
        return
    name = f"bpe-test-{uuid.uuid4().hex[:8]}"
    folders = [parent / name for parent in cgroup.own_parents(1)]
    for folder in folders:
        folder.mkdir()

    def join():
        cgroup.join([str(f / "cgroup.procs") for f in folders])

    def sandboxes():
        return sorted({g.name for f in folders for g in f.glob(cgroup.PREFIX + "*")})

    try:
        yield join, sandboxes
    finally:
        for found in sandboxes():
            cgroup.SandboxCgroup([f / found for f in folders if (f / found).exists()], 1).remove()
        cgroup.SandboxCgroup(folders, 1).remove(seconds=60)  # its exited processes, until init reaps them


def worker_of(pid):
    """The class grader's worker process (a `spawn` child of `pid`)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return next(int(c) for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes())


def interrupt_after_first_result(command, tmp, gate, sig=signal.SIGINT, kill_worker=False, guard_seconds=600):
    """Start `command` (TMPDIR `tmp`, in cgroups of its own) and send it `sig` (Ctrl-C's SIGINT, or
    SIGTERM) the moment it reports its first graded notebook (read from its output as it comes: no
    polling, so a busy machine cannot make the test miss it); the next notebook waits at `gate`, so the
    run cannot end first. `kill_worker`: first SIGKILL its worker once the next notebook is at the gate
    (its sandbox is up), as the class grader does to a worker that does not stop in time (stuck in C
    code, or the SIGTERM it was sent landed in a `__del__`, which swallows it).
    (process, output, time sent, the sandbox cgroups and folders it left)."""
    with cgroups_of_its_own() as (join, sandboxes):

        def first_step():
            # as from a terminal: a test run started in the background (`make test &`) ignores SIGINT,
            # and its children would inherit that
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            join()

        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "TMPDIR": str(tmp), **gate.env},
            preexec_fn=first_step,
        )
        lines = []
        for line in process.stdout:
            lines.append(line)
            if f" {NB} " in line and " graded" in line:
                break
        with gate.held() if kill_worker else contextlib.nullcontext():
            if kill_worker:
                os.kill(worker_of(process.pid), signal.SIGKILL)
            sent = time.time()
            assert process.poll() is None, "the class was graded before Ctrl-C could be sent:\n" + "".join(lines)
            process.send_signal(sig)
            output, _ = process.communicate(timeout=guard_seconds)
        left = sandboxes() + sorted(n for n in os.listdir(tmp) if n.startswith(FOLDER_PREFIX))
    return process, "".join(lines) + output, sent, left


@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available")
def test_ctrl_c_keeps_every_grade_caches_nothing_while_stopping_and_a_rerun_finishes(tmp_path):
    klass, out, work, tmp = tmp_path / "class", tmp_path / "out", tmp_path / "work", tmp_path / "tmp"
    tmp.mkdir()
    gate = Gate(tmp_path)
    students = [f"s{i}" for i in range(4)]  # s0 goes first (one worker) and passes; the others wait at the gate
    write(submission(NB), klass / students[0] / f"{NB}.ipynb")
    for student in students[1:]:
        write(gated_solved(gate), klass / student / f"{NB}.ipynb")
    command = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        str(klass),
        "--out",
        str(out),
        "--work",
        str(work),
        "--no-feedback",
        "--export",
        "moodle",
        "--jobs",
        "1",
    ]
    environment = {**os.environ, **gate.env}

    # 1. the first run is interrupted after its first result: what was graded is kept, and no cgroup or
    #    folder of a sandbox is left, not even of the worker the class grader had to kill
    process, output, sent, left = interrupt_after_first_result(command, tmp, gate, kill_worker=True)
    assert process.returncode == 130, output
    assert not left, f"left behind: {left}"
    kept = graded_in(out)
    assert list(kept) == [(students[0], NB)] and all(r["score"] == r["max_score"] for r in kept.values()), output
    assert all(t <= sent for t in cache_entries(work).values()), "a result was cached after Ctrl-C"
    # … and nothing that looks final is written for upload: the worksheet is partial, the wide table says so
    assert (
        not (out / "moodle_grading_worksheet.csv").exists() and (out / "moodle_grading_worksheet.partial.csv").exists()
    )
    assert "PARTIAL" in output
    assert "not graded yet" in (out / "grades_wide.csv").read_text(encoding="utf-8")

    # 2. the same command again finishes the class (two workers, the gate open)
    with gate.opened():
        rerun = subprocess.run(command[:-1] + ["2"], cwd=ROOT, capture_output=True, text=True, env=environment)
    assert rerun.returncode == 0, rerun.stdout
    assert f"({len(kept)} from earlier runs)" in rerun.stdout
    assert (out / "moodle_grading_worksheet.csv").exists() and not (
        out / "moodle_grading_worksheet.partial.csv"
    ).exists()
    complete = graded_in(out)
    assert len(complete) == len(students) and all(r["score"] == r["max_score"] for r in complete.values())

    # 3. --force, stopped by SIGTERM as by Ctrl-C: grades.csv keeps every student (old grades where not
    #    regraded yet), nothing is left behind
    first = cache_entries(work)
    process, output, sent, left = interrupt_after_first_result(command + ["--force"], tmp, gate, signal.SIGTERM)
    assert process.returncode == 130, output
    assert not left, f"left behind: {left}"
    assert graded_in(out) == complete, "an interrupted --force run lost grades"
    regraded = {s for s, t in cache_entries(work).items() if t > max(first.values())}
    assert regraded == {students[0]}  # the others were waiting at the gate
    assert all(t <= sent for t in cache_entries(work).values())

    # 4. running it again regrades exactly what the forced run had not reached
    with gate.opened():
        resumed = subprocess.run(
            command[:-1] + ["2", "--force"], cwd=ROOT, capture_output=True, text=True, env=environment
        )
    assert resumed.returncode == 0, resumed.stdout
    assert f"({len(regraded)} from earlier runs)" in resumed.stdout, resumed.stdout
    assert graded_in(out) == complete
    assert not (work / "force.json").exists()


@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available")
def test_a_self_check_speaks_russian_and_leaves_nothing_behind(tmp_path):
    path = write(
        submission(
            NB,
            replace={
                "learn_merges": solution_sources(NB)["learn_merges"].replace("if not counts:\n            break\n", "")
            },
        ),
        tmp_path / f"{NB}.ipynb",
    )
    with private_tmp() as (tmp, left):
        run = subprocess.run(
            [sys.executable, "-m", "autograder", "check", str(path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "TMPDIR": str(tmp)},
        )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Проверяю" in run.stdout and "со скрытыми тестами" in run.stdout
    assert "НЕТ  test_learn_merges" in run.stdout and "ок   test_count_pairs" in run.stdout
    assert "BEGIN HIDDEN" not in run.stdout
    assert not left, left
    solved = write(submission(NB), tmp_path / "solved" / f"{NB}.ipynb")
    assert (
        subprocess.run(
            [sys.executable, "-m", "autograder", "check", str(solved)], cwd=ROOT, capture_output=True, text=True
        ).returncode
        == 0
    )


def test_a_feedback_page_that_fails_is_reported_and_not_retried(tmp_path, capsys):
    import nbformat

    from autograder.classroom.batch import ClassGrader
    from autograder.classroom.cache import Cache
    from autograder.classroom.outputs import Outcome
    from autograder.classroom.worker import Reply, Task
    from autograder.classroom.workflow import report_class
    from autograder.course.course import PreparedCourse, use_venv_tools
    from autograder.notebook.results import Result

    use_venv_tools()
    course = PreparedCourse(tmp_path / "work" / "course").prepare()
    grader = ClassGrader(course, tmp_path / "work")
    answer = Reply(
        Result("ann", NB, 17.0, 17.0, "graded", "all tests passed"),
        nbformat.v4.new_notebook(),
        feedback_error="ValueError: a broken page",
    )
    r = grader.receive(Task("ann", NB, "", feedback=True, key="k"), answer, {})
    assert r.status == "graded" and "ValueError: a broken page" in r.feedback_error
    assert Cache(tmp_path / "work").get("ann", NB, "k", None) is not None  # kept: not graded again
    assert report_class(Outcome(results=[r]), [NB], tmp_path / "out", feedback=True) == 1
    assert "feedback page could not be made" in capsys.readouterr().out


def test_a_rerun_under_other_settings_grades_again_and_records_them(tmp_path):
    # graded once under a setting that can change grades (here one that does not, to keep it short)
    klass = tmp_path / "class"
    write(submission(NB), klass / "ann" / f"{NB}.ipynb")
    first = grade(klass, tmp_path / "out", "--call-seconds", "7")
    assert first.returncode == 0, first.stdout + first.stderr
    assert json.loads((tmp_path / "out" / "grading.json").read_text())["settings"]["Evaluator.call_seconds"] == 7
    plain = grade(klass, tmp_path / "out")
    assert "from earlier runs" not in plain.stdout, plain.stdout  # not served from the cache
    assert "1: a setting changed: Evaluator.call_seconds 7 → 10" in plain.stdout, plain.stdout  # and says why
    assert json.loads((tmp_path / "out" / "grading.json").read_text())["settings"]["Evaluator.call_seconds"] == 10
    again = grade(klass, tmp_path / "out")
    assert "(1 from earlier runs)" in again.stdout, again.stdout
