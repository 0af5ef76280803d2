"""The house, typed and templated (issue 42 item 4): one class named `Answer`, one default for `jobs`,
typed messages between the course server and its grading workers, and no HTML built in f-strings."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autograder"


def sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text())


def test_one_class_is_named_answer():
    named = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path, tree in sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.name == "Answer"
    ]
    assert [n.rsplit(":", 1)[0] for n in named] == ["autograder/wall/protocol.py"], named


def test_jobs_has_one_default():
    """pool.default_jobs is called in one place, the class grader's; everything above passes None."""
    calls = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path, tree in sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "default_jobs"
    ]
    assert [c.rsplit(":", 1)[0] for c in calls] == ["autograder/classroom/batch.py"], calls

    from autograder.classroom.workflow import Assignment
    from autograder.cli import parser

    assert Assignment().jobs is None
    assert parser().parse_args(["grade", "subs"]).jobs is None
    assert parser().parse_args(["demo"]).jobs is None


# -- the server ↔ worker messages --------------------------------------------------------------------
def a_result():
    from autograder.notebook.results import CellChange, Result, TestResult

    return Result(
        "1001",
        "01_bytes",
        3.5,
        5,
        "graded",
        "a message",
        tests=[TestResult("test_a", 3.5, 5, "почти")],
        review=["look"],
        changes=[CellChange("edited", "test_a", "x")],
    )


def test_the_server_worker_messages_round_trip_through_their_plain_form():
    import pickle

    from autograder.server.messages import TO_SERVER, TO_WORKER, Graded, GradeJob

    job = GradeJob(attempt="7-1", student="1001", name="Иван", notebook="01_bytes", content=b"{\xff}", max_score=5)
    for message, kinds in [(job, TO_WORKER), (Graded(result=a_result(), feedback="<p>page</p>"), TO_SERVER)]:
        wire = pickle.loads(pickle.dumps(message.to_wire()))  # as the queue keeps it
        assert type(message).from_wire(wire, kinds) == message
        assert wire["kind"] == message.kind
        assert "autograder" not in pickle.dumps(wire).decode("latin-1")  # no class of ours waits in the queue
    assert Graded.from_wire({"kind": "graded", "result": a_result().to_dict()}).feedback is None


def test_a_message_of_the_wrong_kind_field_or_type_is_refused():
    import pytest

    from autograder.server.messages import TO_SERVER, TO_WORKER, Graded, GradeJob, MessageError

    job = GradeJob(attempt="7-1", student="1001", name="", notebook="01_bytes", content=b"{}", max_score=5).to_wire()
    graded = Graded(result=a_result()).to_wire()
    bad = [
        (job, TO_SERVER),  # a job where an answer is expected
        (graded, TO_WORKER),
        ({**job, "kind": "grade!"}, TO_WORKER),
        ({k: v for k, v in job.items() if k != "content"}, TO_WORKER),  # a field missing
        ({**job, "extra": 1}, TO_WORKER),  # a field it has not
        ({**job, "content": "{}"}, TO_WORKER),  # text where bytes go
        ({**job, "max_score": "5"}, TO_WORKER),
        ({**graded, "feedback": 3}, TO_SERVER),
        ({**graded, "result": {"score": 1}}, TO_SERVER),  # no result
        ({**graded, "result": [1]}, TO_SERVER),
        ([job], TO_WORKER),
        ((1, "1001"), TO_WORKER),  # the old positional job
    ]
    for raw, kinds in bad:
        with pytest.raises(MessageError):
            GradeJob.from_wire(raw, kinds)


def test_the_server_records_a_malformed_answer_as_a_graders_error(tmp_path):
    from autograder.server.store import Store
    from autograder.server.web import Course

    store = Store(tmp_path)
    course = Course(store, None, None, [], data=tmp_path)
    graded = course.graded({"result": {"status": "graded"}, "feedback": None}, "1001", "01_bytes")
    assert graded.result.status == "error" and "not a graded result" in graded.result.message


def test_no_untyped_dict_crosses_the_server_worker_boundary():
    """The queue's job is called with a GradeJob's plain form and returns a Graded's; the server reads an
    answer only through Graded.from_wire, and the store records a Graded."""
    import inspect

    from autograder.server import queue, store, web

    assert "GradeJob.from_wire(" in inspect.getsource(queue.register)
    assert "graded.to_wire()" in inspect.getsource(queue.register)
    assert inspect.signature(queue.Grading.grade).return_annotation.__name__ == "Graded"
    assert inspect.signature(store.Store.record).parameters["graded"].annotation.__name__ == "Graded"
    source = inspect.getsource(web)
    assert ".to_wire()" in inspect.getsource(web.Course.enqueue) and "self.task.s(wire.to_wire()" in source
    assert re.search(r"store\.record\(job, self\.graded\(answer", source)
    assert not re.search(r"\[[\"'](result|feedback)[\"']\]", inspect.getsource(queue) + inspect.getsource(store))


