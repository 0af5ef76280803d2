"""A mutation run over every graded function: which wrong programs keep full marks (issue 40 item 6).

Each solution cell of solutions/*.ipynb (nbgrader `solution: true`, as `solution_sources` gives it) is
parsed with `ast` and mutated one change at a time by the standard operators (OPERATORS below); each
mutant is the cell's `ast.unparse` with that one change, kept if it compiles and differs from every
earlier mutant of the cell. It is graded as the catalogue grades an alternative solution
(tests/catalogue.py `grade_case`, in-process, up to the notebook's last test with every test that may
see what the cell changes): *killed* when some test loses points, *survived* when it keeps full marks.
A survivor is either an equivalent program (recorded with its reason in tests/mutants_equivalent.py)
or a hole in the hidden tests.

An id is `NN:cell:operator:line:col:variant` — the notebook's number, the cell's grade_id, the line and
column in the cell's source (without its BEGIN/END SOLUTION lines), and what was changed to what
(`#2` after it for a second node starting at the same place, as the outer `+` of `a + b + c`).

    python tests/mutants.py                     # every mutant of every notebook (make mutants)
    python tests/mutants.py --notebook 03       # one notebook (make mutants NB=03)
    python tests/mutants.py --sample 3          # 3 mutants per notebook, chosen with a fixed seed

The report (per notebook: mutants, killed, survived, score; each survivor with its id and mutated
line) is printed and written to OUT/mutants.txt, the results to OUT/mutants.json.
"""

import argparse
import ast
import copy
import difflib
import importlib
import json
import multiprocessing
import os
import random
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from autograder.course.course import CourseNotebook, course_notebooks  # noqa: E402
from autograder.course.simulate import solution_sources  # noqa: E402

SEED = 40  # the sample's seed (issue 40)
MEMORY_LIMIT = 4 << 30  # bytes of address space a grading worker may hold: a mutant that grows a list forever stops


@dataclass(frozen=True)
class Mutant:
    id: str
    notebook: str
    cell: str
    operator: str
    line: int
    col: int
    original: str  # the line of the cell's source the change is on
    mutated: str  # the first line of the mutant that differs from the unparsed cell
    source: str


# -- the operators: each takes a node and yields (variant, change), change(node) mutating a copy in place ---

COMPARISONS = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
SYMBOLS |= {ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-"}
SYMBOLS |= {ast.And: "and", ast.Or: "or"}


def compare(node):
    """`<` ↔ `<=`, `>` ↔ `>=`, `==` ↔ `!=`, `in` ↔ `not in`, `is` ↔ `is not`."""
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            new = COMPARISONS[type(op)]

            def change(n, i=i, new=new):
                n.ops[i] = new()

            yield f"{SYMBOLS[type(op)]}→{SYMBOLS[new]}", change


def shifted(expr, by: int):
    return ast.BinOp(expr, ast.Add() if by > 0 else ast.Sub(), ast.Constant(abs(by)))


def off_by_one(node):
    """An index, a slice bound or a `range` bound ± 1."""
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Slice, ast.Tuple, ast.Constant)):
        for by in (1, -1):
            yield f"index{by:+d}", lambda n, by=by: setattr(n, "slice", shifted(n.slice, by))
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
        for by in (1, -1):
            yield f"index{by:+d}", lambda n, by=by: setattr(n.slice, "value", n.slice.value + by)
    if isinstance(node, ast.Slice):
        for bound in ("lower", "upper"):
            if getattr(node, bound) is not None:
                for by in (1, -1):
                    yield (
                        f"{bound}{by:+d}",
                        lambda n, bound=bound, by=by: setattr(n, bound, shifted(getattr(n, bound), by)),
                    )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        for i in range(len(node.args[:2])):
            for by in (1, -1):

                def change(n, i=i, by=by):
                    n.args[i] = shifted(n.args[i], by)

                yield f"range{i}{by:+d}", change


