"""Mistakes and alternative solutions for notebook 02_byte_level_training.

For each graded function, the plausible wrong versions a student will try: text tricks over
",".join(map(str, ids)) (ids that overlap as text: "11,2" contains "1,2"), bytes that cannot hold
ids above 255, off-by-ones, overlapping or one-sided merges, state kept between calls, wrong
units (code points instead of UTF-8 bytes), wrong tie rules and stops, and wrong quiz answers."""

from . import Alternative, Mistake, edit, edited

NB02 = "02_byte_level_training"

TRAIN = """
def train_bpe(text, vocab_size):
    ids = list(text.encode("utf-8"))
    merges = {}
    for new_id in range(256, vocab_size):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = merge(ids, best, new_id)
        merges[best] = new_id
    return merges"""

TRAIN_ON_CODE_POINTS = edit(
    TRAIN, ('list(text.encode("utf-8"))', "[ord(ch) for ch in text]        # code points, not UTF-8 bytes")
)

QUIZ = """
ANSWER_1 = 50_000
ANSWER_2 = 4"""

# versions of another approach than the solution's, whose own mistakes are edits of them

OVERLAPPING_MERGE = edited(
    NB02,
    "merge",
    (
        ("    i = 0", "            i += 1"),
        "    for i, x in enumerate(ids):\n"
        "        if i + 1 < len(ids) and (x, ids[i + 1]) == pair:\n"
        "            out.append(new_id)\n"
        "        elif i > 0 and (ids[i - 1], x) == pair:\n"
        "            continue\n"
        "        else:\n"
        "            out.append(x)",
    ),
)

PAIR_COUNTS_SORTED_BY_PAIR = edited(NB02, "get_pair_counts", ("urn counts", "urn dict(sorted(counts.items()))"))

