"""The course server past one machine: the same code with huey on Redis (Debian's redis-server, started
here on a free port), the server grading nothing itself (--jobs 0) and a second worker process — as on
another host: its own work folder, connected only through Redis — taking every job."""

import shutil
import socket
import subprocess
import sys
import time

import pytest
import requests
from attacks import NB
from conftest import ROOT
from test_server import Server, free_port, notebook_bytes

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
