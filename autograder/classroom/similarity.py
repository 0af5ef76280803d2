"""Which students' own code is alike, notebook by notebook: a list for the instructor to look at, never a penalty.

A student's own code is what the student wrote: the solution cells and the cells the student added
or changed. The course's cells (tests; given and lesson cells left as they are) are left out, and what
remains of the course's code in the rest (the stubs' signatures and docstrings, a given helper pasted again) is the
starter code: copydetect (winnowing, as MOSS; https://github.com/blingenf/copydetect, MIT) drops its
fingerprints, so two students who share only what the course gave them score 0. copydetect reads code
through its Python tokens — names become V/F, strings S, comments and spacing go — so renamed
variables, reordered functions and changed comments do not hide a copy.

A pair's score is the smaller of the two shares of each one's code found in the other (copydetect's
two similarities): a short function that every correct solution writes alike does not put its
author next to every long solution. Pairs at or above copydetect's display threshold are shown side
by side in similarity.html, the shared passages marked; similarity.csv lists every pair with a
score above 0, most similar first.

Students who pasted the same code are one group, not a list of pairs: three or more students linked by
pairs at or above CLUSTER (copies, renamed or not) are shown once — their names, the lowest score
between two of them, and the code once, the shared passages marked. Only the pairs that are not inside
one group are listed and shown side by side; similarity.csv keeps every pair, with its group's number.

The students' own code is kept in the work folder (similarity/<student>/<notebook>.json), so that
`python -m autograder similarity OUT` compares a class again without its submissions, and so are a
notebook's pairs (similarity-pairs/<notebook>.json), reused while no one's code changed: a rerun with
nothing new compares nothing. Fingerprints are not kept: copydetect hashes with Python's hash(),
salted anew in every process.
"""

import hashlib
import html
import io
import json
import tokenize
import types
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from ..course.cells import grade_id, is_solution, is_test
from ..course.course import CourseNotebook
from ..notebook.results import safe_text
from ..notebook.sanitize import MAX_NOTEBOOK_BYTES
from ..notebook.templating import Templates
from ..platforms.report import csv_writer
from .cache import atomic_write

NOISE = 25  # copydetect's defaults: no match shorter than 25 characters of its token text counts ...
GUARANTEE = 25  # ... and every match of 25 is found (window 1)
THRESHOLD = 0.33  # copydetect's DISPLAY_THRESHOLD: pairs at or above it are shown side by side
MAX_CODE = 100_000  # characters of a student's own code compared per notebook (honest solutions: a few thousand)
PAIRS_FORMAT = 2  # of the kept pairs (similarity-pairs/): changed when how a pair is made changes
SIDE_BY_SIDE = 30  # pairs per notebook shown side by side (the table lists every pair above the threshold)
CLUSTER = 0.9  # pairs at or above it link students into a group of the same code (copies score 0.95–1)
GROUP = 3  # students in the smallest group (two are a pair, shown side by side)
FIELDS = ["notebook", "student_a", "student_b", "score", "group"]
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'"
SIMILARITY_TEMPLATES = Templates(Path(__file__).parent / "templates")  # the report page, autoescaped


def cell_source(cell) -> str:
    source = cell.get("source", "") if isinstance(cell, dict) else ""
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def code_cells(notebook) -> list:
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    return [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"] if isinstance(cells, list) else []


def own_code(notebook, test_ids: set, course_sources: set) -> str:
    """The student's own code in a submitted notebook (its JSON, any shape): solution cells, cells the
    student added or changed; not the test cells (the course's own run in their place) nor any cell left
    exactly as the course gave it (a stub never touched, a given or lesson cell)."""
    parts = []
    for cell in code_cells(notebook):
        source = cell_source(cell)
        if source not in course_sources and (is_solution(cell) or grade_id(cell) not in test_ids):
            parts.append(source.strip("\n"))
    return "\n\n".join(p for p in parts if p.strip()) + "\n"


@dataclass(frozen=True)
class Starter:
    """What the course gave in one notebook: its test cells' grade ids, its code cells (the starter code)."""

    test_ids: set
    sources: set
    title: str = ""

    @classmethod
    def of(cls, course: CourseNotebook) -> "Starter":
        cells = code_cells(course.release)
        return cls({grade_id(c) for c in cells if is_test(c)}, {cell_source(c) for c in cells}, course.title)

    def code(self) -> list[str]:
        return sorted(self.sources)


def starters(notebooks: list[str]) -> dict[str, Starter]:
    """Each course notebook's starter code, as its students got it (notebooks/)."""
    return {name: Starter.of(CourseNotebook.load(name)) for name in notebooks}


# -- the store: each student's own code per notebook, kept in the work folder ---------------------
def store_path(work: Path, student: str, notebook: str) -> Path:
    return Path(work) / "similarity" / student / f"{notebook}.json"


def remember_code(work: Path, student: str, notebook: str, path: Path, starter: Starter) -> None:
    """Keep the student's own code of the submitted file `path` (its extraction skipped when neither the
    file nor the course's starter code changed). A file that cannot be read leaves nothing to compare."""
    target = store_path(work, student, notebook)
    try:
        data = Path(path).read_bytes() if Path(path).stat().st_size <= MAX_NOTEBOOK_BYTES else b""
    except OSError:
        data = b""
    key = hashlib.sha256(data + json.dumps(starter.code()).encode()).hexdigest()
    try:
        if json.loads(target.read_text(encoding="utf-8")).get("key") == key:
            return
    except (OSError, ValueError, AttributeError):
        pass
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, json.dumps({"key": key, "code": code_of(data, starter)}, ensure_ascii=False))