def constant(node):
    """A number changed: 0 → 1, 1 → 0, n → n + 1; True ↔ False."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        value = node.value
        new = (not value) if type(value) is bool else {0: 1, 1: 0}.get(value, value + 1)
        yield f"{value!r}→{new!r}", lambda n, new=new: setattr(n, "value", type(value)(new))


def argument_ignored(node):
    """A parameter with a default replaced by its default; a keyword argument of a call left out."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for arg, default in pairs:

            def change(n, name=arg.arg, default=default):
                docstring = (
                    bool(n.body) and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
                )
                assign = ast.Assign([ast.Name(name, ast.Store())], copy.deepcopy(default), lineno=0)
                n.body.insert(1 if docstring else 0, assign)

            yield f"{arg.arg}=default", change
    if isinstance(node, ast.Call):
        for i, keyword in enumerate(node.keywords):
            if keyword.arg is not None:
                yield f"no {keyword.arg}=", lambda n, i=i: n.keywords.pop(i)


def branch_dropped(node):
    """An `if` body replaced by `pass`; an `elif`/`else` removed."""
    if isinstance(node, ast.If):
        yield "body→pass", lambda n: setattr(n, "body", [ast.Pass()])
        if node.orelse:
            yield "no else", lambda n: setattr(n, "orelse", [])


EMPTY = {ast.List: "[]", ast.ListComp: "[]", ast.Dict: "{}", ast.DictComp: "{}", ast.Set: "set()"}
EMPTY |= {ast.SetComp: "set()", ast.Tuple: "()", ast.JoinedStr: "''"}
EMPTY_OF_CALL = {"list": "[]", "dict": "{}", "set": "set()", "tuple": "()", "str": "''", "bytes": "b''"}
EMPTY_OF_CALL |= {"bytearray": "bytearray()", "sorted": "[]"}


def empty_of(expr, assigned: dict) -> str | None:
    """An empty value of the type `expr` has, where its code shows it: a literal, a constructor's call,
    or a name assigned one of them in the function."""
    if isinstance(expr, ast.Name) and expr.id in assigned:
        return empty_of(assigned[expr.id], {})
    if type(expr) in EMPTY:
        return EMPTY[type(expr)]
    if isinstance(expr, ast.Constant) and type(expr.value) in (str, bytes):
        return repr(type(expr.value)())
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        return EMPTY_OF_CALL.get(expr.func.id)
    return None


def return_changed(node, assigned: dict):
    """`return x` → `return None`, and → an empty value of x's type where the code shows the type."""
    if isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            yield "None", lambda n: setattr(n, "value", ast.Constant(None))
        empty = empty_of(node.value, assigned)
        if empty is not None and ast.unparse(node.value) != empty:
            yield f"empty {empty}", lambda n, empty=empty: setattr(n, "value", ast.parse(empty, mode="eval").body)


def boolean(node):
    """`and` ↔ `or`."""
    if isinstance(node, ast.BoolOp):
        new = ast.Or if isinstance(node.op, ast.And) else ast.And
        yield f"{SYMBOLS[type(node.op)]}→{SYMBOLS[new]}", lambda n: setattr(n, "op", new())


def arithmetic(node):
    """`+` ↔ `-` (also `+=` ↔ `-=`)."""
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Add, ast.Sub)):
        new = ast.Sub if isinstance(node.op, ast.Add) else ast.Add
        yield f"{SYMBOLS[type(node.op)]}→{SYMBOLS[new]}", lambda n: setattr(n, "op", new())


OPERATORS = {
    "compare": compare,
    "off_by_one": off_by_one,
    "constant": constant,
    "argument": argument_ignored,
    "branch": branch_dropped,
    "return": return_changed,
    "boolean": boolean,
    "arithmetic": arithmetic,
}


def assignments(tree) -> dict:
    """{name: the value it is first assigned} in `tree`: what `return name` may return an empty one of."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found.setdefault(node.targets[0].id, node.value)
    return found


def docstrings(tree) -> set:
    """The ids of the docstring constants in `tree`: no mutant changes one."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def first_changed_line(before: str, after: str) -> str:
    """The first line of `after` that is not in `before` (or the first removed one, marked so)."""
    removed = None
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("+ "):
            return line[2:].strip()
        if line.startswith("- ") and removed is None:
            removed = "(removed) " + line[2:].strip()
    return removed or ""


