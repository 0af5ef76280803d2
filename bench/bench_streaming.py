"""Benchmark: the peak memory of the course's streaming encoder as the input grows.

Not a test. It encodes generated streams of increasing size (by default 1, 10 and 50 MB) with
`encode_iterable` in one process and prints, side by side, the peak memory that `tracemalloc` saw
during each run, the time, and for the smaller streams the same figures for reading the whole text
into a string and encoding it at once. It asserts nothing about memory or speed; it does check that
the streaming ids equal the ids of the whole text on the first stream (exit code 1 if not).

The code measured is the course's own, taken at run time from the solution notebook
solutions/08_shipping_tokenizer.ipynb: its read-only cells (pretokenize, encode_chunk with its bounded
cache, encode_chunked, train_chunked, ...) and its solution cells fixed_lines and encode_iterable, with the nbgrader
solution markers stripped — as bench_bpe.py does for notebook 07. One source of truth, nothing copied.

Workload: the merge table is trained on the course's Russian corpus (data/ru_tokenization.txt, 300
merges); a stream is the corpus' lines in a seeded random order until the size is reached, made by a
generator, so neither the stream nor a file is ever held in memory.

    .venv/bin/python bench/bench_streaming.py [--sizes 1,10,50] [--whole-up-to 10] [--quick] [--notebook PATH]
"""

import argparse
import os
import platform
import random
import sys
import time
import tracemalloc
from pathlib import Path

from course_code import load_course_code  # bench/ is the script's folder, first on sys.path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "solutions" / "08_shipping_tokenizer.ipynb"
SOLUTIONS = ("fixed_lines", "encode_iterable")
NEEDED = (
    "GPT2_PATTERN",
    "CACHE_LIMIT",
    "pretokenize",
    "encode_chunk",
    "encode_chunked",
    "train_chunked",
    "fixed_lines",
    "encode_iterable",
)
MB = 10**6


def generated_lines(corpus_lines: list, n_bytes: int, seed: int = 0):
    """A stream of about n_bytes bytes of UTF-8: the corpus' lines in a seeded random order."""
    rng = random.Random(seed)
    produced = 0
    while produced < n_bytes:
        line = rng.choice(corpus_lines)
        produced += len(line.encode("utf-8"))
        yield line


def measure(job):
    """(result of job(), peak traced memory in MiB, wall seconds, CPU seconds)."""
    tracemalloc.start()
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        result = job()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    return result, peak, wall, cpu


def versions() -> str:
    parts = [f"python {platform.python_version()}"]
    for name in ("regex",):
        try:
            parts.append(f"{name} {__import__(name).__version__}")
        except ImportError:
            parts.append(f"{name} missing")
    return ", ".join(parts) + f"; {os.cpu_count()} CPUs"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,50", help="stream sizes in MB, comma-separated (default 1,10,50)")
    parser.add_argument(
        "--whole-up-to",
        type=float,
        default=10,
        help="also measure 'read everything, then encode' up to this size in MB (default 10)",
    )
    parser.add_argument("--quick", action="store_true", help="streams of 1, 2 and 5 MB")
    parser.add_argument("--notebook", type=Path, default=NOTEBOOK, help="the notebook whose code is measured")
    args = parser.parse_args(argv)
    sizes = [1.0, 2.0, 5.0] if args.quick else [float(s) for s in args.sizes.split(",")]

    from bpe_course import read_text

    course = load_course_code(args.notebook, SOLUTIONS, NEEDED)
    corpus = read_text("ru_tokenization.txt")
    corpus_lines = corpus.splitlines(keepends=True)
    merges = course["train_chunked"](corpus, 256 + 300)
    encode_iterable, encode_chunked = course["encode_iterable"], course["encode_chunked"]

    print("Streaming benchmark: peak memory (tracemalloc) of encode_iterable as the stream grows")
    print(f"code: {args.notebook.relative_to(ROOT) if args.notebook.is_relative_to(ROOT) else args.notebook}")
    print(
        f"table: {len(merges)} merges trained on data/ru_tokenization.txt; stream: its lines in random order; "
        f"chunk cache limit {course['CACHE_LIMIT']:,}"
    )
    print(f"{versions()}\n")

    problems = []
    first = min(sizes)
    stream_ids = list(encode_iterable(generated_lines(corpus_lines, int(first * MB)), merges))
    whole_ids = encode_chunked("".join(generated_lines(corpus_lines, int(first * MB))), merges)
    if stream_ids != whole_ids:
        problems.append(f"encode_iterable and encode_chunked gave different ids on the {first:g} MB stream")
    del stream_ids, whole_ids

    header = f"{'stream':>8} {'ids':>12} {'peak, streaming':>16} {'wall s':>8} {'cpu s':>8}   {'peak, all at once':>18} {'wall s':>8}"  # noqa: E501
    print(header)
    rows = []
    for size in sizes:
        n_bytes = int(size * MB)
        count, peak, wall, cpu = measure(
            lambda: sum(1 for _ in encode_iterable(generated_lines(corpus_lines, n_bytes), merges))  # noqa: B023
        )
        line = f"{size:>5g} MB {count:>12,} {peak:>12.2f} MiB {wall:>8.1f} {cpu:>8.1f}"
        whole_peak = None
        if size <= args.whole_up_to:
            whole_count, whole_peak, whole_wall, _ = measure(
                lambda: len(encode_chunked("".join(generated_lines(corpus_lines, n_bytes)), merges))  # noqa: B023
            )
            line += f"   {whole_peak:>14.1f} MiB {whole_wall:>8.1f}"
            if whole_count != count:
                problems.append(f"{size:g} MB: {count} ids streaming, {whole_count} all at once")
        else:
            line += f"   {'(not measured)':>18}"
        rows.append((size, peak, whole_peak))
        print(line, flush=True)

    smallest, largest = rows[0], rows[-1]
    print(
        f"\nthe stream grew {largest[0] / smallest[0]:g}x; the streaming peak changed {largest[1] / smallest[1]:.2f}x"
    )
    measured_whole = [r for r in rows if r[2] is not None]
    if len(measured_whole) > 1:
        a, b = measured_whole[0], measured_whole[-1]
        print(f"'all at once' from {a[0]:g} to {b[0]:g} MB: its peak changed {b[2] / a[2]:.2f}x")
    print(f"streaming ids == ids of the whole text ({first:g} MB): {not problems}")
    for problem in problems:
        print("PROBLEM:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
