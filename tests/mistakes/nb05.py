"""Mistakes and alternative solutions for notebook 05_regex_pretokenization."""
from . import Alternative, Mistake

NB05 = "05_regex_pretokenization"

MISTAKES = [
    Mistake("nb05_pretokenize_with_re", NB05, "pretokenize", '''
import re
def pretokenize(text, pattern=GPT2_PATTERN):
    return re.findall(pattern, text)          # the standard re does not know \\p{L}''',
            "test_pretokenize", "модуль regex"),
    Mistake("nb05_pretokenize_split_loses_spaces", NB05, "pretokenize", '''
def pretokenize(text, pattern=GPT2_PATTERN):
    return text.split()''', "test_pretokenize", "исходный текст"),
    Mistake("nb05_train_across_chunk_boundaries", NB05, "train_chunked", '''
def train_chunked(text, vocab_size, pattern=GPT2_PATTERN):
    ids = []
    for chunk in pretokenize(text, pattern):
        ids.extend(chunk.encode("utf-8"))     # all chunks glued into one stream of bytes
    merges = {}
    for new_id in range(256, vocab_size):
        counts = get_pair_counts(ids)
        if not counts:
            break
        pair = max(counts, key=counts.get)
        ids = merge(ids, pair, new_id)
        merges[pair] = new_id
    return merges''', "test_train_chunked", "границы кусков"),
    Mistake("nb05_train_chunks_without_frequency", NB05, "train_chunked", '''
def train_chunked(text, vocab_size, pattern=GPT2_PATTERN):
    pieces = [list(chunk.encode("utf-8")) for chunk in dict.fromkeys(pretokenize(text, pattern))]
    merges = {}
    for new_id in range(256, vocab_size):
        counts = {}
        for ids in pieces:
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + 1    # each unique chunk counted once
        if not counts:
            break
        pair = max(counts, key=counts.get)
        pieces = [merge(ids, pair, new_id) for ids in pieces]
        merges[pair] = new_id
    return merges''', "test_train_chunked", "частоту"),
    Mistake("nb05_train_chunks_sorted_by_frequency", NB05, "train_chunked", '''
from collections import Counter
def train_chunked(text, vocab_size, pattern=GPT2_PATTERN):
    words = [(list(c.encode("utf-8")), n) for c, n in Counter(pretokenize(text, pattern)).most_common()]
    merges = {}
    for new_id in range(256, vocab_size):
        counts = {}
        for ids, n in words:
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + n
        if not counts:
            break
        pair = max(counts, key=counts.get)
        words = [(merge(ids, pair, new_id), n) for ids, n in words]
        merges[pair] = new_id
    return merges''', "test_train_chunked_hidden", "не сортируйте куски по частоте"),
    Mistake("nb05_encode_whole_text_as_one_chunk", NB05, "encode_chunked", '''
def encode_chunked(text, merges, pattern=GPT2_PATTERN):
    return encode(text, merges)''', "test_encode_chunked", "каждый кусок кодируется отдельно"),
]

ALTERNATIVES = [
    Alternative("nb05_pretokenize_with_finditer", NB05, "pretokenize", '''
def pretokenize(text, pattern=GPT2_PATTERN):
    return [match.group() for match in regex.finditer(pattern, text)]'''),
    Alternative("nb05_train_chunked_with_counter", NB05, "train_chunked", '''
from collections import Counter
def train_chunked(text, vocab_size, pattern=GPT2_PATTERN):
    words = Counter(tuple(chunk.encode("utf-8")) for chunk in regex.findall(pattern, text))
    merges = {}
    while 256 + len(merges) < vocab_size:
        pairs = Counter()
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += n
        if not pairs:
            break
        (best, _), = pairs.most_common(1)            # the first of equals, as max() does
        new_id = 256 + len(merges)
        merges[best] = new_id
        words = Counter({tuple(merge(list(word), best, new_id)): n for word, n in words.items()})
    return merges'''),
    Alternative("nb05_encode_chunked_with_cache", NB05, "encode_chunked", '''
def encode_chunked(text, merges, pattern=GPT2_PATTERN):
    cache, ids = {}, []
    for chunk in pretokenize(text, pattern):
        if chunk not in cache:
            cache[chunk] = encode(chunk, merges)
        ids += cache[chunk]
    return ids'''),
]
