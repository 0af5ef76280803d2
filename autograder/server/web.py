"""The course server's web side (Tornado): the student's page, uploads, results; the job bookkeeping.

Routes: /s/TOKEN (the student's page; POST: an upload from its form, CSRF-checked by Tornado's
xsrf cookie), /s/TOKEN/attempt/N (one result, as the feedback page), /api/submit and
/api/attempt/N (the student edition's `check.py --submit`: the token in an Authorization header,
which a browser never sends across sites, so no xsrf cookie is needed there); with an LTI tool, its
/lti/ routes (autograder.server.lti_web). Every page is escaped
(Tornado templates autoescape) and served with a strict Content-Security-Policy: no scripts at all.
"""

import base64
import dataclasses
import hashlib
import json
import logging
import re
import threading
import time
import types
from datetime import datetime
from pathlib import Path

import tornado.ioloop
import tornado.web
from tornado import httputil

from ..classroom.cache import file_key
from ..course.bundle import HIDDEN
from ..notebook.feedback import STYLE, render_test, student_label, with_late_note
from ..notebook.results import ERROR, Result, extra_note, result_from_dict
from ..notebook.templating import Templates
from ..platforms.report import test_report
from . import store as records
from .messages import Graded, GradeJob, MessageError
from .queue import HEARTBEAT, LEASE, RUNNING

CSP = "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
STATUS_RU = {"queued": "в очереди", "running": "проверяется", "graded": "проверено", "error": "ошибка проверки"}
HOUR = 3600
SIMILAR_LISTED = 20  # pairs per notebook listed on the instructor's page (all: the full report, similarity.csv)
HIDDEN_NOTE = "Скрытый тест: до срока сдачи видны только баллы; сообщение появится после срока."


