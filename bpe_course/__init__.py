"""Helpers shared by the course notebooks and the autograder.

- `paths`    where the course data lives, wherever a notebook is run from;
- `vocab`    the vendored tiktoken vocabularies, checked by hash, usable offline;
- `display`  coloured token boundaries, the merge slider, step-by-step pictures of training and encoding;
- `checks`   comparisons for test cells that explain a failure in Russian;
- `russian`  numbers with nouns in printed text («1 слияние», «72 токена»).
"""

from .display import encoding_steps, show_tokens, slider, training_steps
from .paths import DATA_DIR, data_path, read_text
from .russian import count, plural
from .vocab import offline_tiktoken

__all__ = [
    "DATA_DIR",
    "data_path",
    "read_text",
    "offline_tiktoken",
    "show_tokens",
    "slider",
    "training_steps",
    "encoding_steps",
    "count",
    "plural",
]
