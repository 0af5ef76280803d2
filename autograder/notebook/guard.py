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


GRADING_FIELDS = {"grade": "отметка «оценивается»", "points": "баллы", "solution": "отметка «ответ студента»"}


def test_cell_changes(submitted: nbformat.NotebookNode, release: nbformat.NotebookNode) -> list[str]:
    """What the submission did to the course's test cells — deleted, edited, retagged, re-pointed to
    another grade_id — in words for the instructor; [] for an honest one. (The grade is not changed
    by it: the tests always come from the course, autograder.notebook.normalize.)"""
    by_grade_id, by_id = {}, {}
    for cell in submitted.cells:
        by_grade_id.setdefault(grade_id(cell), []).append(cell)
        by_id.setdefault(cell.get("id"), cell)
    found = []
    for original in release.cells:
        if not is_test(original):
            continue
        g, said = grade_id(original), f"тест «{grade_id(original)}»"
        same = by_grade_id.get(g, [])
        if len(same) > 1:
            found.append(f"{said}: в блокноте {len(same)} ячейки с его grade_id (лишние отброшены)")
        cell = same[0] if same else by_id.get(original.get("id"))
        if cell is None:
            found.append(f"{said} удалён из блокнота")
            continue
        if not same:
            moved = grade_id(cell)
            found.append(
                f"{said}: у ячейки теста grade_id изменён на «{moved}»"
                if moved
                else f"{said}: у ячейки теста снята разметка nbgrader"
            )
        if cell.source.strip() != original.source.strip():
            found.append(f"{said}: код теста изменён")
        theirs, ours = nbgrader_meta(cell), nbgrader_meta(original)
        for key, what in GRADING_FIELDS.items():
            if same and theirs.get(key) != ours.get(key):
                found.append(f"{said}: изменено поле «{what}» ({ours.get(key)!r} → {theirs.get(key)!r})"[:300])
    return [line + " — проверен тестом курса, как он был выдан" for line in found]
