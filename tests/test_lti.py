"""The course server as an LTI 1.3 tool, against an independent platform (tests/lti_platform.py, on
lti1p3platform) over real HTTP: the real `python -m autograder serve --lti-config` in a subprocess, the
platform in a thread of the test, the test as the browser. The tests run in file order and share one
server: the instructor's launch first (it ties the server to the course), then students, attacks, grades."""

import base64
import csv
import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import jwt
import pytest
import requests
from conftest import ROOT
from lti_platform import CANVAS_STUDENT, INSTRUCTOR, LEARNER, Browser, Platform, rsa_pem

from autograder.course.simulate import submission, write
from autograder.wall.sandbox import bwrap_works

NB = "01_hand_example"
LTI = "https://purl.imsglobal.org/spec/lti/claim/"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Tool:
    def __init__(self, folder: Path):
        self.folder, self.port = folder, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data = folder / "data"
        self.platform = Platform(tool_url=self.url)  # Moodle's claims and URLs
        self.canvas = Platform(tool_url=self.url, kind="canvas")  # a second platform: Canvas's
        self.config = folder / "lti.json"
        self.config.write_text(json.dumps([self.platform.config(), self.canvas.config()]))
        self.process = None
        self.extra: list[str] = []

    def start(self):
        log = open(self.folder / "server.log", "a")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autograder", "serve", "--notebooks", "01", "--lti-config", str(self.config)]
            + ["--data", str(self.data), "--port", str(self.port), "--attempts-per-hour", "50"]
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

    def log(self) -> str:
        return (self.folder / "server.log").read_text()

    def recorded(self) -> tuple:
        """What a refused launch must not change: the students, their attempts, the LTI users and activities."""
        with sqlite3.connect(self.data / "server.db") as db:
            students = db.execute("SELECT COUNT(*) FROM students").fetchone()[0]
            attempts = db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
            sessions = db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        with sqlite3.connect(self.data / "lti.db") as db:
            users = db.execute("SELECT COUNT(*) FROM users").fetchone()[0]
            activities = db.execute("SELECT COUNT(*) FROM activities").fetchone()[0]
        return students, attempts, sessions, users, activities

    def outbox(self) -> list[dict]:
        with sqlite3.connect(self.data / "lti.db") as db:
            db.row_factory = sqlite3.Row
            return [dict(r) for r in db.execute("SELECT * FROM outbox ORDER BY id")]


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    t = Tool(tmp_path_factory.mktemp("lti"))
    t.start()
    yield t
    if t.process.poll() is None:
        t.process.terminate()
        t.process.wait(30)
    t.platform.stop()
    t.canvas.stop()


def test_the_server_prints_the_urls_a_platform_is_given(tool):
    log = tool.log()
    for url in ("/lti/launch", "/lti/login", "/lti/jwks"):
        assert f"{tool.url}{url}" in log, log


def test_the_tools_key_is_made_once_kept_0600_and_published_as_its_jwks(tool):
    key = tool.data / "lti_private.pem"
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    keys = requests.get(tool.url + "/lti/jwks", timeout=10).json()["keys"]
    assert len(keys) == 1 and keys[0]["kty"] == "RSA" and keys[0]["kid"] and "d" not in keys[0]
    from jwcrypto.jwk import JWK

    assert JWK.from_pem(key.read_bytes()).thumbprint() == JWK(**keys[0]).thumbprint()
    tool.first_key = keys[0]


def test_an_instructors_launch_opens_the_instructors_page_with_cookies_kept_in_an_iframe(tool):
    browser = Browser(tool.url)
    page = browser.launch(tool.platform.launch("teacher1", roles=INSTRUCTOR, name="Анна Преподавательница"))
    assert page.status_code == 200 and "Задание: ход работы класса" in page.text, page.text
    assert "/teacher/" in page.url
    state = [c for c in browser.set_cookies if c.startswith("lti1p3-state-")]
    assert state and all("SameSite=None" in c and "Secure" in c and "HttpOnly" in c for c in state)
    assert tool.platform.url in page.headers["Content-Security-Policy"]  # the LMS may frame the page


def test_a_students_launch_opens_the_same_page_as_their_link(tool):
    browser = Browser(tool.url)
    page = browser.launch(tool.platform.launch("student1", name="Иван Петров", custom={"notebook": "01"}))
    assert page.status_code == 200 and "Проверка заданий" in page.text and "Иван Петров" in page.text, page.text
    assert "/s/" in page.url and "_xsrf" in page.text
    teacher = requests.get(page.url.replace("/s/", "/teacher/"), timeout=10)
    assert teacher.status_code == 403  # the student's session is not the instructor's
    with open(tool.data / "tokens.csv", newline="", encoding="utf-8") as f:
        links = {r["student_id"]: r["link"] for r in csv.DictReader(f)}
    assert "student1" in links  # and a personal link too, for a course without the LMS
    own = requests.get(links["student1"], timeout=10)
    assert own.status_code == 200 and "Иван Петров" in own.text


