"""Known student mistakes and alternative correct solutions, as replacements of solution cells.

One module per notebook (nb01.py, nb02.py, …) defines its MISTAKES and ALTERNATIVES.

Each Mistake names the test that is meant to catch it and words its message must contain, so
a test that stops catching the mistake, or catches it with an unhelpful message, fails.
"""

from dataclasses import dataclass


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
