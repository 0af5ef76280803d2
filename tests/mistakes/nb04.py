"""Mistakes and alternative solutions for notebook 04_decode_utf8."""

from . import Alternative, Mistake, edit, edited

NB04 = "04_decode_utf8"

# the sandbox's kernel has codecs imported by an earlier cell; a student's cell may import it again
IMPORT_CODECS = ("def decode_stream(ids, merges):", "import codecs\ndef decode_stream(ids, merges):")


def _stream(*edits):
    """The reference decode_stream, importing codecs itself, with `edits` made (see `edited`)."""
    return edited(NB04, "decode_stream", IMPORT_CODECS, *edits)


# a correct decode_stream with its own buffer (no codecs): the alternative, and the base of mistakes
HAND_BUFFER = """
def decode_stream(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]

    def length(lead):                      # how many bytes a lead byte promises
        if 0xC2 <= lead <= 0xDF:
            return 2
        if 0xE0 <= lead <= 0xEF:
            return 3
        if 0xF0 <= lead <= 0xF4:
            return 4
        return 1

    def second_ok(lead, second):           # E0, F0, F4 allow fewer second bytes than 80-BF
        low, high = {0xE0: (0xA0, 0xBF), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}.get(lead, (0x80, 0xBF))
        return low <= second <= high

    buffer = b""
    for i in ids:
        buffer += vocab[i]
        k = len(buffer) - 1                # the last byte that is not a continuation byte
        while k >= 0 and 0x80 <= buffer[k] <= 0xBF and len(buffer) - k < 4:
            k -= 1
        if (k >= 0 and len(buffer) - k < length(buffer[k])
                and (len(buffer) - k < 2 or second_ok(buffer[k], buffer[k + 1]))):
            ready, buffer = buffer[:k], buffer[k:]       # keep the unfinished character
        else:
            ready, buffer = buffer, b""
        if ready:
            yield ready.decode("utf-8", errors="replace")
    if buffer:
        yield buffer.decode("utf-8", errors="replace")"""

# versions of another approach than the solution's, whose own mistakes are edits of them

# a strict decode of the whole buffer after each token, instead of counting bytes
STREAM_STRICT_WAITS_FOREVER = edit(
    HAND_BUFFER,
    (("\n\n    def length(lead):", "        return low <= second <= high\n"), ""),
    (
        ("        k = len(buffer) - 1", '        yield buffer.decode("utf-8", errors="replace")'),
        "        try:\n"
        '            text = buffer.decode("utf-8")\n'
        "        except UnicodeDecodeError:\n"
        "            continue                                   # wait for more bytes ... forever\n"
        '        buffer = b""\n'
        "        yield text",
    ),
)

STREAM_STRICT_RETRY_KEEPS_PREFIX = edit(
    STREAM_STRICT_WAITS_FOREVER,
    (
        ("        try:", "        yield text"),
        "        try:\n"
        '            text, buffer = buffer.decode("utf-8"), b""\n'
        "        except UnicodeDecodeError as error:\n"
        '            if error.reason != "unexpected end of data":\n'
        "                continue                           # an invalid byte: wait ... until the end\n"
        '            text, buffer = buffer[:error.start].decode("utf-8"), buffer[error.start:]\n'
        "        if text:\n"
        "            yield text\n"
        "    if buffer:\n"
        '        yield buffer.decode("utf-8", errors="replace")',
    ),
)

B2U_INVERTED = """
def bytes_to_unicode():
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    mapping, n = {chr(b): b for b in keep}, 0
    for b in range(256):
        if b not in keep:
            mapping[chr(256 + n)] = b              # character → byte: the wrong direction
            n += 1
    return mapping"""

B2U_ISPRINTABLE_KEEPS_SPACE = """
def bytes_to_unicode():
    mapping, n = {}, 0
    for b in range(256):
        if chr(b).isprintable():                   # the space is "printable" too
            mapping[b] = chr(b)
        else:
            mapping[b] = chr(256 + n)
            n += 1
    return mapping"""

# versions of another approach than the solution's, whose own mistakes are edits of them

DECODE_EACH_TOKEN_REPLACE = edited(
    NB04,
    "decode",
    (
        '    data = b"".join(vocab[i] for i in ids)\n    return data.decode("utf-8", errors="replace")',
        '    return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)',
    ),
)

DECODE_STRIPS_TEXT = edited(
    NB04,
    "decode",
    (
        '    data = b"".join(vocab[i] for i in ids)\n    return data.decode("utf-8", errors="replace")',
        '    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace").strip()',
    ),
)

