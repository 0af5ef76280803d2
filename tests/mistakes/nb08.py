"""Mistakes and alternative solutions for notebook 08_shipping_tokenizer."""

import functools
import textwrap

from . import Alternative, Mistake, edit, edited

NB08 = "08_shipping_tokenizer"


# the reference answer of a cell with edits (old, new) made, each standing once (see `edited`)
_train = functools.partial(edited, NB08, "train")
_encode = functools.partial(edited, NB08, "encode")
_lines = functools.partial(edited, NB08, "encode_lines")
_fixed = functools.partial(edited, NB08, "fixed_lines")
_stream = functools.partial(edited, NB08, "encode_iterable")
_save = functools.partial(edited, NB08, "save_tiktoken")
_load = functools.partial(edited, NB08, "load_tiktoken")
_quiz = functools.partial(edited, NB08, "quiz_answers")


def _settled_calls(new):
    """The edits of encode_iterable that put `new` in place of both calls encode_chunk(chunk, merges, cache)
    of encode_settled (the one before a special and the one on the ready chunks)."""
    return (
        (
            "encode_chunk(chunk, merges, cache)\n            yield special_tokens",
            new + "\n            yield special_tokens",
        ),
        ("encode_chunk(chunk, merges, cache)\n        return", new + "\n        return"),
    )


def _in_try(source, before, after):
    """`source`, a function whose docstring is written in triple double quotes, with the code after
    the docstring moved into `try:` (one more indent), `before` ahead of it and `after` under `finally:`."""
    end = source.index('"""', source.index('"""') + 3) + len('"""\n')
    body = textwrap.indent(source[end:].rstrip("\n") + "\n", "    ")
    return source[:end] + before + "    try:\n" + body + "    finally:\n" + after


# ---------------------------------------------------------------- train
# The entries' own way of writing train (the specials sorted in the split's line, the dict `counts`):
# the solution with those two places rewritten; the mistakes below are edits of it
_TRAIN_SPLIT = (
    'parts = regex.split("|".join(regex.escape(t) for t in sorted(special_tokens, key=len, reverse=True)), text)'
)
_COUNTING = (
    "    counts = {}\n"
    "    for part in parts:\n"
    "        for chunk in pretokenize(part, pattern):\n"
    "            counts[chunk] = counts.get(chunk, 0) + 1\n"
    "    return train_from_counts(counts, vocab_size)"
)
TRAIN = _train(
    (
        "        longest_first = sorted(special_tokens, key=len, reverse=True)\n"
        '        parts = regex.split("|".join(regex.escape(token) for token in longest_first), text)',
        "        " + _TRAIN_SPLIT,
    ),
    (("    chunk_counts = {}", "return train_from_counts(chunk_counts, vocab_size)"), _COUNTING),
)

# ---------------------------------------------------------------- encode
_REFUSAL = 'f"в тексте встретился спецтокен {token!r}, а он не разрешён (allowed_special)"'
_SHORT_REFUSAL = 'f"спецтокен {token!r} не разрешён"'
_FIX = '    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")\n'
_ALL = '    if allowed_special == "all":\n        allowed_special = set(special_tokens)\n'
_CHECK = (
    "    for token in special_tokens:\n"
    "        if token not in allowed_special and token in text:\n"
    "            raise ValueError(" + _SHORT_REFUSAL + ")\n"
)
_SPLIT = '    parts = regex.split("(" + "|".join(regex.escape(t) for t in sorted(special_tokens, key=len, reverse=True)) + ")", text)'
_NO_SPECIALS = "    if not special_tokens:\n        return encode_chunked(text, merges, pattern)\n"
_SPECIAL_ID = "            ids.append(special_tokens[part])"

# encode as most entries write it: "all" turned into the set of specials in allowed_special, no
# specials handed to encode_chunked, the specials split out of the whole text by one regex.split
# and the parts without them given to encode_chunked; the mistakes below are edits of it
ENCODE_SPLIT = _encode(
    ('    allowed = set(special_tokens) if allowed_special == "all" else set(allowed_special)\n', _ALL),
    ("if token not in allowed and", "if token not in allowed_special and"),
    (_REFUSAL, _SHORT_REFUSAL),
    (
        ("    # ищем только разрешённые", "    return ids"),
        _NO_SPECIALS + _SPLIT + "\n"
        "    ids = []\n"
        "    for i, part in enumerate(parts):\n"
        "        if i % 2:\n" + _SPECIAL_ID + "\n"
        "        elif part:\n"
        "            ids.extend(encode_chunked(part, merges, pattern))\n"
        "    return ids",
    ),
)

# encode as the entries of issue 20 write it: the solution's way with the allowed specials in `wanted`,
# the parts without specials given to encode_chunked
ENCODE_WANTED = _encode(
    (_REFUSAL, _SHORT_REFUSAL),
    (
        ("    # ищем только разрешённые", 'for token in longest_first) + ")", text)'),
        "    wanted = sorted((t for t in special_tokens if t in allowed), key=len, reverse=True)\n"
        "    parts = [text]\n"
        "    if wanted:\n"
        '        parts = regex.split("(" + "|".join(regex.escape(t) for t in wanted) + ")", text)',
    ),
    ("    cache, ids = {}, []", "    ids = []"),
    ("if i % 2 == 1:                         # нечётные части — найденные спецтокены", "if i % 2:"),
    (
        "            for chunk in pretokenize(part, pattern):\n"
        "                ids.extend(encode_chunk(chunk, merges, cache))",
        "            ids.extend(encode_chunked(part, merges, pattern))",
    ),
)

# ---------------------------------------------------------------- encode_lines
_READY = "for chunk in chunks[:-2]:                # левее двух последних кусков ничего не изменится"
_EACH = "yield from encode_chunk(chunk, merges, cache)\n        tail"  # the call on the settled chunks
_REST = "    for chunk in pretokenize(tail, pattern):\n        yield from encode_chunk(chunk, merges, cache)"


def _both_calls(new):
    """The edits that put `new` in place of both calls encode_chunk(chunk, merges, cache) of encode_lines."""
    return (
        (_EACH, "yield from " + new + "\n        tail"),
        (_REST, _REST.replace("encode_chunk(chunk, merges, cache)", new)),
    )


# encode_lines that keeps every line it read in a list; the memory attacks below are edits of it
KEEPS_EVERY_LINE = _lines(
    (
        '    cache, tail = {}, ""\n    for line in lines:\n',
        '    cache, tail, seen = {}, "", []\n    for line in lines:\n        seen.append(line)\n',
    )
)

# ---------------------------------------------------------------- save_tiktoken, load_tiktoken
_BASE64 = "base64.b64encode(vocab[i]).decode('ascii')"
_LINE = _BASE64 + '} {i}\\n"'  # the end of one line of the file in the f-string

