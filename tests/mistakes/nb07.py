"""Mistakes and alternative solutions for notebook 07_fast_bpe."""
from . import Alternative, Mistake

NB07 = "07_fast_bpe"

MISTAKES = [
    Mistake("nb07_heap_ties_by_pair_value", NB07, "train_fast", '''
def train_fast(text, vocab_size, pattern=GPT2_PATTERN):
    chunk_counts = Counter(pretokenize(text, pattern))
    chunks = [list(chunk.encode("utf-8")) for chunk in chunk_counts]
    freqs = list(chunk_counts.values())
    counts, where = {}, {}
    for i, ids in enumerate(chunks):
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + freqs[i]
            where.setdefault(pair, {})
            where[pair][i] = where[pair].get(i, 0) + 1
    heap = [(-n, pair) for pair, n in counts.items()]     # at equal counts the smaller pair wins
    heapq.heapify(heap)
    merges = {}
    for new_id in range(256, vocab_size):
        while heap and counts.get(heap[0][1]) != -heap[0][0]:
            heapq.heappop(heap)
        if not heap:
            break
        pair = heapq.heappop(heap)[1]
        merges[pair] = new_id
        changed = set()
        for i in list(where[pair]):
            chunks[i], changes = merge_with_changes(chunks[i], pair, new_id)
            for p, sign in changes:
                counts[p] = counts.get(p, 0) + sign * freqs[i]
                in_chunk = where.setdefault(p, {})
                in_chunk[i] = in_chunk.get(i, 0) + sign
                if not in_chunk[i]:
                    del in_chunk[i]
                changed.add(p)
        for p in changed:
            if counts[p]:
                heapq.heappush(heap, (-counts[p], p))
            else:
                del counts[p], where[p]
    return merges''', "test_train_fast", "при ничьей выигрывает пара, которая раньше встречается"),
    Mistake("nb07_stale_counts_of_destroyed_pairs", NB07, "train_fast", '''
def train_fast(text, vocab_size, pattern=GPT2_PATTERN):
    chunk_counts = Counter(pretokenize(text, pattern))
    chunks = [list(chunk.encode("utf-8")) for chunk in chunk_counts]
    freqs = list(chunk_counts.values())
    counts, where = {}, {}
    for i, ids in enumerate(chunks):
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + freqs[i]
            where.setdefault(pair, set()).add(i)
    width = [1] * 256

    def first_place(pair):
        i = min(where[pair])
        ids, offset = chunks[i], 0
        for k in range(len(ids) - 1):
            if (ids[k], ids[k + 1]) == pair:
                return i, offset
            offset += width[ids[k]]

    heap = [(-n, (0, 0), pair) for pair, n in counts.items()]
    heapq.heapify(heap)
    merges = {}
    for new_id in range(256, vocab_size):
        while heap:
            neg, place, pair = heap[0]
            if counts.get(pair) != -neg:
                heapq.heappop(heap)
                continue
            true_place = first_place(pair)
            if true_place == place:
                break
            heapq.heapreplace(heap, (neg, true_place, pair))
        if not heap:
            break
        heapq.heappop(heap)
        merges[pair] = new_id
        width.append(width[pair[0]] + width[pair[1]])
        changed = set()
        for i in where.pop(pair):
            ids, out, k = chunks[i], [], 0
            while k < len(ids):
                if k + 1 < len(ids) and (ids[k], ids[k + 1]) == pair:
                    new_pairs = []
                    if out:
                        new_pairs.append((out[-1], new_id))
                    if k + 2 < len(ids):
                        new_pairs.append((new_id, ids[k + 2]))
                    for p in new_pairs:               # new pairs are counted, destroyed ones are not subtracted
                        counts[p] = counts.get(p, 0) + freqs[i]
                        where.setdefault(p, set()).add(i)
                        changed.add(p)
                    out.append(new_id)
                    k += 2
                else:
                    out.append(ids[k])
                    k += 1
            chunks[i] = out
        del counts[pair]
        for p in changed:
            heapq.heappush(heap, (-counts[p], (0, 0), p))
    return merges''', "test_train_fast", "частоты разрушенных пар"),
    Mistake("nb07_index_keeps_chunk_without_pair", NB07, "train_fast", '''
def train_fast(text, vocab_size, pattern=GPT2_PATTERN):
    chunk_counts = Counter(pretokenize(text, pattern))
    chunks = [list(chunk.encode("utf-8")) for chunk in chunk_counts]
    freqs = list(chunk_counts.values())
    counts, where = {}, {}
    for i, ids in enumerate(chunks):
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + freqs[i]
            where.setdefault(pair, set()).add(i)
    width = [1] * 256

    def first_place(pair):
        i = min(where[pair])
        ids, offset = chunks[i], 0
        for k in range(len(ids) - 1):
            if (ids[k], ids[k + 1]) == pair:
                return i, offset
            offset += width[ids[k]]

    heap = [(-n, (0, 0), pair) for pair, n in counts.items()]
    heapq.heapify(heap)
    merges = {}
    for new_id in range(256, vocab_size):
        while heap:
            neg, place, pair = heap[0]
            if counts.get(pair) != -neg:
                heapq.heappop(heap)
                continue
            true_place = first_place(pair)
            if true_place == place:
                break
            heapq.heapreplace(heap, (neg, true_place, pair))
        if not heap:
            break
        heapq.heappop(heap)
        merges[pair] = new_id
        width.append(width[pair[0]] + width[pair[1]])
        changed = set()
        for i in list(where[pair]):
            chunks[i], changes = merge_with_changes(chunks[i], pair, new_id)
            for p, sign in changes:
                counts[p] = counts.get(p, 0) + sign * freqs[i]
                where.setdefault(p, set()).add(i)     # chunks are added to the index but never removed
                changed.add(p)
        for p in changed:
            if counts[p]:
                heapq.heappush(heap, (-counts[p], (0, 0), p))
            else:
                del counts[p], where[p]
    return merges''', "test_train_fast", "индекс «пара → куски» должен быть точным"),
    Mistake("nb07_index_drops_chunk_with_pair_left", NB07, "train_fast", '''
def train_fast(text, vocab_size, pattern=GPT2_PATTERN):
    chunk_counts = Counter(pretokenize(text, pattern))
    chunks = [list(chunk.encode("utf-8")) for chunk in chunk_counts]
    freqs = list(chunk_counts.values())
    counts, where = {}, {}
    for i, ids in enumerate(chunks):
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + freqs[i]
            where.setdefault(pair, set()).add(i)
    width = [1] * 256

    def first_place(pair):
        i = min(where[pair])
        ids, offset = chunks[i], 0
        for k in range(len(ids) - 1):
            if (ids[k], ids[k + 1]) == pair:
                return i, offset
            offset += width[ids[k]]

    heap = [(-n, (0, 0), pair) for pair, n in counts.items()]
    heapq.heapify(heap)
    merges = {}
    for new_id in range(256, vocab_size):
        while heap:
            neg, place, pair = heap[0]
            if counts.get(pair) != -neg:
                heapq.heappop(heap)
                continue
            true_place = first_place(pair)
            if true_place == place:
                break
            heapq.heapreplace(heap, (neg, true_place, pair))
        if not heap:
            break
        heapq.heappop(heap)
        merges[pair] = new_id
        width.append(width[pair[0]] + width[pair[1]])
        changed = set()
        for i in list(where[pair]):
            chunks[i], changes = merge_with_changes(chunks[i], pair, new_id)
            for p, sign in changes:
                counts[p] = counts.get(p, 0) + sign * freqs[i]
                if sign > 0:
                    where.setdefault(p, set()).add(i)
                else:
                    where[p].discard(i)           # even if another occurrence of p is still in chunk i
                changed.add(p)
        for p in changed:
            if counts[p]:
                heapq.heappush(heap, (-counts[p], (0, 0), p))
            else:
                del counts[p], where[p]
    return merges''', "test_train_fast", "индекс «пара → куски» должен быть точным"),
    Mistake("nb07_encode_cache_keyed_by_length", NB07, "encode_fast", '''
def encode_fast(text, merges, pattern=GPT2_PATTERN):
    cache, out = {}, []
    for chunk in pretokenize(text, pattern):
        key = len(chunk)                          # chunks of the same length share an answer
        if key not in cache:
            cache[key] = encode(chunk, merges)
        out += cache[key]
    return out''', "test_encode_fast", "ключ кэша — сам кусок"),
    Mistake("nb07_encode_cache_shared_across_tables", NB07, "encode_fast", '''
ENCODED = {}                                      # one cache for every merge table

def encode_fast(text, merges, pattern=GPT2_PATTERN):
    out = []
    for chunk in pretokenize(text, pattern):
        if chunk not in ENCODED:
            ENCODED[chunk] = encode(chunk, merges)
        out += ENCODED[chunk]
    return out''', "test_encode_fast", "другая таблица слияний получит id из старой"),
]