STREAM_ALL_AT_THE_END = edited(
    NB04,
    "decode_stream",
    (
        ('    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")', "        yield tail"),
        '    yield b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")',
    ),
)

STREAM_HAND_BUFFER_WAITS_ONE_BYTE_MORE = edit(
    HAND_BUFFER,
    (
        "    def second_ok(lead, second):           # E0, F0, F4 allow fewer second bytes than 80-BF\n"
        "        low, high = {0xE0: (0xA0, 0xBF), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}.get(lead, (0x80, 0xBF))\n"
        "        return low <= second <= high\n",
        "",
    ),
    (
        "        if (k >= 0 and len(buffer) - k < length(buffer[k])\n"
        "                and (len(buffer) - k < 2 or second_ok(buffer[k], buffer[k + 1]))):",
        "        if k >= 0 and len(buffer) - k <= length(buffer[k]):      # <= : a finished character waits too",
    ),
)

STREAM_DROPS_TAIL = edited(
    NB04,
    "decode_stream",
    IMPORT_CODECS,
    (
        "\n"
        '    tail = decoder.decode(b"", final=True)        # id кончились: недописанный символ — это �\n'
        "    if tail:\n"
        "        yield tail",
        "",
    ),
)

B2U_KEEPS_SOFT_HYPHEN = edited(
    NB04,
    "bytes_to_unicode",
    (
        (
            '    keep = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))',
            "    shift = 256",
        ),
        '    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("ÿ") + 1))\n'
        "    mapping = {b: chr(b) for b in keep}\n"
        "    n = 0",
    ),
    (
        "            mapping[b] = chr(shift)\n            shift += 1",
        "            mapping[b] = chr(256 + n)\n            n += 1",
    ),
)

STREAM_YIELDS_WHOLE_SCREEN = edited(
    NB04,
    "decode_stream",
    IMPORT_CODECS,
    (
        "    for i in ids:",
        '    screen = ""\n    for i in ids:',
    ),
    (
        "            yield text",
        "            screen += text\n"
        "            yield screen                           # everything so far, not the new piece",
    ),
    (
        "eld tail",
        "eld screen + tail",
    ),
)

TRAINING_ORDER = "merges.items():       # порядок обучения: части уже в таблице"

