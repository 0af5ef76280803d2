"""The step-by-step pictures of bpe_course.display: they draw the states they are given (the
notebook computes them with the student's functions), mark what each step made, flag a step that
broke the merge order, escape every token and caption in HTML, and are plain text outside Jupyter."""

import re

import pytest

from bpe_course.display import StepPicture, encoding_steps, show_tokens, training_steps

BYTES = {i: bytes([i]) for i in range(256)}


def vocab_of(merges):
    vocab = dict(BYTES)
    for (a, b), new in merges.items():
        vocab[new] = vocab[a] + vocab[b]
    return vocab


def merged(tokens, pair, new):
    out, k = [], 0
    while k < len(tokens):
        if tuple(tokens[k : k + 2]) == pair:
            out.append(new)
            k += 2
        else:
            out.append(tokens[k])
            k += 1
    return out


def pairs(tokens, weight=1, into=None):
    into = {} if into is None else into
    for p in zip(tokens, tokens[1:]):
        into[p] = into.get(p, 0) + weight
    return into


def corpus_states(word_freqs, merges):
    states = [{tuple(w): f for w, f in word_freqs.items()}]
    for pair, new in merges.items():
        states.append({tuple(merged(list(w), pair, new)): f for w, f in states[-1].items()})
    return states


def corpus_counts(corpus):
    counts = {}
    for word, freq in corpus.items():
        pairs(list(word), freq, counts)
    return counts


def encode_states(ids, merges):
    """The states of encoding by merge order, and the ids merged at each step."""
    states, fired = [list(ids)], []
    while True:
        present = [merges[p] for p in zip(states[-1], states[-1][1:]) if p in merges]
        if not present:
            return states, fired
        new = min(present)
        pair = next(p for p, n in merges.items() if n == new)
        fired.append(new)
        states.append(merged(states[-1], pair, new))


THE_THIN = {(101, 32): 256, (116, 104): 257, (32, 116): 258, (258, 104): 259, (104, 256): 260}


def test_encoding_picture_shows_candidates_the_merged_pair_and_the_result():
    states, fired = encode_states(b"in the thin", THE_THIN)
    picture = encoding_steps(states, fired, THE_THIN, vocab_of(THE_THIN))
    text = repr(picture)
    assert "шаг 1: пар из таблицы в тексте: 3; сливается e·▁ (id 256) — у неё наименьший id" in text
    assert "кандидаты: ⟦e·▁ (id 256)⟧, t·h (id 257), ▁·t (id 258)" in text
    assert "i·n·▁·t·h·⟦e·▁⟧·t·h·i·n" in text
    assert "i·n·▁·⟦t·h⟧·e▁·⟦t·h⟧·i·n" in text  # a pair merged in two places
    assert "НЕ наименьший" not in text and "выученных пар в тексте не осталось" in text
    assert picture.result == states[-1] and len(picture) == len(fired) + 1
    shown = [vocab_of(THE_THIN)[i].decode().replace(" ", "▁") for i in states[-1]]
    assert text.splitlines()[-1].strip() == "·".join(shown)


def test_encoding_picture_flags_a_step_out_of_merge_order_and_pairs_left_over():
    ids = list(b"the")
    wrong = [ids, merged(ids, (104, 101), 999)]  # a rule that is not the smallest id present
    table = {(116, 104): 257, (104, 101): 999}
    text = repr(encoding_steps(wrong, [999], table))
    assert "НЕ наименьший id среди кандидатов!" in text
    stopped = repr(encoding_steps([ids], [], table))
    assert "выученных пар в тексте ещё 2!" in stopped


def test_encoding_picture_of_text_without_learned_pairs_is_its_bytes():
    ids = list("你".encode())
    picture = encoding_steps([ids], [], THE_THIN, vocab_of(THE_THIN))
    assert picture.result == ids and len(picture) == 1
    assert "\\xe4·\\xbd·\\xa0" in repr(picture)