ALTERNATIVES = [
    Alternative("nb07_train_fast_bucketed_counts", NB07, "train_fast", '''
def train_fast(text, vocab_size, pattern=GPT2_PATTERN):
    chunk_counts = Counter(pretokenize(text, pattern))
    chunks = [list(chunk.encode("utf-8")) for chunk in chunk_counts]
    freqs = list(chunk_counts.values())
    counts, where = Counter(), {}
    for i, ids in enumerate(chunks):
        for pair in zip(ids, ids[1:]):
            counts[pair] += freqs[i]
            where.setdefault(pair, Counter())[i] += 1
    buckets = {}                                  # частота -> пары с такой частотой
    for pair, n in counts.items():
        buckets.setdefault(n, set()).add(pair)
    width = [1] * 256

    def first_place(pair):
        i = min(where[pair])
        ids, offset = chunks[i], 0
        for a, b in zip(ids, ids[1:]):
            if (a, b) == pair:
                return i, offset
            offset += width[a]

    merges = {}
    for new_id in range(256, vocab_size):
        if not buckets:
            break
        pair = min(buckets[max(buckets)], key=first_place)
        merges[pair] = new_id
        width.append(width[pair[0]] + width[pair[1]])
        for i in list(where[pair]):
            chunks[i], changes = merge_with_changes(chunks[i], pair, new_id)
            for p, sign in changes:
                old = counts[p]
                if old:
                    buckets[old].discard(p)
                    if not buckets[old]:
                        del buckets[old]
                counts[p] = old + sign * freqs[i]
                in_chunk = where.setdefault(p, Counter())
                in_chunk[i] += sign
                if not in_chunk[i]:
                    del in_chunk[i]
                if counts[p]:
                    buckets.setdefault(counts[p], set()).add(p)
                else:
                    del counts[p], where[p]
    return merges'''),
    Alternative("nb07_train_fast_recount_rewritten_chunks", NB07, "train_fast", '''
def train_fast(text, vocab_size, pattern=GPT2_PATTERN):
    chunk_counts = Counter(pretokenize(text, pattern))
    chunks = [list(chunk.encode("utf-8")) for chunk in chunk_counts]
    freqs = list(chunk_counts.values())
    counts, where = Counter(), {}
    for i, ids in enumerate(chunks):
        for pair in zip(ids, ids[1:]):
            counts[pair] += freqs[i]
            where.setdefault(pair, set()).add(i)
    width = [1] * 256

    def first_place(pair):
        i = min(where[pair])
        offset = 0
        for a, b in zip(chunks[i], chunks[i][1:]):
            if (a, b) == pair:
                return i, offset
            offset += width[a]

    heap = [(-n, first_place(pair), pair) for pair, n in counts.items()]   # точные места сразу
    heapq.heapify(heap)
    merges = {}
    for new_id in range(256, vocab_size):
        while heap:
            neg, place, pair = heap[0]
            if counts.get(pair, 0) == -neg and first_place(pair) == place:
                break
            heapq.heappop(heap)                   # устарела: свежая запись уже в куче
        if not heap:
            break
        heapq.heappop(heap)
        merges[pair] = new_id
        width.append(width[pair[0]] + width[pair[1]])
        touched = set()
        for i in list(where[pair]):               # вычесть все пары старого куска, прибавить все пары нового
            old = chunks[i]
            new = chunks[i] = merge(old, pair, new_id)
            old_pairs, new_pairs = list(zip(old, old[1:])), list(zip(new, new[1:]))
            for p in old_pairs:
                counts[p] -= freqs[i]
            for p in new_pairs:
                counts[p] += freqs[i]
            for p in set(old_pairs) - set(new_pairs):
                where[p].discard(i)
            for p in new_pairs:
                where.setdefault(p, set()).add(i)
            touched.update(old_pairs, new_pairs)
        for p in touched:
            if counts[p] > 0:
                heapq.heappush(heap, (-counts[p], first_place(p), p))
            else:
                counts.pop(p, None)
                where.pop(p, None)
    return merges'''),
    Alternative("nb07_encode_fast_lru_cache_per_table", NB07, "encode_fast", '''
from functools import lru_cache

def encode_fast(text, merges, pattern=GPT2_PATTERN):
    @lru_cache(maxsize=None)                      # свой кэш на каждый вызов, то есть на каждую таблицу
    def encode_chunk(chunk):
        return tuple(encode(chunk, merges))

    out = []
    for chunk in pretokenize(text, pattern):
        out.extend(encode_chunk(chunk))
    return out'''),
]
