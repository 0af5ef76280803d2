"""Speed is graded against the course's own solution, timed on the same arguments (issue 29 item 1).

`bpe_course.checks.speed_against_course` times the student's call and the course's solution one right
after the other; while grading, the course's solution is built in the grader from solutions/
(`autograder.notebook.reference`), where nothing of the submission reaches it. The ratios of the
notebooks' own speed checks are proven on the catalogue (tests/test_catalogue.py: every correct style
of 07 keeps full marks, every slow one loses the speed test with its cause, padding included).
"""

import pytest

from autograder.course.course import CourseNotebook
from autograder.notebook.bounds import Budget, GraderFault
from autograder.notebook.reference import CourseSolutions
from bpe_course import checks


def course_sum(n):
    return sum(range(n))


def slow_sum(n):
    total = 0
    for _ in range(30):
        total = sum(range(n))
    return total


@pytest.fixture
def course():
    token = checks.use_course_solutions({"course_sum": course_sum}.__getitem__)
    yield
    checks.reset_course_solutions(token)


def test_a_call_as_fast_as_the_course_is_timed_once(course):
    calls = []

    def student(n):
        calls.append(n)
        return course_sum(n)

    ((got, expected, ratio),) = checks.speed_against_course(student, "course_sum", [[300_000], [400_000]], 8)
    assert got == expected == course_sum(300_000)
    assert ratio < 8 and calls == [300_000]  # the next input is never asked for


def test_the_course_is_timed_again_after_the_call_unless_the_ratio_is_clear_of_the_limit(monkeypatch):
    # the faster of the course's two runs counts; a ratio within limit / SPEED_CLEAR after the first needs no second
    runs, seconds = [], iter([1.0, 0.5])  # the course's first run, then a repeat twice as fast

    def timed(fn, args):
        runs.append(args)
        return fn(*args), next(seconds)

    monkeypatch.setattr(checks, "reference_seconds", timed)
    token = checks.use_course_solutions({"course_sum": course_sum}.__getitem__)
    try:
        for student_seconds, limit, course_runs, ratio in [(2.0, 8, 1, 2.0), (3.0, 8, 2, 6.0)]:
            runs.clear()
            seconds = iter([1.0, 0.5])
            monkeypatch.setattr(checks, "cpu_seconds", lambda fn, calls, s=student_seconds: [[fn(*calls[0]), s]])
            ((_, _, got),) = checks.speed_against_course(course_sum, "course_sum", [[10]], limit)
            assert (len(runs), got) == (course_runs, ratio)
            assert (student_seconds <= limit / checks.SPEED_CLEAR) == (course_runs == 1)
    finally:
        checks.reset_course_solutions(token)


def test_a_slow_call_is_over_the_limit_and_the_same_arguments_are_never_timed_twice(course):
    seen = []

    def student(n):
        seen.append(n)
        return slow_sum(n)

    timed = checks.speed_against_course(student, "course_sum", [[200_000], [200_001]], 4)
    assert all(ratio > 4 for _, _, ratio in timed)
    assert len(seen) == len(set(seen))


def test_a_call_too_slow_to_wait_for_is_cut_and_its_ratio_is_infinite(course, monkeypatch):
    import time

    monkeypatch.setattr(checks, "SPEED_FLOOR", 0.2)
    monkeypatch.setattr(checks, "_local_time_limits", True)  # an Evaluator in this process turns them off

    def endless(n):
        give_up = time.monotonic() + 60  # a broken cut fails this test instead of hanging the run
        while time.monotonic() < give_up:
            n += 1
        return n

    ((got, _, ratio),) = checks.speed_against_course(endless, "course_sum", [[10]], 4)
    assert got is None and ratio == float("inf")


def test_a_crash_of_the_students_call_is_a_readable_failure(course):
    def broken(n):
        raise ValueError("нет")

    with pytest.raises(checks.CheckFailed, match="завершилась с ошибкой ValueError"):
        checks.speed_against_course(broken, "course_sum", [[10]], 4)


def test_the_course_solution_is_built_in_the_grader_from_solutions():
    import builtins

    solutions = CourseSolutions(CourseNotebook.load("07_fast_bpe"), builtins, Budget(30))
    train_fast = solutions("train_fast")
    assert train_fast("aaab", 257) == {(97, 97): 256}
    assert train_fast.__globals__["__name__"] == "__course__"  # its own namespace, not the notebook's
    with pytest.raises(GraderFault):
        solutions("no_such_exercise")


def test_outside_grading_the_notebooks_own_function_is_the_reference(monkeypatch):
    import __main__

    monkeypatch.setattr(__main__, "course_sum", course_sum, raising=False)
    assert checks.course_solution("course_sum") is course_sum


def test_only_the_cells_a_solution_needs_run_in_the_grader():
    import builtins

    solutions = CourseSolutions(CourseNotebook.load("06_vocab_size"), builtins, Budget(30))
    solutions("bytes_per_token")  # 06's experiment cell (a loop over the lesson's texts) is not needed
    ran = {solutions.ids[i] for i in solutions.done}
    assert "bytes_per_token" in ran and "english_experiment" not in ran, ran
