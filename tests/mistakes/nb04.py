"""Mistakes and alternative solutions for notebook 04_decode_utf8."""
from . import Alternative, Mistake

NB04 = "04_decode_utf8"

MISTAKES = [
    # ---------------------------------------------------------------- decode
    Mistake("nb04_decode_each_token_replace", NB04, "decode", '''
def decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)''',
            "test_decode", "сначала склеить"),
    Mistake("nb04_decode_each_token_strict", NB04, "decode", '''
def decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    return "".join(vocab[i].decode("utf-8") for i in ids)''',
            "test_decode", "UnicodeDecodeError"),
    Mistake("nb04_decode_without_replace", NB04, "decode", '''
def decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    return b"".join(vocab[i] for i in ids).decode("utf-8")''',
            "test_decode", 'errors="replace"'),
    Mistake("nb04_decode_table_sorted_by_pair", NB04, "decode", '''
def decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in sorted(merges.items()):      # sorted by pair, not training order
        vocab[new_id] = vocab[a] + vocab[b]
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")''',
            "test_decode", "порядке обучения"),
    Mistake("nb04_decode_table_newest_first", NB04, "decode", '''
def decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in reversed(list(merges.items())):   # new ids before their parts
        vocab[new_id] = vocab.get(a, b"") + vocab.get(b, b"")
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")''',
            "test_decode", "порядке обучения"),
    Mistake("nb04_decode_parts_as_bytes", NB04, "decode", '''
def decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = bytes([a, b])                  # parts may be new tokens themselves
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")''',
            "test_decode", "часть может и сама быть новым токеном"),
    Mistake("nb04_decode_strips_text", NB04, "decode", '''
def decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace").strip()''',
            "test_decode_hidden", "ни чистить, ни обрезать"),
    # ---------------------------------------------------------------- decode_stream
    Mistake("nb04_stream_replace_per_token", NB04, "decode_stream", '''
def decode_stream(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    for i in ids:
        yield vocab[i].decode("utf-8", errors="replace")''',
            "test_decode_stream", "не выдавайте вместо него �"),
    Mistake("nb04_stream_drops_tail", NB04, "decode_stream", '''
import codecs
def decode_stream(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for i in ids:
        text = decoder.decode(vocab[i])
        if text:
            yield text                                 # no final flush''',
            "test_decode_stream", "final=True"),
    Mistake("nb04_stream_strict_waits_forever", NB04, "decode_stream", '''
def decode_stream(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    buffer = b""
    for i in ids:
        buffer += vocab[i]
        try:
            text = buffer.decode("utf-8")
        except UnicodeDecodeError:
            continue                                   # wait for more bytes ... forever
        buffer = b""
        yield text''',
            "test_decode_stream", "битые байты по-прежнему становятся �"),
    Mistake("nb04_stream_all_at_the_end", NB04, "decode_stream", '''
def decode_stream(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    yield b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")''',
            "test_decode_stream", "сразу"),
    Mistake("nb04_stream_returns_string", NB04, "decode_stream", '''
def decode_stream(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")''',
            "test_decode_stream", "генератором"),
    # ---------------------------------------------------------------- bytes_to_unicode
    Mistake("nb04_b2u_shift_off_by_one", NB04, "bytes_to_unicode", '''
def bytes_to_unicode():
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    mapping = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in mapping:
            n += 1                                     # counted before use: starts at 257
            mapping[b] = chr(256 + n)
    return mapping''',
            "test_bytes_to_unicode", "начиная ровно с 256"),
    Mistake("nb04_b2u_shift_by_byte_value", NB04, "bytes_to_unicode", '''
def bytes_to_unicode():
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    return {b: chr(b) if b in keep else chr(256 + b) for b in range(256)}''',
            "test_bytes_to_unicode", "по возрастанию байта"),
    Mistake("nb04_b2u_keeps_soft_hyphen", NB04, "bytes_to_unicode", '''
def bytes_to_unicode():
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("ÿ") + 1))
    mapping = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + n)
            n += 1
    return mapping''',
            "test_bytes_to_unicode", "0xAD"),
    Mistake("nb04_b2u_shift_starts_at_zero", NB04, "bytes_to_unicode", '''
def bytes_to_unicode():
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    mapping = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(n)                        # the shift starts at 0, not at 256
            n += 1
    return mapping''',
            "test_bytes_to_unicode", "непечатные"),
    Mistake("nb04_b2u_range_end_excluded", NB04, "bytes_to_unicode", '''
def bytes_to_unicode():
    keep = list(range(ord("!"), ord("~"))) + list(range(ord("¡"), ord("¬"))) + list(range(ord("®"), ord("ÿ")))
    mapping = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + n)
            n += 1
    return mapping''',
            "test_bytes_to_unicode", "концы включаются"),
    Mistake("nb04_b2u_last_range_short", NB04, "bytes_to_unicode", '''
def bytes_to_unicode():
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 255))
    mapping = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + n)
            n += 1
    return mapping''',
            "test_bytes_to_unicode_hidden", "концы включаются"),
    # ---------------------------------------------------------------- quiz
    Mistake("nb04_quiz_g_is_newline", NB04, "quiz_answers",
            "ANSWER_1 = 0x0A\nANSWER_2 = {0x41, 0xD0, 0xE2, 0xF0}", "test_quiz_1", "ANSWER_1 неверен"),
    Mistake("nb04_quiz_g_as_string", NB04, "quiz_answers",
            'ANSWER_1 = " "\nANSWER_2 = {0x41, 0xD0, 0xE2, 0xF0}', "test_quiz_1", "целым числом"),
    Mistake("nb04_quiz_continuation_bytes_start", NB04, "quiz_answers",
            "ANSWER_1 = 0x20\nANSWER_2 = {0x41, 0x82, 0xBE, 0xD0, 0xE2, 0xF0}", "test_quiz_2", "продолжения"),
]

