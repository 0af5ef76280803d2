"""Mistakes and alternative solutions for notebook 07_fast_bpe."""

from . import Alternative, Mistake, edit, edited

NB07 = "07_fast_bpe"


def _train_fast(*replacements):
    """The reference train_fast with `replacements` (old, new) made, each standing once (see `edited`)."""
    return edited(NB07, "train_fast", *replacements)


# the index "pair -> chunks" as a set of chunk numbers (not a count per chunk): its mistakes edit this
SET_INDEX = edited(
    NB07,
    "train_fast",
    (
        "    counts = {}        # пара -> частота с весами кусков\n"
        "    where = {}         # пара -> {номер куска: сколько раз пара в нём стоит}",
        "    counts, where = {}, {}",
    ),
    (
        "            in_chunk = where.setdefault(pair, {})\n            in_chunk[i] = in_chunk.get(i, 0) + 1",
        "            where.setdefault(pair, set()).add(i)",
    ),
)

# the lines that keep the index up to date after a merge (what SET_INDEX's mistakes replace)
INDEX_UPDATE = (
    "                in_chunk = where.setdefault(p, {})",
    "                    del in_chunk[i]               # в куске i пары p больше нет",
)

# versions of another approach than the solution's, whose own mistakes are edits of them

ONE_CACHE_FOR_EVERY_TABLE = """
ENCODED = {}                                      # one cache for every merge table

def encode_fast(text, merges, pattern=GPT2_PATTERN):
    out = []
    for chunk in pretokenize(text, pattern):
        if chunk not in ENCODED:
            ENCODED[chunk] = encode(chunk, merges)
        out += ENCODED[chunk]
    return out"""

ENCODE_FAST_FORGETS_THE_RIGHT_NEIGHBOUR = """
def encode_fast(text, merges, pattern=GPT2_PATTERN):
    cache, out = {}, []
    for chunk in pretokenize(text, pattern):
        if chunk not in cache:
            ids = list(chunk.encode("utf-8"))
            ranks = [merges.get(pair, math.inf) for pair in zip(ids, ids[1:])]
            while ranks and min(ranks) < math.inf:
                best = min(ranks)
                k = ranks.index(best)
                ids[k:k + 2] = [best]
                del ranks[k]
                if k > 0:
                    ranks[k - 1] = merges.get((ids[k - 1], ids[k]), math.inf)
                # the pair (new token, right neighbour) keeps the rank of the pair that was there
            cache[chunk] = ids
        out += cache[chunk]
    return out"""

