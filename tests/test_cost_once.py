"""A mistake costs points once: an error in a helper is not charged again to the exercise built on it.

learn_merges (01) is built on count_pairs and merge_pair, train_bpe (02) on get_pair_counts and merge.
06's MEASURED and smallest_vocab are built on bytes_per_token: a value right for the student's own
bytes_per_token on the right tokens is accepted (a rounding, characters instead of bytes, distinct ids, an
inverted ratio, whole numbers from //), as long as that helper still tells the right input from the wrong
ones (a constant earns nothing); for smallest_vocab "right for it" is any size where its measure reaches the
target and the size before does not (what a bisection finds when that measure falls somewhere).
Their hidden tests accept the table that is right for the student's own helpers, so a catalogued
mistake in a helper loses points in the helper's tests only (the visible tests name the helper to
fix first instead: see the *_named_in_* mistakes of tests/mistakes/). Graded in-process like the
catalogue.
"""

import pytest
from catalogue import grade_cases
from mistakes import MISTAKES

SPARED = {  # mistake id: tests that must keep full marks
    "nb01_overlapping_merge_pair": ["test_learn_merges", "test_learn_merges_hidden"],
    "nb01_word_frequencies_ignored": ["test_learn_merges_hidden"],
    "nb01_merge_pair_overwrites_frequency": ["test_learn_merges", "test_learn_merges_hidden"],
    "nb02_overlapping_merge": ["test_train_bpe_hidden"],
    "nb02_pair_counts_sorted_by_pair": ["test_train_bpe_hidden"],
    "nb02_merge_by_text_replace": ["test_train_bpe", "test_train_bpe_hidden"],
    "nb02_merge_right_to_left": ["test_train_bpe_hidden"],
    "nb06_bytes_per_token_rounds": [
        "test_english_experiment_hidden",
        "test_smallest_vocab",
        "test_smallest_vocab_hidden",
    ],
    "nb06_bytes_per_token_rounds_to_four_digits": ["test_english_experiment_hidden", "test_smallest_vocab_hidden"],
    "nb06_bytes_per_token_on_characters": ["test_english_experiment_hidden", "test_smallest_vocab_hidden"],
    # a curve that falls somewhere (distinct ids), one that only falls (inverted), whole numbers (//): a right
    # search by such a helper is still right for it (issue 45)
    "nb06_bytes_per_token_distinct_ids": [
        "test_english_experiment_hidden",
        "test_smallest_vocab",
        "test_smallest_vocab_hidden",
    ],
    "nb06_bytes_per_token_inverted": [
        "test_english_experiment_hidden",
        "test_smallest_vocab",
        "test_smallest_vocab_hidden",
    ],
    "nb06_bytes_per_token_floor_division": [
        "test_english_experiment_hidden",
        "test_smallest_vocab",
        "test_smallest_vocab_hidden",
    ],
    # prune on a Viterbi that is greedy or takes the lowest total: each still picks from all the splits it can
    # see, so a token outside its chosen split loses nothing, and prune's hidden reference uses that Viterbi
    "nb10_vt_greedy_longest": ["test_prune_hidden"],
    "nb10_vt_lowest_total": ["test_prune_hidden"],
}


@pytest.fixture(scope="module")
def graded():
    """{mistake id: result}, graded a notebook at a time when first asked for (`-k nb03_` grades only 03's)."""
    by_id = {m.id: m for m in MISTAKES}

    class Results(dict):
        def __missing__(self, key):
            notebook = by_id[key].notebook
            ids = [i for i in SPARED if by_id[i].notebook == notebook]
            self.update(grade_cases({i: (notebook, {by_id[i].cell: by_id[i].source}, True, False) for i in ids}))
            return self[key]

    return Results()


@pytest.mark.parametrize("mistake", sorted(SPARED))
def test_a_mistake_in_a_helper_is_not_charged_again(graded, mistake):
    tests = {t["name"]: t for t in graded[mistake]["tests"]}
    caught_by = next(m.caught_by for m in MISTAKES if m.id == mistake)
    assert tests[caught_by]["score"] < tests[caught_by]["max_score"]  # it does cost points...
    for name in SPARED[mistake]:  # ...but only once
        assert tests[name]["score"] == tests[name]["max_score"], (name, tests[name]["message"])