class Course:
    """What the server serves: the assignment, the records, the queue."""

    def __init__(
        self,
        store,
        huey,
        task,
        notebooks,
        due=None,
        refuse_late=False,
        per_hour=10,
        max_bytes=20 << 20,
        points=False,
        lease=LEASE,
        remote=False,
        late_penalty=None,
        data=None,
    ):
        from ..classroom.settings import grading_settings, settings_digest
        from ..course.course import CourseNotebook, load_config

        self.store, self.huey, self.task = store, huey, task
        self.notebooks = {n: CourseNotebook.load(n) for n in notebooks}
        self.due, self.refuse_late, self.per_hour, self.max_bytes = due, refuse_late, per_hour, max_bytes
        self.settings_key = settings_digest(grading_settings(load_config({})))
        self.uploads = store.data / "uploads"
        self.uploads.mkdir(exist_ok=True)
        self.points_only = points  # before the due date the hidden tests show their points, not their messages
        self.lease = max(lease, 3 * HEARTBEAT)  # a job whose worker has not beaten for this long is lost
        self.remote = remote  # workers may run on other hosts (Redis): they outlive a restart of the server
        self.late_penalty = late_penalty  # the exports' late policy (serve --late-penalty), said on the page
        self.data = data  # the data folder whose assignment.json holds the late policy (None: --due only)
        self.hidden = {
            n: {tid for tid, t in nb.tests.items() if HIDDEN.search(t.source)} for n, nb in self.notebooks.items()
        }
        self.similarity_lock = threading.Lock()
        self.similarity_of: tuple = (None, [])  # (the files compared, their pairs): made again when they change
        self.lti = None  # autograder.server.lti.Tool when the server is an LTI tool (serve --lti-config)

    def graded_changed(self) -> None:
        """An attempt was graded (or an LTI launch named an activity): the scores the platforms do not have
        yet go to the LTI outbox."""
        if self.lti is not None:
            max_scores = {n: nb.max_score for n, nb in self.notebooks.items()}
            self.lti.sync(self.store, list(self.notebooks), self.late_policy(), max_scores)

    def similarity(self, files: dict, names: dict) -> list[dict]:
        """The similarity report's pairs for the attempts that count (in a thread: copydetect takes a while
        for a large class; the report is remade only when an attempt that counts changed)."""
        from .export import similarity_report

        key = [sorted((s, n, str(p)) for s, by_notebook in files.items() for n, p in by_notebook.items())]
        key.append(sorted((s, names.get(s, "")) for s in files))
        with self.similarity_lock:
            if self.similarity_of[0] != key:
                self.similarity_of = (key, similarity_report(self.store.data, files, names, list(self.notebooks)))
            return self.similarity_of[1]

    def late_policy(self):
        """serve's --due, --late-penalty and --extensions (the file read again: an edit applies at once)."""
        from ..platforms.late import LatePolicy
        from .export import server_policy

        if self.data is None:
            return LatePolicy(self.due, self.late_penalty) if self.due else None
        try:
            return server_policy(self.data, say=lambda *lines: None)
        except OSError as e:  # the extensions file gone while serving: the class's due date, said in the log
            logging.getLogger(__name__).warning("the extensions file could not be read: %s", e)
            return LatePolicy(self.due, self.late_penalty) if self.due else None

    def due_of(self, student: str):
        """The student's due date (an extension moves it; a waiver lets late work in), or None."""
        policy = self.late_policy()
        extension = policy.extensions.get(student) if policy else None
        if extension and extension.due is None:
            return None
        return extension.due if extension else self.due

    def hides(self) -> bool:
        return self.points_only and (self.due is None or datetime.now() <= self.due)

    def shown(self, result):
        """The result as a student may see it now: before the due date, with --before-due points, the
        hidden tests' messages are replaced by a note."""
        if result is None or not self.hides():
            return result
        hidden = self.hidden.get(result.notebook, set())
        tests = [
            dataclasses.replace(t, message=HIDDEN_NOTE if t.name in hidden and t.message else t.message)
            for t in result.tests
        ]
        return dataclasses.replace(result, tests=tests)

    def shown_page(self, result, feedback: str) -> str:
        """The feedback page as a student may see it now (each hidden test's block rendered again)."""
        if result is None or not self.hides():
            return feedback
        for original, now in zip(result.tests, self.shown(result).tests):
            feedback = feedback.replace(render_test(original), render_test(now))
        return feedback

    def notebook_named(self, text: str) -> str | None:
        """The assignment's notebook a name means (its full name or its number, e.g. 01), else None."""
        text = (text or "").strip().removesuffix(".ipynb")
        return next((n for n in self.notebooks if text in (n, n.split("_")[0])), None)

    def wait_before_next(self, student: str) -> int:
        """Seconds until the student may upload again (0: now)."""
        now = time.time()
        recent = self.store.uploads_since(student, now - HOUR)
        if len(recent) < self.per_hour:
            return 0
        return max(1, int(recent[len(recent) - self.per_hour] + HOUR - now) + 1)

    def submit(self, student: str, notebook: str, content: bytes) -> int:
        """Keep the file (by its hash), record the attempt and queue it (or answer it from the cache)."""
        sha = hashlib.sha256(content).hexdigest()
        path = self.uploads / f"{sha}.ipynb"
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(content)
            tmp.replace(path)
        key = file_key(path, self.notebooks[notebook].digest + self.settings_key)
        due = self.due_of(student)
        late = due is not None and datetime.now() > due
        earlier = self.store.cached(student, notebook, key)
        attempt = self.store.add_attempt(student, notebook, sha, key, late)
        if earlier and earlier[0] == records.GRADED:
            self.store.copy_result(attempt, earlier[2], earlier[3])
            self.graded_changed()
        elif earlier and earlier[1]:
            self.store.set_task(attempt, earlier[1])
        else:
            self.enqueue(attempt, student, notebook, content)
        return attempt

    def enqueue(self, attempt: int, student: str, notebook: str, content: bytes) -> str:
        """Queue the file for `attempt` as a new job; its id."""
        name = self.store.students().get(student, "")
        job = f"{attempt}-{time.time_ns()}"
        self.store.set_task(attempt, job)
        max_score = self.notebooks[notebook].max_score
        wire = GradeJob(
            attempt=job, student=student, name=name, notebook=notebook, content=content, max_score=max_score
        )
        self.huey.enqueue(self.task.s(wire.to_wire(), id=job))
        return job

    def requeue(self, attempt: int, student: str, notebook: str, sha: str, job: str) -> None:
        """The file of a lost job queued again, under a new id, for every attempt waiting on it."""
        if job:
            self.huey.get(RUNNING + job)  # its worker's last beat
        new = self.enqueue(attempt, student, notebook, (self.uploads / f"{sha}.ipynb").read_bytes())
        if job:
            self.store.retask(job, new)

    def collect(self) -> None:
        """Record every finished job; a job whose worker stopped beating for the lease is queued again
        (called every half second, and once at start)."""
        now = time.time()
        for attempt, student, notebook, sha, job in {row[4]: row for row in self.store.unfinished()}.values():
            if not job:
                continue
            answer = self.huey.result(job, preserve=True)
            beat = self.huey.get(RUNNING + job, peek=True) if answer is None else None
            if answer is not None:
                self.store.record(job, self.graded(answer, student, notebook))
                self.graded_changed()
                self.huey.result(job)  # now kept in server.db: drop it from the queue's store
                self.huey.get(RUNNING + job)
            elif beat is not None and now - beat > self.lease:
                self.requeue(attempt, student, notebook, sha, job)  # its worker died (another host, or killed)
            elif beat is not None:
                self.store.mark_running(job)

    def graded(self, wire, student: str, notebook: str) -> Graded:
        """A job's answer as its worker sent it: its Graded, or a grader's error if it is none."""
        try:
            return Graded.from_wire(wire)
        except MessageError as e:
            reason = f"the grading worker's answer is not a graded result: {e}"
            known = self.notebooks.get(notebook)
            return Graded(result=Result(student, notebook, 0, known.max_score if known else 0, ERROR, reason))

    def recover(self) -> int:
        """After a stop at any moment: a job neither answered nor waiting in the queue is queued again —
        unless, with workers on other hosts, one is still beating on it (it outlived the server; if it
        stops, the lease requeues it). How many were queued again."""
        self.collect()
        waiting = {t.id for t in self.huey.pending()}
        again = 0
        jobs = {}
        for row in self.store.unfinished():
            jobs.setdefault(row[4] or f"unqueued-{row[0]}", row)  # an attempt killed before it was queued: alone
        for attempt, student, notebook, sha, job in jobs.values():
            if job and job in waiting:
                continue
            beat = self.huey.get(RUNNING + job, peek=True) if job else None
            if self.remote and beat is not None and time.time() - beat <= self.lease:
                continue
            self.requeue(attempt, student, notebook, sha, job)
            again += 1
        return again