MISTAKES = [
    Mistake(
        "nb07_heap_ties_by_pair_value",
        NB07,
        "train_fast",
        _train_fast(
            (
                "    counts = {}        # пара -> частота с весами кусков\n"
                "    where = {}         # пара -> {номер куска: сколько раз пара в нём стоит}",
                "    counts, where = {}, {}",
            ),
            (
                (
                    "            in_chunk = where.setdefault(pair, {})",
                    "    heap = [(-n, (0, 0), pair) for pair, n in counts.items()]",
                ),
                "            where.setdefault(pair, {})\n"
                "            where[pair][i] = where[pair].get(i, 0) + 1\n"
                "    heap = [(-n, pair) for pair, n in counts.items()]     # at equal counts the smaller pair wins",
            ),
            (
                ("        while heap:", "            heapq.heapreplace(heap, (neg, true_place, pair))"),
                "        while heap and counts.get(heap[0][1]) != -heap[0][0]:\n                heapq.heappop(heap)",
            ),
            (
                "        heapq.heappop(heap)\n"
                "        merges[pair] = new_id\n"
                "        width.append(width[pair[0]] + width[pair[1]])",
                "        pair = heapq.heappop(heap)[1]\n        merges[pair] = new_id",
            ),
            (
                "(0, 0), p",
                "p",
            ),
        ),
        "test_train_fast",
        "при ничьей выигрывает пара, которая раньше встречается",
    ),
    Mistake(
        "nb07_stale_counts_of_destroyed_pairs",
        NB07,
        "train_fast",
        """
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
    return merges""",
        "test_train_fast",
        "частоты разрушенных пар",
    ),
    Mistake(
        "nb07_index_keeps_chunk_without_pair",
        NB07,
        "train_fast",
        edit(
            SET_INDEX,
            (
                INDEX_UPDATE,
                "                where.setdefault(p, set()).add(i)     # chunks are added to the index but never removed",
            ),
        ),
        "test_train_fast",
        "индекс «пара → куски» должен быть точным",
    ),
    Mistake(
        "nb07_index_drops_chunk_with_pair_left",
        NB07,
        "train_fast",
        edit(
            SET_INDEX,
            (
                INDEX_UPDATE,
                "                if sign > 0:\n"
                "                    where.setdefault(p, set()).add(i)\n"
                "                else:\n"
                "                    where[p].discard(i)           # even if another occurrence of p is still in chunk i",
            ),
        ),
        "test_train_fast",
        "индекс «пара → куски» должен быть точным",
    ),
    Mistake(
        "nb07_train_fast_place_is_the_chunk_only",
        NB07,
        "train_fast",
        _train_fast(
            (
                " i, offset",
                " i, 0          # the chunk, not the place in it",
            ),
        ),
        "test_train_fast_hidden",
        "смещение в байтах",
    ),
    Mistake(
        "nb07_train_fast_never_checks_the_place",
        NB07,
        "train_fast",
        _train_fast(
            (
                "            if true_place == place:               # запись верна: это лучшая пара\n                break",
                "            break                                 # a fresh count is enough",
            )
        ),
        "test_train_fast",
        "при ничьей выигрывает пара, которая раньше встречается",
    ),
    Mistake(
        "nb07_train_fast_unweighted_chunks",
        NB07,
        "train_fast",
        _train_fast(
            (
                ") + freqs[i]",
                ") + 1",
            ),
            (
                "sign * freqs[i]",
                "sign",
            ),
        ),
        "test_train_fast",
        "с весом 2",
    ),
    Mistake(
        "nb07_train_fast_ignores_pattern",
        NB07,
        "train_fast",
        _train_fast(
            (
                "text, pattern",
                "text",
            ),
        ),
        "test_train_fast_hidden",
        "шаблоном из аргумента pattern",
    ),
    Mistake(
        "nb07_train_fast_one_merge_too_many",
        NB07,
        "train_fast",
        _train_fast(
            (
                "56, vocab_size):",
                "56, vocab_size + 1):",
            ),
        ),
        "test_train_fast",
        "слияний vocab_size − 256",
    ),
    Mistake(
        "nb07_train_fast_stops_at_count_one",
        NB07,
        "train_fast",
        _train_fast(
            (
                "not heap:",
                "not heap or -heap[0][0] < 2:",
            ),
        ),
        "test_train_fast",
        "пары, встреченные один раз, тоже сливаются",
    ),
    Mistake(
        "nb07_train_fast_iterates_the_live_index",
        NB07,
        "train_fast",
        _train_fast(
            (
                "list(where[pair])",
                "where[pair]",
            ),
        ),
        "test_train_fast",
        "RuntimeError",
    ),
    Mistake(
        "nb07_train_fast_keeps_state_between_calls",
        NB07,
        "train_fast",
        _train_fast(
            (
                "def train_fast(text, vocab_size, pattern=GPT2_PATTERN):",
                "_WHERE = {}\ndef train_fast(text, vocab_size, pattern=GPT2_PATTERN):",
            ),
            (
                "{}         # пара -> {номер куска: сколько раз пара в нём стоит}",
                "_WHERE     # one index for every call",
            ),
        ),
        "test_train_fast",
        "ничего не храните между вызовами функции",
    ),
    Mistake(
        "nb07_encode_cache_keyed_by_length",
        NB07,
        "encode_fast",
        edited(
            NB07,
            "encode_fast",
            (
                "    def encode_piece(ids):\n"
                "        # пара с наименьшим id -> сливаем одно её вхождение -> поправляем двух соседей в ranks\n"
                "        ranks = [merges.get(pair, math.inf) for pair in zip(ids, ids[1:])]\n"
                "        while ranks:\n"
                "            best = min(ranks)\n"
                "            if best == math.inf:\n"
                "                break\n"
                "            k = ranks.index(best)\n"
                "            ids[k:k + 2] = [best]\n"
                "            del ranks[k]\n"
                "            if k > 0:\n"
                "                ranks[k - 1] = merges.get((ids[k - 1], ids[k]), math.inf)\n"
                "            if k < len(ranks):\n"
                "                ranks[k] = merges.get((ids[k], ids[k + 1]), math.inf)\n"
                "        return ids\n",
                "",
            ),
            (
                ("        ids = cache.get(chunk)", "        out += ids"),
                "        key = len(chunk)                          # chunks of the same length share an answer\n"
                "        if key not in cache:\n"
                "            cache[key] = encode(chunk, merges)\n"
                "        out += cache[key]",
            ),
        ),
        "test_encode_fast",
        "ключ кэша — сам кусок",
    ),
    Mistake(
        "nb07_encode_cache_shared_across_tables",
        NB07,
        "encode_fast",
        ONE_CACHE_FOR_EVERY_TABLE,
        "test_encode_fast",
        "другая таблица слияний получит id из старой",
    ),
    Mistake(
        "nb07_encode_fast_leftmost_known_pair",
        NB07,
        "encode_fast",
        """
def encode_fast(text, merges, pattern=GPT2_PATTERN):
    cache, out = {}, []
    for chunk in pretokenize(text, pattern):
        if chunk not in cache:
            ids = list(chunk.encode("utf-8"))
            while True:
                k = next((k for k in range(len(ids) - 1) if (ids[k], ids[k + 1]) in merges), None)
                if k is None:
                    break
                ids[k:k + 2] = [merges[ids[k], ids[k + 1]]]     # the leftmost known pair, not the earliest learned
            cache[chunk] = ids
        out += cache[chunk]
    return out""",
        "test_encode_fast",
        "сначала пару с наименьшим id",
    ),
    Mistake(
        "nb07_encode_fast_whole_text",
        NB07,
        "encode_fast",
        """
def encode_fast(text, merges, pattern=GPT2_PATTERN):
    return encode(text, merges)                   # no pretokenization: pairs across chunk borders merge""",
        "test_encode_fast",
        "стоит на стыке кусков",
    ),
    Mistake(
        "nb07_encode_fast_forgets_the_right_neighbour",
        NB07,
        "encode_fast",
        ENCODE_FAST_FORGETS_THE_RIGHT_NEIGHBOUR,
        "test_encode_fast_hidden",
        "сливая пару с наименьшим",
    ),
    Mistake(
        "nb07_encode_fast_answer_is_a_cached_list",
        NB07,
        "encode_fast",
        """
def encode_fast(text, merges, pattern=GPT2_PATTERN):
    cache, out = {}, None
    for chunk in pretokenize(text, pattern):
        if chunk not in cache:
            cache[chunk] = encode(chunk, merges)
        if out is None:
            out = cache[chunk]                    # the first chunk's cached list becomes the answer...
        else:
            out += cache[chunk]                   # ...and grows, so a repeat of that chunk gets it all
    return out if out is not None else []""",
        "test_encode_fast_hidden",
        "в ответ кладите копию",
    ),
    Mistake(
        "nb07_quiz_thinks_every_chunk_has_the_pair",
        NB07,
        "quiz_answers",
        edited(NB07, "quiz_answers", ("ANSWER_1 = 3", "ANSWER_1 = 1")),
        "test_quiz_1",
        "ANSWER_1 неверен",
    ),
    Mistake(
        "nb07_quiz_counts_every_chunk",
        NB07,
        "quiz_answers",
        edited(NB07, "quiz_answers", ("ANSWER_4 = 5", "ANSWER_4 = 7")),
        "test_quiz_4",
        "разные куски",
    ),
]

