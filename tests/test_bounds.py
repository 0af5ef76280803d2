"""The grader's own work on what a submission controls is bounded (issue 18): each attack in-process."""

import json
import tempfile
import time
from pathlib import Path

import pytest
from local_session import LocalSession

from autograder.course.course import CourseNotebook
from autograder.course.simulate import submission, write
from autograder.notebook import bounds
from autograder.notebook.evaluate import Evaluator
from autograder.notebook.pipeline import NotebookGrader

# nested bounded repeats: a backtracking search that takes hours on a string of a few digits
BOMB = r"(?:(?:(?:(?:\d?){1,3}){1,3}){1,9}){1,9}\D"


def grade(notebook: str, replace: dict, **evaluator):
    course = CourseNotebook.load(notebook)
    with tempfile.TemporaryDirectory(prefix="bpe-bounds-") as tmp:
        path = write(submission(notebook, replace=replace), Path(tmp) / f"{notebook}.ipynb")
        grader = NotebookGrader(evaluator=Evaluator(**evaluator))
        return grader.grade(course, path, LocalSession)


def test_a_student_pattern_that_backtracks_forever_fails_its_tests_and_the_notebook_goes_on():
    started = time.monotonic()
    graded = grade(
        "05_regex_pretokenization",
        {
            "number_pattern": f'''
def number_pattern(max_digits):
    return r"{BOMB}|" + GPT2_PATTERN'''
        },
        regex_seconds=0.5,
    )
    result = graded.result
    tests = {t.name: t for t in result.tests}
    assert "регулярное выражение не завершилось за 0.5 с" in tests["test_number_pattern"].message
    assert tests["test_number_pattern"].score == 0
    # the tests after it ran and the other exercises keep their points
    assert result.status == "graded" and result.score > 0
    assert all(t.score == t.max_score for t in result.tests if "number_pattern" not in t.name)
    assert time.monotonic() - started < 120  # hours without the bound; a guard against a hang, not a measure


def test_every_way_a_test_reaches_regex_is_bounded():
    budget = bounds.Budget(0.3)
    names = {"__builtins__": bounds.bounded_builtins(budget)}
    exec("import regex as r\nfrom regex import findall\nimport regex", names)
    for call in (
        lambda: names["r"].findall(BOMB, "1" * 40),
        lambda: names["findall"](BOMB, "1" * 40),
        lambda: names["regex"].compile(BOMB).search("1" * 40),
        lambda: names["regex"].findall(BOMB, "1" * 40, timeout=1000),
    ):
        budget.start()
        with pytest.raises(bounds.RegexTimeout, match="не завершилось за 0.3 с"):
            call()
    budget.start()
    assert names["regex"].findall(r"\d{1,3}", "12345") == ["123", "45"]  # honest work is unchanged
    assert names["regex"].compile(r"\d").pattern == r"\d"


# -- every output takes any string ----------------------------------------------------------------
def test_lone_surrogates_in_messages_and_outputs_are_written_escaped_everywhere(tmp_path):
    import csv
    import json

    import nbformat

    from autograder.classroom.gradebook import review_notebook
    from autograder.classroom.outputs import Outcome, write_outputs
    from autograder.notebook.feedback import feedback_html
    from autograder.platforms.submissions import Problem

    course = CourseNotebook.load("01_hand_example")
    graded = grade(
        "01_hand_example",
        {"count_pairs": 'print("вывод \\udcff")\ndef count_pairs(corpus):\n    raise ValueError("\\udcff")'},
    )
    failed = next(t for t in graded.result.tests if t.score < t.max_score)
    assert "\\udcff" in failed.message  # escaped, readable, encodable
    failed.message.encode("utf-8")
    page = feedback_html(graded.result, graded.notebook, course.release, graded.ran, course.title)
    page.encode("utf-8")
    out = tmp_path / "out"
    outcome = Outcome(
        results=[graded.result], notebooks=[course.name], problems=[Problem("x\udcff.ipynb", "s\udcff", "bad \udcff")]
    )
    write_outputs(outcome, [course.name], out, {("self", course.name): page})
    assert json.loads((out / "results.json").read_text(encoding="utf-8"))[0]["tests"]
    assert "\\udcff" in (out / "problems.json").read_text(encoding="utf-8")
    assert list(csv.reader(open(out / "grades.csv", encoding="utf-8")))[1][0] == "self"
    assert (out / "feedback" / "self" / f"{course.name}.html").stat().st_size > 0
    # the autograded notebook, as the gradebook writes it for formgrader
    nbformat.writes(review_notebook(graded.notebook)).encode("utf-8")


