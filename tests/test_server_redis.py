"""The course server past one machine: the same code with huey on Redis (Debian's redis-server, started
here on a free port), the server grading nothing itself (--jobs 0) and a second worker process — as on
another host: its own work folder, connected only through Redis — taking every job."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests
from attacks import NB
from conftest import ROOT
from test_server import Server, free_port, notebook_bytes

from autograder.course.cells import grade_id
from autograder.course.simulate import submission
from autograder.wall.sandbox import bwrap_works

pytestmark = [
    pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available (.ci/run installs it)"),
    pytest.mark.skipif(not shutil.which("redis-server"), reason="redis-server is not installed (.ci/run installs it)"),
]


@pytest.fixture
def redis_url(tmp_path):
    port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        + ["--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.1)
    yield f"redis://127.0.0.1:{port}/0"
    redis.terminate()
    redis.wait(10)


def test_a_worker_on_another_host_takes_the_jobs_through_redis(tmp_path, redis_url):
    (tmp_path / "server").mkdir()
    server = Server(tmp_path / "server")
    server.extra = ["--redis", redis_url, "--jobs", "0"]
    server.start()
    host = tmp_path / "other-host"
    worker = subprocess.Popen(
        [sys.executable, "-m", "autograder", "worker", "--redis", redis_url, "--work", str(host)],
        cwd=ROOT,
        stdout=open(tmp_path / "worker.log", "w"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    try:
        solved = server.submit("1001", notebook_bytes(submission(NB), tmp_path, "solved"))
        stub = server.submit("1002", notebook_bytes(submission(NB, solved=False), tmp_path, "stub"))
        assert solved.status_code == stub.status_code == 202
        full = server.wait("1001", solved.json()["attempt"], seconds=600)["result"]
        zero = server.wait("1002", stub.json()["attempt"], seconds=600)["result"]
        assert full["score"] == full["max_score"] > 0 and zero["score"] == 0
        log = (host / "graded.log").read_text().splitlines()
        assert len(log) == 2  # both graded there: the server's own folder has no grading at all
        assert not (server.folder / "data" / "worker").exists() and not (server.folder / "data" / "queue.db").exists()
        assert not (host / "server.db").exists()
        page = requests.get(f"{server.links()['1001']}/attempt/{solved.json()['attempt']}", timeout=10)
        assert page.status_code == 200 and "17 из 17" in page.text
    finally:
        worker.terminate()
        worker.wait(30)
        server.process.terminate()
        server.process.wait(30)


def start_worker(redis_url: str, host, log):
    """A grading worker as on another host, in a session of its own (killed, it takes its sandboxes along)."""
    return subprocess.Popen(
        [sys.executable, "-m", "autograder", "worker", "--redis", redis_url, "--work", str(host)],
        cwd=ROOT,
        stdout=open(log, "a"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


def wait_for(server, student: str, attempt: int, status: str, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while server.attempt(student, attempt)["status"] != status:
        assert time.monotonic() < deadline, f"attempt {attempt} never {status}"
        time.sleep(0.2)


def test_with_redis_a_restarted_server_and_a_killed_worker_lose_nothing_and_grade_each_once(tmp_path, redis_url):
    """The server killed (SIGKILL) while a worker grades one job and two wait: restarted, it leaves the
    worker's job alone (the worker outlived it). Then that worker is killed in the middle of the next job:
    its beats stop, the lease (8 s) runs out, the job is queued again and a second worker grades it."""
    (tmp_path / "server").mkdir()
    server = Server(tmp_path / "server")
    server.extra = ["--redis", redis_url, "--jobs", "0", "--lease", "8"]
    server.start()
    first, second = tmp_path / "host-a", tmp_path / "host-b"
    worker = start_worker(redis_url, first, tmp_path / "worker-a.log")
    backup = None
    try:
        attempts = {}
        for i, student in enumerate(["1001", "1002", "1003"]):  # each runs a few seconds, then scores 0
            stub = submission(NB, solved=False)
            next(c for c in stub.cells if grade_id(c) == "count_pairs").source += f"\nimport time\ntime.sleep(4)  # {i}"
            answer = server.submit(student, notebook_bytes(stub, tmp_path, f"slow{i}"))
            assert answer.status_code == 202, answer.text
            attempts[student] = answer.json()["attempt"]
        wait_for(server, "1001", attempts["1001"], "running")
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(10)
        server.start()
        wait_for(server, "1002", attempts["1002"], "running")
        assert "queued again" not in (server.folder / "server.log").read_text()  # nothing taken from the worker
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(10)
        backup = start_worker(redis_url, second, tmp_path / "worker-b.log")
        results = {s: server.wait(s, a, seconds=600)["result"] for s, a in attempts.items()}
        assert all(r["status"] == "graded" and r["score"] == 0 for r in results.values()), results
        graded = [
            line.split()[0].split("-")[0]
            for host in (first, second)
            for line in (host / "graded.log").read_text().splitlines()
        ]
        assert sorted(graded) == sorted(str(a) for a in attempts.values()), graded  # each graded exactly once
        assert str(attempts["1002"]) in (second / "graded.log").read_text()  # the killed worker's job, by the other
    finally:
        for process in (worker, backup):
            if process and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(30)
        server.process.terminate()
        server.process.wait(30)
