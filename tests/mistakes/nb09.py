"""Mistakes and alternative solutions for notebook 09_bpe_in_the_wild."""

import functools

from . import Alternative, Mistake, edited

NB09 = "09_bpe_in_the_wild"

_SPECIAL = 'special = {token["content"] for token in data.get("added_tokens", [])}'
_KEPT = "if token not in special}"
_BYTES = "bytes(byte_of[ch] for ch in token)"
_OTHERS = """    others = [b for b in range(256) if b not in byte_of.values()]
    byte_of.update({chr(256 + k): b for k, b in enumerate(others)})
"""


# the reference answer of a cell with edits (old, new) made, each standing once (see `edited`)
_load = functools.partial(edited, NB09, "load_hf_vocab")
_diff = functools.partial(edited, NB09, "vocab_diff")
_prefix = functools.partial(edited, NB09, "shared_prefix")
_sequence = functools.partial(edited, NB09, "pretokenize_sequence")

# pretokenize_sequence: the solution's loop over the pieces for one pattern, from its first line to its last
_LOOP = ("        parts = []\n", "        pieces = parts")
_NONE_IF_EMPTY = "pieces = [text] if text else []"
_SPLIT = 'pieces = [part for piece in pieces for part in regex.split(f"({pattern})", piece)]'


