"""Benchmark: the course's pure-Python BPE next to the Rust libraries, on one fixed workload.

Not a test. It trains and encodes side by side in one process and prints a table of times and
ratios; it asserts nothing about speed (the machine may be shared and noisy: run it twice).

The code measured is the course's own, taken at run time from the solution notebook
solutions/07_fast_bpe.ipynb: its read-only cells (train_chunked and encode_chunked of notebook 05,
merge_with_changes, ...) and the solution cells train_fast and encode_fast, with the nbgrader
solution markers stripped. One source of truth, nothing copied here.

Workload (--corpus): `repeated` (default) is the course's Russian corpus and English sample (data/),
concatenated and repeated to about 1 MB — after the first copy there are no new words, the best
case for the Python code; `real` is Tiny Shakespeare and the Russian corpus, once each (about
1.2 MB, several times more distinct chunks). 750 merges; --quick uses about 100 KB and 200 merges.

    .venv/bin/python bench/bench_bpe.py [--quick] [--corpus repeated|real] [--repeat N] [--notebook PATH]
"""

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

from course_code import load_course_code  # bench/ is the script's folder, first on sys.path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "solutions" / "07_fast_bpe.ipynb"
SOLUTIONS = ("train_fast", "encode_fast")
NEEDED = (
    "GPT2_PATTERN",
    "pretokenize",
    "merge",
    "train_chunked",
    "encode_chunked",
    "token_bytes",
    "bytes_to_unicode",
    "train_fast",
    "encode_fast",
)

# Goals of the issue for the reference solution, reported (not asserted) next to the ratios.
GOALS = {
    "train_chunked / train_fast": (">=", 20),
    "train_fast / HF tokenizers": ("<=", 2),
    "encode_fast / tiktoken": ("<=", 5),
}


def workload(n_bytes: int, corpus: str = "repeated") -> str:
    """`repeated`: the course corpus (Russian + English), repeated and cut to about n_bytes bytes of
    UTF-8. `real`: Tiny Shakespeare and the Russian corpus once each, cut to n_bytes when smaller."""
    from bpe_course import read_text

    if corpus == "real":
        text = read_text("tinyshakespeare.txt") + "\n\n" + read_text("ru_tokenization.txt")
        return text.encode("utf-8")[:n_bytes].decode("utf-8", errors="ignore")
    block = read_text("ru_tokenization.txt") + "\n\n" + read_text("en_sample.txt") + "\n\n"
    text = block * (n_bytes // len(block.encode("utf-8")) + 1)
    return text.encode("utf-8")[:n_bytes].decode("utf-8", errors="ignore")


def best_of(repeat: int, fn, *args):
    """(result of the last call, (best wall time, best CPU time of this process) over `repeat` calls).

    The CPU time (time.process_time, all threads of the process) varies less than the wall time on
    a shared machine; the Rust libraries may use several threads, which it adds up.
    """
    wall, cpu, result = math.inf, math.inf, None
    for _ in range(repeat):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        result = fn(*args)
        wall = min(wall, time.perf_counter() - start_wall)
        cpu = min(cpu, time.process_time() - start_cpu)
    return result, (wall, cpu)


def hf_trainer(course):
    """train(texts, vocab_size) -> course-form merges with Hugging Face tokenizers, or None if missing."""
    try:
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    except ImportError:
        return None
    byte_of = {char: byte for byte, char in course["bytes_to_unicode"]().items()}

    def train(texts, vocab_size):
        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=0,
            show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        )
        tokenizer.train_from_iterator(texts, trainer=trainer)
        course_id = {bytes([b]): b for b in range(256)}
        merges = {}
        for merge in json.loads(tokenizer.to_str())["model"]["merges"]:
            left, right = merge.split(" ") if isinstance(merge, str) else merge
            left, right = bytes(byte_of[c] for c in left), bytes(byte_of[c] for c in right)
            merges[(course_id[left], course_id[right])] = course_id[left + right] = 256 + len(merges)
        return merges

    return train


def ratio(a, b):
    """(wall, cpu) of a / (wall, cpu) of b."""
    return a[0] / b[0], a[1] / b[1]


def first_difference(ours: dict, theirs: dict):
    """Index of the first merge where two tables differ (as byte strings), or None."""
    a, b = list(ours.items()), list(theirs.items())
    return next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), None if len(a) == len(b) else min(len(a), len(b)))


def counts_before(course, text: str, merges: dict, k: int) -> dict:
    """Weighted pair counts over the distinct chunks after the first k merges (what step k chooses from)."""
    from collections import Counter

    freq = Counter(course["pretokenize"](text))
    pieces = [list(chunk.encode("utf-8")) for chunk in freq]
    for pair, new_id in list(merges.items())[:k]:
        pieces = [course["merge"](ids, pair, new_id) for ids in pieces]
    counts = Counter()
    for ids, n in zip(pieces, freq.values()):
        for pair in zip(ids, ids[1:]):
            counts[pair] += n
    return counts


