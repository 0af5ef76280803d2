"""Mistakes and alternative solutions for notebook 10_unigram_wordpiece.

WordPiece trained by frequency instead of its score, with "##" kept inside a merged part, with ties going to
the last pair, or with parts counted once per distinct word; its encoder taking the shortest piece, marking
only the piece it cannot cut as [UNK], or forgetting "##", or trying the empty piece; Viterbi as greedy longest match or as the
lowest total; pruning the tokens that lose the most, forgetting the word frequencies, ranking by use
instead of lost likelihood, or counting only the multi-character tokens towards `keep`."""

import functools

from . import Alternative, Mistake, edited

NB10 = "10_unigram_wordpiece"

_wp = functools.partial(edited, NB10, "train_wordpiece")
_wpe = functools.partial(edited, NB10, "encode_wordpiece")
_vt = functools.partial(edited, NB10, "viterbi")
_pr = functools.partial(edited, NB10, "prune")

_SCORE = "score = n / (unit_freq[a] * unit_freq[b])"
_RANGE = "for end in range(len(word), start, -1):"

# greedy longest match from the left, as WordPiece encodes (a wrong Viterbi)
GREEDY_VITERBI = """
def viterbi(word, scores):
    tokens, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            if word[start:end] in scores:
                break
        else:
            return None
        tokens.append(word[start:end])
        start = end
    return tokens
"""

MISTAKES = [
    # ---------------------------------------------------------------- train_wordpiece
    Mistake(
        "nb10_wp_by_frequency",
        NB10,
        "train_wordpiece",
        _wp((_SCORE, "score = n  # the most frequent pair, as BPE")),
        "test_train_wordpiece",
        "вы выбрали самую частую пару, как BPE",
    ),
    Mistake(
        "nb10_wp_keeps_hashes",
        NB10,
        "train_wordpiece",
        _wp(('new = best[0] + best[1].removeprefix("##")', "new = best[0] + best[1]")),
        "test_train_wordpiece",
        "у второй снимается",
    ),
    Mistake(
        "nb10_wp_last_of_ties",
        NB10,
        "train_wordpiece",
        _wp(("if best is None or score > best_score:", "if best is None or score >= best_score:")),
        "test_train_wordpiece",
        "при равной оценке выигрывает пара, встреченная первой",
    ),
    Mistake(
        "nb10_wp_unweighted",
        NB10,
        "train_wordpiece",
        _wp(
            ("unit_freq[unit] = unit_freq.get(unit, 0) + freq", "unit_freq[unit] = unit_freq.get(unit, 0) + 1"),
            ("pair_freq[pair] = pair_freq.get(pair, 0) + freq", "pair_freq[pair] = pair_freq.get(pair, 0) + 1"),
        ),
        "test_train_wordpiece",
        "частоты частей считаются с весом слова",
    ),
    Mistake(
        "nb10_wp_no_early_stop",
        NB10,
        "train_wordpiece",
        _wp(("        if not pair_freq:                      # каждое слово — одна часть\n            break\n", "")),
        "test_train_wordpiece",
        "обучение кончается раньше num_merges",
    ),
    # ---------------------------------------------------------------- encode_wordpiece
    Mistake(
        "nb10_wpe_shortest_first",
        NB10,
        "encode_wordpiece",
        _wpe((_RANGE, "for end in range(start + 1, len(word) + 1):")),
        "test_encode_wordpiece",
        "а не самый короткий",
    ),
    Mistake(
        "nb10_wpe_unk_piece",
        NB10,
        "encode_wordpiece",
        _wpe(
            (
                '            return ["[UNK]"]\n',
                '            tokens.append("[UNK]")  # only this character\n            start += 1\n            continue\n',
            )
        ),
        "test_encode_wordpiece",
        "всё оно становится одним [UNK]",
    ),
    Mistake(
        "nb10_wpe_no_hashes",
        NB10,
        "encode_wordpiece",
        _wpe(('piece = word[start:end] if start == 0 else "##" + word[start:end]', "piece = word[start:end]")),
        "test_encode_wordpiece",
        "токены с «##»",
    ),
    Mistake(
        "nb10_wpe_empty_piece",
        NB10,
        "encode_wordpiece",
        _wpe((_RANGE, "for end in range(len(word), start - 1, -1):  # down to the empty piece")),
        "test_encode_wordpiece_hidden",
        "токен не бывает пустым",
    ),
    # ---------------------------------------------------------------- viterbi
    Mistake("nb10_vt_greedy_longest", NB10, "viterbi", GREEDY_VITERBI, "test_viterbi", "это правило WordPiece"),
    Mistake(
        "nb10_vt_lowest_total",
        NB10,
        "viterbi",
        _vt(("if best[end] is None or total > best[end][0]:", "if best[end] is None or total < best[end][0]:")),
        "test_viterbi",
        "Unigram сравнивает суммы целых разбиений",
    ),
    Mistake(
        "nb10_vt_product_of_logs",
        NB10,
        "viterbi",
        _vt(
            ("best[0] = (0.0, None)", "best[0] = (1.0, None)"),
            ("total = best[start][0] + scores[token]", "total = best[start][0] * scores[token]"),
        ),
        "test_viterbi",
        "не произведение логарифмов",
    ),
    Mistake(
        "nb10_vt_first_split_only",
        NB10,
        "viterbi",
        _vt(("if best[end] is None or total > best[end][0]:", "if best[end] is None:  # the first split found")),
        "test_viterbi",
        "а не первый найденный",
    ),
    # ---------------------------------------------------------------- prune
    Mistake(
        "nb10_pr_drops_highest",
        NB10,
        "prune",
        _pr(("sorted(loss, key=loss.get)", "sorted(loss, key=loss.get, reverse=True)")),
        "test_prune",
        "без них правдоподобие не падает (потеря 0)",
    ),
    Mistake(
        "nb10_pr_unweighted",
        NB10,
        "prune",
        _pr(("loss[t] = sum(f * (", "loss[t] = sum(1 * (")),
        "test_prune_hidden",
        "потеря умножается на частоту слова",
    ),
    Mistake(
        "nb10_pr_by_use",
        NB10,
        "prune",
        _pr(
            (
                ("            loss[t] = sum(f * (", "for w, f in word_freqs.items() if t in splits[w])\n"),
                "            loss[t] = sum(f * splits[w].count(t) for w, f in word_freqs.items())  # how often it is used\n",
            )
        ),
        "test_prune_hidden",
        "потеря токена — Σ частота · (сумма лучшего разбиения с ним − без него)",
    ),
    Mistake(
        "nb10_pr_keep_counts_long_only",
        NB10,
        "prune",
        _pr(("max(0, len(scores) - keep)", "max(0, len(loss) - keep)")),
        "test_prune",
        "их и выбросить",
    ),
]