# -- no HTML built in f-strings -----------------------------------------------------------------------
TAGS = (
    "html head body title meta link style script p a div span table tr td th thead tbody caption h1 h2 h3 h4 "
    "ul ol li pre code b i em strong br hr img form input button select option label mark details summary small"
)
HTML_TAG = re.compile(r"<(!DOCTYPE\b|/?(" + "|".join(TAGS.split()) + r")(\s[^<>]*)?/?>)", re.I)


def html_in_fstrings(tree) -> list[int]:
    """The lines of f-strings whose literal text holds an HTML tag (an f-string's text joined as written)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            if HTML_TAG.search(text):
                found.append(node.lineno)
    return found


def test_html_is_built_in_templates_not_in_fstrings():
    built = {str(path.relative_to(ROOT)): html_in_fstrings(tree) for path, tree in sources()}
    offenders = {path: lines for path, lines in built.items() if lines}
    assert not offenders, f"HTML in f-strings (use a template with autoescape): {offenders}"


def test_the_fstring_scan_finds_html_and_only_html():
    caught = ast.parse('x = f\'<p class="a">{v}</p>\'\ny = f"<!DOCTYPE html>{v}"\nz = f"<td>{a}" + "b"')
    assert html_in_fstrings(caught) == [1, 2, 3]
    spared = ast.parse('x = f"{a} < {b} > c"\ny = "<p>plain string</p>"\nz = f"{d}/<student_id>/<notebook>.html"')
    assert html_in_fstrings(spared) == []


def test_the_server_escapes_what_its_templates_show():
    from autograder.server.web import render

    page = render("error.html", title="<t>", status=400, reason="<script>alert('x')</script> & \"q\"", back="")
    assert "<script>" not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;q&quot;" in page
    assert "<title>&lt;t&gt;</title>" in page and "к странице проверки" not in page


def test_the_feedback_pages_blocks_escape_what_the_student_and_the_tests_wrote():
    from autograder.notebook.feedback import render_outputs, render_test, review_section, with_late_note
    from autograder.notebook.results import Result, TestResult

    hostile = "<script>alert('x')</script> & \"q\""
    shown = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;q&quot;"
    test = render_test(TestResult(hostile, 0, 1, hostile))
    assert "<script>" not in test and test.count(shown) == 3 and '<span class="fail">' in test
    out = render_outputs([{"output_type": "stream", "text": hostile}, {"output_type": "error", "traceback": [hostile]}])
    assert out == f'<div class="output"><pre>{shown}</pre></div><div class="error"><pre>{shown}</pre></div>'
    page = '<html><body><p class="total">Итог: 1 из 2</p></body></html>'
    assert with_late_note(page, hostile) == page.replace("</p>", f'</p><p class="late">{shown}</p>', 1)
    review = review_section(Result("s", "n", 0, 1, "graded", review=[hostile]))
    assert f"<li>{shown}</li>" in review and "<script>" not in review


# -- the session, split by job ------------------------------------------------------------------------
def test_the_session_is_split_by_job_and_its_memory_mark_is_typed():
    """wall/session.py starts and watches the sandbox's processes; the socket's frames are wall/channel.py's,
    the memory and CPU figures wall/accounting.py's; the memory mark is a dataclass, not a dict of strings."""
    import dataclasses

    from autograder.wall import accounting, channel, session

    own = lambda module, cls: {n for n, v in vars(cls).items() if callable(v) and v.__module__ == module.__name__}
    assert {"exchange", "send", "answer", "read_frame", "receive", "count_reading"} <= own(channel, channel.Channel)
    assert {"memory_mark", "memory_growth", "memory_sample", "cpu_clock"} <= own(accounting, accounting.Accounting)
    assert not own(session, session.KernelSession) & (
        own(channel, channel.Channel) | own(accounting, accounting.Accounting)
    )
    assert issubclass(session.KernelSession, (channel.Channel, accounting.Accounting))
    assert dataclasses.is_dataclass(accounting.MemoryMark)
    source = Path(accounting.__file__).read_text()
    assert 'mark["' not in source and "mark.get(" not in source
    assert "select" not in Path(session.__file__).read_text().split('"""', 2)[2]  # no socket reading left there


def test_a_lone_surrogate_passes_a_template_for_the_page_to_escape():
    from autograder.notebook.feedback import render_test
    from autograder.notebook.results import TestResult, safe_text
    from autograder.server.web import render

    assert "\udcff" in render("error.html", title="t", status=400, reason="\udcff", back="")
    test = TestResult("t", 0, 1, "ok")
    test.message = "\udcff<"  # past TestResult's own cleaning
    assert safe_text(render_test(test)) == render_test(TestResult("t", 0, 1, "\udcff<"))
