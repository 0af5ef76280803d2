"""The course server end to end: the real `python -m autograder serve` on 127.0.0.1 with a temporary
data folder and a three-student roster, spoken to through a real HTTP client (requests), grading in
the sandbox. The tests run in file order and share one server (its data folder survives a SIGKILL)."""

import csv
import html
import json
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import requests
from attacks import ATTACKS, HIDDEN_SOURCE, NB
from conftest import ROOT, grade
from mistakes.nb01 import MISTAKES

from autograder.course.cells import grade_id
from autograder.course.simulate import submission, write
from autograder.platforms.lms import MOODLE_STRINGS
from autograder.wall.sandbox import bwrap_works

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available (.ci/run installs it)")
PER_HOUR = 5
WRONG = MISTAKES[0]  # pairs counted across words: test_count_pairs fails, saying so


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, folder: Path):
        self.folder, self.port = folder, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.roster = folder / "roster.csv"
        self.roster.write_text("student_id,name\n1001,Иван Петров\n1002,Мария <b>Смирнова</b>\n1003,Ann\n")
        self.process = None
        self.extra: list[str] = []

    def start(self) -> None:
        log = open(self.folder / "server.log", "a")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autograder", "serve", "--notebooks", "01", "--roster", str(self.roster)]
            + ["--data", str(self.folder / "data"), "--port", str(self.port), "--attempts-per-hour", str(PER_HOUR)]
            + self.extra,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        for _ in range(300):
            try:
                requests.get(self.url + "/style.css", timeout=1)
                return
            except requests.ConnectionError:
                assert self.process.poll() is None, (self.folder / "server.log").read_text()
                time.sleep(0.2)
        raise AssertionError("the server did not start")

    def links(self) -> dict[str, str]:
        with open(self.folder / "data" / "tokens.csv", newline="", encoding="utf-8") as f:
            return {row["student_id"]: row["link"] for row in csv.DictReader(f)}

    def token(self, student: str) -> str:
        return self.links()[student].rsplit("/", 1)[1]

    def submit(self, student: str, notebook_file: bytes, name: str = "01") -> requests.Response:
        return requests.post(
            self.url + "/api/submit",
            headers={"Authorization": f"Bearer {self.token(student)}"},
            files={"file": ("mine.ipynb", notebook_file)},
            data={"notebook": name},
            timeout=60,
        )

    def attempt(self, student: str, attempt: int) -> dict:
        return requests.get(
            f"{self.url}/api/attempt/{attempt}", headers={"Authorization": f"Bearer {self.token(student)}"}, timeout=10
        ).json()

    def wait(self, student: str, attempt: int, seconds: float = 300) -> dict:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            answer = self.attempt(student, attempt)
            if answer["status"] in ("graded", "error"):
                return answer
            time.sleep(0.5)
        raise AssertionError(f"attempt {attempt} not graded in {seconds} s: {answer}")


def notebook_bytes(notebook, folder: Path, name: str) -> bytes:
    return write(notebook, folder / f"{name}.ipynb").read_bytes()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("server"))
    s.start()
    yield s
    if s.process.poll() is None:
        s.process.terminate()
        s.process.wait(30)


def test_links_are_random_secrets_kept_hashed(server):
    links = server.links()
    assert set(links) == {"1001", "1002", "1003"}
    tokens = [link.rsplit("/", 1)[1] for link in links.values()]
    assert len(set(tokens)) == 3 and all(len(t) >= 43 for t in tokens)  # 32 bytes, base64
    db = (server.folder / "data" / "server.db").read_bytes()
    assert not any(t.encode() in db for t in tokens)  # only their hashes are kept


def test_a_solved_notebook_gets_full_marks_with_the_hidden_tests_and_twice_from_the_cache(server):
    solved = notebook_bytes(submission(NB), server.folder, "solved")
    first = server.submit("1001", solved)
    assert first.status_code == 202, first.text
    answer = server.wait("1001", first.json()["attempt"])
    result = answer["result"]
    assert result["status"] == "graded" and result["score"] == result["max_score"] > 0, answer
    assert any(t["name"].endswith("_hidden") for t in result["tests"])
    again = server.wait("1001", server.submit("1001", solved).json()["attempt"], seconds=5)
    assert again["result"] == result
    log = (server.folder / "data" / "worker" / "graded.log").read_text().splitlines()
    assert len(log) == 1  # the second came from the cache


