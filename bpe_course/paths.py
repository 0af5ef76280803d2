"""Where the course data lives.

Students run the notebooks from `notebooks/`, the grader from a work folder of its own, so the
data is found relative to this package (an editable install points back into the clone), or in
the folder named by the environment variable BPE_COURSE_DATA.
"""

import os
from pathlib import Path

DATA_DIR = Path(os.environ.get("BPE_COURSE_DATA") or Path(__file__).resolve().parent.parent / "data")


def data_path(name: str) -> Path:
    """The path of a course file under data/, with a clear error when it is missing."""
    path = DATA_DIR / name
    if not path.exists():
        raise FileNotFoundError(
            f"Файл курса не найден: {path}. Запускайте блокноты из клона репозитория "
            f"(make lab) или укажите папку data в переменной окружения BPE_COURSE_DATA."
        )
    return path


def read_text(name: str) -> str:
    """A course text, decoded as UTF-8."""
    return data_path(name).read_text(encoding="utf-8")