def result_of(attempt: dict):
    return result_from_dict(json.loads(attempt["result"])) if attempt.get("result") else None


class Base(tornado.web.RequestHandler):
    def set_default_headers(self):
        self.set_header("Content-Security-Policy", self.settings.get("csp", CSP))
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")  # the link's token never leaves in a Referer
        self.set_header("Cache-Control", "no-store")

    @property
    def course(self) -> Course:
        return self.application.settings["course"]

    def student_of(self, token: str) -> str:
        who = self.course.store.who(token)
        if who is None or who == records.INSTRUCTOR:
            raise tornado.web.HTTPError(
                403, "Ссылка не действует: возьмите новую у преподавателя (check.py: --link НОВАЯ_ССЫЛКА)."
            )
        return who

    def write_error(self, status_code, **kwargs):
        if getattr(self, "retry_after", 0):
            self.set_header("Retry-After", str(self.retry_after))
        reason = error_text(kwargs) or self._reason
        own = re.fullmatch(r"/s/([A-Za-z0-9_-]{1,100})(/.*)?", self.request.path)
        back = own.group(1) if own and status_code != 403 else ""  # a refused upload from the form: back to it
        self.finish(render("error.html", title="Ошибка", status=status_code, reason=reason, back=back))


def error_text(kwargs) -> str:
    """The message of the HTTPError being answered, as written (Tornado keeps it doubled-% for its log)."""
    error = kwargs.get("exc_info", (None, None))[1]
    message = getattr(error, "log_message", None)
    return message % error.args if message else ""


