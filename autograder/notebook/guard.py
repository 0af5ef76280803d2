"""A report for the instructor: student code that reaches for the grading machinery.

This is not a defence. Checks run in the grader's process and only plain data comes out of the
student's kernel (autograder.notebook.evaluate), so replacing check helpers, builtins, IPython's traceback
display or input transformers inside the kernel gains nothing. A student who tries is still worth
a conversation: this scan reads every cell the student wrote or changed (the course's own cells,
unchanged, are not read) and names each suspicious line. The notebook is graded as usual; the
findings are listed next to its grade for review.
"""

import ast
import io
import re
import tokenize

import nbformat

from ..course.cells import grade_id, is_solution, is_test, nbgrader_meta
from .results import CellChange

# names whose mere use in a student's cell is a reason to look: this course never needs them
SUSPICIOUS_NAMES = {
    "builtins": "меняет встроенные функции Python",
    "__builtins__": "меняет встроенные функции Python",
    "get_ipython": "меняет поведение IPython",
    "input_transformers_cleanup": "перехватывает текст следующих ячеек",
    "input_transformers_post": "перехватывает текст следующих ячеек",
    "ast_transformers": "перехватывает код следующих ячеек",
    "showtraceback": "прячет ошибки",
    "settrace": "следит за выполнением тестов",
    "setprofile": "следит за выполнением тестов",
    "ctypes": "меняет память интерпретатора",
    "get_referrers": "ищет объекты тестов",
    "excepthook": "прячет ошибки",
    "displayhook": "подменяет вывод результатов ячеек",
    "importlib": "загружает модули в обход import",
    "_bpe_agent": "трогает агента проверки",
    "b64decode": "расшифровывает спрятанный код",
    "exec": "выполняет код из строки",
    "eval": "выполняет код из строки",
}
PROTECTED_MODULES = ("bpe_course", "sys.modules", "importlib", "IPython")
SUSPICIOUS_TEXT = {
    "/proc/self/fd": "ищет открытые файлы и сокеты ядра (канал агента проверки)",
}


def _parse(source: str):
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def suspicious_lines(
    source: str, course_lines: frozenset = frozenset(), course_names: frozenset = frozenset()
) -> list[str]:
    """Human-readable findings for one cell's source. A line the course itself has (`course_lines`)
    and a name the course's own notebook uses (`course_names`: 08's hints say base64.b64decode)
    are the course's, not the student's reaching for the machinery."""
    found = []
    rows = source.splitlines()
    ours = lambda lineno: 0 < lineno <= len(rows) and rows[lineno - 1].strip() in course_lines
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        tokens = []
    for tok in tokens:
        if ours(tok.start[0]):
            continue
        if tok.type == tokenize.NAME and tok.string in SUSPICIOUS_NAMES and tok.string not in course_names:
            found.append(f"строка {tok.start[0]}: `{tok.line.strip()}` — {SUSPICIOUS_NAMES[tok.string]}")
        if tok.type == tokenize.STRING:
            for text, why in SUSPICIOUS_TEXT.items():
                if text in tok.string:
                    found.append(f"строка {tok.start[0]}: `{tok.line.strip()}` — {why}")
    tree = _parse(source)
    if tree is not None:
        for node in ast.walk(tree):
            if ours(getattr(node, "lineno", 0)):
                continue
            targets = []
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr")
            ):
                targets = node.args[:1]
            for target in targets:
                text = ast.unparse(target)
                if (
                    any(text.startswith(m) or f" {m}" in text for m in PROTECTED_MODULES)
                    or "checks" in text.split(".")[:-1]
                ):
                    found.append(
                        f"строка {getattr(node, 'lineno', '?')}: `{ast.unparse(node)[:120]}` — "
                        "подменяет модуль, которым пользуются тесты"
                    )
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                module = node.module if isinstance(node, ast.ImportFrom) else None
                names = [module or ""] + [a.name for a in node.names]
                if any(n == "bpe_course.checks" or n.startswith("IPython") for n in names if n):
                    found.append(f"строка {node.lineno}: `{ast.unparse(node)}` — импорт механизмов проверки")
    return list(dict.fromkeys(found))


