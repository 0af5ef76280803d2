"""What grading one notebook produces: a status, points, and each test's points and message.

Every text of a result is made writable on construction (`safe_text`): a student's exception message
may hold lone surrogates ("\\udcff"), which no UTF-8 file, CSV, page or database takes.
"""

from dataclasses import asdict, dataclass, field

GRADED, MISSING, BROKEN, ERROR = "graded", "missing", "broken", "error"
NOT_GRADED = (BROKEN, ERROR)  # a problem to report: 0 points, and the instructor should look


def safe_text(text) -> str:
    """`text` with what UTF-8 cannot encode (lone surrogates) written as escapes (\\udcff)."""
    text = text if isinstance(text, str) else str(text)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def safe_strings(value):
    """A JSON-like structure (a notebook) with every string made writable by `safe_text`."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return type(value)({safe_text(k) if isinstance(k, str) else k: safe_strings(v) for k, v in value.items()})
    if isinstance(value, list):
        return [safe_strings(v) for v in value]
    return value


@dataclass
class TestResult:
    name: str
    score: float
    max_score: float
    message: str = ""
    optional: bool = False  # a deep-dive's test: its points count as extra, never against the grade

    def __post_init__(self):
        self.name, self.message = safe_text(self.name), safe_text(self.message)


# What a submission can do to the course's graded cells (autograder.notebook.guard.cell_changes), each kind in
# the words the instructor reads; the notebook is always graded by the course's own cells.
CHANGES = {
    "deleted": "удалён из блокнота",
    "duplicated": "повторён",
    "moved": "перемещён",
    "retyped": "ячейка теста стала ячейкой другого типа",
    "untagged": "у ячейки теста снята разметка nbgrader",
    "repointed": "у ячейки теста изменён grade_id",
    "edited": "код теста изменён",
    "unlocked": "снята защита от правки",
    "metadata": "изменена разметка ячейки",
    "outputs": "в ячейке теста вывод, которого тест не печатает",
    "foreign": "ячейка с разметкой nbgrader, которой нет в курсе",
}


@dataclass
class CellChange:
    """One thing a submission did to a graded cell of the course (or a cell it marked graded itself): the
    kind (a key of CHANGES), the cell's grade_id and what exactly changed, for the instructor."""

    kind: str
    cell: str
    detail: str = ""

    def __post_init__(self):
        self.kind, self.cell, self.detail = safe_text(self.kind), safe_text(self.cell), safe_text(self.detail)

    def text(self) -> str:
        """The line listed For review."""
        if self.kind == "foreign":
            return f"{CHANGES[self.kind]}: {self.detail}"[:300] + " — отброшена, не оценивается"
        said = f"тест «{self.cell}»: {CHANGES.get(self.kind, self.kind)}" + (f": {self.detail}" if self.detail else "")
        return said[:300] + " — проверен тестом курса, как он был выдан"


@dataclass
class Result:
    student: str
    notebook: str
    score: float
    max_score: float
    status: str
    message: str = ""  # for the instructor (English)
    tests: list[TestResult] = field(default_factory=list)
    review: list[str] = field(default_factory=list)  # what the instructor should look at, in words
    changes: list[CellChange] = field(default_factory=list)  # what the submission did to the graded cells
    feedback_error: str = ""  # why there is no feedback page, if there is none
    student_message: str = ""  # `message` in Russian for the student's page, where it is not a grade's
    # `score` and `max_score` are the core path's; a deep-dive's tests («Углубление») add `extra` points
    # out of `extra_max`, shown next to the grade and never part of its maximum or its percentage
    extra: float = 0.0
    extra_max: float = 0.0

    def __post_init__(self):
        self.student, self.notebook = safe_text(self.student), safe_text(self.notebook)
        self.message, self.feedback_error = safe_text(self.message), safe_text(self.feedback_error)
        self.student_message = safe_text(self.student_message)
        self.review = [safe_text(line) for line in self.review]
        self.changes = [c if isinstance(c, CellChange) else CellChange(**c) for c in self.changes]

    def to_dict(self) -> dict:
        return asdict(self)


def extra_note(result: Result) -> str:
    """« + 3 дополнительно (из 5)» when a deep-dive earned points, else ""."""
    if not result.extra:
        return ""
    return f" + {result.extra:g} дополнительно (из {result.extra_max:g})"


def result_from_dict(data: dict) -> Result:
    return Result(**{**data, "tests": [TestResult(**t) for t in data["tests"]]})