def test_a_wrong_notebook_gets_its_message_on_the_api_and_on_the_result_page(server):
    wrong = submission(NB, replace={WRONG.cell: WRONG.source})
    attempt = server.submit("1002", notebook_bytes(wrong, server.folder, "wrong")).json()["attempt"]
    answer = server.wait("1002", attempt)
    failed = {t["name"]: t["message"] for t in answer["result"]["tests"] if t["score"] < t["max_score"]}
    assert WRONG.message in failed[WRONG.caught_by]
    assert WRONG.message in answer["report"]
    page = requests.get(f"{server.links()['1002']}/attempt/{attempt}", timeout=10)
    assert page.status_code == 200 and WRONG.message in page.text
    assert "script-src" not in page.headers["Content-Security-Policy"]
    assert not any(marker in page.text for marker in HIDDEN_SOURCE)
    own = requests.get(server.links()["1002"], timeout=10)
    assert "Мария &lt;b&gt;Смирнова&lt;/b&gt;" in own.text and "<b>Смирнова" not in own.text
    other = requests.get(f"{server.links()['1001']}/attempt/{attempt}", timeout=10)
    assert other.status_code == 404  # another student's attempt


def test_an_attack_scores_no_more_than_the_stub(server):
    stub = submission(NB, solved=False)
    target = next(c for c in stub.cells if grade_id(c) == "count_pairs")
    target.source += "\n" + ATTACKS["patch_checks"]
    answer = server.wait("1003", server.submit("1003", notebook_bytes(stub, server.folder, "attack")).json()["attempt"])
    assert answer["result"]["score"] == 0, answer
    assert not any(marker in answer["report"] for marker in HIDDEN_SOURCE)


def test_a_wrong_token_is_forbidden(server):
    assert requests.get(server.url + "/s/" + "x" * 43, timeout=10).status_code == 403
    response = requests.post(
        server.url + "/api/submit", headers={"Authorization": "Bearer nope"}, files={"file": ("a", b"{}")}, timeout=10
    )
    assert response.status_code == 403
    teacher = (server.folder / "data" / "instructor.txt").read_text().strip().rsplit("/", 1)[1]
    assert requests.get(server.url + "/s/" + teacher, timeout=10).status_code == 403  # not a student's link


def test_the_form_needs_its_csrf_field(server):
    link = server.links()["1003"]
    session = requests.Session()
    page = session.get(link, timeout=10)
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.text).group(1)
    stub = notebook_bytes(submission(NB, solved=False), server.folder, "stub")
    files = {"file": ("01.ipynb", stub)}
    refused = session.post(link, data={"notebook": "01"}, files=files, allow_redirects=False, timeout=10)
    assert refused.status_code == 403
    done = session.post(link, data={"notebook": "01", "_xsrf": xsrf}, files=files, allow_redirects=False, timeout=10)
    assert done.status_code == 303, done.text
    assert "в очереди" in session.get(link, timeout=10).text or "проверено" in session.get(link, timeout=10).text


def test_50_mb_is_too_large_and_an_odd_name_is_refused_with_the_reason(server):
    big = server.submit("1003", b"{" + b" " * (50 << 20) + b"}")
    assert big.status_code == 413
    form = requests.post(server.links()["1003"], files={"file": ("01.ipynb", b" " * (21 << 20))}, timeout=60)
    assert form.status_code == 413 and "к странице проверки" in form.text  # the browser's way back
    odd = server.submit("1003", b"{}", name="../../etc/passwd")
    assert odd.status_code == 400 and "не из этого задания" in odd.json()["error"]
    assert "«%s%(x)d»" in server.submit("1003", b"{}", name="%s%(x)d").json()["error"]  # said as given
    assert not list((server.folder / "data").rglob("passwd*"))


