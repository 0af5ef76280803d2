"""Mistakes and alternative solutions for notebook 03_encode_order."""
from . import Alternative, Mistake

NB03 = "03_encode_order"

MISTAKES = [
    Mistake("nb03_greedy_leftmost_pair", NB03, "encode", '''
def encode(text, merges):
    # merges the leftmost known pair, whatever its id
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        for pair in zip(ids, ids[1:]):
            if pair in merges:
                ids = merge(ids, pair, merges[pair])
                break
        else:
            break
    return ids''', "test_encode", "самую левую"),
    Mistake("nb03_greedy_left_to_right_passes", NB03, "encode", '''
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
    return ids''', "test_encode", "самую левую"),
    Mistake("nb03_most_frequent_pair_in_text", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        counts = get_pair_counts(ids)
        known = {pair: n for pair, n in counts.items() if pair in merges}
        if not known:
            break
        pair = max(known, key=known.get)      # the most frequent pair of this text
        ids = merge(ids, pair, merges[pair])
    return ids''', "test_encode", "самую частую"),
    Mistake("nb03_replay_reversed", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    for pair, new_id in reversed(list(merges.items())):   # the last learned rule first
        ids = merge(ids, pair, new_id)
    return ids''', "test_encode", "в порядке обучения"),
    Mistake("nb03_replay_sorted_by_pair", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    for pair in sorted(merges):                  # sorted by the pair, not by the id
        ids = merge(ids, pair, merges[pair])
    return ids''', "test_encode", "по сортировке пар"),
    Mistake("nb03_last_pair_left_unmerged", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    while len(ids) > 2:
        known = [pair for pair in zip(ids, ids[1:]) if pair in merges]
        if not known:
            break
        pair = min(known, key=merges.get)
        ids = merge(ids, pair, merges[pair])
    return ids''', "test_encode", "последнюю пару"),
    Mistake("nb03_min_of_empty_sequence", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    while True:
        pair = min(zip(ids, ids[1:]), key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        ids = merge(ids, pair, merges[pair])
    return ids''', "test_encode", "min() от пустой последовательности"),
    Mistake("nb03_min_key_without_default", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        pair = min(zip(ids, ids[1:]), key=merges.get)   # None for unknown pairs
        if pair not in merges:
            break
        ids = merge(ids, pair, merges[pair])
    return ids''', "test_encode", "TypeError"),
]

ALTERNATIVES = [
    Alternative("nb03_replay_in_training_order", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    for pair, new_id in merges.items():          # every rule once, in training order
        ids = merge(ids, pair, new_id)
    return ids'''),
    Alternative("nb03_min_with_infinite_default", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        pair = min(zip(ids, ids[1:]), key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        ids = merge(ids, pair, merges[pair])
    return ids'''),
    Alternative("nb03_min_over_get_pair_counts", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        stats = get_pair_counts(ids)
        pair = min(stats, key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        ids = merge(ids, pair, merges[pair])
    return ids'''),
    Alternative("nb03_replay_sorted_by_id_own_merge", NB03, "encode", '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    for (a, b), new_id in sorted(merges.items(), key=lambda kv: kv[1]):
        out, i = [], 0
        while i < len(ids):
            if ids[i:i + 2] == [a, b]:
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids'''),
]