SERVER_TEMPLATES = Templates(Path(__file__).parent / "templates")  # the server's pages, autoescaped


def render(template: str, **values) -> str:
    """A page (or a block of one) of the server's templates, made with `values`."""
    return SERVER_TEMPLATES.render(template, **values)


class Style(tornado.web.RequestHandler):
    def get(self):
        self.set_header("Content-Type", "text/css; charset=utf-8")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.write(
            STYLE + "form{margin:1em 0;padding:1em;border:1px solid #d0d7de;border-radius:6px}"
            ".wide{overflow-x:auto} .wide td,.wide th{white-space:nowrap}"
        )


@tornado.web.stream_request_body
class Upload(Base):
    """The body of an upload is read in chunks and dropped past the size limit (then 413)."""

    def prepare(self):
        self.body, self.too_big = bytearray(), False
        self.request.connection.set_max_body_size(max(self.course.max_bytes, 256 << 20))
        length = int(self.request.headers.get("Content-Length") or 0)
        self.too_big = length > self.course.max_bytes + 64 * 1024

    def data_received(self, chunk):
        if not self.too_big:
            self.body += chunk
            self.too_big = len(self.body) > self.course.max_bytes + 64 * 1024

    def refuse(self, code: int, message: str):
        raise tornado.web.HTTPError(code, message, reason=httputil.responses.get(code))

    def upload(self, student: str) -> int:
        """Checks, in order: size, the notebook's name, the due date, the hourly limit; then the attempt."""
        if self.too_big:
            self.refuse(413, f"Файл больше {self.course.max_bytes // 2**20} МБ.")
        args, files = {}, {}
        httputil.parse_body_arguments(self.request.headers.get("Content-Type", ""), bytes(self.body), args, files)
        upload = (files.get("file") or [None])[0]
        if upload is None or not upload["body"]:
            self.refuse(400, "Нет файла блокнота (поле file).")
        wanted = (args.get("notebook") or [b""])[0].decode("utf-8", "replace") or upload["filename"]
        notebook = self.course.notebook_named(wanted)
        if notebook is None:
            self.refuse(
                400, f"Блокнот «{wanted[:80]}» не из этого задания; можно сдать: {', '.join(self.course.notebooks)}."
            )
        due = self.course.due_of(student)
        if due is not None and datetime.now() > due and self.course.refuse_late:
            self.refuse(403, f"Срок сдачи прошёл ({due:%Y-%m-%d %H:%M}): работы больше не принимаются.")
        wait = self.course.wait_before_next(student)
        if wait:
            self.retry_after = wait
            self.refuse(429, f"Слишком много попыток за час: следующая через {wait // 60} мин {wait % 60} с.")
        return self.course.submit(student, notebook, bytes(upload["body"]))


class StudentPage(Upload):
    def check_xsrf_cookie(self):
        pass  # checked in post(), once the streamed body (with its _xsrf field) has been read

    def get(self, token):
        student = self.student_of(token)
        self.finish(student_page(self.course, student, token, self.xsrf_form_html()))

    def post(self, token):
        student = self.student_of(token)
        if not self.too_big:
            args = {}
            httputil.parse_body_arguments(self.request.headers.get("Content-Type", ""), bytes(self.body), args, {})
            self.request.body_arguments, self.request.arguments = args, {**self.request.arguments, **args}
            tornado.web.RequestHandler.check_xsrf_cookie(self)
        self.upload(student)
        self.redirect(f"/s/{token}", status=303)


