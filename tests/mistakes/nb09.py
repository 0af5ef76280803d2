"""Mistakes and alternative solutions for notebook 09_bpe_in_the_wild."""

from . import Alternative, Mistake

NB09 = "09_bpe_in_the_wild"

_TABLE = """    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    byte_of = {chr(b): b for b in printable}
    others = [b for b in range(256) if b not in byte_of.values()]
    byte_of.update({chr(256 + k): b for k, b in enumerate(others)})
"""

MISTAKES = [
    # ---------------------------------------------------------------- load_hf_vocab
    Mistake(
        "nb09_load_keeps_specials",
        NB09,
        "load_hf_vocab",
        """
def load_hf_vocab(text):
    data = json.loads(text)
"""
        + _TABLE
        + """    return {bytes(byte_of[ch] for ch in token): token_id             # added_tokens are not skipped
            for token, token_id in data["model"]["vocab"].items() if all(ch in byte_of for ch in token)}""",
        "test_load_hf_vocab",
        "спецтокены из added_tokens в словарь не входят",
    ),
    Mistake(
        "nb09_load_utf8",
        NB09,
        "load_hf_vocab",
        """
def load_hf_vocab(text):
    data = json.loads(text)
    special = {token["content"] for token in data["added_tokens"]}
    return {token.encode("utf-8"): token_id                          # 'Ġa' is not b'\\xc4\\xa0a'
            for token, token_id in data["model"]["vocab"].items() if token not in special}""",
        "test_load_hf_vocab",
        "строку токена не кодируйте в UTF-8",
    ),
    Mistake(
        "nb09_load_str_keys",
        NB09,
        "load_hf_vocab",
        """
def load_hf_vocab(text):
    data = json.loads(text)
"""
        + _TABLE
        + """    special = {token["content"] for token in data["added_tokens"]}
    return {bytes(byte_of[ch] for ch in token).decode("utf-8", "replace"): token_id     # text, not bytes
            for token, token_id in data["model"]["vocab"].items() if token not in special}""",
        "test_load_hf_vocab",
        "ключи словаря — bytes",
    ),
    Mistake(
        "nb09_load_shift_by_byte",
        NB09,
        "load_hf_vocab",
        """
def load_hf_vocab(text):
    data = json.loads(text)
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    byte_of = {chr(b): b for b in printable}
    byte_of.update({chr(256 + b): b for b in range(256) if b not in printable})   # 256 + byte, not a counter
    special = {token["content"] for token in data["added_tokens"]}
    return {bytes(byte_of[ch] for ch in token): token_id
            for token, token_id in data["model"]["vocab"].items() if token not in special}""",
        "test_load_hf_vocab_hidden",
        "это не chr(256 + байт)",
    ),
    Mistake(
        "nb09_load_printable_wrong_ranges",
        NB09,
        "load_hf_vocab",
        """
def load_hf_vocab(text):
    data = json.loads(text)
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("ÿ") + 1)]     # forgot that 0xAD is not printable
    byte_of = {chr(b): b for b in printable}
    others = [b for b in range(256) if b not in printable]
    byte_of.update({chr(256 + k): b for k, b in enumerate(others)})
    special = {token["content"] for token in data["added_tokens"]}
    return {bytes(byte_of[ch] for ch in token): token_id
            for token, token_id in data["model"]["vocab"].items() if token not in special}""",
        "test_load_hf_vocab_hidden",
        "счётчик растёт только на них",
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
        """
def vocab_diff(base, other):
    return len(set(base) - set(other)), len(set(other) - set(base))            # counts instead of the sets""",
        "test_vocab_diff",
        "множества (set) байтов токенов",
    ),
    Mistake(
        "nb09_diff_swapped",
        NB09,
        "vocab_diff",
        """
def vocab_diff(base, other):
    return set(other) - set(base), set(base) - set(other)                      # the other way round""",
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
        """
def shared_prefix(a, b):
    token_a = {i: t for t, i in a.items()}
    token_b = {i: t for t, i in b.items()}
    n = 0
    while n + 1 in token_a and n + 1 in token_b and token_a[n + 1] == token_b[n + 1]:
        n += 1
    return n                                                                     # the last id, not how many""",
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
        """
def pretokenize_sequence(text, patterns):
    pieces = [text] if text else []
    for pattern in patterns:
        pieces = [part for piece in pieces for part in regex.findall(pattern, piece)]   # the gaps are lost
    return pieces""",
        "test_pretokenize_sequence",
        "куски между совпадениями тоже остаются",
    ),
    Mistake(
        "nb09_sequence_joined",
        NB09,
        "pretokenize_sequence",
        """
def pretokenize_sequence(text, patterns):
    pieces = [text] if text else []
    for pattern in patterns:
        joined, pieces, start = "".join(pieces), [], 0                          # earlier borders are forgotten
        for match in regex.finditer(pattern, joined):
            if match.start() > start:
                pieces.append(joined[start:match.start()])
            pieces.append(match.group())
            start = match.end()
        if start < len(joined):
            pieces.append(joined[start:])
    return pieces""",
        "test_pretokenize_sequence",
        "границы, проведённые раньше, не исчезают",
    ),
    Mistake(
        "nb09_sequence_split_keeps_empty",
        NB09,
        "pretokenize_sequence",
        """
def pretokenize_sequence(text, patterns):
    pieces = [text]
    for pattern in patterns:
        pieces = [part for piece in pieces for part in regex.split(f"({pattern})", piece)]   # '' between matches
    return pieces""",
        "test_pretokenize_sequence",
        "пустые строки — нет",
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
        """
def pretokenize_sequence(text, patterns):
    pieces = [text]
    for pattern in patterns:
        pieces = [part for piece in pieces for part in regex.split(f"({pattern})", piece) if part]
    return [piece for piece in pieces if piece]""",
    ),
]
