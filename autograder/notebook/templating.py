"""The grader's HTML pages are templates (Tornado's engine) with autoescape: every `{{ value }}` is escaped
by `escape` (html.escape, quotes too) unless a template says `{% raw value %}` — only for HTML the grader
itself made (a page's block rendered by another template, pygments' highlighted code, the xsrf field).
Whitespace runs in a template's own text are made one space (`oneline`), and a page is stripped of the
space its file's last newline leaves. A lone surrogate (a student's text may hold one) passes through as it
is, for the page's writer to escape (`autograder.notebook.results.safe_text`), as it did before templates."""

import html
from pathlib import Path

from tornado.template import Loader


def escape(value) -> str:
    """The templates' autoescape: html.escape, quotes too, of the text Tornado hands it as UTF-8."""
    return html.escape(value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else str(value))


def utf8(value) -> bytes | None:
    """Tornado's text → UTF-8 inside a template (its `_tt_utf8`), letting lone surrogates pass."""
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value


class Templates:
    """The templates of one folder; `render(template, **values)` gives a page or a block of one, as text."""

    def __init__(self, folder: Path):
        self.loader = Loader(str(folder), autoescape="escape", whitespace="oneline")

    def render(self, template: str, **values) -> str:
        page = self.loader.load(template).generate(escape=escape, _tt_utf8=utf8, **values)
        return page.decode("utf-8", "surrogatepass").strip()
