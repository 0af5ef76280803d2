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