def tampering(submitted: nbformat.NotebookNode, release: nbformat.NotebookNode) -> list[str]:
    """Findings in the cells the student wrote or changed; [] when there are none."""
    course_sources = {c.get("id"): c.source for c in release.cells}
    fixed = {c.get("id") for c in release.cells if grade_id(c) and not is_solution(c)}
    course_cells = {c.source for c in release.cells if c.cell_type == "code"}
    course_lines = frozenset(line.strip() for source in course_cells for line in source.splitlines() if line.strip())
    course_names = frozenset(
        name
        for name in SUSPICIOUS_NAMES
        if any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", c.source) for c in release.cells if c.cell_type == "code")
    )
    findings = []
    for number, cell in enumerate(submitted.cells, start=1):
        if cell.cell_type != "code" or cell.get("id") in fixed:
            continue
        if course_sources.get(cell.get("id")) == cell.source or cell.source in course_cells:
            continue  # a lesson cell as the course wrote it (also when saved without cell ids)
        findings += [f"ячейка {number}, {line}" for line in suspicious_lines(cell.source, course_lines, course_names)]
    return findings


GRADING_FIELDS = {"grade": "оценивается", "points": "баллы", "solution": "ответ студента"}
START = "начала блокнота"  # what a cell first in the notebook follows
LOCK_FIELDS = ("locked", "checksum")  # nbgrader's; and the cell's own "editable", "deletable"


def cell_changes(submitted: nbformat.NotebookNode, release: nbformat.NotebookNode) -> list[CellChange]:
    """What the submission did to the course's test cells — deleted, duplicated, moved, turned into another
    kind of cell, stripped of their nbgrader metadata, re-pointed to another grade_id, edited, unlocked,
    retagged, given outputs the test never prints — and the cells it marked graded itself; [] for an honest
    one. (The grade is not changed by it: the tests always come from the course, autograder.notebook.normalize.)"""
    by_grade_id, by_id = {}, {}
    for cell in submitted.cells:
        by_grade_id.setdefault(grade_id(cell), []).append(cell)
        by_id.setdefault(cell.get("id"), cell)
    found = []
    for original in release.cells:
        if not is_test(original):
            continue
        g = grade_id(original)
        same = by_grade_id.get(g, [])
        if len(same) > 1:
            found.append(CellChange("duplicated", g, f"в блокноте {len(same)} ячейки с его grade_id, лишние отброшены"))
        cell = same[0] if same else by_id.get(original.get("id"))
        if cell is None:
            found.append(CellChange("deleted", g))
            continue
        if not same:
            moved = grade_id(cell)
            found.append(CellChange("repointed", g, f"«{moved}»") if moved else CellChange("untagged", g))
        if cell.get("cell_type") != "code":
            found.append(CellChange("retyped", g, f"code → {cell.get('cell_type')}"))
        if cell.source.strip() != original.source.strip():
            found.append(CellChange("edited", g))
        if same:
            found += metadata_changes(g, cell, original)
        found += forged_outputs(g, cell, original)
    return found + moved_tests(submitted, release) + foreign_cells(submitted, release)


def metadata_changes(g: str, cell, original) -> list[CellChange]:
    """A test cell's metadata as the submission has it against the course's: the lock (nbgrader's `locked` and
    `checksum`, the cell's `editable`, `deletable`; its id said with them), the other nbgrader fields, the tags."""
    theirs, ours = nbgrader_meta(cell), nbgrader_meta(original)
    mine, given = cell.get("metadata") or {}, original.get("metadata") or {}
    mine = mine if isinstance(mine, dict) else {}
    lock = [
        f"{key}: {ours.get(key)!r} → {theirs.get(key)!r}" for key in LOCK_FIELDS if theirs.get(key) != ours.get(key)
    ]
    lock += [
        f"{key}: {given.get(key)!r} → {mine.get(key)!r}"
        for key in ("editable", "deletable")
        if mine.get(key) != given.get(key)
    ]
    if lock and cell.get("id") and cell.get("id") != original.get("id"):
        lock.append(f"id ячейки: «{original.get('id')}» → «{cell.get('id')}»")
    found = [CellChange("unlocked", g, ", ".join(lock)[:200])] if lock else []
    for key in sorted(set(theirs) | set(ours), key=str):
        if key not in LOCK_FIELDS and key != "grade_id" and theirs.get(key) != ours.get(key):
            what = GRADING_FIELDS.get(key, key)
            found.append(CellChange("metadata", g, f"поле «{what}»: {ours.get(key)!r} → {theirs.get(key)!r}"[:200]))
    if mine.get("tags") != given.get("tags"):
        found.append(CellChange("metadata", g, f"теги: {given.get('tags')!r} → {mine.get('tags')!r}"[:200]))
    return found