class ApiSubmit(Upload):
    """check.py --submit: Authorization: Bearer TOKEN; answers JSON {"attempt": N}."""

    def check_xsrf_cookie(self):
        pass  # no cookie is used: the token comes in a header a cross-site form cannot send

    def token_student(self) -> str:
        header = self.request.headers.get("Authorization", "")
        return self.student_of(header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else "")

    def post(self):
        attempt = self.upload(self.token_student())
        self.set_status(202)
        self.finish({"attempt": attempt})

    def write_error(self, status_code, **kwargs):
        if getattr(self, "retry_after", 0):
            self.set_header("Retry-After", str(self.retry_after))
        reason = error_text(kwargs) or self._reason
        self.finish({"error": str(reason), "status": status_code})


class ApiAttempt(ApiSubmit):
    def get(self, attempt_id):
        student = self.token_student()
        attempt = self.course.store.attempt(int(attempt_id))
        if attempt is None or attempt["student"] != student:
            raise tornado.web.HTTPError(404, "Нет такой попытки.")
        result = self.course.shown(result_of(attempt))
        self.finish(
            {
                "attempt": attempt["id"],
                "status": attempt["status"],
                "late": bool(attempt["late"]),
                "notebook": attempt["notebook"],
                "result": result.to_dict() if result else None,
                "report": test_report(result) if result else "",
            }
        )


class ResultPage(Base):
    def get(self, token, attempt_id):
        student = self.student_of(token)
        attempt = self.course.store.attempt(int(attempt_id))
        if attempt is None or attempt["student"] != student:
            raise tornado.web.HTTPError(404, "Нет такой попытки.")
        if not attempt["feedback"]:
            title = f"Попытка {attempt['id']}"
            self.finish(render("attempt_status.html", title=title, status=STATUS_RU[attempt["status"]], token=token))
            return
        from .export import late_note_ru

        feedback = self.course.shown_page(result_of(attempt), attempt["feedback"])
        feedback = with_late_note(feedback, late_note_ru(self.course.late_policy(), attempt))
        styles = re.findall(r"<style>(.*?)</style>", feedback, re.S)
        self.set_header(
            "Content-Security-Policy",
            self.settings.get("csp", CSP).replace("style-src 'self'", f"style-src {style_hashes(styles)}"),
        )
        back = render("back_link.html", href=f"/s/{token}", text="← к списку попыток")
        self.finish(feedback.replace("<body>", "<body>" + back, 1))


def student_page(course: Course, student: str, token: str, xsrf: str) -> str:
    from .export import attempt_penalty, late_note_ru

    name = course.store.students().get(student, "")
    policy = course.late_policy()
    extension = policy.extensions.get(student) if policy else None
    due = f"Срок сдачи: {course.due:%Y-%m-%d %H:%M}." if course.due else ""
    if extension:
        note = f" ({extension.note})" if extension.note else ""
        due += f" Ваш срок продлён до {extension.due:%Y-%m-%d %H:%M}{note}." if extension.due else ""
        due += f" Штраф за опоздание вам снят{note}." if extension.due is None else ""
    rows = []
    for a in course.store.attempts(student):
        r = result_of(a)
        late = attempt_penalty(policy, a)
        rows.append(
            types.SimpleNamespace(
                id=a["id"],
                notebook=a["notebook"],
                uploaded=f"{datetime.fromtimestamp(a['uploaded']):%Y-%m-%d %H:%M}",
                note=late_note_ru(policy, a) if late and late.days > 0 else "",  # an extension is said above, once
                late=a["late"],
                status=STATUS_RU.get(a["status"], a["status"]),
                score=f"{r.score:g} из {r.max_score:g}{extra_note(r)}" if r and a["status"] == "graded" else "",
                link=bool(a["feedback"]),
            )
        )
    options = [(n, course.notebooks[n].title) for n in course.notebooks]
    label = student_label(student, name)
    return render(
        "student.html",
        title="Проверка заданий",
        label=label,
        due=due,
        per_hour=course.per_hour,
        token=token,
        xsrf=xsrf,
        options=options,
        rows=rows,
    )