def code_of(data: bytes, starter: Starter) -> str:
    try:
        return own_code(json.loads(data.decode("utf-8")), starter.test_ids, starter.sources)[:MAX_CODE]
    except (ValueError, UnicodeDecodeError, RecursionError):
        return ""  # not a notebook: the grader reports it


def stored_code(work: Path, students: list[str], notebook: str) -> dict[str, str]:
    codes = {}
    for student in students:
        try:
            codes[student] = json.loads(store_path(work, student, notebook).read_text(encoding="utf-8"))["code"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return codes


# -- comparing ------------------------------------------------------------------------------------
@dataclass
class Pair:
    notebook: str
    a: str
    b: str
    score: float
    code_a: str = ""
    code_b: str = ""
    slices_a: tuple = ()
    slices_b: tuple = ()


def fingerprints(codes: dict[str, str], starter_code: list[str]) -> dict:
    """copydetect's fingerprints of each student's code, without any of the starter code's (every k-gram
    of each starter cell, as copydetect takes its boilerplate files)."""
    from copydetect import CodeFingerprint  # imported here: matplotlib comes with it

    def fingerprint(code, boilerplate=None, window=GUARANTEE - NOISE + 1):
        return CodeFingerprint("code.py", NOISE, window, boilerplate, language="python", fp=io.StringIO(code))

    starter = sorted(set().union(*(fingerprint(code, window=1).hashes for code in starter_code)))
    return {s: fingerprint(code, starter) for s, code in codes.items() if code.strip()}


def compare(notebook: str, codes: dict[str, str], starter_code: list[str]) -> list[Pair]:
    """Every pair of students with a score above 0, most similar first."""
    from copydetect import compare_files

    prints = fingerprints(codes, starter_code)
    given = given_text(starter_code)
    pairs = []
    for a, b in combinations(sorted(prints), 2):
        _, (share_a, share_b), (slices_a, slices_b) = compare_files(prints[a], prints[b])
        score = round(float(min(share_a, share_b)), 3)
        if score > 0:
            marks_a, marks_b = spans(codes[a], slices_a, given), spans(codes[b], slices_b, given)
            pairs.append(Pair(notebook, a, b, score, codes[a], codes[b], marks_a, marks_b))
    return sorted(pairs, key=lambda p: (-p.score, p.a, p.b))


def given_text(starter_code: list[str]) -> set:
    """The lines of the starter code's docstrings and comments: copydetect reads a docstring as one
    token, so a match that takes it in would mark the stub's whole docstring as shared."""
    lines = set()
    for source in starter_code:
        try:
            tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)]
        except (tokenize.TokenError, SyntaxError):
            continue
        for token in tokens:
            if token.type in (tokenize.STRING, tokenize.COMMENT):
                lines |= {line.strip() for line in token.string.splitlines() if line.strip()}
    return lines


