"""Helpers shared by the course notebooks and the autograder.

- `paths`    where the course data lives, wherever a notebook is run from;
- `vocab`    the vendored tiktoken vocabularies, checked by hash, usable offline;
- `display`  coloured token boundaries and the merge slider;
- `checks`   comparisons for test cells that explain a failure in Russian;
- `russian`  numbers with nouns in printed text («1 слияние», «72 токена»).
"""

from .display import show_tokens, slider
from .paths import DATA_DIR, data_path, read_text
from .russian import count, plural
from .vocab import offline_tiktoken

__all__ = ["DATA_DIR", "data_path", "read_text", "offline_tiktoken", "show_tokens", "slider", "count", "plural"]