def test_a_canvas_style_student_is_a_student(tool):
    page = Browser(tool.url).launch(tool.platform.launch("canvas-student-7", roles=CANVAS_STUDENT, name="Ann Lee"))
    assert page.status_code == 200 and "Проверка заданий" in page.text and "Ann Lee" in page.text


def test_a_second_platform_canvas_has_its_own_course_and_students(tool):
    canvas = tool.canvas
    teacher = Browser(tool.url).launch(canvas.launch("canvas-teacher", roles=INSTRUCTOR, course="c-88"))
    assert teacher.status_code == 200 and "ход работы класса" in teacher.text, teacher.text
    student = Browser(tool.url).launch(canvas.launch("canvas-student-9", roles=CANVAS_STUDENT, course="c-88"))
    assert student.status_code == 200 and "Проверка заданий" in student.text
    # Canvas's token, signed by Canvas, naming the Moodle issuer: Moodle's key does not check it
    moodle = tool.platform
    claims = {"iss": moodle.issuer, "aud": moodle.client_id, "azp": moodle.client_id, "course": "2"}
    claims[LTI.replace("/", "__") + "deployment_id"] = moodle.deployment_id
    attack(tool, "ключом, которого нет у платформы", platform=canvas, **claims)


def test_a_browser_blocking_third_party_cookies_is_offered_a_new_window(tool):
    before = tool.recorded()
    page = Browser(tool.url, cookies=False).launch(tool.platform.launch("student1"))
    assert page.status_code == 200 and 'target="_blank"' in page.text and "/lti/login?" in page.text
    assert "id_token" not in page.text and tool.recorded() == before


def refused(tool, page, words: str):
    assert page.status_code == 403, page.text
    assert "Запуск не принят" in page.text and words in page.text, page.text


def attack(tool, words, tamper=None, platform=None, **launch):
    before = tool.recorded()
    platform = platform or tool.platform
    page = Browser(tool.url).launch(platform.launch(launch.pop("user", "mallory"), **launch), tamper=tamper)
    refused(tool, page, words)
    assert tool.recorded() == before


def test_a_replayed_id_token_is_refused(tool):
    browser = Browser(tool.url)
    first = browser.launch(tool.platform.launch("student1"))
    assert first.status_code == 200
    before = tool.recorded()
    again = browser.post(tool.url + "/lti/launch", data=browser.last_form)
    refused(tool, again, "уже был использован")
    assert tool.recorded() == before


def test_a_wrong_issuer_is_refused(tool):
    attack(tool, "не зарегистрирована", iss="https://moodle.evil.example")


def test_a_wrong_audience_is_refused(tool):
    attack(tool, "не этому инструменту", aud="another-tool", azp="another-tool")


def test_an_audience_list_without_this_tool_as_azp_is_refused(tool):
    attack(tool, "azp", aud=[tool.platform.client_id, "another-tool"], azp="another-tool")


def test_a_wrong_deployment_is_refused(tool):
    attack(tool, "deployment_id", **{LTI.replace("/", "__") + "deployment_id": "99"})


def test_an_expired_id_token_is_refused(tool):
    attack(tool, "срок действия токена истёк", exp=int(time.time()) - 60, iat=int(time.time()) - 400)


def test_an_id_token_without_exp_is_refused(tool):
    attack(tool, "exp", exp=None)


def test_an_id_token_issued_in_the_future_is_refused(tool):
    attack(tool, "Запуск не принят", iat=int(time.time()) + 3600, exp=int(time.time()) + 7200)


def test_another_message_type_or_lti_version_is_refused(tool):
    attack(tool, "Запуск не принят", **{LTI.replace("/", "__") + "message_type": "LtiSubmissionReviewRequestX"})
    attack(tool, "версия LTI", **{LTI.replace("/", "__") + "version": "1.1.0"})


def test_an_id_token_posted_from_another_browser_than_the_login_is_refused(tool):
    victim = Browser(tool.url)
    victim.launch(tool.platform.launch("student1"), tamper=lambda form: victim.__setattr__("caught", form) or {})
    before = tool.recorded()
    page = Browser(tool.url).post(tool.url + "/lti/launch", data=victim.caught)  # no state cookie of this login
    refused(tool, page, "не в этом браузере")
    assert tool.recorded() == before