def test_too_many_attempts_in_an_hour_wait_with_the_time(server):
    solved = (server.folder / "solved.ipynb").read_bytes()
    codes = [server.submit("1001", solved).status_code for _ in range(PER_HOUR - 2)]  # two made above
    assert codes == [202] * (PER_HOUR - 2)
    refused = server.submit("1001", solved)
    assert refused.status_code == 429
    assert 0 < int(refused.headers["Retry-After"]) <= 3600 and "через" in refused.json()["error"]


@pytest.fixture(scope="module")
def edition(server):
    """The student edition of 01, unzipped; its .venv is this one (make setup would install the same)."""
    archive = server.folder / "hw1-student.zip"
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "bundle", "--notebooks", "01", "--out", str(archive)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    with zipfile.ZipFile(archive) as z:
        z.extractall(server.folder / "edition")
    root = server.folder / "edition" / "hw1-student"
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (root / ".venv" / ".installed").touch()
    return root


def make_submit(root: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "--no-print-directory", "submit", "NB=01", *options],
        cwd=root,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )


def test_make_submit_in_the_student_edition_prints_what_check_prints_with_its_exit_codes(server, edition):
    notebook = edition / "notebooks" / f"{NB}.ipynb"
    notebook.write_bytes(notebook_bytes(submission(NB), server.folder, "solved-edition"))
    solved = make_submit(edition, f"LINK={server.links()['1003']}")
    assert solved.returncode == 0, solved.stdout + solved.stderr
    check = subprocess.run(
        [sys.executable, "-m", "autograder", "check", str(notebook)], cwd=ROOT, capture_output=True, text=True
    )
    assert check.returncode == 0
    report = check.stdout.split("\n", 1)[1].strip()  # after its "Проверяю …" line
    assert report in solved.stdout and "скрыт" not in report
    assert (edition / ".course-link").read_text().strip() == server.links()["1003"]
    wrong = submission(NB, replace={WRONG.cell: WRONG.source})
    notebook.write_bytes(notebook_bytes(wrong, server.folder, "wrong-edition"))
    failed = make_submit(edition)  # the link saved the first time
    assert WRONG.message in failed.stdout, failed.stdout
    assert failed.returncode == 2 and "Error 1" in failed.stderr  # make's 2 for check.py's 1, as in make check