MISTAKES = [
    # ---------------------------------------------------------------- decode
    Mistake(
        "nb04_decode_each_token_replace",
        NB04,
        "decode",
        DECODE_EACH_TOKEN_REPLACE,
        "test_decode",
        "сначала склеить",
    ),
    Mistake(
        "nb04_decode_each_token_strict",
        NB04,
        "decode",
        edit(DECODE_EACH_TOKEN_REPLACE, (', errors="replace"', "")),
        "test_decode",
        "UnicodeDecodeError",
    ),
    Mistake(
        "nb04_decode_without_replace",
        NB04,
        "decode",
        edit(
            DECODE_EACH_TOKEN_REPLACE,
            (
                '"".join(vocab[i].decode("utf-8", errors="replace") for i in ids',
                'b"".join(vocab[i] for i in ids).decode("utf-8"',
            ),
        ),
        "test_decode",
        'errors="replace"',
    ),
    Mistake(
        "nb04_decode_table_sorted_by_pair",
        NB04,
        "decode",
        edited(NB04, "decode", (TRAINING_ORDER, "sorted(merges.items()):      # sorted by pair, not training order")),
        "test_decode",
        "порядке обучения",
    ),
    Mistake(
        "nb04_decode_table_newest_first",
        NB04,
        "decode",
        edited(
            NB04,
            "decode",
            (TRAINING_ORDER, "reversed(list(merges.items())):   # new ids before their parts"),
            ("vocab[a] + vocab[b]", 'vocab.get(a, b"") + vocab.get(b, b"")'),
        ),
        "test_decode",
        "порядке обучения",
    ),
    Mistake(
        "nb04_decode_parts_as_bytes",
        NB04,
        "decode",
        edited(NB04, "decode", ("vocab[a] + vocab[b]", "bytes([a, b])  # parts may be new tokens themselves")),
        "test_decode",
        "часть может и сама быть новым токеном",
    ),
    Mistake(
        "nb04_decode_strips_text",
        NB04,
        "decode",
        DECODE_STRIPS_TEXT,
        "test_decode_hidden",
        "ни чистить, ни обрезать",
    ),
    Mistake(
        "nb04_decode_errors_ignore",
        NB04,
        "decode",
        edit(DECODE_STRIPS_TEXT, ('replace").strip()', 'ignore")    # broken bytes vanish')),
        "test_decode",
        'errors="replace"',
    ),
    Mistake(
        "nb04_decode_base_table_off_by_one",
        NB04,
        "decode",
        edited(NB04, "decode", ("range(256)}", "range(255)}          # byte 255 is missing")),
        "test_decode_hidden",
        "все 256 байтов",
    ),
    # issue 26: both got full marks
    Mistake(
        "nb04_decode_normalizes_nfc",
        NB04,
        "decode",
        "import unicodedata\n"
        + edited(
            NB04,
            "decode",
            (
                'return data.decode("utf-8", errors="replace")',
                'return unicodedata.normalize("NFC", data.decode("utf-8", errors="replace"))',
            ),
        ),
        "test_decode_hidden",
        "Ничего не нормализуйте",
    ),
    Mistake(
        "nb04_decode_skips_unknown_ids",
        NB04,
        "decode",
        edited(NB04, "decode", ("vocab[i] for i in ids)", "vocab[i] for i in ids if i in vocab)")),
        "test_decode",
        "KeyError или ValueError",
    ),
    Mistake(
        "nb04_decode_unknown_id_as_replacement",
        NB04,
        "decode",
        edited(NB04, "decode", ("vocab[i] for i in ids)", 'vocab.get(i, "\\ufffd".encode()) for i in ids)')),
        "test_decode",
        "KeyError или ValueError",
    ),
    Mistake(
        "nb04_decode_table_cached_by_size",
        NB04,
        "decode",
        """
_tables = {}
def decode(ids, merges):
    if len(merges) not in _tables:                       # a cache keyed by the size of the table
        vocab = {i: bytes([i]) for i in range(256)}
        for (a, b), new_id in merges.items():
            vocab[new_id] = vocab[a] + vocab[b]
        _tables[len(merges)] = vocab
    vocab = _tables[len(merges)]
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")""",
        "test_decode_hidden",
        "заново из merges при каждом вызове",
    ),
    # ---------------------------------------------------------------- decode_stream
    Mistake(
        "nb04_stream_replace_per_token",
        NB04,
        "decode_stream",
        edited(
            NB04,
            "decode_stream",
            (
                ('    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")', "        yield tail"),
                '    for i in ids:\n        yield vocab[i].decode("utf-8", errors="replace")',
            ),
        ),
        "test_decode_stream",
        "не выдавайте вместо него �",
    ),
    Mistake(
        "nb04_stream_drops_tail",
        NB04,
        "decode_stream",
        STREAM_DROPS_TAIL,
        "test_decode_stream",
        "id больше не будет",
    ),
    Mistake(
        "nb04_stream_strict_waits_forever",
        NB04,
        "decode_stream",
        STREAM_STRICT_WAITS_FOREVER,
        "test_decode_stream",
        "битые байты по-прежнему становятся �",
    ),
    Mistake(
        "nb04_stream_all_at_the_end",
        NB04,
        "decode_stream",
        STREAM_ALL_AT_THE_END,
        "test_decode_stream",
        "сразу",
    ),
    Mistake(
        "nb04_stream_returns_string",
        NB04,
        "decode_stream",
        edit(STREAM_ALL_AT_THE_END, ('    yield b""', '    return b""')),
        "test_decode_stream",
        "генератором",
    ),
    Mistake(
        "nb04_stream_strict_retry_flush_at_end",
        NB04,
        "decode_stream",
        edit(
            STREAM_STRICT_WAITS_FOREVER,
            (
                "        yield text",
                '        yield text\n    if buffer:\n        yield buffer.decode("utf-8", errors="replace")',
            ),
        ),
        "test_decode_stream",
        "целые символы не ждут",
    ),
    Mistake(
        "nb04_stream_strict_retry_keeps_prefix",
        NB04,
        "decode_stream",
        STREAM_STRICT_RETRY_KEEPS_PREFIX,
        "test_decode_stream",
        "битый байт не должен задерживать вывод",
    ),
    Mistake(
        "nb04_stream_reads_all_ids_first",
        NB04,
        "decode_stream",
        _stream(
            (
                '    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")',
                "    ids = list(ids)                                # reads the whole stream before the first piece\n"
                '    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")',
            ),
        ),
        "test_decode_stream",
        "циклом for",
    ),
    Mistake(
        "nb04_stream_yields_whole_screen",
        NB04,
        "decode_stream",
        STREAM_YIELDS_WHOLE_SCREEN,
        "test_decode_stream",
        "только новый текст",
    ),
    Mistake(
        "nb04_stream_one_token_behind",
        NB04,
        "decode_stream",
        _stream(
            (
                ("    for i in ids:", '    tail = decoder.decode(b"", final=True)'),
                "    previous = None\n"
                "    for i in ids:                                  # a token is shown only when the next one has come\n"
                "        if previous is not None:\n"
                "            text = decoder.decode(vocab[previous])\n"
                "            if text:\n"
                "                yield text\n"
                "        previous = i\n"
                '    tail = decoder.decode(vocab[previous] if previous is not None else b"", final=True)',
            ),
        ),
        "test_decode_stream",
        "сразу",
    ),
    Mistake(
        "nb04_stream_holds_only_a_last_lead_byte",
        NB04,
        "decode_stream",
        edit(
            STREAM_STRICT_RETRY_KEEPS_PREFIX,
            (
                ("        try:", "            yield text"),
                "        if buffer[-1] >= 0xC0:                     # only a lead byte at the very end is held back\n"
                "            ready, buffer = buffer[:-1], buffer[-1:]\n"
                "        else:\n"
                '            ready, buffer = buffer, b""\n'
                "        if ready:\n"
                '            yield ready.decode("utf-8", errors="replace")',
            ),
        ),
        "test_decode_stream_hidden",
        "пока не пришли все",
    ),
    Mistake(
        "nb04_stream_hand_buffer_waits_one_byte_more",
        NB04,
        "decode_stream",
        STREAM_HAND_BUFFER_WAITS_ONE_BYTE_MORE,
        "test_decode_stream",
        "сразу",
    ),
    # issue 20: full marks for wrong streams, and messages that named the wrong cause
    Mistake(
        "nb04_stream_hand_buffer_no_second_byte_check",
        NB04,
        "decode_stream",
        edit(
            STREAM_HAND_BUFFER_WAITS_ONE_BYTE_MORE,
            (
                "= length(buffer[k]):      # <= : a finished character waits too",
                " length(buffer[k]):",
            ),
        ),
        "test_decode_stream_hidden",
        "после E0 второй байт бывает только A0–BF",
    ),
    Mistake(
        "nb04_stream_one_decoder_for_all_calls",
        NB04,
        "decode_stream",
        edited(
            NB04,
            "decode_stream",
            (
                "def decode_stream(ids, merges):",
                "import codecs\n"
                'decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")\n'
                "def decode_stream(ids, merges):",
            ),
            (
                '    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")\n',
                "",
            ),
        ),
        "test_decode_stream_hidden",
        "по одному на вызов",
    ),
    Mistake(
        "nb04_stream_drops_tail_named_in_hidden",
        NB04,
        "decode_stream",
        STREAM_DROPS_TAIL,
        "test_decode_stream_hidden",
        "недописанный символ в конце не выдан",
    ),
    Mistake(
        "nb04_stream_lead_length_from_leading_ones",
        NB04,
        "decode_stream",
        edit(
            STREAM_HAND_BUFFER_WAITS_ONE_BYTE_MORE,
            (
                ("        if 0xC2 <= lead <= 0xDF:", "        return 1"),
                "        n = 0\n"
                "        while n < 8 and lead & (0x80 >> n):\n"
                "            n += 1\n"
                "        return max(n, 1)",
            ),
            (
                "= length(buffer[k]):      # <= : a finished character waits too",
                " length(buffer[k]):",
            ),
        ),
        "test_decode_stream_hidden",
        "никогда не начинают символ",
    ),
    # issue 26: a 4-byte character was blamed on «символ разрезан…, но он не битый»
    Mistake(
        "nb04_stream_hand_buffer_four_byte_lead_as_three",
        NB04,
        "decode_stream",
        edit(HAND_BUFFER, ("0xEF:", "0xF4:   # F0-F4 read as 3 bytes too")),
        "test_decode_stream_hidden",
        "F0–F4 — из четырёх",
    ),
    # ---------------------------------------------------------------- bytes_to_unicode
    Mistake(
        "nb04_b2u_shift_off_by_one",
        NB04,
        "bytes_to_unicode",
        edited(
            NB04,
            "bytes_to_unicode",
            (
                (
                    '    keep = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))',
                    "    shift = 256",
                ),
                "    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))\n"
                "    mapping = {b: chr(b) for b in keep}\n"
                "    n = 0",
            ),
            (
                "            mapping[b] = chr(shift)\n            shift += 1",
                "            n += 1                                     # counted before use: starts at 257\n"
                "            mapping[b] = chr(256 + n)",
            ),
        ),
        "test_bytes_to_unicode",
        "начиная ровно с 256",
    ),
    Mistake(
        "nb04_b2u_shift_by_byte_value",
        NB04,
        "bytes_to_unicode",
        """
def bytes_to_unicode():
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    return {b: chr(b) if b in keep else chr(256 + b) for b in range(256)}""",
        "test_bytes_to_unicode",
        "по возрастанию байта",
    ),
    Mistake(
        "nb04_b2u_keeps_soft_hyphen",
        NB04,
        "bytes_to_unicode",
        B2U_KEEPS_SOFT_HYPHEN,
        "test_bytes_to_unicode",
        "0xAD",
    ),
    Mistake(
        "nb04_b2u_shift_starts_at_zero",
        NB04,
        "bytes_to_unicode",
        edit(
            B2U_KEEPS_SOFT_HYPHEN,
            (
                'rd("ÿ") +',
                'rd("¬") + 1)) + list(range(ord("®"), ord("ÿ") +',
            ),
            (
                "256 + n)",
                "n)                        # the shift starts at 0, not at 256",
            ),
        ),
        "test_bytes_to_unicode",
        "непечатные",
    ),
    Mistake(
        "nb04_b2u_range_end_excluded",
        NB04,
        "bytes_to_unicode",
        edit(
            B2U_KEEPS_SOFT_HYPHEN,
            (
                ' + 1)) + list(range(ord("¡"), ord("ÿ") + 1',
                ')) + list(range(ord("¡"), ord("¬"))) + list(range(ord("®"), ord("ÿ")',
            ),
        ),
        "test_bytes_to_unicode",
        "концы включаются",
    ),
    Mistake(
        "nb04_b2u_last_range_short",
        NB04,
        "bytes_to_unicode",
        edit(B2U_KEEPS_SOFT_HYPHEN, ('ÿ") + 1', '¬") + 1)) + list(range(ord("®"), 255')),
        "test_bytes_to_unicode_hidden",
        "концы включаются",
    ),
    Mistake(
        "nb04_b2u_isprintable_keeps_space",
        NB04,
        "bytes_to_unicode",
        B2U_ISPRINTABLE_KEEPS_SPACE,
        "test_bytes_to_unicode",
        "пробельные",
    ),
    Mistake(
        "nb04_b2u_inverted",
        NB04,
        "bytes_to_unicode",
        B2U_INVERTED,
        "test_bytes_to_unicode",
        "ключи",
    ),
    Mistake(
        "nb04_b2u_code_points",
        NB04,
        "bytes_to_unicode",
        edit(
            B2U_INVERTED,
            (
                "chr(b): b for b in keep}, 0",
                "b: b for b in keep}, 0           # numbers of characters, not characters",
            ),
            (
                "chr(256 + n)] = b              # character → byte: the wrong direction",
                "b] = 256 + n",
            ),
        ),
        "test_bytes_to_unicode",
        "одним символом",
    ),
    # ---------------------------------------------------------------- quiz
    Mistake(
        "nb04_quiz_continuation_bytes_start",
        NB04,
        "quiz_answers",
        'ANSWER_1 = {0x41, 0x82, 0xBE, 0xD0, 0xE2, 0xF0}\nANSWER_2 = 7\nANSWER_3 = "ĉ"',
        "test_quiz_1",
        "продолжения",
    ),
    Mistake(
        "nb04_quiz_answer_as_list",
        NB04,
        "quiz_answers",
        'ANSWER_1 = [0x41, 0xD0, 0xE2, 0xF0]\nANSWER_2 = 7\nANSWER_3 = "ĉ"',
        "test_quiz_1",
        "множеством",
    ),
    Mistake(
        "nb04_quiz_rouble_counted_in_characters",
        NB04,
        "quiz_answers",
        'ANSWER_1 = {0x41, 0xD0, 0xE2, 0xF0}\nANSWER_2 = 3\nANSWER_3 = "ĉ"',
        "test_quiz_2",
        "длины в байтах",
    ),
    Mistake(
        "nb04_quiz_rouble_before_last_byte",
        NB04,
        "quiz_answers",
        'ANSWER_1 = {0x41, 0xD0, 0xE2, 0xF0}\nANSWER_2 = 5\nANSWER_3 = "ĉ"',
        "test_quiz_2",
        "последний байт",
    ),
    Mistake(
        "nb04_quiz_tab_shifted_by_value_plus_one",
        NB04,
        "quiz_answers",
        "ANSWER_1 = {0x41, 0xD0, 0xE2, 0xF0}\nANSWER_2 = 7\nANSWER_3 = chr(256 + 10)",
        "test_quiz_3",
        "с какого номера начинается их счёт",
    ),
    Mistake(
        "nb04_quiz_tab_stays_itself",
        NB04,
        "quiz_answers",
        'ANSWER_1 = {0x41, 0xD0, 0xE2, 0xF0}\nANSWER_2 = 7\nANSWER_3 = "\\t"',
        "test_quiz_3",
        "сколько таких же невидимых байтов",
    ),
]