def test_a_page_that_cannot_be_written_is_reported_and_the_other_outputs_are_still_written(tmp_path):

    from autograder.classroom.outputs import Outcome, write_outputs
    from autograder.notebook.results import GRADED, Result

    results = [Result(s, "01_hand_example", 1, 1, GRADED) for s in ("a", "b")]
    out = tmp_path / "out"
    (out / "feedback" / "a").mkdir(parents=True)
    (out / "feedback" / "a" / "01_hand_example.html").mkdir()  # a folder where the page should go
    outcome = Outcome(results=results, notebooks=["01_hand_example"])
    write_outputs(
        outcome, ["01_hand_example"], out, {("a", "01_hand_example"): "<p>a", ("b", "01_hand_example"): "<p>b"}
    )
    assert (out / "feedback" / "b" / "01_hand_example.html").read_text(encoding="utf-8") == "<p>b"
    assert (out / "results.json").stat().st_size > 0
    assert any("feedback page could not be written" in p.problem for p in outcome.problems)
    assert "feedback page could not be written" in (out / "problems.json").read_text(encoding="utf-8")
    (out / "grades.csv").unlink()
    (out / "grades.csv").mkdir()  # a main file that cannot be written
    write_outputs(outcome, ["01_hand_example"], out, {})
    assert any(p.file == "grades.csv" for p in outcome.problems)
    assert "grades.csv" in (out / "problems.json").read_text(encoding="utf-8") and (out / "grades_wide.csv").exists()


# -- one settings object ----------------------------------------------------------------------------
def test_settings_that_change_a_grade_change_the_cache_key():
    from autograder.classroom.settings import grading_settings, settings_digest
    from autograder.cli import overrides_of, parser
    from autograder.course.course import load_config

    key = lambda *argv: settings_digest(
        grading_settings(load_config(overrides_of(parser().parse_args(["grade", "x", *argv]))))
    )
    plain = key()
    assert plain == key()
    for argv in (["--notebook-timeout", "2"], ["--cell-timeout", "5"], ["--call-seconds", "3"], ["--no-sandbox"]):
        assert key(*argv) != plain, argv
    settings = grading_settings(load_config({"NotebookGrader": {"notebook_timeout": 2}}))
    assert settings["NotebookGrader.notebook_timeout"] == 2 and "Sandbox.resolved_mode" in settings


class RecordingSession:
    dead = None

    def __init__(self):
        self.asked = []

    def request(self, request, timeout):
        from autograder.wall import protocol

        self.asked.append(request.seconds)
        if isinstance(request, protocol.Describe):
            return protocol.Names(names={"f": protocol.Function()})
        return protocol.Value(value=1)


def test_call_seconds_governs_every_call_that_does_not_set_its_own_limit():
    from bpe_course import checks

    session = RecordingSession()
    evaluator = Evaluator(call_seconds=3)
    result = evaluator.run_test(
        "t",
        "from bpe_course.checks import run\nrun(f, 1)\nrun(f, 2, seconds=7)\nf(3)",
        1,
        {},
        evaluator.remote(session),
    )
    assert result.score == 1, result.message
    assert session.asked[1:4] == [3, 7, 3]
    checks.use_local_time_limits(True)