# load_tiktoken that skips only empty lines (not blank ones): the mistakes below are edits of it
LOAD = _load(("if line.strip():", "if line:"))

MISTAKES = [
    # ---------------------------------------------------------------- train
    Mistake(
        "nb08_train_ignores_specials",
        NB08,
        "train",
        """
def train(text, vocab_size, pattern=GPT2_PATTERN, special_tokens=()):
    return train_chunked(text, vocab_size, pattern)          # specials are pre-tokenized like text""",
        "test_train",
        "кусок спецтокена",
    ),
    Mistake(
        "nb08_train_replace_with_space",
        NB08,
        "train",
        """
def train(text, vocab_size, pattern=GPT2_PATTERN, special_tokens=()):
    for token in special_tokens:
        text = text.replace(token, " ")                      # the next document now starts with a space
    return train_chunked(text, vocab_size, pattern)""",
        "test_train",
        "не заменяйте спецтокен пробелом",
    ),
    Mistake(
        "nb08_train_replace_with_nothing",
        NB08,
        "train",
        """
def train(text, vocab_size, pattern=GPT2_PATTERN, special_tokens=()):
    for token in special_tokens:
        text = text.replace(token, "")                       # the documents around it are glued
    return train_chunked(text, vocab_size, pattern)""",
        "test_train",
        "соседние части склеятся",
    ),
    Mistake(
        "nb08_train_no_escape",
        NB08,
        "train",
        edit(
            TRAIN,
            (
                _TRAIN_SPLIT,
                'parts = regex.split("|".join(sorted(special_tokens, key=len, reverse=True)), text)   # | means "or"',
            ),
        ),
        "test_train_hidden",
        "regex.escape",
    ),
    Mistake(
        "nb08_train_empty_pattern_everywhere",
        NB08,
        "train",
        edit(
            TRAIN,
            (
                ("    parts = [text]\n", _TRAIN_SPLIT),
                '    parts = regex.split("|".join(regex.escape(t) for t in special_tokens), text)   # "" when there are none',
            ),
        ),
        "test_train",
        "без спецтокенов train — это train_chunked",
    ),
    Mistake(
        "nb08_train_keeps_specials_as_parts",
        NB08,
        "train",
        edit(
            TRAIN,
            (
                _TRAIN_SPLIT,
                'shape = "(" + "|".join(regex.escape(t) for t in sorted(special_tokens, key=len, reverse=True)) + ")"\n'
                "        parts = regex.split(shape, text)                     # the group keeps the specials among the parts",
            ),
        ),
        "test_train",
        "кусок спецтокена",
    ),
    Mistake(
        "nb08_train_only_first_special",
        NB08,
        "train",
        edit(
            TRAIN,
            (
                ("    parts = [text]\n", _TRAIN_SPLIT),
                "    parts = text.split(list(special_tokens)[0]) if special_tokens else [text]   # the others stay in the text",
            ),
        ),
        "test_train_hidden",
        "длинные первыми",
    ),
    Mistake(
        "nb08_train_sorted_by_frequency",
        NB08,
        "train",
        edit(
            TRAIN,
            ("def train(", "from collections import Counter\ndef train("),
            (
                _COUNTING,
                "    counts = Counter(chunk for part in parts for chunk in pretokenize(part, pattern))\n"
                "    return train_from_counts(dict(counts.most_common()), vocab_size)    # ties now follow frequency",
            ),
        ),
        "test_train_hidden",
        "в порядке первого появления",
    ),
    # ---------------------------------------------------------------- encode
    Mistake(
        "nb08_encode_no_escape",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (
                "regex.escape(t) for t in sorted(special_tokens, key=len, reverse=True)",
                "sorted(special_tokens, key=len, reverse=True)",
            ),
            (
                "    for i, part in enumerate(parts):\n        if i % 2:",
                "    for part in parts:\n        if part in special_tokens:",
            ),
        ),
        "test_encode",
        "regex.escape",
    ),
    Mistake(
        "nb08_encode_specials_in_given_order",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (
                'for t in sorted(special_tokens, key=len, reverse=True)) + ")", text)',
                'for t in special_tokens) + ")", text)   # not longest first',
            ),
        ),
        "test_encode",
        "самый длинный",
    ),
    Mistake(
        "nb08_encode_never_refuses",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (_ALL + _CHECK, ""),
            (_SPECIAL_ID, _SPECIAL_ID + "                 # every special becomes its id, allowed or not"),
        ),
        "test_encode",
        "должна бросить ValueError",
    ),
    Mistake(
        "nb08_encode_all_is_a_string",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (_ALL, ""),
            (
                "allowed_special and token in text:",
                'allowed_special and token in text:   # "<|endoftext|>" in "all" is False',
            ),
        ),
        "test_encode",
        "ValueError",
    ),
    Mistake(
        "nb08_encode_guard_on_matches_only",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (_CHECK, ""),
            (
                _SPECIAL_ID,
                "            if part not in allowed_special:                  # a disallowed token inside an allowed one slips through\n"
                '                raise ValueError(f"спецтокен {part!r} не разрешён")\n' + _SPECIAL_ID,
            ),
        ),
        "test_encode_hidden",
        "даже внутри разрешённого",
    ),
    Mistake(
        "nb08_encode_computed_special_ids",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (
                _SPLIT,
                "    names = sorted(special_tokens, key=len, reverse=True)\n"
                '    parts = regex.split("(" + "|".join(regex.escape(t) for t in names) + ")", text)',
            ),
            (
                "ids.append(special_tokens[part])",
                'ids.append(256 + len(merges) + list(special_tokens).index(part))   # "the next free id", not the given one',
            ),
        ),
        "test_encode",
        "id из special_tokens",
    ),
    Mistake(
        "nb08_encode_surrogates_crash",
        NB08,
        "encode",
        edit(ENCODE_SPLIT, (_FIX, "")),
        "test_encode",
        "U+FFFD",
    ),
    Mistake(
        "nb08_encode_surrogates_question_mark",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (
                _FIX,
                '    text = text.encode("utf-8", errors="replace").decode("utf-8")      # a lone surrogate becomes "?"\n',
            ),
        ),
        "test_encode",
        "U+FFFD",
    ),
    Mistake(
        "nb08_encode_surrogates_dropped",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (
                _FIX,
                '    text = text.encode("utf-8", errors="ignore").decode("utf-8")       # the bad character silently disappears\n',
            ),
        ),
        "test_encode",
        "U+FFFD",
    ),
    Mistake(
        "nb08_encode_surrogate_pairs_not_joined",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (
                _FIX,
                '    text = regex.sub("[\\ud800-\\udfff]", "\\ufffd", text)             # a pair becomes two replacement characters\n',
            ),
        ),
        "test_encode_hidden",
        "суррогаты — как в tiktoken",
    ),
    Mistake(
        "nb08_encode_empty_dict_not_none",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (
                "    special_tokens = special_tokens or {}\n",
                _FIX + "    if special_tokens is None:\n        return encode_chunked(text, merges, pattern)\n",
            ),
            (_FIX + _NO_SPECIALS, ""),
            (
                "    for i, part in enumerate(parts):",
                '    for i, part in enumerate(parts):                         # with {} the pattern "()" matches everywhere',
            ),
        ),
        "test_encode_hidden",
        "пустой словарь спецтокенов",
    ),
    Mistake(
        "nb08_encode_whole_text_at_once",
        NB08,
        "encode",
        edit(
            ENCODE_SPLIT,
            (
                (_NO_SPECIALS, "    return ids"),
                "    ids = []\n"
                "    for chunk in pretokenize(text, pattern):                 # specials are looked for among the chunks\n"
                "        if chunk in special_tokens:\n"
                "            ids.append(special_tokens[chunk])\n"
                "        else:\n"
                "            ids.extend(encode_chunk(chunk, merges))\n"
                "    return ids",
            ),
        ),
        "test_encode",
        "до претокенизации",
    ),
    # ---------------------------------------------------------------- encode_iterable
    Mistake(
        "nb08_stream_each_line_alone",
        NB08,
        "encode_lines",
        """
def encode_lines(lines, merges, pattern=GPT2_PATTERN):
    for line in lines:
        yield from encode_chunked(line, merges, pattern)     # a chunk may start in one line and end in the next""",
        "test_encode_lines",
        "не кодируйте строки по отдельности",
    ),
    Mistake(
        "nb08_stream_reads_everything_first",
        NB08,
        "encode_lines",
        """
def encode_lines(lines, merges, pattern=GPT2_PATTERN):
    yield from encode_chunked("".join(lines), merges, pattern)      # right ids, but only after the last line""",
        "test_encode_lines",
        "слишком поздно",
    ),
    Mistake(
        "nb08_stream_holds_one_chunk",
        NB08,
        "encode_lines",
        _lines(
            (_READY, "for chunk in chunks[:-1]:                            # the second to last chunk can change too"),
            ('tail = "".join(chunks[-2:])', 'tail = chunks[-1] if chunks else ""'),
        ),
        "test_encode_lines",
        "держите в буфере два последних куска",
    ),
    Mistake(
        "nb08_stream_forgets_the_tail",
        NB08,
        "encode_lines",
        _lines(
            (
                'tail = "".join(chunks[-2:])\n' + _REST,
                'tail = "".join(chunks[-2:])                          # ... and the tail is never given out',
            )
        ),
        "test_encode_lines",
        "в конце выдайте остаток",
    ),
    Mistake(
        "nb08_stream_returns_a_list",
        NB08,
        "encode_lines",
        _lines(
            ('cache, tail = {}, ""', 'ids, tail = [], ""'),
            (_EACH, "ids.extend(encode_chunk(chunk, merges))\n        tail"),
            (_REST, "    return ids + encode_chunked(tail, merges, pattern)"),
        ),
        "test_encode_lines",
        "должна быть генератором",
    ),
    Mistake(
        "nb08_stream_yields_lists",
        NB08,
        "encode_lines",
        _lines(
            (
                _EACH,
                "yield encode_chunk(chunk, merges, cache)         # a list per chunk, not one id at a time\n        tail",
            ),
            (_REST, _REST.replace("yield from", "yield")),
        ),
        "test_encode_lines",
        "выдавайте id по одному",
    ),
    Mistake(
        "nb08_stream_keeps_all_text",
        NB08,
        "encode_lines",
        """
def encode_lines(lines, merges, pattern=GPT2_PATTERN):
    text, done = "", 0
    for line in lines:
        text += line                                         # everything read so far, cut again every time
        chunks = pretokenize(text, pattern)
        for chunk in chunks[done:len(chunks) - 2]:
            yield from encode_chunk(chunk, merges)
        done = max(done, len(chunks) - 2)
    for chunk in pretokenize(text, pattern)[done:]:
        yield from encode_chunk(chunk, merges)""",
        "test_encode_lines_hidden",
        "она не зависла (прочитано строк: ",  # issue 40: the loop stops; it is the cost that grows
    ),
    Mistake(
        "nb08_stream_cuts_at_last_space",
        NB08,
        "encode_lines",
        """
def encode_lines(lines, merges, pattern=GPT2_PATTERN):
    buffer = ""
    for line in lines:
        buffer += line
        head, space, rest = buffer.rpartition(" ")           # text without spaces is never given out early
        if head:
            yield from encode_chunked(head, merges, pattern)
            buffer = space + rest
    yield from encode_chunked(buffer, merges, pattern)""",
        "test_encode_lines_hidden",
        "id должны совпасть",
    ),
    Mistake(
        "nb08_stream_cache_outlives_the_table",
        NB08,
        "encode_lines",
        _lines(
            (
                "def encode_lines(",
                "CACHE = {}                                                   # shared by every call, whatever the table\ndef encode_lines(",
            ),
            ('cache, tail = {}, ""', 'tail = ""'),
            *_both_calls("encode_chunk(chunk, merges, CACHE)"),
        ),
        "test_encode_lines_hidden",
        "id должны совпасть",
    ),
    # ---------------------------------------------------------------- save_tiktoken
    Mistake(
        "nb08_save_str_of_bytes",
        NB08,
        "save_tiktoken",
        _save(
            (
                _LINE + " for i in sorted(vocab))",
                'base64.b64encode(vocab[i])} {i}\\n" for i in sorted(vocab))      # "b\'AA==\'"',
            )
        ),
        "test_save_tiktoken",
        "а не str(bytes)",
    ),
    Mistake(
        "nb08_save_urlsafe",
        NB08,
        "save_tiktoken",
        _save((_BASE64, "base64.urlsafe_b64encode(vocab[i]).decode()")),
        "test_save_tiktoken",
        "не urlsafe",
    ),
    Mistake(
        "nb08_save_no_final_newline",
        NB08,
        "save_tiktoken",
        _save(('return "".join', 'return "\\n".join'), (_LINE, 'base64.b64encode(vocab[i]).decode()} {i}"')),
        "test_save_tiktoken",
        "и после последней тоже",
    ),
    Mistake(
        "nb08_save_only_learned_tokens",
        NB08,
        "save_tiktoken",
        _save(
            (_BASE64, "base64.b64encode(vocab[i]).decode()"),
            ("for i in sorted(vocab))", "for i in merges.values())   # bytes 0..255 left out"),
        ),
        "test_save_tiktoken",
        "256 строк",
    ),
    Mistake(
        "nb08_save_token_as_text",
        NB08,
        "save_tiktoken",
        """
def save_tiktoken(merges):
    vocab = token_bytes(merges)
    lines = []
    for i in sorted(vocab):
        piece = vocab[i].decode("utf-8", errors="replace").encode("utf-8")     # half a character becomes �
        lines.append(f"{base64.b64encode(piece).decode()} {i}\\n")
    return "".join(lines)""",
        "test_save_tiktoken",
        "не от их расшифровки как текст",
    ),
    Mistake(
        "nb08_save_sorted_by_bytes",
        NB08,
        "save_tiktoken",
        """
def save_tiktoken(merges):
    vocab = token_bytes(merges)
    return "".join(f"{base64.b64encode(piece).decode()} {i}\\n"
                   for i, piece in sorted(vocab.items(), key=lambda item: item[1]))   # sorted by bytes, not by id""",
        "test_save_tiktoken",
        "выученные токены идут после 256 байтов",
    ),
    Mistake(
        "nb08_save_ranks_from_one",
        NB08,
        "save_tiktoken",
        _save(
            (
                _LINE + " for i in sorted(vocab))",
                'base64.b64encode(vocab[i]).decode()} {i + 1}\\n" for i in sorted(vocab))   # line numbers',
            )
        ),
        "test_save_tiktoken",
        "пробел и id",
    ),
    # ---------------------------------------------------------------- load_tiktoken
    Mistake(
        "nb08_load_text_keys",
        NB08,
        "load_tiktoken",
        edit(
            LOAD, ("ranks[base64.b64decode(token)]", 'ranks[base64.b64decode(token).decode("utf-8", errors="replace")]')
        ),
        "test_load_tiktoken",
        "ключ — байты токена",
    ),
    Mistake(
        "nb08_load_rank_as_string",
        NB08,
        "load_tiktoken",
        edit(LOAD, ("= int(rank)", "= rank")),
        "test_load_tiktoken",
        "целое число",
    ),
    Mistake(
        "nb08_load_base64_not_decoded",
        NB08,
        "load_tiktoken",
        edit(
            LOAD,
            (
                "ranks[base64.b64decode(token)] = int(rank)",
                'ranks[token.encode("ascii")] = int(rank)          # b"YQ==" instead of b"a"',
            ),
        ),
        "test_load_tiktoken",
        "base64.b64decode",
    ),
    Mistake(
        "nb08_load_empty_lines",
        NB08,
        "load_tiktoken",
        _load(
            (
                ("    for line in text.splitlines():", "ranks[base64.b64decode(token)] = int(rank)"),
                '    for line in text.strip().split("\\n"):                   # "" and blank lines are not skipped\n'
                "        token, rank = line.split()\n"
                "        ranks[base64.b64decode(token)] = int(rank)",
            )
        ),
        "test_load_tiktoken",
        "пустые строки пропускайте",
    ),
    Mistake(
        "nb08_load_split_on_one_space",
        NB08,
        "load_tiktoken",
        edit(LOAD, ("line.split()", 'line.split(" ")                    # two spaces or a trailing one break it')),
        "test_load_tiktoken_hidden",
        "по пробельным символам",
    ),
    Mistake(
        "nb08_load_drops_last_line",
        NB08,
        "load_tiktoken",
        edit(
            LOAD,
            (
                "for line in text.splitlines():",
                'for line in text.split("\\n")[:-1]:                     # assumes the file ends with a newline',
            ),
        ),
        "test_load_tiktoken_hidden",
        "последняя строка может быть без",
    ),
    # ---------------------------------------------------------------- issue 20: train
    Mistake(
        "nb08_train_specials_shortest_first",
        NB08,
        "train",
        edit(
            TRAIN,
            (
                _TRAIN_SPLIT,
                'shape = "|".join(regex.escape(t) for t in sorted(special_tokens, key=len))   # short ones cut long ones\n'
                "        parts = regex.split(shape, text)",
            ),
        ),
        "test_train_hidden",
        "длинные первыми",
    ),
    Mistake(
        "nb08_train_specials_unsorted",
        NB08,
        "train",
        edit(
            TRAIN,
            (
                _TRAIN_SPLIT,
                'parts = regex.split("|".join(regex.escape(t) for t in special_tokens), text)   # in the order given',
            ),
        ),
        "test_train_hidden",
        "в каком бы порядке их ни передали",
    ),
    Mistake(
        "nb08_train_vocab_size_counts_specials",
        NB08,
        "train",
        edit(
            TRAIN,
            (
                "train_from_counts(counts, vocab_size)",
                "train_from_counts(counts, vocab_size - len(special_tokens))    # CS336 counts the specials in",
            ),
        ),
        "test_train_hidden",
        "спецтокены в него не входят",
    ),
    # ---------------------------------------------------------------- issue 20: encode
    Mistake(
        "nb08_encode_ignores_pattern",
        NB08,
        "encode",
        edit(ENCODE_WANTED, ("encode_chunked(part, merges, pattern)", "encode_chunked(part, merges)")),
        "test_encode_hidden",
        "шаблоном pattern",
    ),
    Mistake(
        "nb08_encode_specials_found_after_surrogates",
        NB08,
        "encode",
        edit(
            ENCODE_WANTED,
            (
                "sorted((t for t in special_tokens if t in allowed), key=len, reverse=True)",
                "sorted(special_tokens, key=len, reverse=True)     # disallowed ones too",
            ),
        ),
        "test_encode_hidden",
        "id давайте только разрешённым",
    ),
    # ---------------------------------------------------------------- issue 20: encode_iterable memory
    Mistake(
        "nb08_stream_keeps_every_line",
        NB08,
        "encode_lines",
        edit(
            KEEPS_EVERY_LINE,
            (
                "seen.append(line)",
                'seen.append(line)                                     # "for debugging": every line stays in memory',
            ),
        ),
        "test_encode_lines_hidden",
        "держит всё больше памяти",
    ),
    Mistake(
        "nb08_stream_cache_never_cleared",
        NB08,
        "encode_lines",
        _lines(
            (
                '    cache, tail = {}, ""\n',
                '    cache, tail = {}, ""\n'
                "    def ids_of(chunk):\n"
                "        if chunk not in cache:\n"
                "            cache[chunk] = encode_chunk(chunk, merges)        # its own cache, never cleared\n"
                "        return cache[chunk]\n",
            ),
            *_both_calls("ids_of(chunk)"),
        ),
        "test_encode_lines_hidden",
        "не заводите свой кэш без предела",
    ),
    Mistake(
        "nb08_stream_keeps_lines_restarts_tracemalloc",
        NB08,
        "encode_lines",
        edit(
            KEEPS_EVERY_LINE,
            ("def encode_lines(", "import tracemalloc\ndef encode_lines("),
            (
                "        seen.append(line)\n",
                "        seen.append(line)\n"
                "        if tracemalloc.is_tracing():                          # an attack: forget what was traced so far\n"
                "            tracemalloc.stop()\n"
                "            tracemalloc.start()\n",
            ),
        ),
        "test_encode_lines_hidden",
        "держит всё больше памяти",
    ),
    Mistake(
        "nb08_stream_keeps_lines_fakes_tracemalloc",
        NB08,
        "encode_lines",
        _in_try(
            edit(
                KEEPS_EVERY_LINE,
                ("def encode_lines(", "import tracemalloc\ndef encode_lines("),
                ("        seen.append(line)\n", "        seen.append(line)\n        tracemalloc.reset_peak()\n"),
            ),
            "    saved = tracemalloc.get_traced_memory, tracemalloc.reset_peak\n"
            "    tracemalloc.get_traced_memory = lambda: (0, 0)            # an attack: the module's functions lie\n",
            "        tracemalloc.get_traced_memory = saved[0]",
        ),
        "test_encode_lines_hidden",
        "держит всё больше памяти",
    ),
    # ---------------------------------------------------------------- issue 20: encode_iterable with specials
    Mistake(
        "nb08_stream_special_split_not_matched",
        NB08,
        "encode_iterable",
        _stream(
            ("len(text) - reach + 1", "len(text) + 1                   # a special is looked for only in what was read")
        ),
        "test_encode_iterable",
        "спецтокен может начаться в одной строке",
    ),
    Mistake(
        "nb08_stream_holds_one_char_too_few",
        NB08,
        "encode_iterable",
        _stream(
            ("len(text) - reach + 1", "len(text) - reach + 2           # off by one: a whole special is given out")
        ),
        "test_encode_iterable_hidden",
        "может оказаться началом более длинного",
    ),
    Mistake(
        "nb08_stream_lone_surrogate_raises",
        NB08,
        "fixed_lines",
        edited(
            NB08,
            "fixed_lines",
            (
                'yield line[:len(line) - len(high)].encode("utf-16", "surrogatepass").decode("utf-16", "replace")',
                "yield line[:len(line) - len(high)]             # the file was opened as UTF-8, surely",
            ),
        ),
        "test_fixed_lines",
        "одиночный суррогат становится U+FFFD",
    ),
    Mistake(
        "nb08_stream_surrogate_pair_split",
        NB08,
        "fixed_lines",
        edited(
            NB08,
            "fixed_lines",
            (
                'high = line[-1:] if "\\ud800" <= line[-1:] <= "\\udbff" else ""     # его пара может прийти следующей строкой',
                'high = ""                              # each line fixed on its own: a pair cut in two is two �',
            ),
        ),
        "test_fixed_lines",
        "первую половину пары",
    ),
    Mistake(
        "nb08_stream_held_surrogate_forgotten",
        NB08,
        "fixed_lines",
        edited(
            NB08,
            "fixed_lines",
            (
                '    if high:\n        yield high.encode("utf-16", "surrogatepass").decode("utf-16", "replace")',
                "    pass                                    # the half held back is never given out",
            ),
        ),
        "test_fixed_lines",
        "одиночный суррогат становится U+FFFD",
    ),
    Mistake(
        "nb08_stream_surrogate_held_over_one_line_only",
        NB08,
        "fixed_lines",
        _fixed(
            (
                ("        line = high + line\n", "len(line) - len(high)]"),
                '        held = line[-1:] if "\\ud800" <= line[-1:] <= "\\udbff" else ""    # looks at the new line only\n'
                "        line = high + line\n"
                "        yield line[:len(line) - len(held)]",
            ),
            ('"replace")\n    if high:', '"replace")\n        high = held\n    if high:'),
        ),
        "test_fixed_lines_hidden",
        "даже если следующая строка пустая",
    ),
    Mistake(
        "nb08_stream_surrogates_fixed_at_the_end",
        NB08,
        "fixed_lines",
        """
def fixed_lines(lines):
    text = "".join(lines)                                     # right text, but only after the last line
    yield text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")""",
        "test_fixed_lines",
        "Выдавайте строку сразу",
    ),
    Mistake(
        "nb08_stream_disallowed_special_encoded",
        NB08,
        "encode_iterable",
        _stream(
            (
                "forbidden = [token for token in special_tokens if token not in allowed]",
                "forbidden = []                          # a disallowed special is left to be plain text",
            )
        ),
        "test_encode_iterable",
        "ValueError со строкой '<|endoftext|>'",
    ),
    Mistake(
        "nb08_stream_disallowed_checked_per_line",
        NB08,
        "encode_iterable",
        _stream(("if token in seen:", "if token in line:                # a special cut between two lines is missed")),
        "test_encode_iterable",
        "ищите запрещённые в строке вместе с концом прочитанного текста",
    ),
    Mistake(
        "nb08_stream_disallowed_raised_at_the_end",
        NB08,
        "encode_iterable",
        _stream(
            (
                '    seen, tail = "", ""\n',
                '    seen, tail, found = "", "", []\n',
            ),
            (
                '                raise ValueError(f"в тексте встретился спецтокен {token!r}, а он не разрешён (allowed_special)")',
                "                found.append(token)             # said once the whole input is read",
            ),
            (
                "    yield from encode_settled(tail, last=True)",
                "    if found:\n"
                '        raise ValueError(f"в тексте встретился спецтокен {found[0]!r}, а он не разрешён (allowed_special)")\n'
                "    yield from encode_settled(tail, last=True)",
            ),
        ),
        "test_encode_iterable",
        "бросайте ошибку сразу",
    ),
    Mistake(
        "nb08_stream_guard_keeps_all_read",
        NB08,
        "encode_iterable",
        _stream(
            (
                "seen = seen[max(len(seen) - guard, 0):]",
                "pass                                    # everything read is kept for the check",
            )
        ),
        "test_encode_iterable_hidden",
        "держит всё больше памяти",
    ),
    Mistake(
        "nb08_stream_holds_all_after_last_special",
        NB08,
        "encode_iterable",
        _stream(
            (
                "cut = min(max(start, unsettled), len(text))",
                "cut = start if specials and not last else len(text)   # wait for the next special",
            )
        ),
        "test_encode_iterable_hidden",  # the ids after the last special come late (and the memory grows)
        "id выдаются слишком поздно",
    ),
    # ---------------------------------------------------------------- issue 40: holes a hostile student found
    Mistake(
        "nb08_stream_iterable_fixes_each_line",
        NB08,
        "encode_iterable",
        _stream(
            (
                "    for line in fixed_lines(lines):\n",
                "    for line in lines:\n"
                '        line = line.encode("utf-16", "surrogatepass").decode("utf-16", "replace")   # each line on its own\n',
            )
        ),
        "test_encode_iterable_hidden",
        "строки входа прогоняйте через fixed_lines",
    ),
    Mistake(
        "nb08_stream_iterable_holds_five_chunks",
        NB08,
        "encode_iterable",
        _stream(("ready = chunks if last else chunks[:-2]", "ready = chunks if last else chunks[:-5]   # to be safe")),
        "test_encode_iterable_hidden",
        "id выдаются слишком поздно",
    ),
    Mistake(
        "nb08_stream_keeps_lines_unless_test_limit",  # the old text named the limit the memory test sets
        NB08,
        "encode_lines",
        edit(
            KEEPS_EVERY_LINE,
            ("        seen.append(line)\n", "        if CACHE_LIMIT != 1024:\n            seen.append(line)\n"),
        ),
        "test_encode_lines_hidden",
        "держит всё больше памяти, чем длиннее вход: пик",
    ),
    Mistake(
        "nb08_stream_keeps_lines_at_notebook_limit",  # behaves whenever the limit is not the notebook's own
        NB08,
        "encode_lines",
        edit(
            KEEPS_EVERY_LINE,
            ("        seen.append(line)\n", "        if CACHE_LIMIT == 100_000:\n            seen.append(line)\n"),
        ),
        "test_encode_lines_hidden",
        "и с CACHE_LIMIT блокнота",
    ),
    Mistake(
        "nb08_stream_keeps_lines_unless_limit_changed",  # behaves only at the notebook's own limit
        NB08,
        "encode_lines",
        edit(
            KEEPS_EVERY_LINE,
            ("        seen.append(line)\n", "        if CACHE_LIMIT != 100_000:\n            seen.append(line)\n"),
        ),
        "test_encode_lines_hidden",
        "держит всё больше памяти, чем длиннее вход: пик",
    ),
    Mistake(
        "nb08_stream_iterable_keeps_lines_unless_test_limit",
        NB08,
        "encode_iterable",
        _stream(
            (
                '    seen, tail = "", ""\n',
                '    seen, tail, kept = "", "", []\n',
            ),
            (
                "        seen += line ",
                "        if CACHE_LIMIT != 1024:\n            kept.append(line)\n        seen += line ",
            ),
        ),
        "test_encode_iterable_hidden",
        "со спецтокенами держит всё больше памяти",
    ),
    Mistake(
        "nb08_stream_iterable_syntax_error",
        NB08,
        "encode_iterable",
        _stream(("    for line in fixed_lines(lines):", "    for line in fixed_lines(lines)")),
        "test_encode_iterable",
        "не скомпилировалась: SyntaxError: expected ':' (строка ",
    ),
    Mistake(
        "nb08_stream_iterable_indentation_error",
        NB08,
        "encode_iterable",
        _stream(("        for token in forbidden:\n", "          for token in forbidden:\n")),
        "test_encode_iterable",
        "не скомпилировалась: IndentationError: unexpected indent (строка ",
    ),
    Mistake(
        "nb08_stream_hangs_on_a_long_input",  # out of time with no output at the end: a loop that does not stop
        NB08,
        "encode_lines",
        _lines(
            (
                '    cache, tail = {}, ""\n    for line in lines:\n',
                '    cache, tail = {}, ""\n    for n, line in enumerate(lines):\n',
            ),
            (
                "        chunks = pretokenize(",
                "        while n >= 1000:\n            pass\n        chunks = pretokenize(",
            ),
        ),
        "test_encode_lines_hidden",
        "не завершилась за 20 с: похоже, цикл не останавливается",
    ),
    # ---------------------------------------------------------------- quiz
    Mistake(
        "nb08_quiz_first_listed_wins",
        NB08,
        "quiz_answers",
        _quiz(("ANSWER_1 = [301, 300]", "ANSWER_1 = [300, 300, 300]")),
        "test_quiz_1",
        "ANSWER_1 неверен",
    ),
    Mistake(
        "nb08_quiz_answer_as_text",
        NB08,
        "quiz_answers",
        _quiz(("ANSWER_1 = [301, 300]", 'ANSWER_1 = "[301, 300]"')),
        "test_quiz_1",
        "списком целых чисел",
    ),
    Mistake(
        "nb08_quiz_holds_one_chunk",
        NB08,
        "quiz_answers",
        _quiz(("ANSWER_2 = 11", "ANSWER_2 = 15")),
        "test_quiz_2",
        "ANSWER_2 неверен",
    ),
    Mistake(
        "nb08_quiz_pair_across_space",
        NB08,
        "quiz_answers",
        _quiz(('ANSWER_3 = "\\ufffd \\ufffd"', 'ANSWER_3 = "\\U0001F642"')),
        "test_quiz_3",
        "ANSWER_3 неверен",
    ),
    Mistake(
        "nb08_quiz_lines_without_bytes",
        NB08,
        "quiz_answers",
        _quiz(("ANSWER_4 = 556", "ANSWER_4 = 300")),
        "test_quiz_4",
        "ANSWER_4 неверен",
    ),
    Mistake(
        "nb08_quiz_lines_with_specials",
        NB08,
        "quiz_answers",
        _quiz(("ANSWER_4 = 556", "ANSWER_4 = 559")),
        "test_quiz_4",
        "спецтокенов в файле нет",
    ),
    Mistake(
        "nb08_train_split_loop",
        NB08,
        "train",
        edit(
            TRAIN,
            (
                "    if special_tokens:\n        " + _TRAIN_SPLIT,
                "    for token in sorted(special_tokens, key=len, reverse=True):     # one special at a time, str.split\n"
                "        parts = [piece for part in parts for piece in part.split(token)]",
            ),
        ),
        "test_train_hidden",  # the longer special wins even where it starts to the right
        "начинается левее",
    ),
    Mistake(
        "nb08_train_strips_parts",
        NB08,
        "train",
        edited(
            NB08, "train", ("pretokenize(part, pattern)", "pretokenize(part.strip(), pattern)")
        ),  # ' b' loses its space
        "test_train_hidden",
        "не обрезайте части",
    ),
    Mistake(
        "nb08_encode_cache_per_part",
        NB08,
        "encode",
        edited(
            NB08,
            "encode",
            (
                "            for chunk in pretokenize(part, pattern):\n"
                "                ids.extend(encode_chunk(chunk, merges, cache))",
                "            ids.extend(encode_chunked(part, merges, pattern))     # a new cache for every part",
            ),
        ),
        "test_encode_hidden",
        "кэш encode_chunk должен быть один на весь вызов",
    ),
    Mistake(
        "nb08_encode_new_cache_in_the_loop",
        NB08,
        "encode",
        edited(
            NB08,
            "encode",
            (
                "            for chunk in pretokenize(part, pattern):",
                "            cache = {}\n            for chunk in pretokenize(part, pattern):",
            ),
        ),
        "test_encode_hidden",
        "кэш encode_chunk должен быть один на весь вызов",
    ),
    Mistake(
        "nb08_encode_allowed_not_intersected",
        NB08,
        "encode",
        edited(
            NB08,
            "encode",
            (
                "longest_first = sorted((token for token in special_tokens if token in allowed), key=len, reverse=True)",
                "longest_first = sorted(allowed, key=len, reverse=True)      # '<|foo|>' is no special token",
            ),
        ),
        "test_encode_hidden",
        "не спецтокен",
    ),
]