# the alternatives' common start: distinct chunks weighted by their counts, an index pair -> chunks,
# each token's width and the first place of a pair in the text
CHUNK_INDEX = """
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
        ids, offset = chunks[i], 0
        for a, b in zip(ids, ids[1:]):
            if (a, b) == pair:
                return i, offset
            offset += width[a]

"""

# the counts kept in buckets by frequency (no heap)
BUCKETED = (
    edit(
        CHUNK_INDEX,
        ("set()).add(i)", "Counter())[i] += 1"),
        (
            "    width = [1] * 256\n",
            "    buckets = {}                                  # частота -> пары с такой частотой\n"
            "    for pair, n in counts.items():\n"
            "        buckets.setdefault(n, set()).add(pair)\n"
            "    width = [1] * 256\n",
        ),
    )
    + """    merges = {}
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
    return merges"""
)

# every pair of a rewritten chunk recounted (no per-merge changes)
RECOUNT = (
    CHUNK_INDEX
    + """    heap = [(-n, first_place(pair), pair) for pair, n in counts.items()]   # точные места сразу
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
    return merges"""
)

ALTERNATIVES = [
    Alternative(
        "nb07_encode_fast_cache_around_encode",
        NB07,
        "encode_fast",
        """
def encode_fast(text, merges, pattern=GPT2_PATTERN):
    cache = {}                                    # слабее по скорости, но верно: кэш на один вызов
    out = []
    for chunk in pretokenize(text, pattern):
        if chunk not in cache:
            cache[chunk] = encode(chunk, merges)
        out.extend(cache[chunk])
    return out""",
    ),
    Alternative("nb07_train_fast_bucketed_counts", NB07, "train_fast", BUCKETED),
    Alternative("nb07_train_fast_recount_rewritten_chunks", NB07, "train_fast", RECOUNT),
    Alternative(
        "nb07_encode_fast_lru_cache_per_table",
        NB07,
        "encode_fast",
        """
from functools import lru_cache

def encode_fast(text, merges, pattern=GPT2_PATTERN):
    @lru_cache(maxsize=None)                      # свой кэш на каждый вызов, то есть на каждую таблицу
    def encode_chunk(chunk):
        return tuple(encode(chunk, merges))

    out = []
    for chunk in pretokenize(text, pattern):
        out.extend(encode_chunk(chunk))
    return out""",
    ),
]