def b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def test_an_unsigned_id_token_is_refused(tool):
    def unsigned(form):
        header, payload, _ = form["id_token"].split(".")
        kid = json.loads(base64.urlsafe_b64decode(header + "=="))["kid"]
        return {**form, "id_token": f"{b64({'alg': 'none', 'kid': kid, 'typ': 'JWT'})}.{payload}."}

    attack(tool, "Запуск не принят", tamper=unsigned)


def test_an_id_token_signed_by_another_key_is_refused(tool):
    other, _ = rsa_pem()

    def resigned(form):
        header = jwt.get_unverified_header(form["id_token"])
        body = jwt.decode(form["id_token"], options={"verify_signature": False})
        return {**form, "id_token": jwt.encode(body, other, algorithm="RS256", headers={"kid": header["kid"]})}

    attack(tool, "подпись токена неверна", tamper=resigned)


def test_a_launch_from_another_course_is_refused(tool):
    attack(tool, "из другого курса", course="3")


def test_a_student_claiming_the_instructor_role_the_platform_did_not_send_is_refused(tool):
    def promoted(form):
        header, payload, signature = form["id_token"].split(".")
        body = json.loads(base64.urlsafe_b64decode(payload + "=="))
        body[LTI + "roles"] = INSTRUCTOR
        return {**form, "id_token": f"{header}.{b64(body)}.{signature}"}

    attack(tool, "подпись токена неверна", tamper=promoted, user="student1")
    # a role in the form, beside the signed id_token, is not read
    page = Browser(tool.url).launch(tool.platform.launch("student1"), tamper=lambda f: {**f, "roles": INSTRUCTOR[1]})
    assert page.status_code == 200 and "/s/" in page.url and "Проверка заданий" in page.text


def test_a_launch_without_a_login_first_is_refused(tool):
    before = tool.recorded()
    page = requests.post(tool.url + "/lti/launch", data={"id_token": "a.b.c", "state": "state-x"}, timeout=10)
    refused(tool, page, "не в этом браузере")
    assert tool.recorded() == before


# -- grades ---------------------------------------------------------------------------------------------
needs_sandbox = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not available (.ci/run installs it)")


def upload(browser: Browser, page, content: bytes) -> requests.Response:
    fields = browser.form_fields(page.text)
    return browser.post(
        page.url, data={"_xsrf": fields["_xsrf"], "notebook": "01"}, files={"file": ("mine.ipynb", content)}
    )


def wait_for(condition, seconds=300, what="it"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"{what} did not happen in {seconds} s")


def graded_score(tool, student: str) -> dict:
    with sqlite3.connect(tool.data / "server.db") as db:
        row = db.execute(
            "SELECT result FROM attempts WHERE student=? AND status='graded' ORDER BY id DESC LIMIT 1", (student,)
        ).fetchone()
    return json.loads(row[0]) if row else None


@needs_sandbox
def test_login_launch_upload_graded_and_the_score_arrives_at_the_platforms_line_item(tool, tmp_path):
    platform = tool.platform
    lineitem = platform.lineitem("2", "7")  # Moodle made the activity's grade item: the launch names it
    browser = Browser(tool.url)
    page = browser.launch(platform.launch("student1", custom={"notebook": "01"}, resource_link="31", lineitem=lineitem))
    solved = write(submission(NB), tmp_path / "solved.ipynb").read_bytes()
    answer = upload(browser, page, solved)
    assert answer.status_code == 200, answer.text
    result = wait_for(lambda: graded_score(tool, "student1"), what="grading")
    score = wait_for(lambda: [s for s in platform.scores if s["lineitem"] == lineitem], what="the score")[-1]
    assert score["content_type"] == "application/vnd.ims.lis.v1.score+json"
    body = score["score"]
    assert body["userId"] == "student1"
    assert body["scoreGiven"] == result["score"] > 0 and body["scoreMaximum"] == result["max_score"]
    assert body["activityProgress"] == "Completed" and body["gradingProgress"] == "FullyGraded"
    assert body["timestamp"].endswith("+00:00") and body["comment"].startswith(f"{NB}: {result['score']:g} из")
    # the same as `export --from-server` writes for the same attempts
    out = tmp_path / "export"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "export",
            "--from-server",
            str(tool.data),
            "--out",
            str(out),
            "--export",
            "none",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        exported = {(r["student_id"], r["notebook"]): float(r["score"]) for r in csv.DictReader(f)}
    assert exported["student1", NB] == body["scoreGiven"]