def forged_outputs(g: str, cell, original) -> list[CellChange]:
    """Outputs in a test cell that the course's test cannot print: a value (no test cell of the course ends in
    an expression with a value, tests/test_tampering.py), or anything at all in a cell with no code (a hidden
    test's place). nbgrader would read a test's value as its points; this grader never reads them."""
    outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
    empty = _parse(original.source) is not None and not _parse(original.source).body
    forged = [o for o in outputs if isinstance(o, dict) and (empty or o.get("output_type") == "execute_result")]
    if not forged:
        return []
    data = forged[0].get("data") if isinstance(forged[0].get("data"), dict) else {}
    text = data.get("text/plain", forged[0].get("text", ""))
    text = "".join(text) if isinstance(text, list) else str(text)
    return [CellChange("outputs", g, f"{forged[0].get('output_type')} «{text.strip()[:80]}» ({len(forged)} в ячейке)")]


def moved_tests(submitted: nbformat.NotebookNode, release: nbformat.NotebookNode) -> list[CellChange]:
    """The test cells out of the course's order in the submission: those outside the longest run of the
    course's cells that keeps the course's order (ties keep the tests in it, so a test is named only when it moved)."""
    rank = {grade_id(c): i for i, c in enumerate(release.cells) if grade_id(c)}
    tests = {grade_id(c) for c in release.cells if is_test(c)}
    order = list(dict.fromkeys(grade_id(c) for c in submitted.cells if grade_id(c) in rank))
    # the heaviest increasing subsequence of ranks: every cell weighs 2, a test 1 more (O(n²), n ≈ 100)
    weight = [2 + (g in tests) for g in order]
    best, before = weight[:], [-1] * len(order)
    for i in range(len(order)):
        for j in range(i):
            if rank[order[j]] < rank[order[i]] and best[j] + weight[i] > best[i]:
                best[i], before[i] = best[j] + weight[i], j
    kept, i = set(), max(range(len(order)), key=best.__getitem__, default=-1)
    while i >= 0:
        kept.add(order[i])
        i = before[i]
    graded = sorted(rank, key=rank.__getitem__)
    course_before = dict(zip(graded[1:], graded))
    previous = {g: (order[k - 1] if k else None) for k, g in enumerate(order)}
    return [
        CellChange(
            "moved",
            g,
            f"стоит после «{previous[g] or START}», в курсе — после «{course_before.get(g, START)}»",
        )
        for g in order
        if g in tests and g not in kept
    ]


def foreign_cells(submitted: nbformat.NotebookNode, release: nbformat.NotebookNode) -> list[CellChange]:
    """The submission's cells with nbgrader metadata the course does not have (a cell of the student's own
    marked `grade: true` with 1,000 points, say): dropped from the graded notebook (autograder.notebook.normalize)."""
    known = {grade_id(c) for c in release.cells if grade_id(c)}
    found = []
    for number, cell in enumerate(submitted.cells, start=1):
        meta = nbgrader_meta(cell)
        if not meta or grade_id(cell) in known:
            continue
        said = [f"ячейка {number}", f"grade_id {grade_id(cell)!r}"]
        said += [f"«{what}»: {meta[key]!r}" for key, what in GRADING_FIELDS.items() if key in meta]
        found.append(CellChange("foreign", grade_id(cell) or "", ", ".join(said)[:200]))
    return found