def spans(code: str, slices, given: set) -> tuple:
    """copydetect's slices of `code` as (start, end) pairs, without the lines of the starter's text."""
    marked = bytearray(len(code))
    for start, end in zip(*slices) if len(slices) and len(slices[0]) else ():
        marked[int(start) : int(end)] = b"\x01" * len(marked[int(start) : int(end)])
    at = 0
    for line in code.splitlines(keepends=True):
        if line.strip() in given:
            marked[at : at + len(line)] = bytes(len(marked[at : at + len(line)]))
        at += len(line)
    runs, start = [], None
    for i, flag in enumerate([*marked, 0]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append((start, i))
            start = None
    return tuple(runs)


def compare_class(work: Path, students: list[str], notebooks: dict) -> list[Pair]:
    """notebooks: name → Starter. Every notebook's pairs, the notebooks in course order."""
    pairs = []
    for name, starter in notebooks.items():
        pairs += compared(work, name, stored_code(work, students, name), starter.code())
    return pairs


def compared(work: Path, notebook: str, codes: dict[str, str], starter_code: list[str]) -> list[Pair]:
    """`compare`'s pairs, those of the last run while no student's code and no starter code changed."""
    what = [PAIRS_FORMAT, sorted(codes.items()), starter_code, NOISE, GUARANTEE]
    key = hashlib.sha256(json.dumps(what).encode()).hexdigest()
    path = Path(work) / "similarity-pairs" / f"{notebook}.json"
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        if entry["key"] == key:
            return [
                Pair(notebook, a, b, score, codes[a], codes[b], tuple(map(tuple, sa)), tuple(map(tuple, sb)))
                for a, b, score, sa, sb in entry["pairs"]
            ]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    pairs = compare(notebook, codes, starter_code)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps({"key": key, "pairs": [[p.a, p.b, p.score, p.slices_a, p.slices_b] for p in pairs]}))
    return pairs


# -- groups of the same code ---------------------------------------------------------------------
@dataclass
class Group:
    """Students of one notebook whose code is the same: linked by pairs at or above CLUSTER."""

    notebook: str
    number: int  # 1, 2, … in the notebook, the largest first
    students: tuple
    lowest: float  # the lowest score between two of them (0 for two that share nothing found)
    shown: str  # whose code is shown: the one most like all the others
    code: str
    slices: tuple  # the passages of `code` shared with another of the group


def groups_of(pairs: list[Pair]) -> list[Group]:
    """Every notebook's groups (GROUP students or more), the notebooks in the pairs' order."""
    groups = []
    for notebook in dict.fromkeys(p.notebook for p in pairs):
        mine = [p for p in pairs if p.notebook == notebook]
        found = linked([p for p in mine if p.score >= CLUSTER])
        found = sorted((g for g in found if len(g) >= GROUP), key=lambda g: (-len(g), min(g)))
        groups += [group(notebook, i + 1, members, mine) for i, members in enumerate(found)]
    return groups


def linked(pairs: list[Pair]) -> list[set]:
    """The sets of students joined by `pairs` (connected components)."""
    parent: dict = {}

    def root(s):
        while parent.setdefault(s, s) != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for p in pairs:
        parent[root(p.a)] = root(p.b)
    sets: dict = {}
    for s in list(parent):
        sets.setdefault(root(s), set()).add(s)
    return list(sets.values())


def group(notebook: str, number: int, members: set, pairs: list[Pair]) -> Group:
    inside = [p for p in pairs if p.a in members and p.b in members]
    possible = len(members) * (len(members) - 1) // 2
    lowest = min(p.score for p in inside) if len(inside) == possible else 0.0
    closeness = {s: sum(p.score for p in inside if s in (p.a, p.b)) for s in members}
    shown = min(members, key=lambda s: (-closeness[s], s))
    code, slices = "", []
    for p in inside:
        if shown in (p.a, p.b):
            code = p.code_a if p.a == shown else p.code_b
            slices += p.slices_a if p.a == shown else p.slices_b
    return Group(notebook, number, tuple(sorted(members)), lowest, shown, code, tuple(merged(slices)))


def merged(slices: list) -> list:
    """(start, end) spans joined where they overlap."""
    runs: list = []
    for start, end in sorted(slices):
        if runs and start <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(runs[-1][1], end))
        else:
            runs.append((start, end))
    return runs


def group_number(groups: list[Group]) -> dict:
    """(notebook, student) → the number of the student's group."""
    return {(g.notebook, s): g.number for g in groups for s in g.students}


def in_a_group(pair: Pair, numbers: dict) -> int | None:
    """The group both students of the pair are in, if any."""
    number = numbers.get((pair.notebook, pair.a))
    return number if number is not None and numbers.get((pair.notebook, pair.b)) == number else None