# Issue 20: wrong versions that had full marks, and wrong versions whose message blamed another cause.
MISTAKES += [
    Mistake(
        "nb07_train_fast_tie_place_is_token_index",
        NB07,
        "train_fast",
        _train_fast(
            (
                " i, offset",
                " i, k          # the token's index, not the byte offset",
            ),
        ),
        "test_train_fast_hidden",
        "смещение этого вхождения в байтах",
    ),
    Mistake(
        "nb07_train_fast_tie_place_last_in_first_chunk",
        NB07,
        "train_fast",
        _train_fast(
            (
                "        i = min(where[pair])\n        ids, offset = chunks[i], 0",
                "        # (номер куска, смещение в байтах) первого вхождения pair в тексте\n"
                "        i = min(where[pair])\n"
                "        ids, offset, found = chunks[i], 0, None",
            ),
            (
                "return i, offset",
                "found = i, offset   # keeps the last occurrence",
            ),
            (
                "    heap = [(-n, (0, 0), pair) for pair, n in counts.items()]",
                "        return found\n"
                "\n"
                "    # место (0, 0) не позже настоящего: уточним, когда запись окажется на вершине\n"
                "    heap = [(-n, (0, 0), pair) for pair, n in counts.items()]",
            ),
        ),
        "test_train_fast_hidden",
        "самое левое вхождение",
    ),
    Mistake(
        "nb07_train_fast_is_train_chunked",  # right answers, every step recounts everything
        NB07,
        "train_fast",
        "def train_fast(text, vocab_size, pattern=GPT2_PATTERN):\n    return train_chunked(text, vocab_size, pattern)",
        "test_train_fast_hidden",
        "обучение не пошаговое",
    ),
    Mistake(
        "nb07_train_fast_no_lazy_invalidation",
        NB07,
        "train_fast",
        _train_fast(
            (
                "            if counts.get(pair) != -neg:          # частота устарела\n"
                "                heapq.heappop(heap)\n"
                "                continue\n",
                "",
            ),
        ),  # the top entry is trusted even when its count is old
        "test_train_fast",
        "устаревш",
    ),
    Mistake(
        "nb07_train_fast_never_pushes_decreased_pairs",
        NB07,
        "train_fast",
        _train_fast(
            (
                "            if counts[p]:\n"
                "                heapq.heappush(heap, (-counts[p], (0, 0), p))\n"
                "            else:",
                "            if counts[p] and p[0] >= 256 or counts[p] and p[1] >= 256:\n"
                "                heapq.heappush(heap, (-counts[p], (0, 0), p))\n"
                "            elif not counts[p]:",
            ),
        ),
        "test_train_fast",
        "новую запись",
    ),
    Mistake(
        "nb07_encode_cache_keyed_by_table_size_and_last_merge",
        NB07,
        "encode_fast",
        edit(
            ONE_CACHE_FOR_EVERY_TABLE,
            ("# one cache for every merge table", '# "told apart" by the table\'s size and end'),
            ("    out = []\n", "    last = next(reversed(merges.items()), None)\n    out = []\n"),
            (
                "    for chunk in pretokenize(text, pattern):\n",
                "    for chunk in pretokenize(text, pattern):\n        key = (len(merges), last, chunk)\n",
            ),
            ("if chunk not in ENCODED:", "if key not in ENCODED:"),
            ("ENCODED[chunk] = encode", "ENCODED[key] = encode"),
            ("out += ENCODED[chunk]", "out += ENCODED[key]"),
        ),
        "test_encode_fast_hidden",
        "не отличает две разные таблицы одного размера",
    ),
    Mistake(
        "nb07_encode_cache_keyed_by_table_id",  # issue 40: a freed table's id goes to the next one
        NB07,
        "encode_fast",
        edited(
            NB07,
            "encode_fast",
            (
                "def encode_fast(",
                "CACHES = {}                                       # id(merges) -> that table's cache\n\ndef encode_fast(",
            ),
            ("    cache, out = {}, []", "    cache, out = CACHES.setdefault(id(merges), {}), []"),
        ),
        "test_encode_fast_hidden",
        # the check built for it says «ключ id(merges)»; an earlier call may already meet a freed table's id
        # by the allocator's luck, and its hint says the same cause: the cache lives within one call
        "внутри одного вызова",
    ),
    Mistake(
        "nb07_encode_fast_is_encode_chunked",  # right ids, every repeat encoded again
        NB07,
        "encode_fast",
        "def encode_fast(text, merges, pattern=GPT2_PATTERN):\n    return encode_chunked(text, merges, pattern)",
        "test_encode_fast_hidden",
        "повторы кодируются заново",
    ),
    Mistake(
        "nb07_encode_fast_fast_loop_without_cache",
        NB07,
        "encode_fast",
        edited(
            NB07,
            "encode_fast",
            (
                "    def encode_piece(ids):",
                "    out = []\n"
                "    for chunk in pretokenize(text, pattern):                  # the quick loop, but no cache of chunks\n"
                '        ids = list(chunk.encode("utf-8"))',
            ),
            (
                ("        while ranks:", "            ids[k:k + 2] = [best]"),
                "        while ranks and min(ranks) < math.inf:\n"
                "            k = ranks.index(min(ranks))\n"
                "            ids[k:k + 2] = [merges[ids[k], ids[k + 1]]]",
            ),
            (
                "        return ids\n"
                "\n"
                "    cache, out = {}, []\n"
                "    for chunk in pretokenize(text, pattern):\n"
                "        ids = cache.get(chunk)\n"
                "        if ids is None:\n"
                '            ids = cache[chunk] = encode_piece(list(chunk.encode("utf-8")))\n',
                "",
            ),
        ),
        "test_encode_fast_hidden",
        "повторы кодируются заново",
    ),
    Mistake(
        "nb07_encode_fast_forgets_the_left_neighbour",
        NB07,
        "encode_fast",
        edit(
            ENCODE_FAST_FORGETS_THE_RIGHT_NEIGHBOUR,
            (
                "                if k > 0:\n"
                "                    ranks[k - 1] = merges.get((ids[k - 1], ids[k]), math.inf)",
                "                if k < len(ranks):\n"
                "                    ranks[k] = merges.get((ids[k], ids[k + 1]), math.inf)\n"
                "                # the pair (left neighbour, new token) keeps the rank of the pair that was there",
            ),
        ),
        "test_encode_fast",
        "ранги обеих соседних пар",
    ),
]
MISTAKES += [
    Mistake(
        "nb07_train_fast_place_within_chunk_only",
        NB07,
        "train_fast",
        _train_fast(
            (
                "i, offset",
                "0, offset     # the offset in its chunk; which chunk is forgotten",
            ),
        ),
        "test_train_fast",
        "решает номер куска",
    ),
]

