"""Mistakes and alternative solutions for notebook 03_encode_order.

For each graded function, the plausible wrong versions a student will try: the leftmost or the most
frequent pair instead of the earliest rule, rules replayed in the dictionary's key order, text tricks
over ",".join(map(str, ids)), caches that outlive a call, trees not taken apart to the bytes, rules
listed twice or in the order of the tokens, and wrong quiz answers."""

from . import Alternative, Mistake, edit, edited

NB03 = "03_encode_order"


def encode_cached_by(key: str) -> str:
    """The reference encode with a cache that outlives the call, keyed by `key`."""
    return edited(
        NB03,
        "encode",
        ("def encode(text, merges):", "_seen = {}\ndef encode(text, merges):"),
        (
            '    ids = list(text.encode("utf-8"))\n',
            f'    key = {key}\n    if key in _seen:\n        return list(_seen[key])\n    ids = list(text.encode("utf-8"))\n',
        ),
        ("    return ids", "    _seen[key] = ids\n    return ids"),
    )


OWN_MERGE_LOSING_LAST = """
def merge_pairs(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids) - 1:          # the last id is lost when it is not part of a pair
        if (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
"""

OWN_MERGE = edit(
    OWN_MERGE_LOSING_LAST,
    ("while i < len(ids) - 1:          # the last id is lost when it is not part of a pair", "while i < len(ids):"),
    ("if (ids[i], ids[i + 1]) == pair:", "if ids[i:i + 2] == list(pair):"),
)

# every rule once, replayed in the order of the keys (a mistake: the order is the ids')
REPLAY = edited(
    NB03,
    "encode",
    (
        ("    while len(ids) >= 2:", "        ids = merge(ids, pair, merges[pair])"),
        "    for pair, new_id in merges.items():\n        ids = merge(ids, pair, new_id)",
    ),
)
REPLAY_BY_ID = edit(
    REPLAY, ("merges.items():", "sorted(merges.items(), key=lambda kv: kv[1]):   # every rule once, by id")
)

APPLIED = """
def applied_merges(ids, merges):
    parts = {new_id: pair for pair, new_id in merges.items()}
    used, todo = set(), [i for i in ids if i >= 256]
    while todo:
        token = todo.pop()
        if token not in used:
            used.add(token)
            todo.extend(part for part in parts[token] if part >= 256)
    return sorted(used)"""

QUIZ = '''
ANSWER_1 = [97, 258]
ANSWER_2 = "b"
ANSWER_3 = "a"'''

# versions of another approach than the solution's, whose own mistakes are edits of them

APPLIED_WITH_REPEATS = """
def applied_merges(ids, merges):
    parts = {new_id: pair for pair, new_id in merges.items()}
    out = []
    def walk(token):
        if token >= 256:
            a, b = parts[token]
            walk(a)
            walk(b)
            out.append(token)                          # a rule inside two tokens is listed twice
    for token in ids:
        walk(token)
    return sorted(out)"""

# versions of another approach than the solution's, whose own mistakes are edits of them

MIN_OF_EMPTY_SEQUENCE = edited(
    NB03,
    "encode",
    (
        ("    while len(ids) >= 2:", "        pair = min(known, key=merges.get)     # выучена раньше всех"),
        "    while True:\n"
        '        pair = min(zip(ids, ids[1:]), key=lambda p: merges.get(p, float("inf")))\n'
        "        if pair not in merges:\n"
        "            break",
    ),
)

MIN_WITH_INFINITE_DEFAULT = edit(MIN_OF_EMPTY_SEQUENCE, ("True", "len(ids) >= 2"))

ENCODE_CACHED_BY_TEXT = edited(
    NB03,
    "encode",
    (
        "def encode(text, merges):",
        "_seen = {}\ndef encode(text, merges):",
    ),
    (
        '    ids = list(text.encode("utf-8"))',
        '    key = text\n    if key in _seen:\n        return list(_seen[key])\n    ids = list(text.encode("utf-8"))',
    ),
    (
        "    return ids",
        "    _seen[key] = ids\n    return ids",
    ),
)