ALTERNATIVES = [
    Alternative("nb04_decode_bytearray_sorted_by_id", NB04, "decode", '''
def decode(ids, merges):
    vocab = {}
    for i in range(256):
        vocab[i] = bytes([i])
    for (a, b), new_id in sorted(merges.items(), key=lambda item: item[1]):   # by id = training order
        vocab[new_id] = vocab[a] + vocab[b]
    data = bytearray()
    for i in ids:
        data += vocab[i]
    return bytes(data).decode("utf-8", errors="replace")'''),
    Alternative("nb04_decode_recursive_expansion", NB04, "decode", '''
def decode(ids, merges):
    parts = {new_id: pair for pair, new_id in merges.items()}
    def expand(i):
        if i < 256:
            return bytes([i])
        a, b = parts[i]
        return expand(a) + expand(b)
    return b"".join(expand(i) for i in ids).decode("utf-8", errors="replace")'''),
    Alternative("nb04_stream_hand_written_buffer", NB04, "decode_stream", '''
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

    buffer = b""
    for i in ids:
        buffer += vocab[i]
        k = len(buffer) - 1                # the last byte that is not a continuation byte
        while k >= 0 and 0x80 <= buffer[k] <= 0xBF and len(buffer) - k < 4:
            k -= 1
        if k >= 0 and len(buffer) - k < length(buffer[k]):
            ready, buffer = buffer[:k], buffer[k:]       # keep the unfinished character
        else:
            ready, buffer = buffer, b""
        if ready:
            yield ready.decode("utf-8", errors="replace")
    if buffer:
        yield buffer.decode("utf-8", errors="replace")'''),
    Alternative("nb04_stream_yields_empty_strings", NB04, "decode_stream", '''
import codecs
def decode_stream(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    for i in ids:
        yield decoder.decode(vocab[i])
    yield decoder.decode(b"", True)'''),
    Alternative("nb04_b2u_printable_in_byte_order", NB04, "bytes_to_unicode", '''
def bytes_to_unicode():
    result, n = {}, 0
    for b in range(256):
        if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF:
            result[b] = chr(b)
        else:
            result[b] = chr(0x100 + n)
            n += 1
    return result'''),
    Alternative("nb04_b2u_gpt2_style_lists", NB04, "bytes_to_unicode", '''
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2 ** 8):
        if b not in bs:
            bs.append(b)
            cs.append(2 ** 8 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))'''),
]
