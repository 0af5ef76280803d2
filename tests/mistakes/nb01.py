"""Mistakes and alternative solutions for notebook 01_hand_example."""
from . import Alternative, Mistake

NB01 = "01_hand_example"

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
]
