"""Mistakes and alternative solutions for notebook 05_regex_pretokenization."""

from . import Alternative, Mistake, edit, edited

NB05 = "05_regex_pretokenization"

# versions of another approach than the solution's, whose own mistakes are edits of them

ENCODE_CACHE_KEYED_BY_TABLE_SIZE = """
KNOWN = {}                                                  # (table size, chunk) -> ids, shared by every call
def encode_chunked(text, merges, pattern=GPT2_PATTERN):
    ids = []
    for chunk in pretokenize(text, pattern):
        key = (len(merges), chunk)
        if key not in KNOWN:
            KNOWN[key] = encode(chunk, merges)
        ids.extend(KNOWN[key])
    return ids"""

# versions of another approach than the solution's, whose own mistakes are edits of them

BRANCHES_STUCK_WHEN_NOTHING_MATCHES = """
def split_by_branches(text, branches):
    compiled = [regex.compile(b) for b in branches]
    pieces, pos = [], 0
    while pos < len(text):
        for k, c in enumerate(compiled):
            m = c.match(text, pos)
            if m and m.end() > pos:
                pieces.append((m.group(), k))
                pos = m.end()
                break                                  # no match at all: pos never moves
    return pieces"""

TRAIN_CHUNKS_SORTED_BY_FREQUENCY = edited(
    NB05,
    "train_chunked",
    (
        "def train_chunked(text, vocab_size, pattern=GPT2_PATTERN):",
        "from collections import Counter\ndef train_chunked(text, vocab_size, pattern=GPT2_PATTERN):",
    ),
    (
        ("    chunk_counts = {}", "    freqs = list(chunk_counts.values())"),
        '    words = [(list(c.encode("utf-8")), n) for c, n in Counter(pretokenize(text, pattern)).most_common()]',
    ),
    (
        "        for ids, freq in zip(pieces, freqs):\n"
        "            for pair in zip(ids, ids[1:]):\n"
        "                counts[pair] = counts.get(pair, 0) + freq",
        "        for ids, n in words:\n"
        "            for pair in zip(ids, ids[1:]):\n"
        "                counts[pair] = counts.get(pair, 0) + n",
    ),
    (
        "pieces = [merge(ids, pair, new_id) for ids in pieces",
        "words = [(merge(ids, pair, new_id), n) for ids, n in words",
    ),
)

TRAIN_TIE_LAST_SEEN = """
from collections import Counter
def train_chunked(text, vocab_size, pattern=GPT2_PATTERN):
    words = [(list(c.encode("utf-8")), n) for c, n in Counter(pretokenize(text, pattern)).items()]
    merges = {}
    for new_id in range(256, vocab_size):
        counts = {}
        for ids, n in words:
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + n
        best = None
        for pair, c in counts.items():
            if best is None or c >= counts[best]:            # >= : the last of equals wins
                best = pair
        if best is None:
            break
        words = [(merge(ids, best, new_id), n) for ids, n in words]
        merges[best] = new_id
    return merges"""

TRAIN_CHUNKS_WITHOUT_FREQUENCY = edited(
    NB05,
    "train_chunked",
    (
        ("    chunk_counts = {}", "    freqs = list(chunk_counts.values())"),
        '    pieces = [list(chunk.encode("utf-8")) for chunk in dict.fromkeys(pretokenize(text, pattern))]',
    ),
    (
        "        for ids, freq in zip(pieces, freqs):\n"
        "            for pair in zip(ids, ids[1:]):\n"
        "                counts[pair] = counts.get(pair, 0) + freq",
        "        for ids in pieces:\n"
        "            for pair in zip(ids, ids[1:]):\n"
        "                counts[pair] = counts.get(pair, 0) + 1    # each unique chunk counted once",
    ),
)

# the chunks as (ids, count) pairs in the order they first appear: the base of several mistakes
TRAIN_WORDS = edit(TRAIN_CHUNKS_SORTED_BY_FREQUENCY, ("most_common", "items"))

