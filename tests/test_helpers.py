"""The course helpers the notebooks import: Russian numerals and the checks' messages."""

import pytest

from bpe_course import count, plural
from bpe_course.checks import CheckFailed, check_equal


@pytest.mark.parametrize(
    "n, word",
    [
        (0, "слияний"),
        (1, "слияние"),
        (2, "слияния"),
        (4, "слияния"),
        (5, "слияний"),
        (11, "слияний"),
        (12, "слияний"),
        (21, "слияние"),
        (22, "слияния"),
        (111, "слияний"),
        (1001, "слияние"),
        (100000, "слияний"),
    ],
)
def test_plural(n, word):
    assert plural(n, "слияние", "слияния", "слияний") == word


def test_count_groups_digits():
    assert count(100000, "слияние", "слияния", "слияний") == "100\u202f000 слияний"
    assert count(72, "токен", "токена", "токенов") == "72 токена"


def message(got, expected):
    with pytest.raises(CheckFailed) as failed:
        check_equal(got, expected, "call")
    return str(failed.value)


def test_check_equal_names_the_first_difference_of_long_tables():
    expected = {(i, i + 1): 256 + i for i in range(200)}
    got = dict(expected)
    got[(150, 151)] = 999
    assert "значение по ключу (150, 151)" in message(got, expected) and "999" in message(got, expected)
    swapped = list(expected.items())
    swapped[120], swapped[121] = swapped[121], swapped[120]
    assert "121-й ключ" in message(dict(swapped), expected)
    assert "элемент [3]" in message([1, 2, 3, 5, 6] * 100, [1, 2, 3, 4, 6] * 100)
    assert "длина: ожидалось 3, получено 2" in message([1, 2], [1, 2, 3])
    assert "внутри [1]" in message([[1], [2, 3]], [[1], [2, 4]])


def test_check_equal_shows_numbers_at_full_precision():
    assert "1.0852123456789" in message(1.0852123456789, 1.0852)


COURSE_CELL = """
PATTERN = "ab"

def pieces(text):
    return [text[i:i + 2] for i in range(0, len(text), 2)]

def table(text, size):
    CALLS.append(text)
    return {piece: PATTERN for piece in pieces(text)[:size]}
"""


def course_namespace(calls: list, **bound) -> dict:
    """The namespace a given cell runs in while grading one notebook (a fresh one per notebook)."""
    namespace = {"CALLS": calls}
    exec(COURSE_CELL, namespace)
    namespace.update(bound)
    return namespace


def test_computed_once_gives_the_course_s_value_again_to_the_next_notebook_as_a_copy():
    from bpe_course.checks import computed_once

    calls = []
    first, second = course_namespace(calls), course_namespace(calls)  # two notebooks graded by one worker
    value = computed_once(first["table"], "abcdef", 2)
    value["ab"] = "changed by a test"
    assert computed_once(second["table"], "abcdef", 2) == {"ab": "ab", "cd": "ab"}
    assert calls == ["abcdef"]
    computed_once(second["table"], "abcdef", 3)  # other arguments: computed again
    assert len(calls) == 2


def test_computed_once_never_reuses_a_value_that_read_something_of_another_notebook():
    """The attacks: whatever the function reads that could differ between notebooks — a global bound from
    the student's kernel, a helper that is the student's own function, an object whose id a freed one had —
    makes the key differ, so the value is computed again."""
    from bpe_course.checks import computed_once

    calls = []
    computed_once(course_namespace(calls)["table"], "abcd", 2)
    changed = course_namespace(calls)
    changed["PATTERN"] = "student's"  # a name the cell reads, bound to another value
    assert computed_once(changed["table"], "abcd", 2) == {"ab": "student's", "cd": "student's"}
    assert len(calls) == 2

    class StudentFunction:  # what the grader binds for a student's function: a stand-in, not course code
        def __init__(self, answer):
            self.answer = answer

        def __call__(self, text):
            return self.answer

    for answer in (["xx"], ["yy"]):  # a new stand-in each time, possibly at a freed one's address
        notebook = course_namespace(calls, pieces=StudentFunction(answer))
        exec("def table(text, size):\n    CALLS.append(text)\n    return pieces(text)\n", notebook)
        assert computed_once(notebook["table"], "abcd", 2) == answer
    assert len(calls) == 4


def test_what_a_right_search_by_the_students_own_measure_returns():
    """06's smallest_vocab is graded against what is right for the student's bytes_per_token (issue 45): on a
    curve that never falls that is the one smallest size, on one that falls somewhere any size where it
    crosses the target (bisection finds one, a scan the first), and None only when the last size falls short."""
    from bpe_course.checks import own_answers, own_curve

    assert own_answers([(256, 1.0), (257, 1.5), (258, 1.5), (259, 2.0)], 1.5) == {257}
    assert own_answers([(256, 1.0), (257, 1.5), (258, 1.5), (259, 2.0)], 2.5) == {None}
    assert own_answers([(256, 1.0), (257, 2.0), (258, 1.0), (259, 2.0)], 1.5) == {257, 259}
    assert own_answers([(256, 1.0), (257, 0.5)], 1.0) == {256, None}  # an inverted ratio only falls
    tokens = {256: [1, 2, 3], 257: [4, 5]}
    assert own_curve(lambda text, ids: len(text) // len(ids), "abcdef", tokens) == [(256, 2), (257, 3)]
    for broken in (lambda t, i: 10**400, lambda t, i: float("nan"), lambda t, i: "2.0", lambda t, i: 1 / 0):
        assert own_curve(broken, "abcdef", tokens) is None