@needs_sandbox
def test_an_upload_through_the_personal_link_counts_and_reaches_the_platform_too(tool, tmp_path):
    platform = tool.platform
    with open(tool.data / "tokens.csv", newline="", encoding="utf-8") as f:
        token = {r["student_id"]: r["link"] for r in csv.DictReader(f)}["student1"].rsplit("/", 1)[1]
    before = len(platform.scores)
    stub = write(submission(NB, solved=False), tmp_path / "stub.ipynb").read_bytes()
    sent = requests.post(
        tool.url + "/api/submit",
        headers={"Authorization": f"Bearer {token}"},
        files={"file": ("mine.ipynb", stub)},
        data={"notebook": "01"},
        timeout=60,
    )
    assert sent.status_code == 202, sent.text
    wait_for(
        lambda: graded_score(tool, "student1")["score"] < graded_score(tool, "student1")["max_score"], what="grading"
    )
    item = platform.lineitem("2", "7")  # the activity the student launched with its line item
    later = wait_for(lambda: [s for s in platform.scores[before:] if s["lineitem"] == item], what="the new score")
    assert later[-1]["score"]["scoreGiven"] == graded_score(tool, "student1")["score"]
    assert later[-1]["score"]["timestamp"] > platform.scores[before - 1]["score"]["timestamp"]


@needs_sandbox
def test_a_score_for_a_platform_that_is_down_waits_in_the_outbox_and_arrives_when_it_is_back(tool, tmp_path):
    platform = tool.platform
    platform.down = True
    browser = Browser(tool.url)
    page = browser.launch(
        platform.launch("student2", name="Мария Смирнова", custom={"notebook": "01"}, resource_link="32")
    )
    wrong = submission(NB, solved=False)
    assert upload(browser, page, write(wrong, tmp_path / "stub.ipynb").read_bytes()).status_code == 200
    result = wait_for(lambda: graded_score(tool, "student2"), what="grading")
    tried = wait_for(
        lambda: [r for r in tool.outbox() if r["student"] == "student2" and r["tries"] >= 2], what="retries"
    )
    assert tried[-1]["sent"] is None and tried[-1]["error"]  # kept, with why it did not go
    assert not [s for s in platform.scores if s["score"]["userId"] == "student2"]
    tool.process.kill()  # the server stops at the worst moment: the score is still owed, in DATA/lti.db
    tool.process.wait(30)
    tool.start()
    assert [r for r in tool.outbox() if r["student"] == "student2" and r["sent"] is None]
    platform.down = False
    score = wait_for(
        lambda: [s for s in platform.scores if s["score"]["userId"] == "student2"], seconds=120, what="the score"
    )
    assert score[-1]["score"]["scoreGiven"] == result["score"]
    made = platform.lineitems[score[-1]["lineitem"]]  # no line item in the launch: the tool made one
    assert made["tag"] == NB and made["scoreMaximum"] == result["max_score"] and made["resourceLinkId"] == "32"
    wait_for(lambda: all(r["sent"] for r in tool.outbox()), what="every score owed sent")


def test_deep_linking_places_a_notebook_as_a_graded_activity_in_a_signed_response(tool):
    import html
    import re

    browser = Browser(tool.url)
    page = browser.launch(tool.platform.launch("teacher1", roles=INSTRUCTOR, deep_link=True))
    assert page.status_code == 200 and "Разместить" in page.text, page.text
    forms = re.findall(r'name="launch" value="([^"]+)".*?name="notebook" value="([^"]*)"', page.text)
    launch_id = next(lid for lid, nb in forms if nb == NB)
    back = browser.post(tool.url + "/lti/deeplink", data={"launch": html.unescape(launch_id), "notebook": NB})
    assert back.status_code == 200, back.text
    action = html.unescape(re.search(r'action="([^"]+)"', back.text).group(1))
    assert action.startswith(tool.platform.url + "/mod/lti/contentitem_return.php")
    assert tool.platform.url in back.headers["Content-Security-Policy"]
    assert requests.post(action, data=browser.form_fields(back.text), timeout=10).status_code == 200
    (items,) = tool.platform.deep_links  # checked by the platform against the tool's JWKS
    (item,) = items
    assert item["type"] == "ltiResourceLink" and item["url"] == tool.url + "/lti/launch"
    assert item["custom"] == {"notebook": NB} and item["lineItem"]["scoreMaximum"] > 0
    again = browser.post(tool.url + "/lti/deeplink", data={"launch": html.unescape(launch_id), "notebook": NB})
    assert again.status_code == 403  # a choice is made once
    # a student cannot place activities
    student = Browser(tool.url).launch(tool.platform.launch("student1", deep_link=True))
    refused(tool, student, "только преподаватель")