# Constant functions are not "consistent" with each other: helpers that learn nothing make the empty
# table "right for them", and a trainer returning [] or {} would get the points for it (issue 20).
CONSTANTS = {
    "01_hand_example": {
        "count_pairs": "def count_pairs(corpus):\n    return {}",
        "merge_pair": "def merge_pair(corpus, pair):\n    return dict(corpus)",
        "learn_merges": "def learn_merges(word_freqs, num_merges):\n    return []",
    },
    "02_byte_level_training": {
        "get_pair_counts": "def get_pair_counts(ids):\n    return {}",
        "merge": "def merge(ids, pair, new_id):\n    return list(ids)",
        "train_bpe": "def train_bpe(text, vocab_size):\n    return {}",
    },
}


def exercise_of(test: str) -> str:
    """The exercise (solution cell) a test cell grades: test_X and test_X_hidden grade X."""
    return test.removeprefix("test_").removesuffix("_hidden")


@pytest.mark.parametrize("notebook", sorted(CONSTANTS))
def test_constant_functions_score_zero(notebook):
    graded = grade_cases({notebook: (notebook, CONSTANTS[notebook], True, False)})[notebook]
    for t in graded["tests"]:
        if t["name"].startswith("test_quiz"):  # the quiz answers are the solution's
            continue
        exercise = exercise_of(t["name"])
        assert exercise in CONSTANTS[notebook] or t["score"] == 0, (
            f"{t['name']} keeps {t['score']:g} points while {', '.join(CONSTANTS[notebook])} are constants. A new "
            f"exercise in {notebook} needs a constant version of its own here: add "
            f'"{exercise}": "def {exercise}(...):\\n    return <a constant>" to CONSTANTS["{notebook}"] in '
            "tests/test_cost_once.py (docs/authoring.md, step 3), so that its tests are proven to earn nothing "
            "from helpers that learn nothing."
        )
        assert t["score"] == 0, (t["name"], t["message"])


def test_constant_functions_earn_nothing_from_the_rule_in_06():
    """06: a constant bytes_per_token with the answers it gives (a constant MEASURED, a constant
    smallest_vocab) is far from right, so the rule grants nothing: those tests score 0."""
    helper = "def bytes_per_token(text, ids):\n    return 1.0"
    measured = "MEASURED = {'русский': 1.0, 'английский': 1.0, 'китайский': 1.0}"
    for answer in ["None", "256"]:
        replace = {
            "bytes_per_token": helper,
            "english_experiment": measured,
            "smallest_vocab": f"def smallest_vocab(merges, text, target):\n    return {answer}",
        }
        graded = grade_cases({"constants": ("06_vocab_size", replace, True, False)})["constants"]
        tests = {t["name"]: t for t in graded["tests"]}
        for name in ["test_english_experiment_hidden", "test_smallest_vocab", "test_smallest_vocab_hidden"]:
            assert tests[name]["score"] == 0, (answer, name)


def test_a_helper_that_gives_no_finite_number_earns_nothing_in_06_and_breaks_no_check():
    """06's rule accepts whole numbers (what // gives) from the student's bytes_per_token; one too large for a
    float, nan or inf is no measure: the tests built on it fail with their own message, not with an OverflowError
    raised while the check reads the number, and grant nothing (MEASURED is then that number too)."""
    values = {"huge": "10 ** 400", "nan": "float('nan')", "inf": "float('inf')"}
    graded = grade_cases(
        {
            key: (
                "06_vocab_size",
                {"bytes_per_token": f"def bytes_per_token(text, ids):\n    return {value}"},
                True,
                False,
            )
            for key, value in values.items()
        }
    )
    for key, result in graded.items():
        tests = {t["name"]: t for t in result["tests"]}
        measured, search = tests["test_english_experiment_hidden"], tests["test_smallest_vocab_hidden"]
        assert measured["score"] == 0 and "не похоже на число байтов на токен" in measured["message"], (key, measured)
        assert search["score"] == 0 and "ожидалось" in search["message"], (key, search)
