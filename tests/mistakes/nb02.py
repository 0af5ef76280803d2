"""Mistakes and alternative solutions for notebook 02_byte_level_training."""
from autograder.demo import OVERLAPPING_MERGE

from . import Alternative, Mistake

NB02 = "02_byte_level_training"

MISTAKES = [
    Mistake("overlapping_merge", NB02, "merge", OVERLAPPING_MERGE, "test_merge", "без перекрытий"),  # the demo's carol
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