# -- exceptions keep their nature -------------------------------------------------------------------
def test_a_students_exception_reaches_the_tests_as_the_nearest_built_in_class_with_its_own_name():
    graded = grade(
        "06_vocab_size",
        {
            "bytes_per_token": """
class EmptyTokens(ValueError):
    pass

def bytes_per_token(text, ids):
    if not ids:
        raise EmptyTokens("нет ни одного токена")
    return len(text.encode("utf-8")) / len(ids)"""
        },
    )
    tests = [t for t in graded.result.tests if "bytes_per_token" in t.name]
    assert tests and all(t.score == t.max_score for t in tests), tests


def test_a_rebuilt_exception_has_its_name_and_a_built_in_base_only():
    from autograder.wall.protocol import Error, Malformed, read
    from autograder.wall.remote import StudentException, rebuilt_exception

    e = rebuilt_exception(Error(type="EmptyTokens", message="пусто", bases=["ValueError", "Exception"]))
    assert isinstance(e, ValueError) and isinstance(e, StudentException) and type(e).__name__ == "EmptyTokens"
    for forged in (["StopIteration"], ["SystemExit"], ["KeyboardInterrupt"], [{"x": 1}], "ValueError", ["object"]):
        answer = read(json.dumps({"kind": "error", "type": "Mine", "message": "", "bases": forged}).encode())
        if isinstance(answer, Malformed):  # not a list of names: no error at all
            continue
        e = rebuilt_exception(answer)
        assert type(e).__mro__[2] is Exception, forged  # nothing a check could mistake for control flow


# -- terminals get text --------------------------------------------------------------------------
def test_control_sequences_from_a_submission_never_reach_the_terminal(capsys):
    from autograder import cli
    from autograder.notebook.results import GRADED, Result, TestResult
    from autograder.platforms.report import grade_table, test_report

    fake = "\x1b[1A\x1b[2K\r  ок   test_a  2/2\x1b]0;owned\x07\x9b31m"
    result = Result(
        "ivan\x1b[31m",
        "01_hand_example",
        0,
        2,
        GRADED,
        fake,
        [TestResult("test_a", 0, 2, fake)],
        review=[f"строка 1: {fake}"],
    )
    cli.say(test_report(result), grade_table([result], ["01_hand_example"]), *result.review)
    printed = capsys.readouterr().out
    assert not any(c in printed for c in "\x1b\r\x07\x9b")
    assert "\\x1b[2K" in printed and "НЕТ " in printed  # shown as text, the verdict intact


# -- safe review pages --------------------------------------------------------------------------
def test_review_pages_show_a_students_outputs_without_anything_that_runs():
    import nbformat
    from nbconvert import HTMLExporter

    from autograder.classroom.gradebook import review_notebook
    from autograder.course.course import load_config
    from autograder.notebook.feedback import feedback_html

    course = CourseNotebook.load("01_hand_example")
    graded = grade("01_hand_example", {})
    notebook = graded.notebook
    cell = next(c for c in notebook.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            {
                "text/html": '<script>alert(1)</script><img src=x onerror="alert(2)">',
                "text/plain": "<IPython.core.display.HTML object>",
            },
        ),
        nbformat.v4.new_output("display_data", {"application/javascript": "alert(3)"}),
        nbformat.v4.new_output(
            "display_data", {"image/svg+xml": '<svg onload="alert(4)"><script>alert(5)</script></svg>'}
        ),
        nbformat.v4.new_output("execute_result", {"text/plain": "42", "image/png": "iVBORw0KGgo="}, execution_count=1),
        nbformat.v4.new_output("stream", name="stdout", text="обычный вывод <b>\n"),
    ]
    notebook.cells.append(nbformat.v4.new_markdown_cell("Ответ <script>alert(6)</script><img src=x onerror=alert(7)>"))
    review = review_notebook(notebook)
    kept = [o for o in review.cells[notebook.cells.index(cell)].outputs]
    assert kept[3]["data"]["image/png"] and kept[4]["text"].startswith("обычный вывод")  # text and images stay
    # rendered as formgrader renders it: its HTMLExporter, under the course's nbgrader_config.py
    from nbgrader.server_extensions.formgrader import handlers

    exporter = HTMLExporter(
        config=load_config(), template_name="formgrade", extra_template_basedirs=[handlers.template_path]
    )
    resources = {
        "assignment_id": course.name,
        "notebook_id": course.name,
        "submission_id": "s",
        "index": 0,
        "total": 1,
        "base_url": "",
        "student": "ivan",
        "last_name": "",
        "first_name": "",
        "notebook_path": "x",
    }
    page, _ = exporter.from_notebook_node(review, resources=resources)
    assert "обычный вывод" in page and "Ответ" in page and "убран" in page
    assert active_content(page) == []
    feedback = feedback_html(graded.result, notebook, course.release, graded.ran, course.title)
    assert active_content(feedback) == [] and "<script" not in feedback