class TeacherBase(Base):
    def teacher(self, token: str) -> None:
        if self.course.store.who(token) != records.INSTRUCTOR:
            raise tornado.web.HTTPError(403, "Ссылка не действует.")

    def results(self):
        from .export import class_results

        max_scores = {n: nb.max_score for n, nb in self.course.notebooks.items()}
        return class_results(self.course.store, list(self.course.notebooks), self.course.due, max_scores)

    async def similar(self) -> list[dict] | None:
        """The pairs of the similarity report, made up to date (None: it could not be made)."""
        from .export import counted_files

        files = counted_files(self.course.store, list(self.course.notebooks), self.course.due)
        names = self.course.store.students()
        try:
            return await tornado.ioloop.IOLoop.current().run_in_executor(None, self.course.similarity, files, names)
        except RuntimeError:
            return None


class TeacherPage(TeacherBase):
    async def get(self, token):
        self.teacher(token)
        last, best, _ = self.results()
        pairs = await self.similar()
        self.finish(teacher_page(self.course, token, last, best, pairs))


class TeacherReview(TeacherBase):
    """The feedback page of the attempt that counts, as the instructor sees it: with what is listed For review."""

    def get(self, token, student, notebook):
        from ..notebook.feedback import instructor_view

        self.teacher(token)
        last, _, pages = self.results()
        result = next((r for r in last if (r.student, r.notebook) == (student, notebook)), None)
        if result is None or (student, notebook) not in pages:
            raise tornado.web.HTTPError(404, "Нет такой проверенной попытки.")
        feedback = instructor_view(pages[student, notebook], result)
        styles = re.findall(r"<style>(.*?)</style>", feedback, re.S)
        self.set_header(
            "Content-Security-Policy",
            self.settings.get("csp", CSP).replace("style-src 'self'", f"style-src {style_hashes(styles)}"),
        )
        back = render("back_link.html", href=f"/teacher/{token}", text="← к ходу работы класса")
        self.finish(feedback.replace("<body>", "<body>" + back, 1))


class TeacherSimilarity(TeacherBase):
    """The similarity report as `grade` writes it (similarity.html), side by side, for the attempts that count."""

    async def get(self, token):
        from .export import REPORT

        self.teacher(token)
        if await self.similar() is None:
            raise tornado.web.HTTPError(500, "Отчёт о сходстве не получился: причина — в журнале сервера.")
        report = (self.course.store.data / REPORT / "similarity.html").read_text(encoding="utf-8")
        styles = re.findall(r"<style>(.*?)</style>", report, re.S)
        self.set_header(
            "Content-Security-Policy",
            self.settings.get("csp", CSP).replace("style-src 'self'", f"style-src {style_hashes(styles)}"),
        )
        self.finish(report)


def style_hashes(styles: list[str]) -> str:
    """The CSP sources that allow exactly these inline <style> blocks (a page we made, with no scripts)."""
    return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in styles)


class TeacherExport(TeacherBase):
    FILES = {"moodle": "moodle_grading_worksheet.csv", "feedback": "moodle_feedback_files.zip"}
    FILES["canvas"] = "canvas_grades_import.csv"

    def get(self, token, kind):
        import tempfile

        from .export import export_from_server

        self.teacher(token)
        with tempfile.TemporaryDirectory() as out:
            export_from_server(
                self.course.store.data, Path(out), ["canvas" if kind == "canvas" else "moodle"], say=lambda *a: None
            )
            path = Path(out) / self.FILES[kind]
            if not path.exists():
                raise tornado.web.HTTPError(
                    404,
                    "Для Canvas нужен столбец журнала: запустите сервер с --assignment." if kind == "canvas" else "",
                )
            content = path.read_bytes()
        kind_of = "application/zip" if path.suffix == ".zip" else "text/csv; charset=utf-8"
        self.set_header("Content-Type", kind_of)
        self.set_header("Content-Disposition", f'attachment; filename="{path.name}"')
        self.finish(content)


