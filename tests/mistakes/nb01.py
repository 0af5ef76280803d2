"""Mistakes and alternative solutions for notebook 01_hand_example.

For each graded function, the plausible wrong versions a student will try: text tricks (pairs of
the joined word string instead of pairs of symbols), off-by-ones, early stops, frequencies lost or
double counted, state kept between calls, wrong tie rules, and wrong quiz answers."""

from . import Alternative, Mistake, edited

NB01 = "01_hand_example"

MERGE_PAIR = """
def merge_pair(corpus, pair):
    merged = {}
    for symbols, freq in corpus.items():
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                out.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        merged[tuple(out)] = merged.get(tuple(out), 0) + freq
    return merged"""

QUIZ = """
ANSWER_1 = "b"
ANSWER_2 = 3
ANSWER_3 = ("e", "s")"""

# versions of another approach than the solution's, whose own mistakes are edits of them

MERGE_PAIR_KEEPS_THE_PAIR_AS_A_TUPLE = edited(
    NB01, "merge_pair", ("symbols[i] + symbols[i + 1]", "(symbols[i], symbols[i + 1])")
)

WORD_FREQUENCIES_IGNORED = edited(
    NB01,
    "count_pairs",
    (
        "    for symbols, freq in corpus.items():\n"
        "        for pair in zip(symbols, symbols[1:]):\n"
        "            counts[pair] = counts.get(pair, 0) + freq",
        "    for symbols in corpus:\n"
        "        for pair in zip(symbols, symbols[1:]):\n"
        "            counts[pair] = counts.get(pair, 0) + 1",
    ),
)

PAIR_COUNTS_KEPT_BETWEEN_CALLS = edited(
    NB01,
    "count_pairs",
    (
        "def count_pairs(corpus):",
        "counts = {}\ndef count_pairs(corpus):",
    ),
    (
        "    counts = {}\n",
        "",
    ),
    (
        "urn counts",
        "urn dict(counts)",
    ),
)