MISTAKES = [
    # -- get_pair_counts ---------------------------------------------------------------------------
    Mistake(
        "nb02_pair_counts_most_common",
        NB02,
        "get_pair_counts",
        """
from collections import Counter
def get_pair_counts(ids):
    return dict(Counter(zip(ids, ids[1:])).most_common())""",
        "test_get_pair_counts",
        "most_common",
    ),
    Mistake(
        "nb02_pair_counts_sorted_by_pair",
        NB02,
        "get_pair_counts",
        PAIR_COUNTS_SORTED_BY_PAIR,
        "test_get_pair_counts",
        "не по значению",
    ),
    Mistake(
        "nb02_pair_counts_in_joined_text",
        NB02,
        "get_pair_counts",
        """
def get_pair_counts(ids):
    # a text trick: count "a,b" in the numbers written out (str.count does not overlap)
    text = ",".join(map(str, ids))
    return {pair: text.count(f"{pair[0]},{pair[1]}") for pair in zip(ids, ids[1:])}""",
        "test_get_pair_counts",
        "перекрываются",
    ),
    Mistake(
        "nb02_pair_counts_in_joined_text_with_overlaps",
        NB02,
        "get_pair_counts",
        """
def get_pair_counts(ids):
    # the same trick, counting overlaps: "11,2" still contains "1,2"
    text = ",".join(map(str, ids))
    counts = {}
    for a, b in zip(ids, ids[1:]):
        piece = f"{a},{b}"
        counts[(a, b)] = sum(text.startswith(piece, i) for i in range(len(text)))
    return counts""",
        "test_get_pair_counts_hidden",
        "вхождения в строку из чисел",
    ),
    Mistake(
        "nb02_pair_counts_each_pair_once",
        NB02,
        "get_pair_counts",
        """
def get_pair_counts(ids):
    return {pair: 1 for pair in zip(ids, ids[1:])}""",
        "test_get_pair_counts",
        "столько раз, сколько встречается",
    ),
    Mistake(
        "nb02_pair_counts_without_overlaps",
        NB02,
        "get_pair_counts",
        """
def get_pair_counts(ids):
    # counts like merge: a pair of equal ids is not counted again from its second element
    counts, i = {}, 0
    while i < len(ids) - 1:
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        i += 2 if ids[i] == ids[i + 1] else 1
    return counts""",
        "test_get_pair_counts",
        "перекрываются",
    ),
    Mistake(
        "nb02_pair_counts_last_pair_missed",
        NB02,
        "get_pair_counts",
        edited(
            NB02,
            "get_pair_counts",
            (
                "    for pair in zip(ids, ids[1:]):",
                "    for i in range(len(ids) - 2):                 # off by one\n        pair = (ids[i], ids[i + 1])",
            ),
        ),
        "test_get_pair_counts",
        "столько раз, сколько встречается",
    ),
    Mistake(
        "nb02_pair_counts_wrap_around",
        NB02,
        "get_pair_counts",
        edited(NB02, "get_pair_counts", ("[1:]):", "[1:] + ids[:1]):      # the last id paired with the first")),
        "test_get_pair_counts",
        "соседи (ids[i], ids[i + 1])",
    ),
    Mistake(
        "nb02_pair_counts_kept_between_calls",
        NB02,
        "get_pair_counts",
        """
counts = {}
def get_pair_counts(ids):
    for pair in zip(ids, ids[1:]):                # the dict outside the function keeps growing
        counts[pair] = counts.get(pair, 0) + 1
    return dict(counts)""",
        "test_get_pair_counts",
        "внутри функции",
    ),
    Mistake(
        "nb02_pair_counts_empty_the_list",
        NB02,
        "get_pair_counts",
        edited(
            NB02,
            "get_pair_counts",
            (
                "    for pair in zip(ids, ids[1:]):\n        counts[pair] = counts.get(pair, 0) + 1",
                "    while len(ids) > 1:\n"
                "        pair = (ids[0], ids[1])\n"
                "        counts[pair] = counts.get(pair, 0) + 1\n"
                "        ids.pop(0)                                # eats its argument",
            ),
        ),
        "test_get_pair_counts",
        "не должна менять свой аргумент",
    ),
    # -- merge -------------------------------------------------------------------------------------
    Mistake(
        "nb02_overlapping_merge",
        NB02,
        "merge",
        OVERLAPPING_MERGE,
        "test_merge",
        "без перекрытий",
    ),  # the demo's carol
    Mistake(
        "nb02_merge_by_text_replace",
        NB02,
        "merge",
        """
def merge(ids, pair, new_id):
    # a text trick: "11,2" contains "1,2", so merge([11, 2], (1, 2), 99) gives [199]
    text = ",".join(map(str, ids)).replace(f"{pair[0]},{pair[1]}", str(new_id))
    return [int(x) for x in text.split(",")] if text else []""",
        "test_merge_hidden",
        "сравнивайте элементы списка",
    ),
    Mistake(
        "nb02_merge_by_bounded_text_replace",
        NB02,
        "merge",
        """
def merge(ids, pair, new_id):
    # commas on both sides fix "11,2", but the comma between two pairs is eaten by the first one
    text = "," + ",".join(map(str, ids)) + ","
    text = text.replace(f",{pair[0]},{pair[1]},", f",{new_id},")
    return [int(x) for x in text.strip(",").split(",")] if ids else []""",
        "test_merge_hidden",
        "пары подряд",
    ),
    Mistake(
        "nb02_merge_via_bytes",
        NB02,
        "merge",
        """
def merge(ids, pair, new_id):
    # bytes.replace merges left to right without overlaps, but a byte holds 0..255 only
    return list(bytes(ids).replace(bytes(pair), bytes([new_id])))""",
        "test_merge",
        "больше 255",
    ),
    Mistake(
        "nb02_merge_drops_the_last_element",
        NB02,
        "merge",
        edited(
            NB02,
            "merge",
            (
                "    while i < len(ids):",
                "    while i < len(ids) - 1:                       # the last element is never copied",
            ),
        ),
        "test_merge",
        "последний элемент",
    ),
    Mistake(
        "nb02_merge_first_occurrence_only",
        NB02,
        "merge",
        """
def merge(ids, pair, new_id):
    for i in range(len(ids) - 1):
        if (ids[i], ids[i + 1]) == pair:
            return ids[:i] + [new_id] + ids[i + 2:]   # only the first occurrence
    return list(ids)""",
        "test_merge",
        "каждое вхождение пары",
    ),
    Mistake(
        "nb02_merge_right_to_left",
        NB02,
        "merge",
        """
def merge(ids, pair, new_id):
    out, i = [], len(ids) - 1
    while i >= 0:                                 # from the right: [5, 5, 5] becomes [5, 7]
        if i > 0 and (ids[i - 1], ids[i]) == pair:
            out.insert(0, new_id)
            i -= 2
        else:
            out.insert(0, ids[i])
            i -= 1
    return out""",
        "test_merge",
        "третья пятёрка",
    ),
    Mistake(
        "nb02_merge_in_place",
        NB02,
        "merge",
        """
def merge(ids, pair, new_id):
    i = 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            ids[i:i + 2] = [new_id]                   # edits the caller's list
        i += 1
    return ids""",
        "test_merge",
        "не менять исходный",
    ),
    Mistake(
        "nb02_merge_first_element_only",
        NB02,
        "merge",
        edited(
            NB02,
            "merge",
            ("(ids[i], ids[i + 1]) == pair:", "ids[i] == pair[0]:    # the second element is not compared"),
        ),
        "test_merge_hidden",
        "сравнивайте оба элемента",
    ),
    Mistake(
        "nb02_merge_cached_by_pair",
        NB02,
        "merge",
        edited(NB02, "merge", ("def merge(", "def merge_once("))
        + """
_done = {}
def merge(ids, pair, new_id):
    # a cache keyed by the pair forgets that ids change from call to call
    if (pair, new_id) not in _done:
        _done[(pair, new_id)] = merge_once(ids, pair, new_id)
    return list(_done[(pair, new_id)])""",
        "test_merge_hidden",
        "merge([1], (1, 2), 9)",
    ),
    # -- train_bpe ---------------------------------------------------------------------------------
    Mistake(
        "nb02_train_tie_goes_to_last_pair",
        NB02,
        "train_bpe",
        edit(
            TRAIN,
            (
                "max(counts, key=counts.get)",
                "sorted(counts, key=counts.get)[-1]   # the last of equals wins",
            ),
        ),
        "test_train_bpe",
        "встретилась раньше",
    ),
    Mistake(
        "nb02_train_tie_goes_to_smallest_pair",
        NB02,
        "train_bpe",
        edit(
            TRAIN,
            (
                "counts, key=counts.get)",
                "sorted(counts), key=counts.get)   # the smallest of equals",
            ),
        ),
        "test_train_bpe",
        "встретилась раньше",
    ),
    Mistake(
        "nb02_train_crashes_without_pairs",
        NB02,
        "train_bpe",
        edit(
            TRAIN,
            (
                "        if not counts:\n            break\n",
                "",
            ),
        ),
        "test_train_bpe_hidden",
        "break",
    ),
    Mistake(
        "nb02_train_loops_without_pairs",
        NB02,
        "train_bpe",
        edit(
            TRAIN,
            ("    for new_id in range(256, vocab_size):", "    new_id = 256\n    while new_id < vocab_size:"),
            (
                "            break",
                "            continue          # nothing to merge, and nothing changes: an endless loop",
            ),
            ("        merges[best] = new_id", "        merges[best] = new_id\n        new_id += 1"),
        ),
        "test_train_bpe_hidden",
        "не останавливается",
    ),
    Mistake(
        "nb02_new_ids_start_at_257",
        NB02,
        "train_bpe",
        edit(TRAIN, ("256, vocab_size", "257, vocab_size + 1")),
        "test_train_bpe",
        "id 256",
    ),
    Mistake(
        "nb02_train_vocab_size_taken_for_the_number_of_merges",
        NB02,
        "train_bpe",
        edit(TRAIN, ("56, vocab_size):", "56, 256 + vocab_size):")),
        "test_train_bpe",
        "размер словаря, а не число",
    ),
    Mistake(
        "nb02_train_one_merge_too_many",
        NB02,
        "train_bpe",
        edit(TRAIN, ("56, vocab_size):", "56, vocab_size + 1):")),
        "test_train_bpe",
        "размер словаря, а не число",
    ),
    Mistake(
        "nb02_train_ids_not_updated",
        NB02,
        "train_bpe",
        edit(
            TRAIN,
            (
                "ids = merge(ids, best, new_id)",
                "merge(ids, best, new_id)          # the result is thrown away",
            ),
        ),
        "test_train_bpe",
        "не забудьте заменить ids",
    ),
    Mistake(
        "nb02_train_on_code_points",
        NB02,
        "train_bpe",
        TRAIN_ON_CODE_POINTS,
        "test_train_bpe",
        "по байтам UTF-8",
    ),
    Mistake(
        "nb02_train_stops_when_no_pair_repeats",
        NB02,
        "train_bpe",
        edit(TRAIN, ("counts:", "counts or max(counts.values()) < 2:   # Wikipedia's stop")),
        "test_train_bpe_hidden",
        "встречается один раз",
    ),
    Mistake(
        "nb02_train_within_words",
        NB02,
        "train_bpe",
        """
def train_bpe(text, vocab_size):
    # pairs only inside words (as libraries do after pretokenization) — not the contract of this notebook
    words = [list(w.encode("utf-8")) for w in text.split(" ")]
    merges = {}
    for new_id in range(256, vocab_size):
        counts = {}
        for w in words:
            for pair, n in get_pair_counts(w).items():
                counts[pair] = counts.get(pair, 0) + n
        if not counts:
            break
        best = max(counts, key=counts.get)
        words = [merge(w, best, new_id) for w in words]
        merges[best] = new_id
    return merges""",
        "test_train_bpe_hidden",
        "через пробел",
    ),
    Mistake(
        "nb02_train_merges_kept_between_calls",
        NB02,
        "train_bpe",
        edit(
            TRAIN,
            (
                "def train_bpe(text, vocab_size):",
                "merges = {}\ndef train_bpe(text, vocab_size):",
            ),
            (
                "    merges = {}\n",
                "",
            ),
            (
                "urn merges",
                "urn dict(merges)",
            ),
        ),
        "test_train_bpe",
        "ничего не копится между вызовами",
    ),
    # a mistake in a helper: train_bpe's visible test names the function to fix first
    Mistake(
        "nb02_overlapping_merge_named_in_train_bpe",
        NB02,
        "merge",
        OVERLAPPING_MERGE,
        "test_train_bpe",
        "Сначала исправьте merge",
    ),
    Mistake(
        "nb02_sorted_pair_counts_named_in_train_bpe",
        NB02,
        "get_pair_counts",
        PAIR_COUNTS_SORTED_BY_PAIR,
        "test_train_bpe",
        "Сначала исправьте get_pair_counts",
    ),
    # issue 20: the hidden test named a tie for training on characters; constants scored by the cost-once rule
    Mistake(
        "nb02_train_on_code_points_named_in_hidden",
        NB02,
        "train_bpe",
        TRAIN_ON_CODE_POINTS,
        "test_train_bpe_hidden",
        "номерам символов (ord)",
    ),
    Mistake(
        "nb02_constant_get_pair_counts",
        NB02,
        "get_pair_counts",
        """
def get_pair_counts(ids):
    return {}""",
        "test_get_pair_counts_hidden",
        "ожидалось",
    ),
    Mistake(
        "nb02_constant_merge",
        NB02,
        "merge",
        """
def merge(ids, pair, new_id):
    return list(ids)""",
        "test_merge_hidden",
        "ожидалось",
    ),
    Mistake(
        "nb02_constant_train_bpe",
        NB02,
        "train_bpe",
        """
def train_bpe(text, vocab_size):
    return {}""",
        "test_train_bpe_hidden",
        "ожидалось",
    ),
    # -- quiz --------------------------------------------------------------------------------------
    Mistake(
        "nb02_quiz_special_token_counted_as_a_merge",
        NB02,
        "quiz_answers",
        QUIZ.replace("50_000", "50_257 - 256"),
        "test_quiz_1",
        "спецтокен",
    ),
    Mistake(
        "nb02_quiz_n_vocab_taken_for_merges",
        NB02,
        "quiz_answers",
        QUIZ.replace("50_000", "50_257"),
        "test_quiz_1",
        "256 базовых байтов",
    ),
    Mistake(
        "nb02_quiz_merges_as_requested",
        NB02,
        "quiz_answers",
        QUIZ.replace("ANSWER_2 = 4", "ANSWER_2 = 300 - 256"),
        "test_quiz_2",
        "сколько бы слияний ни просили",
    ),
    Mistake(
        "nb02_quiz_one_merge_per_letter",
        NB02,
        "quiz_answers",
        QUIZ.replace("ANSWER_2 = 4", "ANSWER_2 = 15"),
        "test_quiz_2",
        "вдвое",
    ),
    Mistake(
        "nb02_quiz_answer_as_text",
        NB02,
        "quiz_answers",
        QUIZ.replace("ANSWER_2 = 4", 'ANSWER_2 = "4"'),
        "test_quiz_2",
        "целым числом",
    ),
]