def test_personal_links_keep_working_without_lti(tool):
    with open(tool.data / "tokens.csv", newline="", encoding="utf-8") as f:
        links = [r["link"] for r in csv.DictReader(f)]
    assert links and all(requests.get(link, timeout=10).status_code == 200 for link in links)
    assert requests.get(tool.url + "/lti/jwks", timeout=10).json()["keys"] == [tool.first_key]  # the same key
    assert LEARNER  # the learner role is what the platform sends by default


def test_nrps_reads_the_roster_at_the_instructors_launch(tool):
    tool.platform.members = [
        {"status": "Active", "user_id": "41", "name": "Пётр Сидоров", "roles": LEARNER},
        {"status": "Active", "user_id": "42", "name": "Ольга Ким", "roles": CANVAS_STUDENT},
        {"status": "Inactive", "user_id": "43", "name": "Ушедший Студент", "roles": LEARNER},
        {"status": "Active", "user_id": "teacher1", "name": "Анна Преподавательница", "roles": INSTRUCTOR},
    ]
    page = Browser(tool.url).launch(tool.platform.launch("teacher1", roles=INSTRUCTOR))
    assert page.status_code == 200 and "Пётр Сидоров" in page.text and "Ольга Ким" in page.text, page.text
    assert "Ушедший" not in page.text
    with sqlite3.connect(tool.data / "server.db") as db:
        students = dict(db.execute("SELECT id, name FROM students"))
    assert students["41"] == "Пётр Сидоров" and "43" not in students and "teacher1" not in students
    before = tool.recorded()
    own = Browser(tool.url).launch(tool.platform.launch("41", name="Пётр Сидоров"))
    assert "Пётр Сидоров" in own.text
    assert tool.recorded()[0] == before[0]  # the same student as the roster's, not a new one


def test_lti_add_writes_the_configuration_serve_reads(tmp_path):
    config = tmp_path / "data"
    p = {
        "issuer": "https://moodle.example.edu",
        "client_id": "kXq3zYbT7u0AbCd",
        "auth_login_url": "https://moodle.example.edu/mod/lti/auth.php",
        "auth_token_url": "https://moodle.example.edu/mod/lti/token.php",
        "key_set_url": "https://moodle.example.edu/mod/lti/certs.php",
    }
    options = [f"--{k.replace('_', '-')}={v}" for k, v in p.items()]
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "lti", "add", "--data", str(config), *options, "--deployment-id", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    from autograder.server.lti import read_config

    assert read_config(config / "lti.json") == [{**p, "deployment_ids": ["3"]}]
    bad = subprocess.run(
        [sys.executable, "-m", "autograder", "lti", "add", "--data", str(config), *options[:2]],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0 and "required" in bad.stderr


@needs_sandbox
def test_a_late_attempt_is_posted_less_the_late_penalty_as_the_exports_count_it(tmp_path):
    from datetime import datetime, timedelta

    late = Tool(tmp_path)
    late.extra = ["--due", f"{datetime.now() - timedelta(hours=2):%Y-%m-%d %H:%M}", "--late-penalty", "10"]
    late.start()
    try:
        assert Browser(late.url).launch(late.platform.launch("teacher", roles=INSTRUCTOR)).status_code == 200
        browser = Browser(late.url)
        page = browser.launch(late.platform.launch("latecomer", custom={"notebook": "01"}))
        solved = write(submission(NB), tmp_path / "solved.ipynb").read_bytes()
        assert upload(browser, page, solved).status_code == 200
        result = wait_for(lambda: graded_score(late, "latecomer"), what="grading")
        (score,) = wait_for(lambda: late.platform.scores, what="the score")
        assert score["score"]["scoreGiven"] == round(result["score"] * 0.9, 2) < result["max_score"]
        out = tmp_path / "export"
        run = subprocess.run(
            [sys.executable, "-m", "autograder", "export", "--from-server", str(late.data), "--out", str(out)]
            + ["--export", "canvas", "--assignment", "HW 1 (5)"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        with open(out / "canvas_grades_import.csv", newline="", encoding="utf-8") as f:
            rows = {r["ID"]: r["HW 1 (5)"] for r in csv.DictReader(f)}
        assert float(rows["latecomer"]) == score["score"]["scoreGiven"]
    finally:
        late.process.terminate()
        late.process.wait(30)
        late.platform.stop()
        late.canvas.stop()