# -- the report -----------------------------------------------------------------------------------
def write_csv(pairs: list[Pair], path: Path, groups: list[Group]) -> Path:
    ranked = sorted(pairs, key=lambda p: -p.score)  # stable: notebooks stay in course order among equals
    numbers = group_number(groups)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv_writer(f)
        writer.writerow(FIELDS)
        writer.writerows([p.notebook, p.a, p.b, f"{p.score:.3f}", in_a_group(p, numbers) or ""] for p in ranked)
    return path


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1400px;margin:2em auto;padding:0 1em;
color:#1f2328;line-height:1.5}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #d0d7de}
h3{font-size:1.05em;margin:1.4em 0 .4em} .note{color:#57606a}
table{border-collapse:collapse;margin:.6em 0} td,th{border:1px solid #d0d7de;padding:.3em .6em;text-align:left}
th{background:#f6f8fa} td.score{text-align:right;font-variant-numeric:tabular-nums}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:.3em 1em}
.pair h4{margin:.2em 0;font-size:.95em;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:.7em;border-radius:6px;font-size:.85em;
margin:0;max-height:40em;overflow:auto}
mark{background:#ffe08a;color:inherit}
.group{overflow-wrap:anywhere}
"""  # noqa: E501


def label(student: str, roster: dict) -> str:
    name = roster.get(student, "")
    return f"{name} ({student})" if name and name != student else student


def marked(code: str, slices: tuple) -> str:
    """`code`, escaped, with the shared passages in <mark>."""
    parts, at = [], 0
    for start, end in sorted(slices):
        start, end = max(start, at), min(end, len(code))
        if start >= end:
            continue
        parts += [html.escape(code[at:start]), "<mark>", html.escape(code[start:end]), "</mark>"]
        at = end
    return "".join([*parts, html.escape(code[at:])])


def section(number: int, title: str, pairs: list[Pair], roster: dict, groups: list[Group] = ()):
    """A notebook's part of the page: its groups of the same code, then its other pairs at or above the
    threshold — a table of them all, the first SIDE_BY_SIDE shown side by side, the shared code marked."""
    numbers = group_number(groups)
    above = [p for p in pairs if p.score >= THRESHOLD and in_a_group(p, numbers) is None]
    shown = above[:SIDE_BY_SIDE]
    anchors = [f"n{number}-{i}" for i in range(len(shown))]
    lowest = lambda g: (
        f"сходство любых двоих — не ниже {g.lowest:.2f}"
        if g.lowest
        else "у некоторых двоих общий код не найден: они связаны через других"
    )
    return types.SimpleNamespace(
        title=title,
        groups=[
            types.SimpleNamespace(
                anchor=f"n{number}-g{g.number}",
                number=g.number,
                count=len(g.students),
                names=", ".join(label(s, roster) for s in g.students),
                lowest=lowest(g),
                shown=label(g.shown, roster),
                code=marked(g.code, g.slices),
            )
            for g in groups
        ],
        above=[
            (label(p.a, roster), label(p.b, roster), f"{p.score:.2f}", anchors[i] if i < len(anchors) else "")
            for i, p in enumerate(above)
        ],
        other="другой " if groups else "",
        where=" вне групп" if groups else "",
        outside=sum(in_a_group(p, numbers) is None for p in pairs),
        below=sum(p.score < THRESHOLD for p in pairs),
        more=len(shown) < len(above),
        pairs=[
            types.SimpleNamespace(
                anchor=anchor,
                a=label(p.a, roster),
                b=label(p.b, roster),
                score=f"{p.score:.2f}",
                code_a=marked(p.code_a, p.slices_a),
                code_b=marked(p.code_b, p.slices_b),
            )
            for p, anchor in zip(shown, anchors)
        ],
    )


def page(pairs: list[Pair], notebooks: dict[str, str], roster: dict, groups: list[Group]) -> str:
    """notebooks: name → title, in course order."""
    compared = [n for n in notebooks if any(p.notebook == n for p in pairs)]
    sections = [
        section(i, notebooks[n], [p for p in pairs if p.notebook == n], roster, [g for g in groups if g.notebook == n])
        for i, n in enumerate(compared)
    ]
    quiet = ", ".join(n for n in notebooks if n not in compared)
    return safe_text(
        SIMILARITY_TEMPLATES.render(
            "similarity.html",
            csp=CSP,
            style=STYLE,
            sections=sections,
            threshold=f"{THRESHOLD:.2f}",
            quiet=quiet,
        )
    )


def write_report(pairs: list[Pair], notebooks: dict[str, str], roster: dict, out: Path) -> tuple[Path, Path]:
    groups = groups_of(pairs)
    csv_path = write_csv(pairs, Path(out) / "similarity.csv", groups)
    html_path = Path(out) / "similarity.html"
    html_path.write_text(page(pairs, notebooks, roster, groups), encoding="utf-8")
    return csv_path, html_path