# Attacks on the speed tests: each one must lose the points the growth check guards.
MISTAKES += [
    Mistake(
        "nb07_attack_train_fast_cheap_answer_for_the_timed_call",
        NB07,
        "train_fast",
        """
def train_fast(text, vocab_size, pattern=GPT2_PATTERN):
    if vocab_size > 256 + 1000:                  # a big call is the timed one: a cheaper table from a tenth of the text
        return train_chunked(text[:len(text) // 10], 256 + 100, pattern)
    return train_chunked(text, vocab_size, pattern)""",
        "test_train_fast_hidden",
        "ответ должен совпадать с train_chunked",
    ),
    Mistake(
        "nb07_attack_train_fast_pads_a_small_call",
        NB07,
        "train_fast",
        """
def train_fast(text, vocab_size, pattern=GPT2_PATTERN):
    if vocab_size < 256 + 1000:                  # pad the small calls: a growth check would see a flat curve
        sum(i * i for i in range(3_000_000))
    return train_chunked(text, vocab_size, pattern)""",
        "test_train_fast_hidden",
        "обучение не пошаговое",
    ),
    Mistake(
        "nb07_train_fast_rescans_every_count",
        NB07,
        "train_fast",
        _train_fast(
            (
                "        while heap:",
                "        if counts:                                # the best count found by scanning every count\n"
                "            top = max(counts.values())\n"
                "            best = [p for p, n in counts.items() if n == top]\n"
                "        while heap:",
            ),
        ),  # right answers, but every merge scans every pair: O(K·P)
        "test_train_fast_hidden",
        "обучение не пошаговое",
    ),
    Mistake(
        "nb07_encode_fast_copies_the_answer_for_each_chunk",
        NB07,
        "encode_fast",
        edited(NB07, "encode_fast", ("        out += ids", "        out = out + ids")),
        "test_encode_fast_hidden",
        "сборка ответа",
    ),
    Mistake(
        "nb07_attack_encode_fast_guesses_a_repeated_text",
        NB07,
        "encode_fast",
        """
def encode_fast(text, merges, pattern=GPT2_PATTERN):
    for copies in (8, 4, 2):                     # a text made of copies: encode one copy, repeat its ids
        part = text[:len(text) // copies]
        if part and part * copies == text:
            return encode_chunked(part, merges, pattern) * copies
    return encode_chunked(text, merges, pattern)""",
        "test_encode_fast_hidden",
        "повторы кодируются заново",
    ),
    Mistake(
        "nb07_attack_encode_fast_remembers_answers_across_calls",
        NB07,
        "encode_fast",
        """
ANSWERS = {}                                     # (text, table) -> ids: a second timed call would be free

def encode_fast(text, merges, pattern=GPT2_PATTERN):
    key = (text, tuple(merges.items()), pattern)
    if key not in ANSWERS:
        ANSWERS[key] = encode_chunked(text, merges, pattern)
    return list(ANSWERS[key])""",
        "test_encode_fast_hidden",
        "повторы кодируются заново",
    ),
]