MISTAKES = [
    Mistake(
        "nb03_greedy_leftmost_pair",
        NB03,
        "encode",
        edited(
            NB03,
            "encode",
            (
                "min(known, key=merges.get)     # выучена раньше всех",
                "known[0]   # the leftmost known pair, whatever its id",
            ),
        ),
        "test_encode",
        "самую левую",
    ),
    Mistake(
        "nb03_greedy_left_to_right_passes",
        NB03,
        "encode",
        """
def encode(text, merges):
    # passes from left to right, merging every known pair on the way, until nothing changes
    ids = list(text.encode("utf-8"))
    changed = True
    while changed:
        changed, out, i = False, [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) in merges:
                out.append(merges[(ids[i], ids[i + 1])])
                i += 2
                changed = True
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids""",
        "test_encode",
        "самую левую",
    ),
    Mistake(
        "nb03_most_frequent_pair_in_text",
        NB03,
        "encode",
        edited(
            NB03,
            "encode",
            (
                "        known = [pair for pair in zip(ids, ids[1:]) if pair in merges]",
                "        counts = get_pair_counts(ids)\n"
                "        known = {pair: n for pair, n in counts.items() if pair in merges}",
            ),
            (
                "min(known, key=merges.get)     # выучена раньше всех",
                "max(known, key=known.get)      # the most frequent pair of this text",
            ),
        ),
        "test_encode",
        "самую частую",
    ),
    Mistake(
        "nb03_replay_reversed",
        NB03,
        "encode",
        edit(REPLAY, ("merges.items():", "reversed(list(merges.items())):   # the last learned rule first")),
        "test_encode",
        "в порядке обучения",
    ),
    Mistake(
        "nb03_replay_sorted_by_pair",
        NB03,
        "encode",
        edited(
            NB03,
            "encode",
            (
                ("    while len(ids) >= 2:", "        pair = min(known, key=merges.get)     # выучена раньше всех"),
                "    for pair in sorted(merges):                  # sorted by the pair, not by the id",
            ),
        ),
        "test_encode",
        "по сортировке пар",
    ),
    Mistake(
        "nb03_last_pair_left_unmerged",
        NB03,
        "encode",
        edited(NB03, "encode", ("s) >= 2:", "s) > 2:")),
        "test_encode",
        "последнюю пару",
    ),
    Mistake(
        "nb03_min_of_empty_sequence",
        NB03,
        "encode",
        MIN_OF_EMPTY_SEQUENCE,
        "test_encode",
        "min() от пустой последовательности",
    ),
    Mistake(
        "nb03_min_key_without_default",
        NB03,
        "encode",
        edit(
            MIN_WITH_INFINITE_DEFAULT,
            ('key=lambda p: merges.get(p, float("inf")))', "key=merges.get)   # None for unknown pairs"),
        ),
        "test_encode",
        "TypeError",
    ),
    Mistake(
        "nb03_replay_in_insertion_order",
        NB03,
        "encode",
        REPLAY,  # every rule once, in the order of the keys
        "test_encode",
        "порядок ключей словаря",
    ),
    Mistake(
        "nb03_encode_by_text_replace",
        NB03,
        "encode",
        """
def encode(text, merges):
    # a text trick: "25,6,97" contains "6,97", "44,9" contains "4,9"
    line = ",".join(map(str, text.encode("utf-8")))
    for (a, b), new_id in sorted(merges.items(), key=lambda kv: kv[1]):
        line = line.replace(f"{a},{b}", str(new_id))
    return [int(x) for x in line.split(",")] if line else []""",
        "test_encode_hidden",
        "сравнивайте id как числа",
    ),
    Mistake(
        "nb03_encode_cached_by_text",
        NB03,
        "encode",
        ENCODE_CACHED_BY_TEXT,  # the same text with another table: a stale answer
        "test_encode_hidden",
        "помнит прошлые вызовы",
    ),
    # issue 26: a cache keyed by the table's id() or size passed, since every test table was new
    Mistake(
        "nb03_encode_cached_by_text_and_table_id",
        NB03,
        "encode",
        edit(ENCODE_CACHED_BY_TEXT, ("y = text", "y = (text, id(merges))")),
        "test_encode_hidden",
        "id(merges)",
    ),
    Mistake(
        "nb03_encode_cached_by_text_and_table_size",
        NB03,
        "encode",
        edit(ENCODE_CACHED_BY_TEXT, ("y = text", "y = (text, len(merges))")),
        "test_encode_hidden",
        "по размеру таблицы",
    ),
    # issue 26: these two were told to merge the last pair (len(ids) >= 2) or about the order
    Mistake(
        "nb03_pairs_collected_once",
        NB03,
        "encode",
        edited(
            NB03,
            "encode",
            (
                "    while len(ids) >= 2:\n        known = [pair for pair in zip(ids, ids[1:]) if pair in merges]\n",
                "    known = [pair for pair in zip(ids, ids[1:]) if pair in merges]   # the bytes' pairs only\n"
                "    while known:\n",
            ),
            (
                "        ids = merge(ids, pair, merges[pair])",
                "        ids = merge(ids, pair, merges[pair])\n        known.remove(pair)",
            ),
        ),
        "test_encode",
        "после каждого слияния",
    ),
    Mistake(
        "nb03_own_merge_loses_last_id",
        NB03,
        "encode",
        OWN_MERGE_LOSING_LAST
        + edited(
            NB03, "encode", ("ids = merge(ids, pair, merges[pair])", "ids = merge_pairs(ids, pair, merges[pair])")
        ),
        "test_encode",
        "последний id",
    ),
    Mistake(
        "nb03_latest_rule_first",
        NB03,
        "encode",
        edited(NB03, "encode", ("min(known, key=merges.get)", "max(known, key=merges.get)")),
        "test_encode",
        "наименьшим id",
    ),
    Mistake(
        "nb03_encode_on_code_points",
        NB03,
        "encode",
        edited(NB03, "encode", ('list(text.encode("utf-8"))', "[ord(ch) for ch in text]")),
        "test_encode",
        "по байтам UTF-8",
    ),
    # -- applied_merges ----------------------------------------------------------------------------
    Mistake(
        "nb03_applied_top_level_only",
        NB03,
        "applied_merges",
        """
def applied_merges(ids, merges):
    return sorted({i for i in ids if i >= 256})      # the parts inside the tokens are forgotten""",
        "test_applied_merges",
        "разберите токен до байтов",
    ),
    Mistake(
        "nb03_applied_one_level",
        NB03,
        "applied_merges",
        """
def applied_merges(ids, merges):
    parts = {new_id: pair for pair, new_id in merges.items()}
    used = set()
    for i in ids:
        if i >= 256:
            used.add(i)
            used.update(p for p in parts[i] if p >= 256)   # one level down only
    return sorted(used)""",
        "test_applied_merges",
        "на всю глубину",
    ),
    Mistake(
        "nb03_applied_with_repeats",
        NB03,
        "applied_merges",
        APPLIED_WITH_REPEATS,
        "test_applied_merges",
        "один раз, хотя в токене",
    ),
    Mistake(
        "nb03_applied_in_token_order",
        NB03,
        "applied_merges",
        edit(
            APPLIED_WITH_REPEATS,
            (
                "256",
                "256 and token not in out",
            ),
            (
                "sorted(out)",
                "out",
            ),
        ),
        "test_applied_merges",
        "не порядок токенов в ids",
    ),
    Mistake(
        "nb03_applied_with_bytes",
        NB03,
        "applied_merges",
        edited(
            NB03,
            "applied_merges",
            (
                "[i for i in ids if i >= 256]",
                "list(ids)",
            ),
            (
                "part for part in parts[token] if part >= 256",
                "parts.get(token, ())",
            ),
        ),
        "test_applied_merges",
        "байты (id < 256) — не правила",
    ),
    Mistake(
        "nb03_applied_newest_first",
        NB03,
        "applied_merges",
        edited(NB03, "applied_merges", ("ted(used)", "ted(used, reverse=True)")),
        "test_applied_merges",
        "Сначала сработало правило 256",
    ),
    Mistake(
        "nb03_applied_in_key_order",
        NB03,
        "applied_merges",
        edited(
            NB03,
            "applied_merges",
            (
                "sorted(used)",
                "[i for i in merges.values() if i in used]   # the order of the keys",
            ),
        ),
        "test_applied_merges_hidden",
        "порядке ключей словаря",
    ),
    Mistake(
        "nb03_applied_table_cached",
        NB03,
        "applied_merges",
        edited(
            NB03,
            "applied_merges",
            (
                "def applied_merges(ids, merges):",
                "_parts = {}\ndef applied_merges(ids, merges):",
            ),
            (
                "    parts = {new_id: pair for pair, new_id in merges.items()}   # id → из чего он склеен",
                "    if not _parts:                                     # built once, from the first table it saw\n"
                "        _parts.update({new_id: pair for pair, new_id in merges.items()})",
            ),
            (
                "        if token not in used:\n"
                "            used.add(token)\n"
                "            todo.extend(part for part in parts[token] if part >= 256)",
                "        if token not in used and token in _parts:\n"
                "            used.add(token)\n"
                "            todo.extend(part for part in _parts[token] if part >= 256)",
            ),
        ),
        "test_applied_merges",
        "ничего не запоминайте",
    ),
    # issue 20: merging only the first occurrence was blamed on len(ids) >= 2
    Mistake(
        "nb03_replay_first_occurrence_only",
        NB03,
        "encode",
        edit(
            REPLAY_BY_ID,
            (
                "        ids = merge(ids, pair, new_id)",
                "        for i in range(len(ids) - 1):\n"
                "            if (ids[i], ids[i + 1]) == pair:                             # only the first occurrence\n"
                "                ids = ids[:i] + [new_id] + ids[i + 2:]\n"
                "                break",
            ),
        ),
        "test_encode",
        "а не первое",
    ),
    # -- quiz --------------------------------------------------------------------------------------
    Mistake(
        "nb03_quiz_leftmost_answer",
        NB03,
        "quiz_answers",
        QUIZ.replace("[97, 258]", "[257, 99, 100]"),
        "test_quiz_1",
        "жадного",
    ),
    Mistake(
        "nb03_quiz_third_rule_forgotten",
        NB03,
        "quiz_answers",
        QUIZ.replace("[97, 258]", "[97, 256, 100]"),
        "test_quiz_1",
        "Какие пары появляются после первого слияния",
    ),
    Mistake(
        "nb03_quiz_rule_fires_per_occurrence",
        NB03,
        "quiz_answers",
        QUIZ.replace('ANSWER_2 = "b"', 'ANSWER_2 = "a"'),
        "test_quiz_2",
        "все вхождения своей пары сразу",
    ),
    Mistake(
        "nb03_quiz_every_rule_fires",
        NB03,
        "quiz_answers",
        QUIZ.replace('ANSWER_2 = "b"', 'ANSWER_2 = "c"'),
        "test_quiz_2",
        "чьих пар в тексте нет",
    ),
    Mistake(
        "nb03_quiz_replay_is_faster",
        NB03,
        "quiz_answers",
        QUIZ.replace('ANSWER_3 = "a"', 'ANSWER_3 = "b"'),
        "test_quiz_3",
        "сколько проходов по слову",
    ),
]