def test_make_submit_with_a_refused_link_says_so_in_russian(server, edition):
    bad = make_submit(edition, f"LINK={server.url}/s/{'x' * 43}")
    assert "Ссылка не действует" in bad.stdout and "Error 5" in bad.stderr, bad.stdout + bad.stderr
    direct = subprocess.run(
        [sys.executable, "check.py", "--submit", "01"], cwd=edition, capture_output=True, text=True, timeout=120
    )
    assert direct.returncode == 5 and "Сервер не принял работу (403)" in direct.stdout
    gone = subprocess.run(
        [sys.executable, "check.py", "--submit", "01", "--link", f"http://127.0.0.1:{free_port()}/s/abc"],
        cwd=edition,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert gone.returncode == 6 and "недоступен" in gone.stdout


def test_a_link_reissued_for_one_student_replaces_only_theirs(server):
    before = server.links()
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "serve", "--notebooks", "01", "--data", str(server.folder / "data")]
        + ["--port", str(server.port), "--reissue", "1003"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    after = server.links()
    assert after["1003"] != before["1003"] and {k: after[k] for k in ("1001", "1002")} == {
        k: before[k] for k in ("1001", "1002")
    }
    assert requests.get(before["1003"], timeout=10).status_code == 403
    assert requests.get(after["1003"], timeout=10).status_code == 200


def test_a_server_killed_with_jobs_queued_grades_each_exactly_once_after_a_restart(server):
    attempts = []
    for i in range(3):  # three different files: none from the cache
        stub = submission(NB, solved=False)
        stub.cells[0].source += f"\n\n<!-- {i} -->"
        attempts.append(server.submit("1002", notebook_bytes(stub, server.folder, f"stub{i}")).json()["attempt"])
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(10)
    with sqlite3.connect(server.folder / "data" / "server.db") as db:
        left = db.execute("SELECT COUNT(*) FROM attempts WHERE status IN ('queued', 'running')").fetchone()[0]
    assert left >= 2  # killed with jobs queued (and one perhaps running)
    server.start()
    answers = [server.wait("1002", a) for a in attempts]
    assert all(a["result"]["status"] == "graded" and a["result"]["score"] == 0 for a in answers), answers
    time.sleep(1)
    log = (server.folder / "data" / "worker" / "graded.log").read_text().splitlines()
    jobs = [line.split()[0] for line in log]
    per_attempt = [sum(job.split("-")[0] == str(a) for job in jobs) for a in attempts]
    assert per_attempt == [1, 1, 1], log
    assert len(jobs) == len(set(jobs))
    assert "queued again" in (server.folder / "server.log").read_text() or left == 3


def teacher_link(server) -> str:
    return (server.folder / "data" / "instructor.txt").read_text().strip()


def test_the_instructors_page_shows_each_students_last_and_best_and_the_item_analysis(server):
    page = requests.get(teacher_link(server), timeout=30)
    assert page.status_code == 200 and "script-src" not in page.headers["Content-Security-Policy"]
    assert "Иван Петров (1001)" in page.text and "Мария &lt;b&gt;Смирнова&lt;/b&gt; (1002)" in page.text
    assert "test_count_pairs_hidden" in page.text and "Анализ заданий" in page.text
    student = server.links()["1001"].rsplit("/", 1)[1]
    assert requests.get(f"{server.url}/teacher/{student}", timeout=10).status_code == 403


def test_the_instructors_page_has_the_similarity_report_of_the_attempts_that_count(server):
    """1001's last attempt is the solved notebook, 1003's the same with one mistake: a pair; 1002's is an
    untouched stub, only the course's starter code, so in no pair. The full report shows them side by side."""
    page = requests.get(teacher_link(server), timeout=120)
    section = page.text.split("Сходство решений", 1)[1]
    rows = re.findall(r"<tr><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td><td>([0-9.]+)</td></tr>", section)
    assert [(a, b) for a, b, _ in rows] == [("Иван Петров (1001)", "Ann (1003)")], section
    assert float(rows[0][2]) > 0.5 and "1002" not in section
    report = requests.get(teacher_link(server) + "/similarity", timeout=120)
    assert report.status_code == 200 and "<mark>" in report.text and "Ann (1003)" in report.text
    policy = report.headers["Content-Security-Policy"]
    assert "script-src" not in policy and "unsafe-inline" not in policy and "'sha256-" in policy
    student = server.links()["1001"].rsplit("/", 1)[1]
    assert requests.get(f"{server.url}/teacher/{student}/similarity", timeout=10).status_code == 403


@pytest.mark.skipif(not shutil.which("chromium"), reason="chromium is not installed (apt-get install chromium)")
def test_the_pages_render_in_headless_chromium_with_their_styles_allowed(server, tmp_path):
    """The student's page, a result page, the instructor's page and the similarity report, as a browser
    shows them: Chromium logs every style or script the Content-Security-Policy blocks; none is."""
    attempt = max(a["id"] for a in attempts_of(server, "1002") if a["feedback"])
    link, teacher = server.links()["1002"], teacher_link(server)
    pages = {"student": link, "result": f"{link}/attempt/{attempt}", "teacher": teacher}
    pages["similarity"] = teacher + "/similarity"
    for name, url in pages.items():
        shot = tmp_path / f"{name}.png"
        run = subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
            + ["--window-size=1300,1800", f"--screenshot={shot}", url],
            capture_output=True,
            text=True,
            timeout=180,
        )
        blocked = [line for line in run.stderr.splitlines() if "Content Security Policy" in line]
        assert run.returncode == 0 and shot.stat().st_size > 10_000 and not blocked, (name, blocked, run.stderr[-500:])


def attempts_of(server, student: str) -> list[dict]:
    with sqlite3.connect(server.folder / "data" / "server.db") as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM attempts WHERE student=?", (student,))]