def test_training_picture_marks_each_new_token_and_counts_from_the_states():
    merges = {("о", "с"): "ос", ("н", "ос"): "нос"}
    states = corpus_states({"нос": 7, "носить": 7, "кот": 3}, merges)
    text = repr(training_steps(states, merges, counts=[corpus_counts(s) for s in states[:-1]]))
    assert "до обучения: 72 токена" in text and "н·о·с ×7   н·о·с·и·т·ь ×7   к·о·т ×3" in text
    assert "шаг 1: о + с → ос, пара встречалась 14 раз; теперь 58 токенов" in text
    assert "самые частые пары перед шагом: н·о 14, ⟦о·с 14⟧, с·и 7, и·т 7" in text  # ties keep the given order
    assert "н·⟦ос⟧ ×7   н·⟦ос⟧·и·т·ь ×7   к·о·т ×3" in text
    assert "⟦нос⟧ ×7   ⟦нос⟧·и·т·ь ×7   к·о·т ×3" in text


def test_training_picture_on_bytes_without_counts():
    merges = {(97, 97): 256, (256, 97): 257}
    states = [list(b"aaabdaaabac")]
    for pair, new in merges.items():
        states.append(merged(states[-1], pair, new))
    text = repr(training_steps(states, merges, vocab_of(merges)))
    assert "шаг 1: a + a → aa, пара встречалась 2 раза; теперь 9 токенов" in text
    assert "⟦aa⟧·a·b·d·⟦aa⟧·a·b·a·c" in text and "самые частые" not in text
    with pytest.raises(ValueError, match="states"):
        training_steps(states[:2], merges)


def test_bytes_that_are_not_whole_characters_are_shown_by_value():
    merges = {(208, 188): 256}
    states = [list(" мы".encode())]
    states.append(merged(states[0], (208, 188), 256))
    text = repr(training_steps(states, merges, vocab_of(merges), counts=[pairs(states[0])]))
    assert "шаг 1: \\xd0 + \\xbc → м" in text and "▁·⟦м⟧·\\xd1·\\x8b" in text
    assert "�" not in text


def test_html_escapes_tokens_titles_and_captions():
    hostile = "<script>alert(1)</script>"
    merges = {("<", "b"): "<b", ("<b", ">"): "<b>"}
    states = corpus_states({"<b>&": 2}, merges)
    ids = {"<": 0, "b": 1, ">": 2, "&": 3}
    table = {(0, 1): 4, (4, 2): 5}
    shown = {**{v: k for k, v in ids.items()}, 4: "<b", 5: "<b>"}
    enc_states, fired = encode_states([0, 1, 2, 3], table)
    for picture in (
        training_steps(states, merges, counts=[corpus_counts(s) for s in states[:-1]], title=hostile),
        encoding_steps(enc_states, fired, table, shown, title=hostile),
    ):
        page = picture._repr_html_()
        # what is left after the picture's own markup is taken out has no markup of its own
        bare = re.sub(r"</?(div|span|sub)[^>]*>|</?b>|<wbr>", "", page)
        assert "<" not in bare and ">" not in bare, bare
        assert "&lt;script&gt;" in page and "&lt;b&gt;" in page and "&amp;" in page
        # outside Jupyter the same content is plain text, unescaped and without markup
        assert "<b>" in repr(picture) and "<span" not in repr(picture) and hostile in repr(picture)
    page = show_tokens(["<i>", "&"], title=hostile)._repr_html_()
    assert "<" not in re.sub(r"</?(div|span)[^>]*>|</?b>", "", page)


def test_html_has_one_block_per_frame_and_marks_the_new_token():
    merges = {("a", "b"): "ab"}
    picture = training_steps(corpus_states({"ab": 3}, merges), merges)
    assert isinstance(picture, StepPicture)
    page = picture._repr_html_()
    assert len(re.findall(r"border-left:3px", page)) == len(picture) == 2
    assert "font-weight:bold" in page and "×3" in page
