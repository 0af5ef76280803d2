"""07's speed checks under load: the ratio each catalogued style of train_fast and encode_fast gets
against the course's solution (bpe_course.checks.speed_against_course, as the hidden tests time it),
on an idle machine and next to busy processes, side by side in one run.

    .venv/bin/python bench/bench_speed_checks.py [--busy 20]

Prints, per style, the ratio idle and under load, and the limit of its check: every correct style
must stay well under the limit at load, every slow one well over it (issue 29 item 1)."""

import argparse
import json
import multiprocessing
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from mistakes import ALTERNATIVES, MISTAKES  # noqa: E402

from autograder.course.course import CourseNotebook  # noqa: E402
from autograder.course.simulate import solution_sources  # noqa: E402
from bpe_course import checks  # noqa: E402

NB = "07_fast_bpe"
LIMITS = {"train_fast": 9, "encode_fast": 4}


def test_source(grade_id):
    """The hidden test's input makers, taken from the notebook (not copied here)."""
    source = CourseNotebook.load(NB).tests[grade_id].source
    return source


def namespace():
    course = CourseNotebook.load(NB)
    ns = {"__name__": "__bench__"}
    for name in ("given", "given_changes"):
        exec(course.given[name], ns)
    return ns


def build(source, name):
    ns = namespace()
    exec(source, ns)
    return ns[name]


def train_inputs():
    ns = {"random": random, "fresh_seed": checks.fresh_seed}  # as the hidden test draws it
    source = test_source("test_train_fast_hidden")
    start = source.index("def zipf_text")
    exec(source[start : source.index("SLOWER = 9")], ns)
    return [[ns["zipf_text"](71), 256 + 6000]]


def encode_inputs():
    import tiktoken

    from bpe_course import offline_tiktoken

    offline_tiktoken()
    ns = {"random_module": random, "tiktoken": tiktoken, "fresh_seed": checks.fresh_seed}
    ns["reference_once"] = checks.computed_once  # as the hidden test builds its inputs
    source = test_source("test_encode_fast_hidden")
    exec(source[source.index("def reference_table") : source.index("texts = [")], ns)
    exec(source[source.index("def words_line") : source.index("SLOWER = 4")], ns)
    return [[ns["lines"][81], ns["merges"], ns["enc"]._pat_str]]


def styles(cell):
    out = {"solution": solution_sources(NB)[cell]}
    for case in ALTERNATIVES:
        if case.notebook == NB and case.cell == cell:
            out[case.id] = case.source
    for case in MISTAKES:
        if case.notebook == NB and case.cell == cell and case.caught_by.endswith("_hidden"):
            if any(word in case.message for word in ("пошаговое", "повторы", "сборка")):
                out[case.id] = case.source
    return out


def ratios(cell, inputs):
    reference = build(solution_sources(NB)[cell], cell)
    token = checks.use_course_solutions({cell: reference}.__getitem__)
    try:
        found = {}
        for name, source in styles(cell).items():
            ((_, _, ratio),) = checks.speed_against_course(build(source, cell), cell, inputs[:1], LIMITS[cell])
            found[name] = ratio
        return found
    finally:
        checks.reset_course_solutions(token)


def spin():
    while True:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=20, help="busy processes next to the second pass")
    args = parser.parse_args()
    inputs = {"train_fast": train_inputs(), "encode_fast": encode_inputs()}
    idle = {cell: ratios(cell, inputs[cell]) for cell in inputs}
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    try:
        busy = {cell: ratios(cell, inputs[cell]) for cell in inputs}
    finally:
        for p in spinners:
            p.kill()
    print(f"load: {args.busy} busy processes on {os.cpu_count()} cores")
    for cell in inputs:
        print(f"\n{cell} (limit {LIMITS[cell]}×)")
        for name in idle[cell]:
            print(f"  {name:58} idle {idle[cell][name]:7.2f}  busy {busy[cell][name]:7.2f}")
    print(json.dumps({"busy": args.busy, "idle": idle, "loaded": busy}, default=str))


if __name__ == "__main__":
    main()