ALTERNATIVES = [
    Alternative(
        "nb02_pair_counts_with_counter",
        NB02,
        "get_pair_counts",
        """
from collections import Counter
def get_pair_counts(ids):
    return Counter(zip(ids, ids[1:]))""",
    ),
    Alternative(
        "nb02_pair_counts_with_indices",
        NB02,
        "get_pair_counts",
        """
def get_pair_counts(ids):
    counts = {}
    for i in range(len(ids) - 1):
        key = (ids[i], ids[i + 1])
        if key not in counts:
            counts[key] = 0
        counts[key] += 1
    return counts""",
    ),
    Alternative(
        "nb02_merge_with_for_and_skip",
        NB02,
        "merge",
        """
def merge(ids, pair, new_id):
    out, skip = [], False
    for i, x in enumerate(ids):
        if skip:
            skip = False
        elif tuple(ids[i:i + 2]) == pair:
            out.append(new_id)
            skip = True
        else:
            out.append(x)
    return out""",
    ),
    Alternative(
        "nb02_merge_as_text_one_character_per_id",
        NB02,
        "merge",
        """
def merge(ids, pair, new_id):
    # one character per id: str.replace goes left to right without overlaps, like merge
    text = "".join(map(chr, ids)).replace(chr(pair[0]) + chr(pair[1]), chr(new_id))
    return [ord(ch) for ch in text]""",
    ),
    Alternative(
        "nb02_merge_as_text_with_digit_boundaries",
        NB02,
        "merge",
        """
import re
def merge(ids, pair, new_id):
    # numbers written out, but a match may not start or end inside a number
    text = ",".join(map(str, ids))
    text = re.sub(rf"(?<!\\d){pair[0]},{pair[1]}(?!\\d)", str(new_id), text)
    return [int(x) for x in text.split(",")] if text else []""",
    ),
    Alternative(
        "nb02_train_with_while_and_most_common",
        NB02,
        "train_bpe",
        """
from collections import Counter
def train_bpe(text, vocab_size):
    ids, merges = list(text.encode("utf-8")), {}
    while 256 + len(merges) < vocab_size and len(ids) > 1:
        (best, _), = Counter(zip(ids, ids[1:])).most_common(1)   # stable: the first of equals
        merges[best] = 256 + len(merges)
        ids = merge(ids, best, merges[best])
    return merges""",
    ),
    Alternative(
        "nb02_train_without_the_helpers",
        NB02,
        "train_bpe",
        """
def train_bpe(text, vocab_size):
    ids = list(text.encode("utf-8"))
    merges = {}
    while 256 + len(merges) < vocab_size:
        counts = {}
        for a, b in zip(ids, ids[1:]):
            counts[a, b] = counts.get((a, b), 0) + 1
        if not counts:
            return merges
        best = max(counts, key=counts.get)
        new_id = 256 + len(merges)
        merges[best] = new_id
        out, i = [], 0
        while i < len(ids):
            if ids[i:i + 2] == list(best):
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return merges""",
    ),
]