MISTAKES = [
    # ---------------------------------------------------------------- split_by_branches
    Mistake(
        "nb05_branches_longest_match",
        NB05,
        "split_by_branches",
        """
def split_by_branches(text, branches):
    compiled = [regex.compile(b) for b in branches]
    pieces, pos = [], 0
    while pos < len(text):
        found = [(m.end(), -k, m.group(), k) for k, c in enumerate(compiled)
                 if (m := c.match(text, pos)) and m.end() > pos]
        if not found:
            pos += 1
            continue
        end, _, piece, k = max(found)                  # the longest match wins (POSIX thinking)
        pieces.append((piece, k))
        pos = end
    return pieces""",
        "test_split_by_branches",
        "первая совпавшая ветка",
    ),
    Mistake(
        "nb05_branches_one_branch_at_a_time",
        NB05,
        "split_by_branches",
        """
def split_by_branches(text, branches):
    taken = [None] * len(text)                         # branch 0 over the whole text, then branch 1, ...
    found = []
    for k, branch in enumerate(branches):
        for m in regex.finditer(branch, text):
            if m.end() > m.start() and all(t is None for t in taken[m.start():m.end()]):
                for i in range(m.start(), m.end()):
                    taken[i] = k
                found.append((m.start(), m.group(), k))
    return [(piece, k) for _, piece, k in sorted(found)]""",
        "test_split_by_branches",
        "на каждой позиции заново",
    ),
    # issue 26: returning a branch's own group 1 was told about branch numbers
    Mistake(
        "nb05_branches_piece_is_group_1",
        NB05,
        "split_by_branches",
        edited(
            NB05,
            "split_by_branches",
            (
                "pieces.append((found.group(), k))",
                "pieces.append((found.group(1) if branch.groups else found.group(), k))",
            ),
        ),
        "test_split_by_branches_hidden",
        "а не группа в её",
    ),
    Mistake(
        "nb05_branches_search_skips_text",
        NB05,
        "split_by_branches",
        edited(
            NB05,
            "split_by_branches",
            (
                "branch) for branch",
                "b) for b",
            ),
            (
                ("        for k, branch in enumerate(compiled):", "                pos = found.end()"),
                "        for k, c in enumerate(compiled):\n"
                "            m = c.search(text, pos)                    # search: may match further on\n"
                "            if m and m.end() > m.start():\n"
                "                pieces.append((m.group(), k))\n"
                "                pos = m.end()",
            ),
        ),
        "test_split_by_branches",
        "ровно с текущей позиции",
    ),
    Mistake(
        "nb05_branches_guessed_from_chunk",
        NB05,
        "split_by_branches",
        """
def split_by_branches(text, branches):
    result = []
    for piece in regex.findall("|".join(branches), text):
        for k, b in enumerate(branches):
            if regex.fullmatch(b, piece):              # the branch judged by the chunk alone
                result.append((piece, k))
                break
    return result""",
        "test_split_by_branches",
        "Не угадывайте ветку по готовому куску",
    ),
    Mistake(
        "nb05_branches_stuck_when_nothing_matches",
        NB05,
        "split_by_branches",
        BRANCHES_STUCK_WHEN_NOTHING_MATCHES,
        "test_split_by_branches",
        "не завершилась",
    ),
    Mistake(
        "nb05_branches_numbered_from_one",
        NB05,
        "split_by_branches",
        edit(
            BRANCHES_STUCK_WHEN_NOTHING_MATCHES,
            (
                "compiled):",
                "compiled, 1):            # numbers from 1",
            ),
            (
                "    return pieces",
                "        else:\n"
                "            pos += 1                                 # ни одна ветка не подошла: символ пропускается\n"
                "    return pieces",
            ),
        ),
        "test_split_by_branches",
        "номера веток — с нуля",
    ),
    Mistake(
        "nb05_branches_group_number",
        NB05,
        "split_by_branches",
        """
def split_by_branches(text, branches):
    joined = regex.compile("|".join(f"({b})" for b in branches))
    return [(m.group(), m.lastindex - 1) for m in joined.finditer(text)]   # group number = branch number?""",
        "test_split_by_branches_hidden",
        "lastindex",
    ),
    Mistake(
        "nb05_branches_pieces_as_lists",
        NB05,
        "split_by_branches",
        edit(
            BRANCHES_STUCK_WHEN_NOTHING_MATCHES,
            (
                "(m.group(), k))",
                "[m.group(), k])          # lists, not pairs",
            ),
            (
                "    return pieces",
                "        else:\n"
                "            pos += 1                                 # ни одна ветка не подошла: символ пропускается\n"
                "    return pieces",
            ),
        ),
        "test_split_by_branches",
        "кортежей",
    ),
    Mistake(
        "nb05_branches_sliced_text",
        NB05,
        "split_by_branches",
        """
def split_by_branches(text, branches):
    result, rest = [], text
    while rest:
        for k, b in enumerate(branches):
            m = regex.match(b, rest)                   # the slice loses what stands before the position
            if m and m.group():
                result.append((m.group(), k))
                rest = rest[m.end():]
                break
        else:
            rest = rest[1:]
    return result""",
        "test_split_by_branches_hidden",
        "text[pos:]",
    ),
    # ---------------------------------------------------------------- number_pattern
    Mistake(
        "nb05_numbers_keep_the_space",
        NB05,
        "number_pattern",
        """
def number_pattern(max_digits):
    return GPT2_PATTERN.replace(r" ?\\p{N}+", r" ?\\p{N}{1,%d}" % max_digits)""",
        "test_number_pattern",
        "пробел перед числом — отдельный кусок",
    ),
    Mistake(
        "nb05_numbers_always_three",
        NB05,
        "number_pattern",
        """
def number_pattern(max_digits):
    return GPT2_PATTERN.replace(r" ?\\p{N}+", r"\\p{N}{1,3}")""",
        "test_number_pattern",
        "аргумент max_digits",
    ),
    Mistake(
        "nb05_numbers_exactly_max_digits",
        NB05,
        "number_pattern",
        """
def number_pattern(max_digits):
    return GPT2_PATTERN.replace(r" ?\\p{N}+", r"\\p{N}{%d}" % max_digits)""",
        "test_number_pattern",
        "нижней и верхней границей",
    ),
    Mistake(
        "nb05_numbers_may_be_empty",
        NB05,
        "number_pattern",
        """
def number_pattern(max_digits):
    return GPT2_PATTERN.replace(r" ?\\p{N}+", r"\\p{N}{0,%d}" % max_digits)""",
        "test_number_pattern",
        "пустые строки",
    ),
    Mistake(
        "nb05_numbers_with_backslash_d",
        NB05,
        "number_pattern",
        """
def number_pattern(max_digits):
    return GPT2_PATTERN.replace(r" ?\\p{N}+", r"\\d{1,%d}" % max_digits)""",
        "test_number_pattern_hidden",
        "а не \\d",
    ),
    Mistake(
        "nb05_numbers_ascii_digits_only",
        NB05,
        "number_pattern",
        """
def number_pattern(max_digits):
    return GPT2_PATTERN.replace(r" ?\\p{N}+", "[0-9]{1,%d}" % max_digits)""",
        "test_number_pattern_hidden",
        "[0-9]",
    ),
    Mistake(
        "nb05_numbers_branch_added_after_the_old_one",
        NB05,
        "number_pattern",
        """
def number_pattern(max_digits):
    return GPT2_PATTERN + r"|\\p{N}{1,%d}" % max_digits   # the old branch still matches first""",
        "test_number_pattern",
        "нижней и верхней границей",
    ),
    # issue 26: narrowing the letters branch got full marks
    Mistake(
        "nb05_numbers_letters_narrowed_to_latin_and_cyrillic",
        NB05,
        "number_pattern",
        edited(
            NB05,
            "number_pattern",
            ('return "|".join(branches)', 'return "|".join(branches).replace(r"\\p{L}+", "[a-zA-Zа-яА-ЯёЁ]+")'),
        ),
        "test_number_pattern_hidden",
        "любого письма",
    ),
    # ---------------------------------------------------------------- train_chunked
    # issue 26: these two were told «не сортируйте куски»
    Mistake(
        "nb05_train_pairs_once_per_chunk",
        NB05,
        "train_chunked",
        edited(NB05, "train_chunked", ("for pair in zip(ids, ids[1:]):", "for pair in set(zip(ids, ids[1:])):")),
        "test_train_chunked_hidden",
        "Не считайте пары куска множеством",
    ),
    Mistake(
        "nb05_train_skips_whitespace_chunks",
        NB05,
        "train_chunked",
        edited(
            NB05,
            "train_chunked",
            (
                "    for chunk in pretokenize(text, pattern):\n",
                "    for chunk in pretokenize(text, pattern):\n        if not chunk.strip():\n            continue\n",
            ),
        ),
        "test_train_chunked_hidden",
        "Не пропускайте такие куски",
    ),
    Mistake(
        "nb05_train_across_chunk_boundaries",
        NB05,
        "train_chunked",
        edited(
            NB05,
            "train_chunked",
            (
                ("    chunk_counts = {}", "    freqs = list(chunk_counts.values())"),
                "    ids = []\n"
                "    for chunk in pretokenize(text, pattern):\n"
                '        ids.extend(chunk.encode("utf-8"))     # all chunks glued into one stream of bytes',
            ),
            (
                ("        counts = {}", "                counts[pair] = counts.get(pair, 0) + freq"),
                "        counts = get_pair_counts(ids)",
            ),
            (
                "pieces = [merge(ids, pair, new_id) for ids in pieces]",
                "ids = merge(ids, pair, new_id)",
            ),
        ),
        "test_train_chunked",
        "границы кусков",
    ),
    Mistake(
        "nb05_train_chunks_without_frequency",
        NB05,
        "train_chunked",
        TRAIN_CHUNKS_WITHOUT_FREQUENCY,
        "test_train_chunked",
        "частоту",
    ),
    Mistake(
        "nb05_train_chunks_sorted_by_frequency",
        NB05,
        "train_chunked",
        TRAIN_CHUNKS_SORTED_BY_FREQUENCY,
        "test_train_chunked_hidden",
        "не сортируйте куски по частоте",
    ),
    Mistake(
        "nb05_train_chunks_sorted_alphabetically",
        NB05,
        "train_chunked",
        edit(
            TRAIN_CHUNKS_SORTED_BY_FREQUENCY,
            (
                "Counter(pretokenize(text, pattern)).most_common(",
                "sorted(Counter(pretokenize(text, pattern)).items()",
            ),
        ),
        "test_train_chunked_hidden",
        "порядке первого появления",
    ),
    Mistake(
        "nb05_train_tie_by_largest_pair",
        NB05,
        "train_chunked",
        edit(
            TRAIN_WORDS,
            (
                "counts.get)",
                "lambda p: (counts[p], p))     # ties go to the largest pair",
            ),
        ),
        "test_train_chunked_hidden",
        "раньше встречается в тексте",
    ),
    Mistake(
        "nb05_train_tie_last_seen",
        NB05,
        "train_chunked",
        TRAIN_TIE_LAST_SEEN,
        "test_train_chunked",
        "при ничьей",
    ),
    Mistake(
        "nb05_train_stops_when_pairs_are_single",
        NB05,
        "train_chunked",
        edit(
            TRAIN_WORDS,
            (
                "counts:",
                "counts or max(counts.values()) < 2:           # stops early: a pair seen once is merged too",
            ),
        ),
        "test_train_chunked_hidden",
        "встреченная один раз",
    ),
    Mistake(
        "nb05_train_frequency_by_text_count",
        NB05,
        "train_chunked",
        edit(
            TRAIN_CHUNKS_SORTED_BY_FREQUENCY,
            (
                "from collections import Counter\n",
                "",
            ),
            (
                '    words = [(list(c.encode("utf-8")), n) for c, n in Counter(pretokenize(text, pattern)).most_common()]',
                "    chunks = list(dict.fromkeys(pretokenize(text, pattern)))\n"
                '    words = [(list(c.encode("utf-8")), text.count(c)) for c in chunks]   # substrings counted too',
            ),
        ),
        "test_train_chunked_hidden",
        "text.count",
    ),
    Mistake(
        "nb05_train_counts_kept_between_calls",
        NB05,
        "train_chunked",
        edit(
            TRAIN_CHUNKS_SORTED_BY_FREQUENCY,
            (
                "def train_chunked(text, vocab_size, pattern=GPT2_PATTERN):",
                'CHUNK_COUNTS = Counter()                                     # a "cache" that outlives the call\n'
                "def train_chunked(text, vocab_size, pattern=GPT2_PATTERN):",
            ),
            (
                '    words = [(list(c.encode("utf-8")), n) for c, n in Counter(pretokenize(text, pattern)).most_common()]',
                "    CHUNK_COUNTS.update(pretokenize(text, pattern))\n"
                '    words = [(list(c.encode("utf-8")), n) for c, n in CHUNK_COUNTS.items()]',
            ),
        ),
        "test_train_chunked_hidden",
        "не храните частоты",
    ),
    Mistake(
        "nb05_train_ids_from_257",
        NB05,
        "train_chunked",
        edit(
            TRAIN_TIE_LAST_SEEN,
            (
                "256, vocab_size):",
                "257, vocab_size + 1):                # off by one",
            ),
            (
                ("        best = None", "        merges[best] = new_id"),
                "        if not counts:\n"
                "            break\n"
                "        pair = max(counts, key=counts.get)\n"
                "        words = [(merge(ids, pair, new_id), n) for ids, n in words]\n"
                "        merges[pair] = new_id",
            ),
        ),
        "test_train_chunked",
        "подряд от 256",
    ),
    Mistake(
        "nb05_train_distinct_chunks_glued",
        NB05,
        "train_chunked",
        """
def train_chunked(text, vocab_size, pattern=GPT2_PATTERN):
    chunk_counts = {}
    for chunk in pretokenize(text, pattern):
        chunk_counts[chunk] = chunk_counts.get(chunk, 0) + 1
    ids, weights = [], []                                 # distinct chunks glued into one stream
    for chunk, n in chunk_counts.items():
        ids += list(chunk.encode("utf-8"))
        weights += [n] * len(chunk.encode("utf-8"))
    merges = {}
    for new_id in range(256, vocab_size):
        counts = {}
        for i in range(len(ids) - 1):
            pair = (ids[i], ids[i + 1])
            counts[pair] = counts.get(pair, 0) + weights[i]
        if not counts:
            break
        pair = max(counts, key=counts.get)
        out, out_weights, i = [], [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
            out_weights.append(weights[i - 1])
        ids, weights = out, out_weights
        merges[pair] = new_id
    return merges""",
        "test_train_chunked_hidden",
        "пересекают границы кусков",
    ),
    # ---------------------------------------------------------------- encode_chunked
    Mistake(
        "nb05_encode_whole_text_as_one_chunk",
        NB05,
        "encode_chunked",
        """
def encode_chunked(text, merges, pattern=GPT2_PATTERN):
    return encode(text, merges)""",
        "test_encode_chunked",
        "каждый кусок кодируется отдельно",
    ),
    Mistake(
        "nb05_encode_ignores_pattern",
        NB05,
        "encode_chunked",
        edited(
            NB05,
            "encode_chunked",
            ("in pretokenize(text, pattern):", "in pretokenize(text):   # always GPT-2's pattern"),
        ),
        "test_encode_chunked",
        "шаблоном из аргумента pattern",
    ),
    Mistake(
        "nb05_encode_each_distinct_chunk_once",
        NB05,
        "encode_chunked",
        edited(
            NB05,
            "encode_chunked",
            (
                "in pretokenize(text, pattern):",
                "in dict.fromkeys(pretokenize(text, pattern)):   # repeated chunks dropped",
            ),
        ),
        "test_encode_chunked_hidden",
        "не пропускайте повторы",
    ),
    Mistake(
        "nb05_encode_cache_outlives_the_call",
        NB05,
        "encode_chunked",
        edited(
            NB05,
            "encode_chunked",
            ("def encode_chunked", "KNOWN = {}\ndef encode_chunked"),
            (
                "    ids, known = [], {}                      # known: кусок -> его id, только в этом вызове",
                "    ids, known = [], KNOWN                   # chunk -> ids, shared by every call",
            ),
        ),
        "test_encode_chunked_hidden",
        "только на один вызов",
    ),
    Mistake(
        "nb05_encode_appends_lists",
        NB05,
        "encode_chunked",
        """
def encode_chunked(text, merges, pattern=GPT2_PATTERN):
    return [encode(chunk, merges) for chunk in pretokenize(text, pattern)]   # a list of lists""",
        "test_encode_chunked",
        "куски",
    ),
    Mistake(
        "nb05_encode_cache_keyed_by_table_size",
        NB05,
        "encode_chunked",
        ENCODE_CACHE_KEYED_BY_TABLE_SIZE,
        "test_encode_chunked_hidden",
        "len(merges)",
    ),
    Mistake(
        "nb05_encode_cache_keyed_by_table_id",
        NB05,
        "encode_chunked",
        edit(ENCODE_CACHE_KEYED_BY_TABLE_SIZE, ("len", "id")),
        "test_encode_chunked_hidden",
        "id(merges)",
    ),
    # ---------------------------------------------------------------- quiz
    Mistake(
        "nb05_quiz_unk_is_a_reason",
        NB05,
        "quiz_answers",
        'ANSWER_1 = {1, 2, 3, 4}\nANSWER_2 = ["a", "  ", " b"]\nANSWER_3 = 2\nANSWER_4 = 3',
        "test_quiz_1",
        "<unk>",
    ),
    Mistake(
        "nb05_quiz_all_spaces_to_the_word",
        NB05,
        "quiz_answers",
        'ANSWER_1 = {1, 2, 4}\nANSWER_2 = ["a", "   b"]\nANSWER_3 = 2\nANSWER_4 = 3',
        "test_quiz_2",
        "четырьмя пробелами перед if",
    ),
    Mistake(
        "nb05_quiz_camel_case_three_pieces",
        NB05,
        "quiz_answers",
        'ANSWER_1 = {1, 2, 4}\nANSWER_2 = ["a", "  ", " b"]\nANSWER_3 = 3\nANSWER_4 = 3',
        "test_quiz_3",
        "сколько заглавных букв",
    ),
    Mistake(
        "nb05_quiz_merges_across_chunks",
        NB05,
        "quiz_answers",
        'ANSWER_1 = {1, 2, 4}\nANSWER_2 = ["a", "  ", " b"]\nANSWER_3 = 2\nANSWER_4 = 4',
        "test_quiz_4",
        "через границу куска",
    ),
]

