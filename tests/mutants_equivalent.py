"""The surviving mutants of tests/mutants.py that are equivalent programs: id → why no test can tell.

A mutant survives when the graded notebook with that one cell changed keeps full marks. When the
changed program is still correct (it computes the same answers on every input the exercise allows),
no test can kill it: record it here with the reason. A survivor that is a wrong program is a hole in
the hidden tests, never an entry of EQUIVALENT: it goes into HOLES (what it breaks, that no test
sees) until a hidden test kills it, and then out of HOLES.
"""

EQUIVALENT: dict[str, str] = {
    "06:english_experiment:constant:6:44:3→4": (
        "equivalent: only the digits the cell prints change; no test reads the printed text, MEASURED is the same"
    ),
    "07:train_fast:constant:32:33:0→1": (
        "equivalent: every place in a chunk is one byte later, the same for every pair, so the order of places is "
        "the same, and the placeholder (0, 0) still comes before every real place"
    ),
    "07:train_fast:off_by_one:33:17:range0+1": (
        "equivalent: first_place looks in the chunk where[pair] names, which holds the pair, so it returns before "
        "k reaches the extra last index (it would fail on ids[k + 1])"
    ),
    "07:train_fast:arithmetic:33:23:-→+": (
        "equivalent: as range(len(ids)) — the pair is found in its chunk before k passes len(ids) - 2"
    ),
    "07:train_fast:constant:33:34:1→0": (
        "equivalent: as range(len(ids)) — the pair is found in its chunk before k passes len(ids) - 2"
    ),
    "07:train_fast:off_by_one:36:28:index-1": (
        "equivalent: the place becomes the last token's width plus the byte start of the token before the pair; "
        "within a chunk it still grows with the position, and a merge never moves a later occurrence's place "
        "below an earlier occurrence's stored one (the token before a later pair starts at or after the earlier "
        "pair's first token, and widths only grow), so the heap accepts the same pair; 20,000 random texts agree"
    ),
    "07:train_fast:branch:69:12:no else": (
        "equivalent in its answers: a pair whose count fell to 0 stays in counts and where (with no chunks) "
        "instead of being deleted; it is never pushed, its stale heap entries are dropped as outdated, and if it "
        "appears again its count and chunks are updated as a new pair's would be (only memory is wasted)"
    ),
    "08:train:argument:16:24:no key=": (
        "equivalent: the alternation tries the tokens in reverse alphabetical order, and a token always sorts "
        "after each of its own prefixes, so where two tokens start at one place the longer is tried first, as "
        "with key=len (the split is the same; only tokens that are prefixes of each other compete there)"
    ),
    "08:encode:argument:23:20:no key=": (
        "equivalent: the sorted tokens only build the alternation, and reverse alphabetical order puts every "
        "token before its prefixes, as longest-first does (see 08:train:argument:16:24:no key=)"
    ),
    "08:encode_iterable:arithmetic:23:12:-→+": (
        "equivalent: the tail kept for the forbidden-token search is two characters longer; a forbidden token "
        "wholly inside it was already found (and raised) when its last line was read"
    ),
    "08:encode_iterable:constant:23:61:1→0": (
        "equivalent: the default is used only without forbidden tokens, when nothing searches the tail; guard "
        "-1 empties it (seen[len(seen) + 1:]) as guard 0 does"
    ),
    "08:encode_iterable:constant:23:66:1→0": (
        "equivalent: the tail kept is one character longer (the whole longest forbidden token); a token wholly "
        "inside it was found when its last line was read"
    ),
    "08:encode_iterable:constant:22:56:0→1": (
        "equivalent: `reach` is 0 only without allowed special tokens, and then `specials` is None and "
        "`unsettled` (len(text) + 1 or len(text)) only enters `cut = min(max(start, unsettled), len(text))`, "
        "which is len(text) either way"
    ),
    "04:bytes_to_unicode:off_by_one:17:13:range0-1": (
        "equivalent: the loop gives a shifted character only to bytes not kept as themselves, and byte 255 "
        "(ÿ) is kept ('®'..'ÿ'), so stopping the loop at 254 leaves the mapping the same"
    ),
    "05:split_by_branches:compare:16:10:<→<=": (
        "equivalent: at pos == len(text) no branch can match a non-empty piece (found.end() > pos is false), "
        "so the extra turn only skips past the end; the pieces are the same"
    ),
    "05:split_by_branches:compare:19:25:>→>=": (
        "equivalent on the inputs the exercise allows: its docstring says the branches never match the empty "
        "string, so a match from pos always ends after pos and >= accepts exactly what > does"
    ),
    "05:train_chunked:constant:24:48:0→1": (
        "equivalent: every pair's count is one more than its frequency, so the most frequent pair, and the first "
        "one among equals, is the same; `if not counts` is unchanged"
    ),
    "06:smallest_vocab:constant:14:21:256→257": (
        "equivalent: first_merges(merges, 257 + len(merges)) is the whole table, as for 256 + len(merges), so "
        "good(high) is the same and the bisection (compression never falls as V grows) finds the same smallest V, "
        "which is at most 256 + len(merges)"
    ),
    "09:load_hf_vocab:off_by_one:10:84:range1+1": (
        "equivalent: the extra printable character chr(256) is then given its byte again by the shifted "
        "characters (chr(256 + 0) → byte 0), so the map is the same"
    ),
    "09:load_hf_vocab:off_by_one:12:25:range0+1": (
        "equivalent on byte-level vocabularies: the extra 'byte' 256 is given chr(324), a character no "
        "byte-level token holds (its alphabet is chr(0..323) as bytes_to_unicode makes it); the other 256 are the same"
    ),
    "09:load_hf_vocab:off_by_one:12:25:range0-1": (
        "equivalent: byte 255 is printable (ÿ), so it is never among `others`, with or without it in the range"
    ),
    "09:load_hf_vocab:constant:12:31:256→257": (
        "equivalent on byte-level vocabularies: as range(256 + 1), the extra byte 256 is given chr(324), which "
        "no byte-level token holds"
    ),
    "10:train_wordpiece:arithmetic:20:34:+→-": (
        "equivalent: every part's frequency is negated, so the product of two in the score's denominator is the same"
    ),
    "10:encode_wordpiece:off_by_one:13:19:range0+1": (
        "equivalent: word[start:len(word) + 1] is word[start:len(word)], the same piece tried twice"
    ),
    "10:viterbi:constant:12:15:0.0→1": (
        "equivalent: every split of word[:end] gets 1 more, so the comparisons between them are the same (the test "
        "scores are dyadic: the sums stay exact)"
    ),
    "10:viterbi:off_by_one:13:15:range0-1": "equivalent: at end 0 the inner loop over range(0) does nothing",
    "10:viterbi:constant:13:21:1→0": "equivalent: at end 0 the inner loop over range(0) does nothing",
    "10:viterbi:off_by_one:14:21:range0+1": (
        "equivalent: start == end tries the empty token, and a token is a non-empty string (the exercise's rules)"
    ),
    "10:viterbi:compare:18:40:>→>=": (
        "equivalent: of splits with the same total the last found is kept, and any of the best is allowed"
    ),
}

# Wrong programs that keep full marks: holes in the hidden tests, for the lead to close with a new test.
HOLES: dict[str, str] = {}