ALTERNATIVES = [
    Alternative(
        "nb08_train_counter",
        NB08,
        "train",
        """
from collections import Counter
def train(text, vocab_size, pattern=GPT2_PATTERN, special_tokens=()):
    if special_tokens:
        shape = "|".join(map(regex.escape, sorted(special_tokens, key=len, reverse=True)))
        parts = regex.split(shape, text)
    else:
        parts = [text]
    counts = Counter()
    for part in parts:
        counts.update(pretokenize(part, pattern))
    return train_from_counts(counts, vocab_size)""",
    ),
    Alternative(
        "nb08_encode_scan_by_hand",
        NB08,
        "encode",
        """
def encode(text, merges, pattern=GPT2_PATTERN, special_tokens=None, allowed_special=()):
    special_tokens = dict(special_tokens or {})
    allowed = set(special_tokens) if allowed_special == "all" else set(allowed_special)
    bad = [t for t in special_tokens if t not in allowed and t in text]
    if bad:
        raise ValueError("спецтокен не разрешён: " + bad[0])
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:                                # the same fix-up as tiktoken, only when needed
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    cache = {}                                                # one for the whole call

    def encode_part(part):
        return [i for chunk in pretokenize(part, pattern) for i in encode_chunk(chunk, merges, cache)]

    ids, start, i = [], 0, 0
    while i < len(text):
        found = max((t for t in allowed if t in special_tokens and text.startswith(t, i)), key=len, default=None)
        if found is None:
            i += 1
            continue
        ids += encode_part(text[start:i])
        ids.append(special_tokens[found])
        i = start = i + len(found)
    return ids + encode_part(text[start:])""",
    ),
    Alternative(
        "nb08_encode_reverse_lexicographic",
        NB08,
        "encode",
        """
def encode(text, merges, pattern=GPT2_PATTERN, special_tokens=None, allowed_special=()):
    special_tokens = special_tokens or {}
    allowed = special_tokens.keys() if allowed_special == "all" else allowed_special
    disallowed = [t for t in special_tokens if t not in allowed]
    if disallowed:
        found = regex.search("|".join(map(regex.escape, disallowed)), text)    # like tiktoken's own check
        if found:
            raise ValueError(f"Encountered text corresponding to disallowed special token {found.group()!r}")
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    ids, cache = [], {}
    wanted = [t for t in special_tokens if t in allowed]       # a disallowed one is text here
    pieces = [text]
    if wanted:
        # two specials matching at one place are prefix and extension: reverse order puts the longer first
        pieces = regex.split("(" + "|".join(map(regex.escape, sorted(wanted, reverse=True))) + ")", text)
    for piece in pieces:
        if piece in wanted:
            ids.append(special_tokens[piece])
        else:
            for chunk in pretokenize(piece, pattern):
                ids.extend(encode_chunk(chunk, merges, cache))
    return ids""",
    ),
    Alternative(
        "nb08_stream_lines_held_as_a_list",
        NB08,
        "encode_lines",
        """
def encode_lines(lines, merges, pattern=GPT2_PATTERN):
    cache, held = {}, []
    for line in lines:
        chunks = pretokenize("".join(held) + line, pattern)
        ready, held = chunks[:max(len(chunks) - 2, 0)], chunks[max(len(chunks) - 2, 0):]
        for chunk in ready:
            for token_id in encode_chunk(chunk, merges, cache):
                yield token_id
    for chunk in pretokenize("".join(held), pattern):
        for token_id in encode_chunk(chunk, merges, cache):
            yield token_id""",
    ),
    Alternative(
        "nb08_stream_fixed_lines_by_code_point",
        NB08,
        "fixed_lines",
        """
def fixed_lines(lines):
    pending = ""
    for line in lines:
        text, pending = pending + line, ""
        if text and 0xD800 <= ord(text[-1]) <= 0xDBFF:        # the first half of a pair waits for the next line
            text, pending = text[:-1], text[-1]
        yield text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if pending:
        yield "\\N{REPLACEMENT CHARACTER}"
""",
    ),
    Alternative(
        "nb08_stream_fixed_lines_skips_empty",  # issue 40: the text asks for the text and its timing, not a count
        NB08,
        "fixed_lines",
        _fixed(
            (
                '        yield line[:len(line) - len(high)].encode("utf-16", "surrogatepass").decode("utf-16", "replace")',
                "        if len(line) > len(high):\n"
                '            yield line[:len(line) - len(high)].encode("utf-16", "surrogatepass").decode("utf-16", "replace")',
            )
        ),
    ),
    Alternative(
        "nb08_stream_fixed_lines_empty_at_the_end",
        NB08,
        "fixed_lines",
        _fixed(
            (
                '    if high:\n        yield high.encode("utf-16", "surrogatepass").decode("utf-16", "replace")',
                '    yield high.encode("utf-16", "surrogatepass").decode("utf-16", "replace")   # "" when nothing waits',
            )
        ),
    ),
    Alternative(
        "nb08_stream_lines_cache_per_line",  # the text advises one cache per call; speed is not graded here
        NB08,
        "encode_lines",
        _lines(
            (
                '    cache, tail = {}, ""\n    for line in lines:\n',
                '    tail = ""\n    for line in lines:\n        cache = {}\n',
            ),
            (
                "    for chunk in pretokenize(tail, pattern):",
                "    cache = {}\n    for chunk in pretokenize(tail, pattern):",
            ),
        ),
    ),
    Alternative(
        "nb08_stream_iterable_cache_per_line",
        NB08,
        "encode_iterable",
        _stream(
            ("    cache = {}\n", "    cache = {}\n    fresh = cache.clear\n"),
            (
                "        seen += line ",
                "        fresh()                                 # a new cache for every line\n        seen += line ",
            ),
        ),
    ),
    Alternative(
        "nb08_stream_buffer_of_chunks",
        NB08,
        "encode_iterable",
        """
def encode_iterable(lines, merges, pattern=GPT2_PATTERN, special_tokens=None, allowed_special=()):
    specials = dict(special_tokens or {})
    allowed = list(specials) if allowed_special == "all" else [t for t in allowed_special if t in specials]
    forbidden = [t for t in specials if t not in allowed]
    shape = regex.compile("|".join(map(regex.escape, sorted(allowed, key=len, reverse=True)))) if allowed else None
    cache = {}

    def waiting(text):
        # where the shortest end of text starts that could still grow into an allowed special
        for start in range(max(len(text) - max(map(len, allowed), default=0) + 1, 0), len(text)):
            if any(t.startswith(text[start:]) and t != text[start:] for t in allowed):
                return start
        return len(text)

    def give(text, held, final):
        # ids of what is settled in held chunks + text; returns the chunks (a list) still held
        text = "".join(held) + text
        stop = len(text) if final else waiting(text)
        start = 0
        for match in (shape.finditer(text) if shape else ()):
            if match.start() >= stop:
                break
            for chunk in pretokenize(text[start:match.start()], pattern):
                for token_id in encode_chunk(chunk, merges, cache):
                    yield token_id
            yield specials[match.group()]
            start = match.end()
        chunks = pretokenize(text[start:max(start, stop)], pattern)
        ready = chunks if final else chunks[:-2]
        for chunk in ready:
            for token_id in encode_chunk(chunk, merges, cache):
                yield token_id
        rest = chunks[len(ready):]
        if max(start, stop) < len(text):
            rest.append(text[max(start, stop):])
        return rest

    read, pending, held = "", "", []
    for line in lines:
        if not line:
            continue
        read += line                                          # what was read, cut to the longest forbidden
        bad = [t for t in forbidden if t in read]
        if bad:
            raise ValueError(f"спецтокен {bad[0]!r} не разрешён")
        read = read[-max(map(len, forbidden)):] if forbidden else ""
        line = pending + line
        pending = line[-1] if 0xD800 <= ord(line[-1]) <= 0xDBFF else ""     # the first half of a pair waits
        line = line[:len(line) - len(pending)].encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        held = yield from give(line, held, False)
    yield from give(pending.encode("utf-16", "surrogatepass").decode("utf-16", "replace"), held, True)""",
    ),
    Alternative(
        "nb08_stream_no_cache_encode_chunked",
        NB08,
        "encode_iterable",
        _stream(
            ("    cache = {}\n", ""),
            *_settled_calls("encode_chunked(chunk, merges, pattern)"),
        ),
    ),
    Alternative(
        "nb08_save_bytes_then_decode",
        NB08,
        "save_tiktoken",
        """
def save_tiktoken(merges):
    ranks = {piece: i for i, piece in token_bytes(merges).items()}
    out = b""
    for piece, rank in sorted(ranks.items(), key=lambda x: x[1]):       # as dump_tiktoken_bpe writes it
        out += base64.b64encode(piece) + b" " + str(rank).encode() + b"\\n"
    return out.decode("ascii")""",
    ),
    Alternative(
        "nb08_save_lines_and_join",
        NB08,
        "save_tiktoken",
        '''
def save_tiktoken(merges):
    vocab = token_bytes(merges)
    lines = [base64.b64encode(vocab[i]).decode() + " " + str(i) for i in range(256 + len(merges))]
    return "\\n".join(lines) + "\\n"''',
    ),
    Alternative(
        "nb08_load_all_words",
        NB08,
        "load_tiktoken",
        """
def load_tiktoken(text):
    words = text.split()                                     # base64, rank, base64, rank, ...
    return {base64.b64decode(token): int(rank) for token, rank in zip(words[::2], words[1::2])}""",
    ),
    Alternative(
        "nb08_load_regex",
        NB08,
        "load_tiktoken",
        """
def load_tiktoken(text):
    return {base64.b64decode(token): int(rank)
            for token, rank in regex.findall(r"(?m)^\\s*(\\S+)\\s+(\\d+)\\s*$", text)}""",
    ),
    Alternative(
        "nb08_train_reverse_lexicographic",
        NB08,
        "train",
        edit(
            TRAIN,
            (
                _TRAIN_SPLIT,
                "# two specials matching at one place are prefix and extension: reverse order puts the longer first\n"
                '        parts = regex.split("|".join(map(regex.escape, sorted(special_tokens, reverse=True))), text)',
            ),
        ),
    ),
    Alternative(
        "nb08_load_set_of_lines",
        NB08,
        "load_tiktoken",
        """
def load_tiktoken(text):
    fields = {tuple(line.split()) for line in text.splitlines() if line.strip()}    # a set: any order
    return {base64.b64decode(token): int(rank) for token, rank in fields}""",
    ),
    Alternative(
        "nb08_load_reversed",
        NB08,
        "load_tiktoken",
        _load(
            (
                "for line in text.splitlines():",
                "for line in reversed(text.splitlines()):                  # the same mapping, built from the end",
            )
        ),
    ),
    Alternative(
        "nb08_stream_lru_cache",
        NB08,
        "encode_iterable",
        "from functools import lru_cache\n"
        + _stream(
            (
                "    cache = {}\n",
                "    ids_of = lru_cache(maxsize=4096)(lambda chunk: tuple(encode_chunk(chunk, merges)))\n",
            ),
            *_settled_calls("ids_of(chunk)"),
        ),
    ),
    Alternative(
        "nb08_encode_list_of_allowed",
        NB08,
        "encode",
        """
import functools
def encode(text, merges, pattern=GPT2_PATTERN, special_tokens=None, allowed_special=()):
    specials = dict(special_tokens or {})
    allowed = list(specials) if allowed_special == "all" else list(allowed_special)   # any collection works
    for token in specials:
        if token not in allowed and token in text:
            raise ValueError(f"спецтокен {token!r} не разрешён")
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    usable = sorted((t for t in allowed if t in specials), key=len, reverse=True)
    chunk_ids = functools.lru_cache(maxsize=None)(lambda chunk: tuple(encode_chunk(chunk, merges)))   # this call's

    def encode_part(part):
        return [i for chunk in pretokenize(part, pattern) for i in chunk_ids(chunk)]

    if not usable:
        return encode_part(text)
    ids, start = [], 0
    for match in regex.finditer("|".join(map(regex.escape, usable)), text):
        ids += encode_part(text[start:match.start()]) + [specials[match.group()]]
        start = match.end()
    return ids + encode_part(text[start:])""",
    ),
    Alternative(
        "nb08_quiz_computed",
        NB08,
        "quiz_answers",
        """
ANSWER_1 = encode("<|endoftext|>" * 3, {}, GPT2_PATTERN, {"<|endoftext|>": 300, "<|endoftext|>" * 2: 301}, "all")
ANSWER_2 = sum(len(c.encode()) for c in pretokenize("the cat the hat the")[:-2])
ANSWER_3 = "\\N{REPLACEMENT CHARACTER} \\N{REPLACEMENT CHARACTER}"
ANSWER_4 = 256 + 300""",
    ),
]