ALTERNATIVES = [
    Alternative(
        "nb05_branches_named_groups",
        NB05,
        "split_by_branches",
        """
def split_by_branches(text, branches):
    joined = regex.compile("|".join(f"(?P<b{k}>{b})" for k, b in enumerate(branches)))
    return [(m.group(), int(m.lastgroup[1:])) for m in joined.finditer(text)]""",
    ),
    Alternative(
        "nb05_branches_findall_then_rematch",
        NB05,
        "split_by_branches",
        """
def split_by_branches(text, branches):
    result, pos = [], 0
    for m in regex.finditer("|".join(branches), text):
        for k, b in enumerate(branches):
            found = regex.compile(b).match(text, m.start())
            if found and found.group() == m.group():
                result.append((m.group(), k))
                break
    return result""",
    ),
    Alternative(
        "nb05_numbers_built_by_hand",
        NB05,
        "number_pattern",
        """
def number_pattern(max_digits):
    return ("'s|'t|'re|'ve|'m|'ll|'d| ?\\\\p{L}+|\\\\p{N}{1," + str(max_digits) + "}"
            "| ?[^\\\\s\\\\p{L}\\\\p{N}]+|\\\\s+(?!\\\\S)|\\\\s+")""",
    ),
    Alternative(
        "nb05_numbers_with_fstring",
        NB05,
        "number_pattern",
        """
def number_pattern(max_digits):
    number = rf"\\p{{N}}{{1,{max_digits}}}"
    return "|".join(number if b == r" ?\\p{N}+" else b for b in GPT2_BRANCHES)""",
    ),
    Alternative(
        "nb05_train_chunked_with_counter",
        NB05,
        "train_chunked",
        """
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
    return merges""",
    ),
    Alternative(
        "nb05_train_chunked_every_occurrence",
        NB05,
        "train_chunked",
        edit(
            TRAIN_CHUNKS_WITHOUT_FREQUENCY,
            (
                "dict.fromkeys(pretokenize(text, pattern))]",
                "pretokenize(text, pattern)]   # no grouping: slower, same merges",
            ),
        ),
    ),
    Alternative(
        "nb05_encode_chunked_without_cache",
        NB05,
        "encode_chunked",
        """
def encode_chunked(text, merges, pattern=GPT2_PATTERN):
    ids = []
    for chunk in pretokenize(text, pattern):
        ids.extend(encode(chunk, merges))
    return ids""",
    ),
    Alternative(
        "nb05_encode_chunked_sum_of_lists",
        NB05,
        "encode_chunked",
        """
def encode_chunked(text, merges, pattern=GPT2_PATTERN):
    return sum((encode(chunk, merges) for chunk in regex.findall(pattern, text)), [])""",
    ),
    Alternative(
        "nb05_quiz_answer_1_as_frozenset",
        NB05,
        "quiz_answers",
        'ANSWER_1 = frozenset({1, 2, 4})\nANSWER_2 = ["a", "  ", " b"]\nANSWER_3 = 2\nANSWER_4 = 3',
    ),
]
