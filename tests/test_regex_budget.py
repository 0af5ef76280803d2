"""The regex budget counts only the grader's own CPU in its regex work, and a pattern the course wrote
that runs out of it is the grader's failure, never the student's (issue 29 item 3). No test here relies
on the machine being idle: waiting is simulated by sleeping, which spends no CPU."""

import time

import pytest

from autograder.notebook import bounds
from autograder.notebook.evaluate import Evaluator
from autograder.wall import protocol

BOMB = r"(?:(?:(?:(?:\d?){1,3}){1,3}){1,9}){1,9}\D"
WORDS = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
TEXT = "To be, or not to be, that is the question: 1601. " * 4000  # some 10 ms of honest matching


class SlowKernel:
    """A kernel whose every call takes `wait` seconds of wall-clock time the grader spends waiting
    (a correct 07 whose timed calls take long), and that answers with `answer`."""

    dead = None

    def __init__(self, wait: float, answer: protocol.Answer):
        self.wait, self.answer = wait, answer

    def request(self, request, timeout):
        if isinstance(request, protocol.Describe):
            return protocol.Names(names={name: protocol.Function() for name in request.names})
        time.sleep(self.wait)
        return self.answer


def run(source: str, session, seconds: float = 0.3):
    evaluator = Evaluator(regex_seconds=seconds)
    return evaluator.run_test("t", source, 4, {}, evaluator.remote(session))


def test_time_spent_waiting_for_the_kernel_is_not_the_regex_budget():
    # the case: a correct 07 whose timed calls took long got «регулярное выражение не завершилось»
    # about the course's own pattern, because the budget was wall-clock from the test's start
    source = f"import regex\ntrain_fast(1)\ntrain_fast(2)\nassert len(regex.findall(r'''{WORDS}''', {TEXT!r})) > 1000"
    result = run(source, SlowKernel(0.4, protocol.Value(value=None)), seconds=0.3)
    assert result.score == 4, result.message


def test_a_budget_counts_the_graders_cpu_in_its_regex_calls_only():
    budget = bounds.Budget(0.2)
    findall = budget.bounded(__import__("regex").findall)
    budget.start()
    time.sleep(0.4)  # no CPU: not counted
    assert len(findall(WORDS, TEXT)) > 1000
    assert 0 < budget.spent < 0.2


def test_a_call_the_regex_module_stops_before_its_cpu_was_spent_runs_again():
    # regex's timeout= is wall-clock: a grader kept off the CPU by a busy machine is stopped early
    budget, calls = bounds.Budget(5), []

    def off_the_cpu_once(*args, timeout):
        calls.append(timeout)
        if len(calls) == 1:
            raise TimeoutError("regex timed out")  # no CPU spent
        return ["ok"]

    budget.start()
    assert budget.bounded(off_the_cpu_once)(WORDS, "x") == ["ok"]
    assert len(calls) == 2 and calls[1] > calls[0]


def test_a_pattern_the_course_wrote_that_runs_out_is_the_graders_fault_not_a_failed_test():
    with pytest.raises(bounds.GraderFault, match="run the command again"):
        run(f"import regex\nregex.findall(r'{BOMB}', '1' * 40)", SlowKernel(0, protocol.Value(value=None)))


def test_a_pattern_from_the_student_that_runs_out_fails_its_test_with_the_backtracking_message():
    result = run("import regex\nregex.findall(number_pattern(3), '1' * 40)", SlowKernel(0, protocol.Value(value=BOMB)))
    assert result.score == 0 and "регулярное выражение не завершилось за 0.3 с" in result.message


def test_a_notebook_whose_course_pattern_runs_out_is_an_error_to_retry():
    import tempfile
    from pathlib import Path

    from local_session import LocalSession

    from autograder.course.course import CourseNotebook
    from autograder.course.simulate import submission, write
    from autograder.notebook.pipeline import NotebookGrader

    class CourseFault(Evaluator):
        def run_test(self, *args, **kwargs):
            raise bounds.GraderFault("the course's own regular expression did not finish; run the command again")

    course = CourseNotebook.load("01_hand_example")
    with tempfile.TemporaryDirectory() as tmp:
        path = write(submission(course.name), Path(tmp) / f"{course.name}.ipynb")
        result = NotebookGrader(evaluator=CourseFault()).grade(course, path, LocalSession).result
    assert result.status == "error" and "run the command again" in result.message and result.score == 0
    assert not any("регулярное выражение" in (t.message or "") for t in result.tests)
