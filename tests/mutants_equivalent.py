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
    "08:encode_iterable:constant:22:56:0→1": (
        "equivalent: `reach` is 0 only without allowed special tokens, and then `specials` is None and "
        "`unsettled` (len(text) + 1 or len(text)) only enters `cut = min(max(start, unsettled), len(text))`, "
        "which is len(text) either way"
    ),
}

# Wrong programs that keep full marks: holes in the hidden tests, for the lead to close with a new test.
HOLES: dict[str, str] = {
    "08:encode_iterable:arithmetic:28:53:+→-": (
        "`len(text) - reach - 1` instead of `+ 1`: two more characters are held back before an allowed "
        "special token counts as read, so a special token that ends a line comes out a line late; the "
        "final ids are the same, and no test checks when the ids before a special token at a line's end come out"
    ),
}