ALTERNATIVES = [
    Alternative(
        "nb04_decode_bytearray_sorted_by_id",
        NB04,
        "decode",
        """
def decode(ids, merges):
    vocab = {}
    for i in range(256):
        vocab[i] = bytes([i])
    for (a, b), new_id in sorted(merges.items(), key=lambda item: item[1]):   # by id = training order
        vocab[new_id] = vocab[a] + vocab[b]
    data = bytearray()
    for i in ids:
        data += vocab[i]
    return bytes(data).decode("utf-8", errors="replace")""",
    ),
    Alternative(
        "nb04_decode_recursive_expansion",
        NB04,
        "decode",
        """
def decode(ids, merges):
    parts = {new_id: pair for pair, new_id in merges.items()}
    def expand(i):
        if i < 256:
            return bytes([i])
        a, b = parts[i]
        return expand(a) + expand(b)
    return b"".join(expand(i) for i in ids).decode("utf-8", errors="replace")""",
    ),
    Alternative(
        "nb04_stream_hand_written_buffer",
        NB04,
        "decode_stream",
        HAND_BUFFER,
    ),
    Alternative(
        "nb04_stream_yields_empty_strings",
        NB04,
        "decode_stream",
        edit(
            STREAM_DROPS_TAIL,
            (
                ('    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")', "            yield text"),
                '    decoder = codecs.getincrementaldecoder("utf-8")("replace")\n'
                "    for i in ids:\n"
                "        yield decoder.decode(vocab[i])\n"
                '    yield decoder.decode(b"", True)',
            ),
        ),
    ),
    Alternative(
        "nb04_b2u_printable_in_byte_order",
        NB04,
        "bytes_to_unicode",
        """
def bytes_to_unicode():
    result, n = {}, 0
    for b in range(256):
        if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF:
            result[b] = chr(b)
        else:
            result[b] = chr(0x100 + n)
            n += 1
    return result""",
    ),
    Alternative(
        "nb04_b2u_gpt2_style_lists",
        NB04,
        "bytes_to_unicode",
        """
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2 ** 8):
        if b not in bs:
            bs.append(b)
            cs.append(2 ** 8 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))""",
    ),
    Alternative(
        "nb04_decode_latin1_string_trick",
        NB04,
        "decode",
        """
def decode(ids, merges):
    pieces = {i: chr(i) for i in range(256)}            # one character per byte (Latin-1)
    for (a, b), new_id in merges.items():
        pieces[new_id] = pieces[a] + pieces[b]
    return "".join(pieces[i] for i in ids).encode("latin-1").decode("utf-8", errors="replace")""",
    ),
    Alternative(
        "nb04_stream_pieces_per_character",
        NB04,
        "decode_stream",
        edit(
            STREAM_YIELDS_WHOLE_SCREEN,
            (
                ('    screen = ""', "        yield screen + tail"),
                "    for i in ids:\n"
                "        for ch in decoder.decode(vocab[i]):        # the same text, one character at a time\n"
                "            yield ch\n"
                '    yield from decoder.decode(b"", final=True)',
            ),
        ),
    ),
    Alternative(
        "nb04_b2u_printable_not_space",
        NB04,
        "bytes_to_unicode",
        edit(
            B2U_ISPRINTABLE_KEEPS_SPACE,
            (
                ':                   # the space is "printable" too',
                " and not chr(b).isspace():",
            ),
        ),
    ),
]