def without_grading_time(out: Path) -> list[list[str]]:
    """The Moodle worksheet, its Last modified (grade) column (the time it was written) left out."""
    with open(out / "moodle_grading_worksheet.csv", newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    when = table[0].index(MOODLE_STRINGS["en"]["modified"])
    return [row[:when] + row[when + 1 :] for row in table]


def test_the_exports_from_the_server_equal_grades_on_the_same_submissions(server, tmp_path):
    data = server.folder / "data"
    mine = tmp_path / "from-server"
    options = ["--export", "moodle", "--export", "canvas", "--assignment", "Homework 1 (123456)"]
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "export", "--from-server", str(data), "--out", str(mine), *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    submissions, graded = tmp_path / "class", tmp_path / "graded"
    with sqlite3.connect(data / "server.db") as db:
        counted = db.execute(
            "SELECT student, sha FROM attempts WHERE status='graded' AND id IN "
            "(SELECT MAX(id) FROM attempts WHERE status='graded' GROUP BY student, notebook)"
        ).fetchall()
    for student, sha in counted:
        (submissions / student).mkdir(parents=True)
        (submissions / student / f"{NB}.ipynb").write_bytes((data / "uploads" / f"{sha}.ipynb").read_bytes())
    graded.mkdir()
    (graded / "roster.csv").write_bytes((mine / "roster.csv").read_bytes())
    done = grade(submissions, graded, "--notebooks", "01", "--jobs", "1", *options)
    assert done.returncode == 0, done.stdout + done.stderr
    assert without_grading_time(mine) == without_grading_time(graded)
    assert (mine / "canvas_grades_import.csv").read_text() == (graded / "canvas_grades_import.csv").read_text()
    with (
        zipfile.ZipFile(mine / "moodle_feedback_files.zip") as a,
        zipfile.ZipFile(graded / "moodle_feedback_files.zip") as b,
    ):
        assert sorted(a.namelist()) == sorted(b.namelist()) and len(a.namelist()) == 3
    button = requests.get(teacher_link(server) + "/export/moodle", timeout=60)
    assert button.status_code == 200 and "attachment" in button.headers["Content-Disposition"]
    (tmp_path / "button").mkdir()
    (tmp_path / "button" / "moodle_grading_worksheet.csv").write_bytes(button.content)
    assert without_grading_time(tmp_path / "button") == without_grading_time(mine)


def test_uploads_after_the_due_date_are_refused_or_recorded_late(tmp_path):
    late = Server(tmp_path)
    late.extra = ["--due", "2000-01-01 00:00", "--late", "refuse", "--jobs", "0"]
    late.start()
    stub = notebook_bytes(submission(NB, solved=False), tmp_path, "stub")
    try:
        refused = late.submit("1001", stub)
        assert refused.status_code == 403 and "Срок сдачи прошёл" in refused.json()["error"]
    finally:
        late.process.terminate()
        late.process.wait(30)
    late.extra = ["--due", "2000-01-01 00:00", "--jobs", "0"]  # --late record, the default
    late.start()
    try:
        kept = late.submit("1001", stub)
        assert kept.status_code == 202
        answer = late.attempt("1001", kept.json()["attempt"])
        assert answer["late"] and answer["status"] == "queued"  # kept for grading, marked late
        assert "после срока" in requests.get(late.links()["1001"], timeout=10).text
        teacher = requests.get(teacher_link(late), timeout=30).text
        assert "после срока попыток: 1 — в выгрузке не считаются" in teacher
    finally:
        late.process.terminate()
        late.process.wait(30)


def test_before_the_due_date_the_hidden_tests_can_show_points_only(tmp_path):
    strict = Server(tmp_path)
    strict.extra = ["--due", "2999-01-01 00:00", "--before-due", "points"]
    strict.start()
    try:
        wrong = submission(NB, replace={WRONG.cell: WRONG.source})
        attempt = strict.submit("1001", notebook_bytes(wrong, tmp_path, "wrong")).json()["attempt"]
        tests = {t["name"]: t for t in strict.wait("1001", attempt)["result"]["tests"]}
        hidden = tests[WRONG.caught_by + "_hidden"]
        assert hidden["score"] < hidden["max_score"] and "только баллы" in hidden["message"]
        assert WRONG.message in tests[WRONG.caught_by]["message"]  # a visible test keeps its message
        page = requests.get(f"{strict.links()['1001']}/attempt/{attempt}", timeout=10).text
        assert "только баллы" in page and WRONG.message in page
        with sqlite3.connect(tmp_path / "data" / "server.db") as db:
            kept = db.execute("SELECT result FROM attempts WHERE id=?", (attempt,)).fetchone()[0]
        assert "только баллы" not in kept  # the records keep everything: after the due date it is shown
        message = next(t["message"] for t in json.loads(kept)["tests"] if t["name"] == hidden["name"])
        assert html.escape(message.splitlines()[-1]) not in page
    finally:
        strict.process.terminate()
        strict.process.wait(30)


def test_the_attacks_of_grade_score_the_same_through_the_server(tmp_path):
    """Every attack of tests/attacks.py, added to the stub as in test_class.py, uploaded by a student of its
    own: the score `grade` gives it (the stub's 0, test_class.py's test_an_attack_gains_no_points_over_the_
    untouched_stub) and no hidden test's source."""
    attacks = Server(tmp_path)
    attacks.roster.write_text("student_id,name\n" + "".join(f"{name},{name}\n" for name in ATTACKS))
    attacks.extra = ["--jobs", "2"]
    attacks.start()
    try:
        sent = {}
        for name, source in ATTACKS.items():
            stub = submission(NB, solved=False)
            next(c for c in stub.cells if grade_id(c) == "count_pairs").source += "\n" + source
            content = notebook_bytes(stub, tmp_path, name)
            answer = attacks.submit(name, content)
            assert answer.status_code == 202, (name, answer.text)
            sent[name] = answer.json()["attempt"]
        answers = {name: attacks.wait(name, attempt, seconds=1200) for name, attempt in sent.items()}
    finally:
        attacks.process.terminate()
        attacks.process.wait(30)
    scores = {name: answer["result"]["score"] for name, answer in answers.items()}
    assert scores == dict.fromkeys(ATTACKS, 0), scores
    leaked = [name for name, answer in answers.items() if any(m in answer["report"] for m in HIDDEN_SOURCE)]
    assert not leaked


def test_tampered_test_cells_are_listed_for_review_on_the_instructors_page_not_the_students(tmp_path):
    """A solved notebook whose test cell is unlocked with a new checksum and id, with a forged «ok: 100/100» in
    a hidden test's place and a cell of its own marked graded for 1,000 points (tests/test_tampering.py has
    every kind): full marks, as the honest work earns; each change is on the instructor's page and on the
    attempt's feedback page as the instructor sees it, never on the student's."""
    from test_tampering import forge_outputs, own_graded_cell, unlock

    own = Server(tmp_path)
    own.extra = ["--jobs", "1"]
    own.start()
    try:
        nb = submission(NB)
        for tamper in (unlock, forge_outputs, own_graded_cell):
            tamper(nb)
        attempt = own.submit("1001", notebook_bytes(nb, tmp_path, "tampered")).json()["attempt"]
        result = own.wait("1001", attempt)["result"]
        assert result["score"] == result["max_score"] > 0
        assert {c["kind"] for c in result["changes"]} == {"unlocked", "outputs", "foreign"}
        lines = [html.escape(line) for line in result["review"]]
        assert len(lines) == 3
        teacher = requests.get(teacher_link(own), timeout=60).text
        assert "На проверку" in teacher and all(line in teacher for line in lines)
        link = re.search(r'href="(/teacher/[^"]+/review/1001/' + NB + ')"', teacher).group(1)
        view = requests.get(own.url + link, timeout=30)
        assert view.status_code == 200 and all(line in view.text for line in lines)
        assert (
            requests.get(
                own.url + link.replace(teacher_link(own).rsplit("/", 1)[1], own.token("1001")), timeout=10
            ).status_code
            == 403
        )
        page = requests.get(f"{own.links()['1001']}/attempt/{attempt}", timeout=10).text
        assert "Для преподавателя" not in page and not any(line in page for line in lines)
    finally:
        own.process.terminate()
        own.process.wait(30)