def cell_mutants(notebook: str, cell: str, source: str) -> list[Mutant]:
    """The mutants of one solution cell, in order of their place in it and of OPERATORS; each compiles and
    differs from the cell and from every mutant before it."""
    tree = ast.parse(source)
    baseline, lines = ast.unparse(tree), source.splitlines()
    assigned, skipped = assignments(tree), docstrings(tree)
    nodes = [n for n in ast.walk(tree) if hasattr(n, "lineno") and id(n) not in skipped]
    order = sorted(range(len(nodes)), key=lambda i: (nodes[i].lineno, nodes[i].col_offset, i))
    walked = list(ast.walk(tree))
    seen, mutants, ids = {baseline}, [], {}
    for i in order:
        node = nodes[i]
        for name, operator in OPERATORS.items():
            changes = operator(node, assigned) if name == "return" else operator(node)
            for variant, change in changes:
                mutated = copy.deepcopy(tree)
                change(list(ast.walk(mutated))[walked.index(node)])
                try:
                    text = ast.unparse(ast.fix_missing_locations(mutated))
                    compile(text, f"<{cell}>", "exec")
                except (SyntaxError, ValueError, TypeError, AttributeError):
                    continue
                if text in seen:
                    continue
                seen.add(text)
                mutant_id = f"{notebook[:2]}:{cell}:{name}:{node.lineno}:{node.col_offset}:{variant}"
                ids[mutant_id] = ids.get(mutant_id, 0) + 1  # nested nodes may start at one place (a + b + c)
                mutant_id += f"#{ids[mutant_id]}" if ids[mutant_id] > 1 else ""
                original = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else ""
                mutants.append(
                    Mutant(mutant_id, notebook, cell, name, node.lineno, node.col_offset, original,
                           first_changed_line(baseline, text), text)
                )  # fmt: skip
    return mutants


def mutants_of(notebook: str) -> list[Mutant]:
    """Every mutant of every solution cell of `notebook`, in the cells' order."""
    return [m for cell, source in solution_sources(notebook).items() for m in cell_mutants(notebook, cell, source)]


def sample(mutants: list[Mutant], size: int) -> list[Mutant]:
    """`size` mutants of one notebook, the same ones on every run while the notebook stays the same."""
    if len(mutants) <= size:
        return mutants
    chosen = random.Random(f"{SEED}:{mutants[0].notebook}").sample(range(len(mutants)), size)
    return [mutants[i] for i in sorted(chosen)]


# -- grading ------------------------------------------------------------------------------------------


def _worker_setup():
    """Each grading worker: the catalogue's import order (autograder first), and a bound on its memory."""
    importlib.import_module("autograder")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _grade(notebook: str, cell: str, source: str, last: str) -> dict:
    from catalogue import grade_case

    try:
        return grade_case(notebook, {cell: source}, True, False, last, "reaching")
    except MemoryError:
        return {"status": "crashed", "message": "MemoryError", "tests": []}


def verdict(result: dict) -> str | None:
    """The first test in which the mutant lost points (or why the grading failed), None if it kept full marks."""
    lost = [t["name"] for t in result.get("tests", []) if t["score"] < t["max_score"]]
    if lost:
        return lost[0]
    if result.get("status") != "graded" or not result.get("tests"):
        return f"{result.get('status')}: {result.get('message', '')}"[:120]
    return None


def _grade_in_pool(mutants: list[Mutant], jobs: int, last: dict) -> tuple[dict, list[Mutant]]:
    """{mutant id: result} of those graded, and the mutants whose worker died under them."""
    spawn = multiprocessing.get_context("spawn")
    results, broken = {}, []
    with ProcessPoolExecutor(jobs, mp_context=spawn, initializer=_worker_setup) as pool:
        futures = {m.id: pool.submit(_grade, m.notebook, m.cell, m.source, last[m.notebook]) for m in mutants}
        for m in mutants:
            try:
                results[m.id] = futures[m.id].result()
            except BrokenProcessPool:
                broken.append(m)
    return results, broken


