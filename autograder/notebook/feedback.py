"""Feedback for the student, built from the grading results — never from the course's test code.

The page lists every test with its points and, when it failed, its message; then, exercise by
exercise, the student's own code with the output it gave while graded, followed by the tests
of that exercise. The student's extra cells appear where they were. Nothing else of the notebook is
used: test sources (hidden or not) never reach the page, and what the student's code printed
can only carry what was in its kernel. Everything is escaped; only plain text and PNG images
from the outputs are shown (a student's HTML output could run scripts in a reader's browser).
The page is one self-contained file: no scripts, no fonts or styles from the network. Its HTML is in
autograder/notebook/templates (autoescaped: autograder.notebook.templating).
"""

import base64
import binascii
import re
import types
from datetime import datetime
from pathlib import Path

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from ..course.cells import grade_id, is_solution, is_test
from .results import BROKEN, ERROR, GRADED, MISSING, Result, extra_note, safe_text
from .templating import Templates

FEEDBACK_TEMPLATES = Templates(Path(__file__).parent / "templates")

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
MAX_TEXT = 20_000
STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;
color:#1f2328;line-height:1.5}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #d0d7de}
.meta{color:#57606a} .total{font-size:1.3em;font-weight:600} .late{color:#9a6700;font-weight:600}
table{border-collapse:collapse;margin:1em 0;width:100%} td,th{border:1px solid #d0d7de;padding:.35em .6em;text-align:left;
vertical-align:top} th{background:#f6f8fa}
.pass{color:#1a7f37;font-weight:600} .fail{color:#cf222e;font-weight:600} .extra{color:#6e7781}
pre,.highlight pre{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;background:#f6f8fa;padding:.7em;
border-radius:6px;font-size:.9em;margin:.4em 0}
.output pre{background:#fff;border:1px solid #d0d7de} .error pre{background:#fff5f5;border:1px solid #ffc1c0}
.message pre{background:#fff8c5;border:1px solid #e9d57a}
.test{margin:.6em 0 .6em 1.2em} .note{color:#57606a;font-style:italic}
img{max-width:100%}
"""  # noqa: E501


def text_of(output) -> tuple[str, str]:
    """(kind, text or base64 PNG) for one output, or ("", "") if it shows nothing safe."""
    kind = output.get("output_type")
    if kind == "stream":
        return ("stream", output.get("text", ""))
    if kind == "error":
        lines = output.get("traceback") or [f"{output.get('ename', '')}: {output.get('evalue', '')}"]
        return ("error", ANSI.sub("", "\n".join(str(line) for line in lines)))
    if kind in ("display_data", "execute_result"):
        data = output.get("data", {})
        png = data.get("image/png")
        if isinstance(png, str):
            try:
                base64.b64decode(png.replace("\n", ""), validate=True)
                return ("png", png.replace("\n", ""))
            except (binascii.Error, ValueError):
                pass
        plain = data.get("text/plain")
        if isinstance(plain, str):
            return ("stream", plain)
    return ("", "")


def render_outputs(outputs) -> str:
    shown = []
    for output in outputs:
        kind, text = text_of(output)
        if kind and kind != "png" and len(text) > MAX_TEXT:
            text = text[:MAX_TEXT] + f"\n… (обрезано: всего {len(text)} символов)"
        if kind:
            shown.append((kind, text))
    return FEEDBACK_TEMPLATES.render("outputs.html", outputs=shown)


def render_test(test) -> str:
    return FEEDBACK_TEMPLATES.render("test.html", test=test, passed=test.score >= test.max_score)


def student_label(student: str, name: str = "") -> str:
    """How a page names the student: «Иван Петров (1001)», or the id alone when the roster has no name."""
    return f"{name} ({student})" if name and name != student else student


def feedback_html(result: Result, notebook, release, ran: set, title: str = "", name: str = "") -> str:
    """The feedback page of one graded notebook (`notebook`: the executed submission; `name`: the
    student's name from the roster)."""
    tests = {t.name: t for t in result.tests}
    course_ids = {c.get("id") for c in release.cells}
    formatter = HtmlFormatter(nowrap=False)
    if result.status != GRADED:
        return page(result, formatter, title, name, None)
    blocks = []
    for i, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        if is_test(cell):
            if grade_id(cell) in tests:
                blocks.append(types.SimpleNamespace(test=render_test(tests[grade_id(cell)])))
            continue
        own = is_solution(cell) or cell.get("id") not in course_ids
        if not own:
            continue
        blocks.append(
            types.SimpleNamespace(
                test="",
                label=f"Ваше решение: {grade_id(cell)}" if is_solution(cell) else "Ваша ячейка",
                code=highlight(cell.source, PythonLexer(), formatter) if cell.source.strip() else "",
                ran=i in ran,
                outputs=render_outputs(cell.get("outputs", [])),
            )
        )
    return page(result, formatter, title, name, blocks)


def with_penalty(page: str | None, penalty, score: float | None) -> str | None:
    """The page with the late policy's word under its total (`penalty`: platforms.late.Penalty; None:
    the page as it is): the reason, in Russian, and the points after the penalty."""
    if not page or penalty is None:
        return page
    after = ""
    if score is not None and penalty.fraction:
        after = f" Итог с учётом штрафа: {penalty.apply(score):g}."
    return with_late_note(page, penalty.reason_ru() + after)


def with_late_note(page: str, text: str) -> str:
    """The page with `text` (the late policy's word) under its total."""
    if not text:
        return page
    block = FEEDBACK_TEMPLATES.render("late_note.html", text=text)
    at = page.find('<p class="total">')
    end = page.find("</p>", at) if at >= 0 else -1
    if end < 0:
        return page.replace("<body>", "<body>" + block, 1)
    return page[: end + 4] + block + page[end + 4 :]


def review_section(result: Result) -> str:
    """The block only the instructor reads: what the result lists For review (what the submission did to the
    course's graded cells, code reaching for the grading machinery, figures the grader could not prove)."""
    return FEEDBACK_TEMPLATES.render("review.html", lines=result.review)


def instructor_view(page: str, result: Result) -> str:
    """The feedback page as the instructor sees it: the student's page with `review_section` at its top."""
    return page.replace("<body>", "<body>" + review_section(result), 1)


STATUS_MESSAGES = {  # what a student reads for each status that is not a grade
    BROKEN: "Файл не удалось прочитать как блокнот Jupyter, поэтому он не проверялся. Откройте его в "
    "JupyterLab, убедитесь, что он открывается и выполняется, сохраните (File → Save) и сдайте заново.",
    ERROR: "Блокнот не удалось проверить по вине проверяющей системы, а не вашей. Преподаватель запустит "
    "проверку ещё раз; сдавать заново не нужно.",
    MISSING: "Блокнот не сдан.",
}


def page(result: Result, formatter: HtmlFormatter, title: str, name: str, blocks: list | None) -> str:
    """The page: its head and total, then each block (None: the notebook was not graded; what to do instead,
    in Russian, then the technical reason, in Russian where the grader gave one: a broken file's)."""
    return safe_text(
        FEEDBACK_TEMPLATES.render(
            "feedback.html",
            result=result,
            style=STYLE + formatter.get_style_defs(".highlight"),
            title=title or result.notebook,
            label=student_label(result.student, name),
            when=datetime.now().strftime("%Y-%m-%d %H:%M"),
            blocks=blocks,
            extra=extra_note(result),
            what=STATUS_MESSAGES.get(result.status, "Блокнот не проверен."),
            why=result.student_message or result.message,
        )
    )