def active_content(page: str) -> list:
    """What in an HTML page could run the student's code: their scripts, event handlers, javascript: URLs
    (the page's own scripts and handlers, such as formgrader's, hold no alert(): the attack's all do)."""
    from html.parser import HTMLParser

    found = []

    class Finder(HTMLParser):
        script = False

        def handle_starttag(self, tag, attrs):
            self.script = tag == "script"
            for name, value in attrs:
                if (name.startswith("on") or "javascript:" in (value or "").lower()) and "alert(" in (value or ""):
                    found.append((tag, name, value))

        def handle_data(self, data):
            if self.script and "alert(" in data:
                found.append(("script", data))

        def handle_endtag(self, tag):
            self.script = False

    Finder().feed(page)
    return found


def test_a_test_that_never_ends_in_the_grader_fails_on_its_cpu_budget_and_the_next_one_runs():
    session = RecordingSession()
    evaluator = Evaluator(grader_seconds=0.3)
    remote = evaluator.remote(session)
    endless = "x = f(1)\ntry:\n    while True:\n        pass\nexcept Exception:\n    pass"  # swallowing does not help
    result = evaluator.run_test("t", endless, 1, {}, remote)
    assert result.score == 0 and "процессорного времени" in result.message
    assert evaluator.run_test("t2", "assert f(2) == 1", 1, {}, remote).score == 1


def test_names_no_file_takes_are_escaped_in_the_roster_and_the_lms_exports(tmp_path):
    from autograder.notebook.results import GRADED, Result
    from autograder.platforms.lms import write_moodle_worksheet
    from autograder.platforms.report import read_roster, write_canvas_import, write_roster

    roster = {"123": "Иван \udcff"}
    write_roster(roster, tmp_path)
    assert read_roster(tmp_path)["123"] == "Иван \\udcff"
    results = [Result("123", "01_hand_example", 1, 2, GRADED)]
    assert "\\udcff" in write_moodle_worksheet(results, roster, tmp_path / "m.csv").read_text(encoding="utf-8")
    assert "\\udcff" in write_canvas_import(results, roster, "A", tmp_path / "c.csv").read_text(encoding="utf-8")


def test_decoding_the_kernels_answers_counts_against_the_tests_cpu_budget():
    # decoding (autograder.wall.remote, wire) was waited for like reading a frame: a test whose time went into
    # decoding huge answers was never stopped. Only the socket's own code (the session) is waited for now
    import time

    from autograder.notebook.bounds import OverBudget, cpu_budget
    from autograder.wall import wire

    big = wire.encode([[] for _ in range(1_500_000)])  # about 2 CPU-s to decode
    started = time.process_time()
    with pytest.raises(OverBudget):
        with cpu_budget(0.2):
            wire.decode(big)
    assert time.process_time() - started < 1  # cut in the middle of decoding, not waited for