MISTAKES = [
    # ---------------------------------------------------------------- load_hf_vocab
    Mistake(
        "nb09_load_keeps_specials",
        NB09,
        "load_hf_vocab",
        _load((_KEPT, "}  # added_tokens are not skipped")),
        "test_load_hf_vocab",
        "спецтокены из added_tokens в словарь не входят",
    ),
    Mistake(
        "nb09_load_utf8",
        NB09,
        "load_hf_vocab",
        _load((_BYTES, 'token.encode("utf-8")')),  # 'Ġa' is not b'\xc4\xa0a'
        "test_load_hf_vocab",
        "строку токена не кодируйте в UTF-8",
    ),
    Mistake(
        "nb09_load_str_keys",
        NB09,
        "load_hf_vocab",
        _load((_BYTES, _BYTES + '.decode("utf-8", "replace")')),  # text, not bytes
        "test_load_hf_vocab",
        "ключи словаря — bytes",
    ),
    Mistake(
        "nb09_load_shift_by_byte",
        NB09,
        "load_hf_vocab",
        _load(
            (_OTHERS, "    byte_of.update({chr(256 + b): b for b in range(256) if b not in printable})  # 256 + byte\n")
        ),
        "test_load_hf_vocab_hidden",
        "это не chr(256 + байт)",
    ),
    Mistake(
        "nb09_load_printable_wrong_ranges",
        NB09,
        "load_hf_vocab",
        _load(('*range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)', '*range(ord("¡"), ord("ÿ") + 1)')),
        "test_load_hf_vocab_hidden",  # forgot that 0xAD is not printable
        "счётчик растёт только на них",
    ),
    Mistake(
        "nb09_load_drops_angle_brackets",
        NB09,
        "load_hf_vocab",
        _load((_KEPT, 'if not (token.startswith("<") and token.endswith(">"))}')),  # by the look of it
        "test_load_hf_vocab",
        "по списку added_tokens, а не по угловым скобкам",
    ),
    Mistake(
        "nb09_load_drops_starting_angle",
        NB09,
        "load_hf_vocab",
        _load((_KEPT, 'if not token.startswith("<")}')),  # drops '<div', '<>' too
        "test_load_hf_vocab",
        "по списку added_tokens, а не по угловым скобкам",
    ),
    Mistake(
        "nb09_load_keeps_nonspecial_added",
        NB09,
        "load_hf_vocab",
        _load((_SPECIAL, _SPECIAL[:-1] + ' if token.get("special", True)}')),  # '<think>' stays
        "test_load_hf_vocab",
        "пропускаются все записи",
    ),
    Mistake(
        "nb09_load_skips_by_id",
        NB09,
        "load_hf_vocab",
        _load((_SPECIAL, _SPECIAL.replace('token["content"]', 'token["id"]')), (_KEPT, "if token_id not in special}")),
        "test_load_hf_vocab_hidden",
        "а не по id",
    ),
    # ---------------------------------------------------------------- vocab_diff
    Mistake(
        "nb09_diff_pairs",
        NB09,
        "vocab_diff",
        """
def vocab_diff(base, other):
    dropped = {token for token, token_id in base.items() if other.get(token) != token_id}   # compares ids too
    added = {token for token, token_id in other.items() if base.get(token) != token_id}
    return dropped, added""",
        "test_vocab_diff",
        "id при сравнении не важны",
    ),
    Mistake(
        "nb09_diff_ids",
        NB09,
        "vocab_diff",
        """
def vocab_diff(base, other):
    by_id = {token_id: token for token, token_id in {**base, **other}.items()}
    return ({by_id[i] for i in set(base.values()) - set(other.values())},        # ids, not tokens
            {by_id[i] for i in set(other.values()) - set(base.values())})""",
        "test_vocab_diff",
        "id при сравнении не важны",
    ),
    Mistake(
        "nb09_diff_counts",
        NB09,
        "vocab_diff",
        _diff(
            (
                "return set(base) - set(other), set(other) - set(base)",
                "return len(set(base) - set(other)), len(set(other) - set(base))  # counts instead of the sets",
            )
        ),
        "test_vocab_diff",
        "множества (set) байтов токенов",
    ),
    Mistake(
        "nb09_diff_swapped",
        NB09,
        "vocab_diff",
        _diff(
            (
                "return set(base) - set(other), set(other) - set(base)",
                "return set(other) - set(base), set(base) - set(other)  # the other way round",
            )
        ),
        "test_vocab_diff",
        "первое — что есть только в base",
    ),
    Mistake(
        "nb09_diff_decoded",
        NB09,
        "vocab_diff",
        """
def vocab_diff(base, other):
    text_base = {token.decode("utf-8", "replace"): token for token in base}      # broken bytes all become '�'
    text_other = {token.decode("utf-8", "replace"): token for token in other}
    return ({text_base[t] for t in set(text_base) - set(text_other)},
            {text_other[t] for t in set(text_other) - set(text_base)})""",
        "test_vocab_diff_hidden",
        "не расшифровывая в текст",
    ),
    # ---------------------------------------------------------------- shared_prefix
    Mistake(
        "nb09_prefix_all_same_ids",
        NB09,
        "shared_prefix",
        """
def shared_prefix(a, b):
    return sum(b.get(token) == token_id for token, token_id in a.items())       # every shared id, not the start""",
        "test_shared_prefix",
        "совпадения не считаются",
    ),
    Mistake(
        "nb09_prefix_last_id",
        NB09,
        "shared_prefix",
        _prefix(
            ("{token_id: token for token, token_id in a.items()}", "{i: t for t, i in a.items()}"),
            ("{token_id: token for token, token_id in b.items()}", "{i: t for t, i in b.items()}"),
            (
                "while n in token_a and n in token_b and token_a[n] == token_b[n]:",
                "while n + 1 in token_a and n + 1 in token_b and token_a[n + 1] == token_b[n + 1]:",
            ),
            ("    return n", "    return n  # the last id, not how many"),
        ),
        "test_shared_prefix",
        "ответ — их количество",
    ),
    Mistake(
        "nb09_prefix_zip_sorted",
        NB09,
        "shared_prefix",
        """
def shared_prefix(a, b):
    n = 0
    for x, y in zip(sorted(a, key=a.get), sorted(b, key=b.get)):                 # neighbours, not equal ids
        if x != y:
            break
        n += 1
    return n""",
        "test_shared_prefix",
        "id могут идти с пропусками",
    ),
    Mistake(
        "nb09_prefix_dict_order",
        NB09,
        "shared_prefix",
        """
def shared_prefix(a, b):
    n = 0
    for token, token_id in a.items():                                            # insertion order, not id order
        if b.get(token) != token_id:
            break
        n += 1
    return n""",
        "test_shared_prefix",
        "порядок ключей словаря — не порядок id",
    ),
    # ---------------------------------------------------------------- pretokenize_sequence
    Mistake(
        "nb09_sequence_findall",
        NB09,
        "pretokenize_sequence",
        _sequence(
            (
                _LOOP,
                "        pieces = [part for piece in pieces for part in regex.findall(pattern, piece)]   # the gaps are lost",
            )
        ),
        "test_pretokenize_sequence",
        "куски между совпадениями тоже остаются",
    ),
    Mistake(
        "nb09_sequence_joined",
        NB09,
        "pretokenize_sequence",
        _sequence(
            (
                _LOOP,
                '        joined, pieces, start = "".join(pieces), [], 0                          # earlier borders are forgotten\n'
                "        for match in regex.finditer(pattern, joined):\n"
                "            if match.start() > start:\n"
                "                pieces.append(joined[start:match.start()])\n"
                "            pieces.append(match.group())\n"
                "            start = match.end()\n"
                "        if start < len(joined):\n"
                "            pieces.append(joined[start:])",
            )
        ),
        "test_pretokenize_sequence",
        "границы, проведённые раньше, не исчезают",
    ),
    Mistake(
        "nb09_sequence_split_keeps_empty",
        NB09,
        "pretokenize_sequence",
        _sequence(
            (_NONE_IF_EMPTY, "pieces = [text]"),
            (_LOOP, "        " + _SPLIT + "   # '' between matches"),
        ),
        "test_pretokenize_sequence",
        "пустые строки — нет",
    ),
    Mistake(
        "nb09_prefix_stops_before_last",
        NB09,
        "shared_prefix",
        _prefix(
            (
                "while n in token_a and n in token_b and token_a[n] == token_b[n]:",
                "while n < min(len(a), len(b)) - 1 and token_a.get(n) == token_b.get(n):",
            )  # one short
        ),
        "test_shared_prefix",
        "посчитайте и последний id",
    ),
    Mistake(
        "nb09_sequence_last_to_first",
        NB09,
        "pretokenize_sequence",
        _sequence(("for pattern in patterns:", "for pattern in reversed(patterns):")),
        "test_pretokenize_sequence",
        "по порядку списка",
    ),
    Mistake(
        "nb09_sequence_keeps_empty_matches",
        NB09,
        "pretokenize_sequence",
        _sequence(
            (
                "                if match.group():\n                    parts.append(match.group())",
                "                parts.append(match.group())",
            )
        ),
        "test_pretokenize_sequence",
        "пустое совпадение куском не становится",
    ),
    Mistake(
        "nb09_sequence_empty_text_one_piece",
        NB09,
        "pretokenize_sequence",
        _sequence((_NONE_IF_EMPTY, "pieces = [text]")),
        "test_pretokenize_sequence",
        "пустой список, а не ['']",
    ),
    Mistake(
        "nb09_sequence_ignore_case",
        NB09,
        "pretokenize_sequence",
        _sequence(("regex.finditer(pattern, piece)", "regex.finditer(pattern, piece, regex.IGNORECASE)")),
        "test_pretokenize_sequence",
        "без флагов",
    ),
]