def late_rows(course: Course) -> list[tuple]:
    """The late policy as the exports apply it (server.export.counted_attempts): per student and
    notebook that has a penalty, extension or waiver, (student, notebook's number, the points of the upload
    that counts, after its penalty, the penalty in words)."""
    from .export import counted_attempts

    policy = course.late_policy()
    if policy is None:
        return []
    chosen, penalties = counted_attempts(course.store, list(course.notebooks), policy, say=lambda *lines: None)
    rows = []
    for (student, notebook), p in sorted(penalties.items()):
        if (student, notebook) in chosen:
            score = json.loads(chosen[student, notebook]["result"])["score"]
            rows.append((student, notebook.split("_")[0], score, p.apply(score), p.reason_ru()))
    return rows


def late_section(course: Course) -> str:
    """The instructor page's section of late work (late_rows), or nothing when there is none."""
    rows = late_rows(course)
    return render("late_section.html", late=rows) if rows else ""


def teacher_page(course: Course, token: str, last: list, best: list, pairs: list[dict] | None = None) -> str:
    from ..classroom.similarity import THRESHOLD
    from ..platforms.analysis import attempted, item_rows

    names = course.store.students()
    attempts = course.store.attempts()
    counts = {}
    for a in attempts:
        counts[a["status"]] = counts.get(a["status"], 0) + 1
    tries = {}
    for a in attempts:
        tries[a["student"], a["notebook"]] = tries.get((a["student"], a["notebook"]), 0) + 1
    best_of = {(r.student, r.notebook): r for r in best}
    due = f"{course.due:%Y-%m-%d %H:%M}" if course.due else "не задан"
    late = sum(bool(course.due) and datetime.fromtimestamp(a["uploaded"]) > course.due for a in attempts)
    if late:
        penalty = course.late_penalty
        rule = (
            f"в выгрузке считаются со штрафом {penalty:g}% за начатый день, если так баллов больше"
            if penalty is not None
            else "в выгрузке не считаются (export --late-penalty)"
        )
        due += f"; после срока попыток: {late} — {rule}"
    notebooks = []
    for notebook, course_nb in course.notebooks.items():
        tests = list(course_nb.tests)
        rows = []
        for r in (r for r in last if r.notebook == notebook):
            b = best_of[r.student, notebook]
            per_test = {t.name: t for t in r.tests}
            best_test = {t.name: t for t in b.tests}
            points = lambda of, t: f"{of[t].score:g}" if t in of else "–"
            rows.append(
                types.SimpleNamespace(
                    label=student_label(r.student, names.get(r.student, "")),
                    tries=tries.get((r.student, notebook), 0),
                    score=r.score,
                    max_score=r.max_score,
                    best=b.score,
                    cells=[(points(per_test, t), points(best_test, t)) for t in tests],
                )
            )
        silent = sorted(set(names) - {r.student for r in last})
        notebooks.append(
            types.SimpleNamespace(
                name=notebook,
                title=course_nb.title,
                tests=tests,
                rows=rows,
                silent=", ".join(student_label(s, names[s]) for s in silent),
            )
        )
    return render(
        "teacher.html",
        title="Ход работы класса",
        names=names,
        due=due,
        counts=[(STATUS_RU.get(k, k), v) for k, v in sorted(counts.items())],
        token=token,
        late=late_rows(course),
        notebooks=notebooks,
        review=review_rows(token, last, names),
        items=item_rows(last),
        attempted=attempted,
        similar=similar_rows(course, pairs, names),
        threshold=THRESHOLD,
    )