def grade_mutants(mutants: list[Mutant], jobs: int = 1) -> dict:
    """{mutant id: the test that killed it, or None}. A worker that dies grading a mutant (a crash the
    in-process grading cannot catch) takes the others in its pool with it: those are graded again one
    by one, and the one that kills its own worker is killed (the sandbox's kernel would have died too)."""
    os.environ["PYTHONHASHSEED"] = "0"  # as grade_cases: a set's order the same in every worker
    last = {nb: list(CourseNotebook.load(nb).tests)[-1] for nb in {m.notebook for m in mutants}}
    results, broken = _grade_in_pool(mutants, jobs, last)
    for m in broken:
        again, died = _grade_in_pool([m], 1, last)
        results.update(again)
        if died:
            results[m.id] = {"status": "crashed", "message": "the grading process died", "tests": []}
    return {m.id: verdict(results[m.id]) for m in mutants}


# -- the report ---------------------------------------------------------------------------------------


def score(killed: int, total: int) -> float:
    return round(100 * killed / total, 1) if total else 100.0


def report(mutants: list[Mutant], verdicts: dict, equivalent: dict, holes: dict, seconds: float) -> str:
    """Per notebook: mutants, killed, survived (explained as equivalent or not), score; each survivor."""
    out = [f"mutation run: {len(mutants)} mutants in {seconds:.0f} s wall", ""]
    out.append(f"{'notebook':28} {'mutants':>7} {'killed':>7} {'survived':>8} {'equiv.':>7} {'score':>6}")
    notebooks = sorted({m.notebook for m in mutants})
    for nb in notebooks:
        of = [m for m in mutants if m.notebook == nb]
        killed = sum(verdicts[m.id] is not None for m in of)
        explained = sum(verdicts[m.id] is None and m.id in equivalent for m in of)
        line = f"{nb:28} {len(of):7} {killed:7} {len(of) - killed:8} {explained:7} {score(killed, len(of)):5}%"
        out.append(line)
    kinds = {"UNEXPLAINED SURVIVORS (holes in the tests?)": {}, "known holes": holes, "equivalent": equivalent}
    for title, reasons in kinds.items():
        known = lambda m: m.id in equivalent or m.id in holes
        survivors = [m for m in mutants if verdicts[m.id] is None and (m.id in reasons if reasons else not known(m))]
        if survivors:
            out += ["", f"{title}: {len(survivors)}"]
            for m in survivors:
                out.append(f"  {m.id}\n      was: {m.original}\n      now: {m.mutated}")
                if reasons:
                    out.append(f"      why: {reasons[m.id]}")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    from mutants_equivalent import EQUIVALENT, HOLES

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebook", help="one notebook, by its number (03) or name")
    parser.add_argument("--sample", type=int, help="this many mutants per notebook (a fixed seed)")
    parser.add_argument("--jobs", type=int, default=1, help="grading processes (the machine is shared: 1)")
    parser.add_argument("--out", default="mutants-output", help="the folder the report is written to")
    parser.add_argument("--list", action="store_true", help="only list the mutants, grade nothing")
    args = parser.parse_args(argv)
    notebooks = [nb for nb in course_notebooks() if args.notebook is None or nb.startswith(args.notebook)]
    if not notebooks:
        parser.error(f"no notebook {args.notebook!r}")
    mutants = []
    for nb in notebooks:
        mutants += sample(mutants_of(nb), args.sample) if args.sample else mutants_of(nb)
    if args.list:
        for m in mutants:
            print(f"{m.id}\n    {m.mutated}")
        return 0
    started = time.monotonic()
    verdicts = grade_mutants(mutants, args.jobs)
    text = report(mutants, verdicts, EQUIVALENT, HOLES, time.monotonic() - started)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "mutants.txt").write_text(text, encoding="utf-8")
    results = [{**asdict(m), "killed_by": verdicts[m.id]} for m in mutants]
    (out / "mutants.json").write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(text, end="")
    print(f"(written to {out / 'mutants.txt'} and {out / 'mutants.json'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