MISTAKES = [
    # -- count_pairs -------------------------------------------------------------------------------
    Mistake(
        "nb01_pairs_across_words",
        NB01,
        "count_pairs",
        """
def count_pairs(corpus):
    # the words glued into one sequence: pairs across word boundaries are counted
    sequence, weights = [], []
    for symbols, freq in corpus.items():
        sequence += symbols
        weights += [freq] * len(symbols)
    counts = {}
    for i in range(len(sequence) - 1):
        pair = (sequence[i], sequence[i + 1])
        counts[pair] = counts.get(pair, 0) + weights[i]
    return counts""",
        "test_count_pairs",
        "внутри слова",
    ),
    Mistake(
        "nb01_word_frequencies_ignored",
        NB01,
        "count_pairs",
        WORD_FREQUENCIES_IGNORED,
        "test_count_pairs",
        "сумма частот слов",
    ),
    Mistake(
        "nb01_pair_counts_sorted_by_frequency",
        NB01,
        "count_pairs",
        """
from collections import Counter
def count_pairs(corpus):
    counts = Counter()
    for symbols, freq in corpus.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += freq
    return dict(counts.most_common())""",
        "test_count_pairs",
        "порядке первого появления",
    ),
    Mistake(
        "nb01_pair_counted_once_per_word",
        NB01,
        "count_pairs",
        edited(
            NB01,
            "count_pairs",
            (
                "zip(symbols, symbols[1:]):",
                "set(zip(symbols, symbols[1:])):       # a pair seen twice in a word counts once",
            ),
        ),
        "test_count_pairs_hidden",
        "дважды",
    ),
    Mistake(
        "nb01_last_pair_of_word_missed",
        NB01,
        "count_pairs",
        edited(
            NB01,
            "count_pairs",
            (
                "        for pair in zip(symbols, symbols[1:]):",
                "        for i in range(len(symbols) - 2):                 # off by one: the last pair is missed\n"
                "            pair = (symbols[i], symbols[i + 1])",
            ),
        ),
        "test_count_pairs",
        "7 + 7 + 6 + 1 = 21",
    ),
    Mistake(
        "nb01_pairs_counted_in_joined_text",
        NB01,
        "count_pairs",
        edited(
            NB01,
            "count_pairs",
            (
                "    counts = {}",
                '    # a text trick: how often "ab" occurs in the word written out (non-overlapping, and across symbols)\n'
                "    counts = {}",
            ),
            (
                "        for pair in zip(symbols, symbols[1:]):\n            counts[pair] = counts.get(pair, 0) + freq",
                '        text = "".join(symbols)\n'
                "        for pair in dict.fromkeys(zip(symbols, symbols[1:])):\n"
                "            counts[pair] = counts.get(pair, 0) + text.count(pair[0] + pair[1]) * freq",
            ),
        ),
        "test_count_pairs_hidden",
        "дважды",
    ),
    Mistake(
        "nb01_pairs_counted_in_joined_text_of_merged_symbols",
        NB01,
        "count_pairs",
        """
def count_pairs(corpus):
    # the same trick, counting overlaps too: still sees "аб" where the symbols are "а" and "б" apart
    counts = {}
    for symbols, freq in corpus.items():
        text = "".join(symbols)
        for pair in dict.fromkeys(zip(symbols, symbols[1:])):
            ab = pair[0] + pair[1]
            n = sum(text.startswith(ab, i) for i in range(len(text)))
            counts[pair] = counts.get(pair, 0) + n * freq
    return counts""",
        "test_count_pairs_hidden",
        "а не вхождения склеенной строки",
    ),
    Mistake(
        "nb01_pair_counts_kept_between_calls",
        NB01,
        "count_pairs",
        PAIR_COUNTS_KEPT_BETWEEN_CALLS,
        "test_count_pairs",
        "копится",
    ),
    # -- merge_pair --------------------------------------------------------------------------------
    Mistake(
        "nb01_overlapping_merge_pair",
        NB01,
        "merge_pair",
        edited(
            NB01,
            "merge_pair",
            (
                "        out, i = [], 0\n        while i < len(symbols):",
                "        out = []\n        for i in range(len(symbols)):",
            ),
            (
                "                i += 2  # оба символа пары использованы",
                "            elif i > 0 and (symbols[i - 1], symbols[i]) == pair:\n                continue",
            ),
            (
                "                i += 1\n        merged[tuple(out)] = merged.get(tuple(out), 0) + freq",
                "        merged[tuple(out)] = freq",
            ),
        ),
        "test_merge_pair",
        "перекрываются",
    ),
    Mistake(
        "nb01_merge_pair_by_text_replace",
        NB01,
        "merge_pair",
        edited(
            NB01,
            "merge_pair",
            (
                "    merged = {}",
                '    # a text trick: write the word with spaces, replace "a b" by "ab", split again\n    merged = {}',
            ),
            (
                ("        out, i = [], 0", "        merged[tuple(out)] = merged.get(tuple(out), 0) + freq"),
                '        text = " ".join(symbols).replace(pair[0] + " " + pair[1], pair[0] + pair[1])\n'
                '        merged[tuple(text.split(" "))] = merged.get(tuple(text.split(" ")), 0) + freq',
            ),
        ),
        "test_merge_pair_hidden",
        "Сравнивайте пары символов",
    ),
    Mistake(
        "nb01_merge_pair_overwrites_frequency",
        NB01,
        "merge_pair",
        edited(
            NB01,
            "merge_pair",
            (
                "merged.get(tuple(out), 0) + freq",
                "freq                   # two words that became equal: one frequency is lost",
            ),
        ),
        "test_merge_pair_hidden",
        "сложить",
    ),
    Mistake(
        "nb01_merge_pair_first_occurrence_only",
        NB01,
        "merge_pair",
        edited(
            NB01,
            "merge_pair",
            (
                "        out, i = [], 0\n"
                "        while i < len(symbols):\n"
                "            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:",
                "        out, i, done = [], 0, False\n"
                "        while i < len(symbols):\n"
                "            if not done and i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:",
            ),
            (
                "            else:",
                "                done = True                          # stops after the first occurrence in the word\n"
                "            else:",
            ),
        ),
        "test_merge_pair_hidden",
        "склеивается дважды",
    ),
    Mistake(
        "nb01_merge_pair_right_to_left",
        NB01,
        "merge_pair",
        """
def merge_pair(corpus, pair):
    merged = {}
    for symbols, freq in corpus.items():
        out, i = [], len(symbols) - 1
        while i >= 0:                                # from the right: "ааа" becomes а·аа
            if i > 0 and (symbols[i - 1], symbols[i]) == pair:
                out.insert(0, symbols[i - 1] + symbols[i])
                i -= 2
            else:
                out.insert(0, symbols[i])
                i -= 1
        merged[tuple(out)] = merged.get(tuple(out), 0) + freq
    return merged""",
        "test_merge_pair",
        "слева направо",
    ),
    Mistake(
        "nb01_merge_pair_changes_the_corpus",
        NB01,
        "merge_pair",
        edited(
            NB01,
            "merge_pair",
            (
                "    merged = {}\n    for symbols, freq in corpus.items():",
                "    for symbols in list(corpus):",
            ),
            (
                "        merged[tuple(out)] = merged.get(tuple(out), 0) + freq\n    return merged",
                "        freq = corpus.pop(symbols)                   # edits the corpus it was given\n"
                "        corpus[tuple(out)] = corpus.get(tuple(out), 0) + freq\n"
                "    return corpus",
            ),
        ),
        "test_merge_pair",
        "верните новый словарь",
    ),
    Mistake(
        "nb01_merge_pair_either_order",
        NB01,
        "merge_pair",
        edited(
            NB01,
            "merge_pair",
            (
                "(symbols[i], symbols[i + 1]) == pair:",
                "{symbols[i], symbols[i + 1]} == set(pair):   # (б, а) taken for (а, б)",
            ),
        ),
        "test_merge_pair_hidden",
        "пара (б, а) — другая пара",
    ),
    # -- learn_merges ------------------------------------------------------------------------------
    Mistake(
        "nb01_tie_goes_to_last_pair",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "        best = max(counts, key=counts.get)  # из равных max берёт первый",
                "        best = None\n"
                "        for pair, freq in counts.items():\n"
                "            if best is None or freq >= counts[best]:   # >= lets a later pair win a tie\n"
                "                best = pair",
            ),
        ),
        "test_learn_merges_hidden",
        "ничьей",
    ),
    Mistake(
        "nb01_tie_goes_to_smallest_pair",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "counts, key=counts.get)  # из равных max берёт первый",
                "sorted(counts), key=counts.get)     # among equals: the alphabetically first pair",
            ),
        ),
        "test_learn_merges_hidden",
        "не наименьшая",
    ),
    Mistake(
        "nb01_words_sorted_before_training",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "freq for word, freq in word_freqs.items()}",
                "word_freqs[word] for word in sorted(word_freqs)}   # changes which pair comes first",
            ),
        ),
        "test_learn_merges_hidden",
        "без сортировки",
    ),
    Mistake(
        "nb01_learn_merges_crashes_without_pairs",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "        if not counts:\n            break\n",
                "",
            ),
        ),
        "test_learn_merges",
        "break",
    ),
    Mistake(
        "nb01_stops_when_no_pair_repeats",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "counts:",
                "counts or max(counts.values()) < 2:     # Wikipedia's stop: no pair occurs twice",
            ),
        ),
        "test_learn_merges",
        "пару с частотой 1 тоже склеивают",
    ),
    Mistake(
        "nb01_one_merge_too_few",
        NB01,
        "learn_merges",
        edited(NB01, "learn_merges", ("nge(num_merges):", "nge(num_merges - 1):                   # off by one")),
        "test_learn_merges",
        "learn_merges(WORD_FREQS, 5)",
    ),
    Mistake(
        "nb01_corpus_not_updated",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "corpus = merge_pair(corpus, best)",
                "merge_pair(corpus, best)                       # the result is thrown away",
            ),
        ),
        "test_learn_merges",
        "склеивается во всём корпусе",
    ),
    Mistake(
        "nb01_frequency_after_the_merge",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "        steps.append((best, counts[best]))\n        corpus = merge_pair(corpus, best)",
                "        corpus = merge_pair(corpus, best)\n"
                "        steps.append((best, count_pairs(corpus).get(best, 0)))   # counted after the merge: 0",
            ),
        ),
        "test_learn_merges",
        "кортеж (пара, её частота)",
    ),
    Mistake(
        "nb01_steps_kept_between_calls",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "def learn_merges(word_freqs, num_merges):",
                "steps = []\ndef learn_merges(word_freqs, num_merges):",
            ),
            (
                "    steps = []\n",
                "",
            ),
            (
                "urn steps",
                "urn list(steps)",
            ),
        ),
        "test_learn_merges",
        "ничего не копится между вызовами",
    ),
    # a mistake in a helper: learn_merges' visible test names the function to fix first
    Mistake(
        "nb01_merge_pair_keeps_the_pair_as_a_tuple",
        NB01,
        "merge_pair",
        MERGE_PAIR_KEEPS_THE_PAIR_AS_A_TUPLE,
        "test_merge_pair",
        "склеивается в одну строку",
    ),
    Mistake(
        "nb01_merge_pair_keeps_the_pair_as_a_tuple_named_in_learn_merges",
        NB01,
        "merge_pair",
        MERGE_PAIR_KEEPS_THE_PAIR_AS_A_TUPLE,
        "test_learn_merges",
        "Сначала исправьте merge_pair",
    ),
    Mistake(
        "nb01_unweighted_count_pairs_named_in_learn_merges",
        NB01,
        "count_pairs",
        WORD_FREQUENCIES_IGNORED,
        "test_learn_merges",
        "Сначала исправьте count_pairs",
    ),
    # issue 20: wrong code that had full marks, and messages that named the wrong cause
    Mistake(
        "nb01_merge_pair_compares_glued_text",
        NB01,
        "merge_pair",
        edited(
            NB01,
            "merge_pair",
            (
                "(symbols[i], symbols[i + 1]) == pair",
                "symbols[i] + symbols[i + 1] == pair[0] + pair[1]",
            ),
        ),
        "test_merge_pair_hidden",
        "а не их склейку",
    ),
    Mistake(
        "nb01_pair_counts_kept_between_calls_named_in_hidden",
        NB01,
        "count_pairs",
        PAIR_COUNTS_KEPT_BETWEEN_CALLS,
        "test_count_pairs_hidden",
        "словарь копится между ними",
    ),
    Mistake(
        "nb01_skips_frequency_one_named_in_hidden",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "        steps.append((best, counts[best]))",
                '        if counts[best] < 2:                           # a pair seen once "teaches nothing": stop\n'
                "            break\n"
                "        steps.append((best, counts[best]))",
            ),
        ),
        "test_learn_merges_hidden",
        "Пару с частотой 1 тоже склеивают",
    ),
    Mistake(
        "nb01_constant_count_pairs",
        NB01,
        "count_pairs",
        """
def count_pairs(corpus):
    return {}""",
        "test_count_pairs_hidden",
        "ожидалось",
    ),
    Mistake(
        "nb01_constant_merge_pair",
        NB01,
        "merge_pair",
        """
def merge_pair(corpus, pair):
    return dict(corpus)""",
        "test_merge_pair_hidden",
        "ожидалось",
    ),
    Mistake(
        "nb01_constant_learn_merges",
        NB01,
        "learn_merges",
        """
def learn_merges(word_freqs, num_merges):
    return []""",
        "test_learn_merges_hidden",
        "ожидалось",
    ),
    # -- quiz --------------------------------------------------------------------------------------
    Mistake(
        "nb01_quiz_steps_are_the_pair_frequency",
        NB01,
        "quiz_answers",
        QUIZ.replace("ANSWER_2 = 3", "ANSWER_2 = 7"),
        "test_quiz_2",
        "не число шагов",
    ),
    Mistake(
        "nb01_quiz_steps_as_text",
        NB01,
        "quiz_answers",
        QUIZ.replace("ANSWER_2 = 3", 'ANSWER_2 = "3"'),
        "test_quiz_2",
        "целым числом",
    ),
    Mistake(
        "nb01_quiz_later_pair_of_the_tie",
        NB01,
        "quiz_answers",
        QUIZ.replace('("e", "s")', '("s", "t")'),
        "test_quiz_3",
        "ничьей",
    ),
    Mistake(
        "nb01_quiz_first_pair_as_string",
        NB01,
        "quiz_answers",
        QUIZ.replace('("e", "s")', '"es"'),
        "test_quiz_3",
        "кортежем из двух строк",
    ),
    Mistake(
        "nb01_quiz_bpe_knows_grammar",
        NB01,
        "quiz_answers",
        QUIZ.replace('ANSWER_1 = "b"', 'ANSWER_1 = "a"'),
        "test_quiz_1",
        "частоты пар",
    ),
]

