"""The step-by-step pictures of bpe_course.display: what they show is what BPE does, their HTML
escapes every token and caption, and outside Jupyter they are plain text with the same content."""

import re

from bpe_course.display import StepPicture, encoding_steps, show_tokens, training_steps

BYTES = {i: bytes([i]) for i in range(256)}


def vocab_of(merges):
    vocab = dict(BYTES)
    for (a, b), new in merges.items():
        vocab[new] = vocab[a] + vocab[b]
    return vocab


def reference_encode(ids, merges):
    while len(ids) >= 2:
        pairs = [p for p in zip(ids, ids[1:]) if p in merges]
        if not pairs:
            break
        pair = min(pairs, key=merges.get)
        out, i = [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                out.append(merges[pair])
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids


THE_THIN = {(101, 32): 256, (116, 104): 257, (32, 116): 258, (258, 104): 259, (104, 256): 260}


def test_encoding_picture_follows_merge_order_and_names_each_winner():
    picture = encoding_steps(list(b"in the thin"), THE_THIN, vocab_of(THE_THIN))
    assert picture.result == reference_encode(list(b"in the thin"), THE_THIN)
    text = repr(picture)
    # step 1: three learned pairs are in the text, e+space (id 256) wins and is merged in place
    assert "шаг 1: пар из таблицы в тексте: 3; побеждает e·▁ (id 256)" in text
    assert "i·n·▁·t·h·⟦e·▁⟧·t·h·i·n" in text
    assert "кандидаты: ⟦e·▁ (id 256)⟧, t·h (id 257), ▁·t (id 258)" in text
    # every step but the last is a merge; the last frame is the result
    assert len(picture) == text.count("шаг ") + 1
    assert text.splitlines()[-1].strip() == "·".join(
        vocab_of(THE_THIN)[i].decode().replace(" ", "▁") for i in picture.result
    )


def test_encoding_picture_ranks_by_id_not_by_key_order():
    shuffled = dict(reversed(list(THE_THIN.items())))
    assert encoding_steps(list(b"the thin"), shuffled).result == reference_encode(list(b"the thin"), THE_THIN)


def test_encoding_picture_of_text_without_learned_pairs_is_the_bytes():
    picture = encoding_steps(list("你".encode()), THE_THIN, vocab_of(THE_THIN))
    assert picture.result == list("你".encode()) and len(picture) == 1
    assert encoding_steps([], THE_THIN).result == [] and encoding_steps([97], THE_THIN).result == [97]


def test_training_picture_shows_each_merge_on_the_corpus_with_its_frequency():
    corpus = {"нос": 7, "носить": 7, "кот": 3}
    picture = training_steps(corpus, {("о", "с"): "ос", ("н", "ос"): "нос"})
    text = repr(picture)
    assert "до обучения: 72 токена" in text and "н·о·с ×7   н·о·с·и·т·ь ×7   к·о·т ×3" in text
    assert "шаг 1: о + с → ос, пара встречалась 14 раз; теперь 58 токенов" in text
    assert "н·⟦ос⟧ ×7   н·⟦ос⟧·и·т·ь ×7" in text
    assert "⟦нос⟧ ×7   ⟦нос⟧·и·т·ь ×7   к·о·т ×3" in text
    assert picture.result == [["нос"], ["нос", "и", "т", "ь"], ["к", "о", "т"]]


def test_training_picture_on_bytes_counts_without_overlaps():
    merges = {(97, 97): 256, (256, 97): 257}
    picture = training_steps(list(b"aaabdaaabac"), merges, vocab_of(merges))
    text = repr(picture)
    assert "шаг 1: a + a → aa, пара встречалась 2 раза; теперь 9 токенов" in text
    assert "⟦aa⟧·a·b·d·⟦aa⟧·a·b·a·c" in text
    assert picture.result == [[257, 98, 100, 257, 98, 97, 99]]
    assert "… и ещё шагов: 1" in repr(training_steps(list(b"aaab"), merges, vocab_of(merges), max_steps=1))


def test_html_escapes_tokens_titles_and_captions():
    hostile = "<script>alert(1)</script>"
    merges = {("<", "b"): "<b", ("<b", ">"): "<b>"}
    for picture in (
        training_steps({"<b>&": 2}, merges, title=hostile),
        encoding_steps(list("<b>&"), merges, title=hostile),
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
    picture = training_steps({"ab": 3}, {("a", "b"): "ab"})
    assert isinstance(picture, StepPicture)
    page = picture._repr_html_()
    assert len(re.findall(r"border-left:3px", page)) == len(picture) == 2
    assert "font-weight:bold" in page and "×3" in page


def test_bytes_that_are_not_whole_characters_are_shown_by_value():
    merges = {(208, 188): 256, (32, 256): 257, (32, 208): 258}  # the last pair is gone by then
    vocab = vocab_of(merges)
    text = repr(training_steps(list(" мы".encode()), merges, vocab))
    assert "шаг 1: \\xd0 + \\xbc → м" in text and "▁·⟦м⟧·\\xd1·\\x8b" in text
    assert "шаг 3: ▁ + \\xd0 → ▁\\xd0, пара встречалась 0 раз" in text
    assert "�" not in text
