"""What grading one notebook produces: a status, points, and each test's points and message."""
from dataclasses import asdict, dataclass, field

GRADED, MISSING, BROKEN, ERROR = "graded", "missing", "broken", "error"
NOT_GRADED = (BROKEN, ERROR)  # a problem to report: 0 points, and the instructor should look


@dataclass
class TestResult:
    name: str
    score: float
    max_score: float
    message: str = ""


@dataclass
class Result:
    student: str
    notebook: str
    score: float
    max_score: float
    status: str
    message: str = ""
    tests: list[TestResult] = field(default_factory=list)
    review: list[str] = field(default_factory=list)   # code the instructor may want to look at
    feedback_error: str = ""                             # why there is no feedback page, if there is none

    def to_dict(self) -> dict:
        return asdict(self)


def result_from_dict(data: dict) -> Result:
    return Result(**{**data, "tests": [TestResult(**t) for t in data["tests"]]})