def review_rows(token: str, last: list, names: dict) -> list[tuple]:
    """The instructor page's *For review* section: each attempt that counts with something listed For review
    (what it did to the course's test cells, code reaching for the grading machinery, a figure not proven),
    as (the student, the notebook, the link to its feedback page's instructor view, the lines)."""
    from urllib.parse import quote

    return [
        (
            student_label(r.student, names.get(r.student, "")),
            r.notebook,
            f"/teacher/{token}/review/{quote(r.student, safe='')}/{r.notebook}",
            list(r.review),
        )
        for r in last
        if r.review
    ]


def similar_rows(course: Course, pairs: list[dict] | None, names: dict):
    """The instructor page's similarity section: groups of the same code (one row each, not a pair per two),
    the pairs above the threshold outside them (the first SIMILAR_LISTED per notebook), the counts; None
    when the report could not be made."""
    from ..classroom.similarity import THRESHOLD

    if pairs is None:
        return None
    title = {n: nb.title for n, nb in course.notebooks.items()}
    label = lambda s: student_label(s, names.get(s, ""))
    grouped: dict = {}  # (notebook, group) → its students
    for p in pairs:
        if p.get("group"):
            grouped.setdefault((p["notebook"], p["group"]), set()).update((p["student_a"], p["student_b"]))
    above = [p for p in pairs if float(p["score"]) >= THRESHOLD and not p.get("group")]
    listed = [p for n in course.notebooks for p in [q for q in above if q["notebook"] == n][:SIMILAR_LISTED]]
    return types.SimpleNamespace(
        groups=[(title.get(n, n), [label(s) for s in sorted(members)]) for (n, _), members in grouped.items()],
        listed=[
            (title.get(p["notebook"], p["notebook"]), label(p["student_a"]), label(p["student_b"]), float(p["score"]))
            for p in listed
        ],
        above=len(above),
        more=SIMILAR_LISTED if len(listed) < len(above) else 0,
        below=sum(float(p["score"]) < THRESHOLD for p in pairs),
    )


def application(course: Course, tool=None) -> tornado.web.Application:
    """The server's routes; with `tool` (an LTI tool), its /lti/ routes too, and its pages may be framed by the
    platforms' pages and keep their xsrf cookie there (SameSite=None; Secure: LTI runs on HTTPS)."""
    from .lti_web import routes

    extra, csp, cookie = [], CSP, {"httponly": True, "samesite": "Strict"}
    if tool is not None:
        course.lti = tool
        extra = routes()
        csp = CSP.replace("frame-ancestors 'none'", "frame-ancestors " + (" ".join(tool.origins()) or "'none'"))
        cookie = {"httponly": True, "samesite": "None", "secure": True}
    return tornado.web.Application(
        extra
        + [
            (r"/style\.css", Style),
            (r"/s/([A-Za-z0-9_-]{1,100})", StudentPage),
            (r"/s/([A-Za-z0-9_-]{1,100})/attempt/([0-9]{1,12})", ResultPage),
            (r"/teacher/([A-Za-z0-9_-]{1,100})", TeacherPage),
            (r"/teacher/([A-Za-z0-9_-]{1,100})/export/(moodle|canvas|feedback)", TeacherExport),
            (r"/teacher/([A-Za-z0-9_-]{1,100})/similarity", TeacherSimilarity),
            (r"/teacher/([A-Za-z0-9_-]{1,100})/review/([^/]{1,200})/([A-Za-z0-9_]{1,100})", TeacherReview),
            (r"/api/submit", ApiSubmit),
            (r"/api/attempt/([0-9]{1,12})", ApiAttempt),
        ],
        course=course,
        lti=tool,
        csp=csp,
        xsrf_cookies=True,
        xsrf_cookie_kwargs=cookie,
        default_handler_class=NotFound,
    )


class NotFound(Base):
    def prepare(self):
        raise tornado.web.HTTPError(404, "Нет такой страницы.")