ALTERNATIVES = [
    Alternative(
        "nb10_wp_max_builtin",
        NB10,
        "train_wordpiece",
        _wp(
            (
                ("        best, best_score = None, None\n", "                best, best_score = (a, b), score\n"),
                "        best = max(pair_freq, key=lambda p: pair_freq[p] / (unit_freq[p[0]] * unit_freq[p[1]]))\n",
            )
        ),
    ),
    Alternative(
        "nb10_wpe_while",
        NB10,
        "encode_wordpiece",
        """
def encode_wordpiece(word, vocab):
    out, start = [], 0
    while start < len(word):
        end = len(word)
        prefix = "" if start == 0 else "##"
        while end > start and prefix + word[start:end] not in vocab:
            end -= 1
        if end == start:
            return ["[UNK]"]
        out.append(prefix + word[start:end])
        start = end
    return out
""",
    ),
    Alternative(
        "nb10_vt_memo_recursion",
        NB10,
        "viterbi",
        """
import functools


def viterbi(word, scores):
    @functools.cache
    def best(start):  # (total, tokens) of the best split of word[start:], or None
        if start == len(word):
            return (0.0, ())
        options = []
        for end in range(start + 1, len(word) + 1):
            rest = best(end) if word[start:end] in scores else None
            if rest is not None:
                options.append((scores[word[start:end]] + rest[0], (word[start:end],) + rest[1]))
        return max(options, key=lambda o: o[0]) if options else None

    for start in range(len(word), -1, -1):  # from the end, so the recursion stays shallow
        best(start)
    found = best(0)
    return None if found is None else list(found[1])
""",
    ),
    Alternative(
        "nb10_pr_every_word",
        NB10,
        "prune",
        _pr(
            (
                ("            loss[t] = sum(f * (", "for w, f in word_freqs.items() if t in splits[w])\n"),
                "            loss[t] = sum(f * (sum(scores[x] for x in splits[w]) - sum(without[x] for x in viterbi(w, without)))\n"
                "                          for w, f in word_freqs.items())\n",
            )
        ),
    ),
]