ALTERNATIVES = [
    Alternative(
        "nb09_load_two_tables",
        NB09,
        "load_hf_vocab",
        """
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))

def load_hf_vocab(text):
    data = json.loads(text)
    byte_decoder = {ch: b for b, ch in bytes_to_unicode().items()}
    vocab = {}
    for token, token_id in data["model"]["vocab"].items():
        if any(token == added["content"] for added in data["added_tokens"]):
            continue
        vocab[bytes(bytearray(byte_decoder[ch] for ch in token))] = token_id
    return vocab""",
    ),
    Alternative(
        "nb09_diff_comprehensions",
        NB09,
        "vocab_diff",
        """
def vocab_diff(base, other):
    dropped = {token for token in base if token not in other}
    added = {token for token in other if token not in base}
    return dropped, added""",
    ),
    Alternative(
        "nb09_prefix_range",
        NB09,
        "shared_prefix",
        """
def shared_prefix(a, b):
    token_a = {i: t for t, i in a.items()}
    token_b = {i: t for t, i in b.items()}
    for n in range(len(token_a) + 1):
        if n not in token_a or token_a.get(n) != token_b.get(n):
            return n""",
    ),
    Alternative(
        "nb09_sequence_split_filtered",
        NB09,
        "pretokenize_sequence",
        _sequence(
            (_NONE_IF_EMPTY, "pieces = [text]"),
            (_LOOP, "        " + _SPLIT[:-1] + " if part]"),
            ("    return pieces", "    return [piece for piece in pieces if piece]"),
        ),
    ),
]