ALTERNATIVES = [
    Alternative(
        "nb03_min_with_infinite_default",
        NB03,
        "encode",
        MIN_WITH_INFINITE_DEFAULT,
    ),
    Alternative(
        "nb03_min_over_get_pair_counts",
        NB03,
        "encode",
        edit(MIN_WITH_INFINITE_DEFAULT, ("min(zip(ids, ids[1:])", "min(get_pair_counts(ids)")),
    ),
    Alternative(
        "nb03_replay_sorted_by_id_own_merge",
        NB03,
        "encode",
        OWN_MERGE + edit(REPLAY_BY_ID, ("ids = merge(ids", "ids = merge_pairs(ids")),
    ),
    Alternative(
        "nb03_applied_by_recursion",
        NB03,
        "applied_merges",
        """
def applied_merges(ids, merges):
    parts = {v: k for k, v in merges.items()}
    found = []
    def visit(token):
        if token in parts and token not in found:
            found.append(token)
            for part in parts[token]:
                visit(part)
    for token in ids:
        visit(token)
    return sorted(found)""",
    ),
    Alternative(
        "nb03_applied_by_encoding_again",
        NB03,
        "applied_merges",
        """
def applied_merges(ids, merges):
    # decode the tokens back to text and encode it again, writing down each rule as it fires
    pieces = token_bytes(dict(sorted(merges.items(), key=lambda kv: kv[1])))   # parts before wholes
    ids_again = list(b"".join(pieces[i] for i in ids))
    fired = []
    while len(ids_again) >= 2:
        known = [p for p in zip(ids_again, ids_again[1:]) if p in merges]
        if not known:
            break
        pair = min(known, key=merges.get)
        fired.append(merges[pair])
        ids_again = merge(ids_again, pair, merges[pair])
    return fired""",
    ),
]
