"""The class as the server recorded it: per student and notebook the attempt that counts, the progress
table of the instructor's page, and the same exports as `grade` (`export --from-server DATA`).

The attempt that counts is the last one graded before the due date (what a learning platform would
hold: the final submission); the instructor's page shows the best one next to it. A notebook a student
never uploaded is `missing`, as in `grade`; a student who uploaded nothing is not in the class's files.
"""

import json
from datetime import datetime
from pathlib import Path

from ..notebook.results import GRADED, MISSING, Result, result_from_dict
from .store import Store

SETTINGS = "assignment.json"


def remember(data: Path, notebooks: list[str], due: datetime | None, assignment: str) -> None:
    settings = {"notebooks": notebooks, "due": due.isoformat() if due else None, "assignment": assignment}
    (Path(data) / SETTINGS).write_text(json.dumps(settings, ensure_ascii=False, indent=1), encoding="utf-8")


def settings_of(data: Path) -> dict:
    try:
        return json.loads((Path(data) / SETTINGS).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise FileNotFoundError(f"{data}: not a course server's data folder (no {SETTINGS})") from e


def graded_attempts(store: Store, due: datetime | None) -> dict[tuple[str, str], list[dict]]:
    """(student, notebook) → its graded attempts before the due date, oldest first."""
    found: dict[tuple[str, str], list[dict]] = {}
    for a in sorted(store.attempts(), key=lambda a: a["id"]):
        if a["status"] == GRADED and a["result"] and not (due and datetime.fromtimestamp(a["uploaded"]) > due):
            found.setdefault((a["student"], a["notebook"]), []).append(a)
    return found


def class_results(store: Store, notebooks: list[str], due: datetime | None, max_scores: dict[str, float]):
    """(results of the attempts that count, best results, feedback pages by (student, notebook))."""
    found = graded_attempts(store, due)
    students = sorted({s for s, _ in found})
    last, best, pages = [], [], {}
    for student in students:
        for notebook in notebooks:
            attempts = found.get((student, notebook))
            if not attempts:
                missing = Result(student, notebook, 0, max_scores[notebook], MISSING, "not submitted")
                last.append(missing)
                best.append(missing)
                continue
            results = [result_from_dict(json.loads(a["result"])) for a in attempts]
            last.append(results[-1])
            best.append(max(results, key=lambda r: r.score))
            if attempts[-1]["feedback"]:
                pages[student, notebook] = attempts[-1]["feedback"]
    return last, best, pages


def export_from_server(
    data: Path, out: Path, kinds: list[str], assignment: str = "", language: str = "", worksheet=None, say=print
) -> Path:
    """OUT/ with grades and the exports `grade` writes, from the server's records."""
    from ..classroom.outputs import Outcome
    from ..cli import export_grades
    from ..course.course import CourseNotebook
    from ..platforms.report import write_grades_csv, write_roster

    settings = settings_of(data)
    notebooks = settings["notebooks"]
    due = datetime.fromisoformat(settings["due"]) if settings.get("due") else None
    store = Store(Path(data))
    max_scores = {n: CourseNotebook.load(n).max_score for n in notebooks}
    last, _, pages = class_results(store, notebooks, due, max_scores)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    roster = {s: n for s, n in store.students().items() if s in {r.student for r in last}}
    write_roster(roster, out)
    for (student, notebook), page in pages.items():
        (out / "feedback" / student).mkdir(parents=True, exist_ok=True)
        (out / "feedback" / student / f"{notebook}.html").write_text(page, encoding="utf-8")
    write_grades_csv(last, out / "grades.csv")
    outcome = Outcome(results=last, notebooks=notebooks, roster=roster)
    export_grades(kinds, outcome, out, assignment or settings.get("assignment", ""), language, worksheet=worksheet)
    return out