def versions() -> str:
    parts = [f"python {platform.python_version()}"]
    for name in ("regex", "tiktoken", "tokenizers"):
        try:
            parts.append(f"{name} {__import__(name).__version__}")
        except ImportError:
            parts.append(f"{name} missing")
    return ", ".join(parts) + f"; {os.cpu_count()} CPUs"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small workload: about 100 KB and 200 merges")
    parser.add_argument(
        "--corpus",
        choices=("repeated", "real"),
        default="repeated",
        help="repeated: the course corpus repeated to 1 MB (default); real: Tiny Shakespeare + the Russian corpus",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement, the best is kept (default 3)")
    parser.add_argument("--notebook", type=Path, default=NOTEBOOK, help="the notebook whose code is measured")
    args = parser.parse_args(argv)

    from bpe_course import offline_tiktoken

    offline_tiktoken()
    import tiktoken

    course = load_course_code(args.notebook, SOLUTIONS, NEEDED)
    n_bytes, n_merges = (100_000, 200) if args.quick else ((2_000_000 if args.corpus == "real" else 1_000_000), 750)
    text = workload(n_bytes, args.corpus)
    vocab_size = 256 + n_merges
    size = len(text.encode("utf-8"))
    what = "Tiny Shakespeare + the Russian corpus" if args.corpus == "real" else "course corpus ru + en, repeated"
    distinct = len(set(course["pretokenize"](text)))
    print(f"BPE benchmark: {size:,} bytes ({what}; {distinct:,} distinct chunks), {n_merges} merges")
    print(f"code: {args.notebook.relative_to(ROOT) if args.notebook.is_relative_to(ROOT) else args.notebook}")
    print(f"{versions()}; best of {args.repeat} runs (MB/s: bytes of text per wall second)\n")

    rows, ratios, problems = [], {}, []

    # Training
    slow, slow_s = best_of(args.repeat, course["train_chunked"], text, vocab_size)
    fast, fast_s = best_of(args.repeat, course["train_fast"], text, vocab_size)
    if list(fast.items()) != list(slow.items()):
        problems.append("train_fast and train_chunked learned different merges")
    rows += [
        ("train", "train_chunked (pure Python, notebook 05)", slow_s),
        ("train", "train_fast (pure Python, incremental)", fast_s),
    ]
    ratios["train_chunked / train_fast"] = ratio(slow_s, fast_s)
    train_hf = hf_trainer(course)
    if train_hf is None:
        print("tokenizers is not installed: the Rust trainer is skipped\n")
    else:
        hf, hf_s = best_of(args.repeat, train_hf, [text], vocab_size)
        _, hf_lines_s = best_of(args.repeat, train_hf, text.splitlines(keepends=True), vocab_size)
        rows += [
            ("train", "HF tokenizers (Rust), the same one text", hf_s),
            ("train", "HF tokenizers, text split into lines*", hf_lines_s),
        ]
        ratios["train_fast / HF tokenizers"] = ratio(fast_s, hf_s)
        diff = first_difference(fast, hf)
        if diff is None:
            agreement = "the same merges"
        else:
            counts = counts_before(course, text, fast, diff)
            ours, theirs = list(fast)[diff], list(hf)[diff]
            tie = counts[ours] == counts[theirs] == max(counts.values())
            agreement = f"the first {diff} merges agree; merge #{diff} differs: " + (
                f"a tie (both pairs occur {counts[ours]} times), which tokenizers breaks "
                "another way than the course (notebook 07, section 6)"
                if tie
                else f"not a tie ({counts[ours]} vs {counts[theirs]})"
            )

    # Encoding, with the table train_fast learned; tiktoken gets the same table as ranks
    encoding = tiktoken.Encoding(
        name="bench",
        pat_str=course["GPT2_PATTERN"],
        special_tokens={},
        mergeable_ranks={piece: i for i, piece in course["token_bytes"](fast).items()},
    )
    ids_slow, enc_slow_s = best_of(1 if not args.quick else args.repeat, course["encode_chunked"], text, fast)
    ids_fast, enc_fast_s = best_of(args.repeat, course["encode_fast"], text, fast)
    ids_tik, enc_tik_s = best_of(args.repeat, encoding.encode_ordinary, text)
    if not ids_slow == ids_fast == ids_tik:
        problems.append("encode_chunked, encode_fast and tiktoken gave different ids")
    rows += [
        ("encode", "encode_chunked (pure Python, notebook 05)", enc_slow_s),
        ("encode", "encode_fast (pure Python, cached)", enc_fast_s),
        ("encode", "tiktoken (Rust), the same table", enc_tik_s),
    ]
    ratios["encode_chunked / encode_fast"] = ratio(enc_slow_s, enc_fast_s)
    ratios["encode_fast / tiktoken"] = ratio(enc_fast_s, enc_tik_s)

    print(f"{'':7}{'':44}{'wall s':>9}{'cpu s':>9}{'MB/s':>8}")
    for kind, name, (wall, cpu) in rows:
        print(f"{kind:7}{name:44}{wall:9.3f}{cpu:9.3f}{size / wall / 1e6:8.2f}")
    print(f"\n{'ratio of times':37}{'wall':>7}{'cpu':>7}")
    for name, (wall, cpu) in ratios.items():
        goal = None if args.quick or args.corpus != "repeated" else GOALS.get(name)  # goals: the full default workload
        note = ""
        if goal:
            op, bound = goal
            met = [value >= bound if op == ">=" else value <= bound for value in (wall, cpu)]
            note = f"   goal {op} {bound}: " + (
                "met"
                if all(met)
                else "not met"
                if not any(met)
                else "met by cpu time only"
                if met[1]
                else "met by wall time only"
            )
        print(f"  {name:35}{wall:7.2f}{cpu:7.2f}{note}")
    if train_hf is not None:
        print(f"\nHF tokenizers vs train_fast: {agreement}.")
        print(
            "* lines are separate documents for tokenizers (parallel counting); the chunks differ slightly at line ends."  # noqa: E501
        )
    print(
        f"\ntrain_fast == train_chunked: {list(fast.items()) == list(slow.items())}; "
        f"encode_chunked == encode_fast == tiktoken: {ids_slow == ids_fast == ids_tik}"
    )
    for problem in problems:
        print("PROBLEM:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
