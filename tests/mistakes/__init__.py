"""Known student mistakes and alternative correct solutions, as replacements of solution cells.

One module per notebook (nb01.py, nb02.py, …) defines its MISTAKES and ALTERNATIVES.

Each Mistake names the test that is meant to catch it and words its message must contain, so
a test that stops catching the mistake, or catches it with an unhelpful message, fails.

A mistake that differs from the reference answer in a few lines is written as that difference:
`edited(notebook, cell, (old, new), ...)` reads the solution cell from solutions/ and makes the
edits, so the entry says only what the student got wrong and follows the solution when it changes.
A different approach (another algorithm, another data structure) is written out once, and its own
mistakes as `edit(BASE, (old, new), ...)` of that text.
"""

import functools
from dataclasses import dataclass

from autograder.course.simulate import solution_sources


@dataclass(frozen=True)
class Mistake:
    id: str
    notebook: str
    cell: str  # grade_id of the solution cell replaced
    source: str
    caught_by: str  # grade_id of the test cell that must lose its points
    message: str  # words the failure message must contain (Russian)


@dataclass(frozen=True)
class Alternative:
    id: str
    notebook: str
    cell: str
    source: str


class EditError(ValueError):
    """An edit that no longer fits the solution it edits: the entry is stale, not the solution wrong."""


@functools.cache
def _solutions(notebook: str) -> dict[str, str]:
    return solution_sources(notebook)


def solution(notebook: str, cell: str) -> str:
    """The reference answer of the solution cell `cell` (its grade_id) of solutions/NOTEBOOK.ipynb, as a
    student who solved it would have written it: the cell without its ### BEGIN/END SOLUTION lines."""
    try:
        return _solutions(notebook)[cell]
    except KeyError:
        raise EditError(f"{notebook} has no solution cell {cell!r}") from None


def edited(notebook: str, cell: str, *edits: tuple[str, str]) -> str:
    """The reference answer of `cell` with each edit (old, new) made in turn: `old` — a part of a line or
    several whole lines, written as they stand in the solution, indentation included — is replaced by
    `new`. Each `old` must stand exactly once in the text it edits: an edit that finds nothing or more
    than one place raises EditError naming the cell, so an entry the solution has moved away from fails
    when the catalogue is imported instead of quietly grading the unchanged solution. A long `old` is
    written as (first, last): the text from `first` through `last`, each standing once in it."""
    return edit(solution(notebook, cell), *edits, where=f"{notebook}/{cell}")


def edit(source: str, *edits: tuple[str, str], where: str = "the base") -> str:
    """`source` with each edit (old, new) made in turn, under `edited`'s rule (each `old` stands exactly
    once). For mistakes of another approach than the solution's: several entries written as edits of
    one version of that approach (a module constant) instead of copies of it."""
    for old, new in edits:
        if isinstance(old, tuple):  # (first, last): the text from `first` through `last`, each standing once
            first, last = old
            for part in old:
                if source.count(part) != 1:
                    raise EditError(
                        f"{where}: the edit's old text stands {source.count(part)} times in it (it must stand once):\n{part}"
                    )
            start, end = source.index(first), source.index(last) + len(last)
            if end - len(last) < start + len(first):
                raise EditError(f"{where}: the edit's last line stands before its first:\n{first}\n{last}")
            source = source[:start] + new + source[end:]
            continue
        found = source.count(old)
        if found != 1:
            raise EditError(f"{where}: the edit's old text stands {found} times in it (it must stand once):\n{old}")
        source = source.replace(old, new)
    return source


def _collect():
    """MISTAKES and ALTERNATIVES of every nbNN module in this package, in notebook order."""
    import importlib
    import pkgutil

    mistakes, alternatives = [], []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        mistakes += getattr(module, "MISTAKES", [])
        alternatives += getattr(module, "ALTERNATIVES", [])
    return mistakes, alternatives


MISTAKES, ALTERNATIVES = _collect()
