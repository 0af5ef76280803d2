"""Known student mistakes and alternative correct solutions, as replacements of solution cells.

Each Mistake names the test that is meant to catch it and words its message must contain, so
a test that stops catching the mistake, or catches it with an unhelpful message, fails.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    id: str
    notebook: str
    cell: str          # grade_id of the solution cell replaced
    source: str
    caught_by: str     # grade_id of the test cell that must lose its points
    message: str       # words the failure message must contain (Russian)


@dataclass(frozen=True)
class Alternative:
    id: str
    notebook: str
    cell: str
    source: str


NB01 = "01_hand_example"
NB02 = "02_byte_level_training"

MISTAKES = [
    Mistake("pairs_across_words", NB01, "count_pairs", '''
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
    return counts''', "test_count_pairs", "внутри слова"),
    Mistake("word_frequencies_ignored", NB01, "count_pairs", '''
def count_pairs(corpus):
    counts = {}
    for symbols in corpus:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts''', "test_count_pairs", "сумма частот слов"),
    Mistake("pair_counts_sorted_by_frequency", NB01, "count_pairs", '''
from collections import Counter
def count_pairs(corpus):
    counts = Counter()
    for symbols, freq in corpus.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += freq
    return dict(counts.most_common())''', "test_count_pairs", "порядке первого появления"),
    Mistake("overlapping_merge_pair", NB01, "merge_pair", '''
def merge_pair(corpus, pair):
    merged = {}
    for symbols, freq in corpus.items():
        out = []
        for i in range(len(symbols)):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                out.append(symbols[i] + symbols[i + 1])
            elif i > 0 and (symbols[i - 1], symbols[i]) == pair:
                continue
            else:
                out.append(symbols[i])
        merged[tuple(out)] = freq
    return merged''', "test_merge_pair", "перекрываются"),
    Mistake("tie_goes_to_last_pair", NB01, "learn_merges", '''
def learn_merges(word_freqs, num_merges):
    corpus = {tuple(word): freq for word, freq in word_freqs.items()}
    steps = []
    for _ in range(num_merges):
        counts = count_pairs(corpus)
        if not counts:
            break
        best = None
        for pair, freq in counts.items():
            if best is None or freq >= counts[best]:   # >= lets a later pair win a tie
                best = pair
        steps.append((best, counts[best]))
        corpus = merge_pair(corpus, best)
    return steps''', "test_learn_merges_hidden", "ничьей"),
    Mistake("learn_merges_crashes_without_pairs", NB01, "learn_merges", '''
def learn_merges(word_freqs, num_merges):
    corpus = {tuple(word): freq for word, freq in word_freqs.items()}
    steps = []
    for _ in range(num_merges):
        counts = count_pairs(corpus)
        best = max(counts, key=counts.get)
        steps.append((best, counts[best]))
        corpus = merge_pair(corpus, best)
    return steps''', "test_learn_merges", "break"),

    Mistake("overlapping_merge", NB02, "merge", '''
def merge(ids, pair, new_id):
    out = []
    for i in range(len(ids)):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
        elif i > 0 and (ids[i - 1], ids[i]) == pair:
            continue
        else:
            out.append(ids[i])
    return out''', "test_merge", "без перекрытий"),
    Mistake("pair_counts_most_common", NB02, "get_pair_counts", '''
from collections import Counter
def get_pair_counts(ids):
    return dict(Counter(zip(ids, ids[1:])).most_common())''', "test_get_pair_counts", "most_common"),
    Mistake("pair_counts_sorted_by_pair", NB02, "get_pair_counts", '''
def get_pair_counts(ids):
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return dict(sorted(counts.items()))''', "test_get_pair_counts", "не по значению"),
    Mistake("train_tie_goes_to_last_pair", NB02, "train_bpe", '''
def train_bpe(text, vocab_size):
    ids = list(text.encode("utf-8"))
    merges = {}
    for new_id in range(256, vocab_size):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = sorted(counts, key=counts.get)[-1]   # the last of equals wins
        merges[best] = new_id
        ids = merge(ids, best, new_id)
    return merges''', "test_train_bpe", "встретилась раньше"),
    Mistake("train_crashes_without_pairs", NB02, "train_bpe", '''
def train_bpe(text, vocab_size):
    ids = list(text.encode("utf-8"))
    merges = {}
    for new_id in range(256, vocab_size):
        counts = get_pair_counts(ids)
        best = max(counts, key=counts.get)
        merges[best] = new_id
        ids = merge(ids, best, new_id)
    return merges''', "test_train_bpe_hidden", "break"),
    Mistake("train_loops_without_pairs", NB02, "train_bpe", '''
def train_bpe(text, vocab_size):
    ids = list(text.encode("utf-8"))
    merges = {}
    new_id = 256
    while new_id < vocab_size:
        counts = get_pair_counts(ids)
        if not counts:
            continue          # nothing to merge, and nothing changes: an endless loop
        best = max(counts, key=counts.get)
        merges[best] = new_id
        ids = merge(ids, best, new_id)
        new_id += 1
    return merges''', "test_train_bpe_hidden", "не останавливается"),
    Mistake("new_ids_start_at_257", NB02, "train_bpe", '''
def train_bpe(text, vocab_size):
    ids = list(text.encode("utf-8"))
    merges = {}
    for new_id in range(257, vocab_size + 1):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        merges[best] = new_id
        ids = merge(ids, best, new_id)
    return merges''', "test_train_bpe", "id 256"),
]

ALTERNATIVES = [
    Alternative("count_pairs_with_counter", NB01, "count_pairs", '''
from collections import Counter
def count_pairs(corpus):
    counts = Counter()
    for word, n in corpus.items():
        for a, b in zip(word, word[1:]):
            counts[a, b] += n
    return counts'''),
    Alternative("merge_pair_with_for_and_skip", NB01, "merge_pair", '''
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
    return result'''),
    Alternative("learn_merges_with_explicit_loop", NB01, "learn_merges", '''
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
    return steps'''),
    Alternative("pair_counts_with_counter", NB02, "get_pair_counts", '''
from collections import Counter
def get_pair_counts(ids):
    return Counter(zip(ids, ids[1:]))'''),
    Alternative("merge_with_for_and_skip", NB02, "merge", '''
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
    return out'''),
    Alternative("train_with_while_and_most_common", NB02, "train_bpe", '''
from collections import Counter
def train_bpe(text, vocab_size):
    ids, merges = list(text.encode("utf-8")), {}
    while 256 + len(merges) < vocab_size and len(ids) > 1:
        (best, _), = Counter(zip(ids, ids[1:])).most_common(1)   # stable: the first of equals
        merges[best] = 256 + len(merges)
        ids = merge(ids, best, merges[best])
    return merges'''),
]
