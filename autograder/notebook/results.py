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

    def __post_init__(self):
        self.name, self.message = safe_text(self.name), safe_text(self.message)


@dataclass
class Result:
    student: str
    notebook: str
    score: float
    max_score: float
    status: str
    message: str = ""  # for the instructor (English)
    tests: list[TestResult] = field(default_factory=list)
    review: list[str] = field(default_factory=list)  # code the instructor may want to look at
    feedback_error: str = ""  # why there is no feedback page, if there is none
    student_message: str = ""  # `message` in Russian for the student's page, where it is not a grade's

    def __post_init__(self):
        self.student, self.notebook = safe_text(self.student), safe_text(self.notebook)
        self.message, self.feedback_error = safe_text(self.message), safe_text(self.feedback_error)
        self.student_message = safe_text(self.student_message)
        self.review = [safe_text(line) for line in self.review]

    def to_dict(self) -> dict:
        return asdict(self)


def result_from_dict(data: dict) -> Result:
    return Result(**{**data, "tests": [TestResult(**t) for t in data["tests"]]})