ALTERNATIVES = [
    Alternative(
        "nb01_count_pairs_with_counter",
        NB01,
        "count_pairs",
        """
from collections import Counter
def count_pairs(corpus):
    counts = Counter()
    for word, n in corpus.items():
        for a, b in zip(word, word[1:]):
            counts[a, b] += n
    return counts""",
    ),
    Alternative(
        "nb01_count_pairs_with_indices",
        NB01,
        "count_pairs",
        """
def count_pairs(corpus):
    result = {}
    for word in corpus:
        for i in range(len(word) - 1):
            key = (word[i], word[i + 1])
            if key in result:
                result[key] += corpus[word]
            else:
                result[key] = corpus[word]
    return result""",
    ),
    Alternative(
        "nb01_merge_pair_with_for_and_skip",
        NB01,
        "merge_pair",
        """
def merge_pair(corpus, pair):
    result = {}
    for word, n in corpus.items():
        new, skip = [], False
        for i, symbol in enumerate(word):
            if skip:
                skip = False
                continue
            if tuple(word[i:i + 2]) == pair:
                new.append(pair[0] + pair[1])
                skip = True
            else:
                new.append(symbol)
        result[tuple(new)] = result.get(tuple(new), 0) + n
    return result""",
    ),
    Alternative(
        "nb01_merge_pair_with_defaultdict",
        NB01,
        "merge_pair",
        """
from collections import defaultdict
def merge_pair(corpus, pair):
    a, b = pair
    result = defaultdict(int)
    for word, n in corpus.items():
        symbols = list(word)
        i = 0
        while i < len(symbols) - 1:
            if symbols[i] == a and symbols[i + 1] == b:
                symbols[i:i + 2] = [a + b]
            i += 1
        result[tuple(symbols)] += n
    return dict(result)""",
    ),
    Alternative(
        "nb01_learn_merges_with_explicit_loop",
        NB01,
        "learn_merges",
        """
def learn_merges(word_freqs, num_merges):
    corpus = {tuple(w): n for w, n in word_freqs.items()}
    steps = []
    while len(steps) < num_merges:
        counts = count_pairs(corpus)
        best, best_count = None, 0
        for pair, count in counts.items():
            if count > best_count:
                best, best_count = pair, count
        if best is None:
            break
        steps.append((best, best_count))
        corpus = merge_pair(corpus, best)
    return steps""",
    ),
    Alternative(
        "nb01_learn_merges_on_strings",
        NB01,
        "learn_merges",
        edited(
            NB01,
            "learn_merges",
            (
                "{tuple(word): freq for word, freq in word_freqs.items()}",
                "dict(word_freqs)              # strings work too: zip and + see them as symbols",
            ),
            (
                "counts, key=counts.get)  # из равных max берёт первый",
                "counts.items(), key=lambda kv: kv[1])[0]",
            ),
        ),
    ),
]
