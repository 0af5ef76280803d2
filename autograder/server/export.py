"""The class as the server recorded it: per student and notebook the attempt that counts, the progress
table of the instructor's page, and the same exports as `grade` (`export --from-server DATA`).

The attempt that counts is the last one graded before the due date (what a learning platform would
hold: the final submission); the instructor's page shows the best one next to it. Uploads after the
due date count in the exports only under the late policy (`counted_attempts`). A notebook a student
never uploaded is `missing`, as in `grade`; a student who uploaded nothing is not in the class's files.
"""

import json
from datetime import datetime
from pathlib import Path

from ..notebook.results import GRADED, MISSING, Result, result_from_dict
from .store import Store

SETTINGS = "assignment.json"


def remember(data: Path, notebooks: list[str], due: datetime | None, assignment: str, penalty=None) -> None:
    settings = {
        "notebooks": notebooks,
        "due": due.isoformat() if due else None,
        "assignment": assignment,
        "late_penalty": penalty,
    }
    (Path(data) / SETTINGS).write_text(json.dumps(settings, ensure_ascii=False, indent=1), encoding="utf-8")


def settings_of(data: Path) -> dict:
    try:
        return json.loads((Path(data) / SETTINGS).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise FileNotFoundError(f"{data}: not a course server's data folder (no {SETTINGS})") from e


def uploaded(attempt: dict) -> datetime:
    return datetime.fromtimestamp(attempt["uploaded"])


def graded_attempts(store: Store, due: datetime | None = None) -> dict[tuple[str, str], list[dict]]:
    """(student, notebook) → its graded attempts (before the due date, if one is given), oldest first."""
    found: dict[tuple[str, str], list[dict]] = {}
    for a in sorted(store.attempts(), key=lambda a: a["id"]):
        if a["status"] == GRADED and a["result"] and not (due and uploaded(a) > due):
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


REPORT = "report"  # DATA/report: the similarity report of the attempts that count (the code it keeps: work/)


def counted_files(store: Store, notebooks: list[str], due: datetime | None) -> dict[str, dict[str, Path]]:
    """student → {notebook: the uploaded file of the attempt that counts (the last graded before the due date)}."""
    files: dict[str, dict[str, Path]] = {}
    for (student, notebook), attempts in sorted(graded_attempts(store, due).items()):
        if notebook in notebooks:
            files.setdefault(student, {})[notebook] = store.data / "uploads" / f"{attempts[-1]['sha']}.ipynb"
    return files


def similarity_report(data: Path, files: dict, names: dict[str, str], notebooks: list[str]) -> list[dict]:
    """DATA/report/similarity.html and .csv for `files` (counted_files), made as `grade` makes them
    (classroom.workflow.compare_students: each student's own code, the starter code left out); its
    pairs, most similar first ({notebook, student_a, student_b, score}). Touches no records: it may run
    in a thread of its own. RuntimeError if the report could not be made."""
    import csv

    from ..classroom.workflow import compare_students
    from ..platforms.report import from_spreadsheet_cell, write_roster

    out = Path(data) / REPORT
    out.mkdir(parents=True, exist_ok=True)
    write_roster({s: names.get(s, s) for s in files}, out)
    (out / "similarity.csv").unlink(missing_ok=True)
    compare_students(files, notebooks, out, out / "work")
    try:
        with open(out / "similarity.csv", newline="", encoding="utf-8") as f:
            return [{k: from_spreadsheet_cell(v) for k, v in row.items()} for row in csv.DictReader(f)]
    except OSError as e:
        raise RuntimeError("the similarity report could not be made (the server's log says why)") from e


def counted_attempts(store: Store, notebooks: list[str], due: datetime | None, penalty: float | None, say=print):
    """The attempt that counts per (student, notebook) for the exports, and the late policy:
    ({(student, notebook): attempt}, {student: (days, penalty)}).

    Each notebook's last graded attempt before the due date counts. Uploads after it count only with a
    penalty (`export --late-penalty PERCENT`, 0: in full), as `grade` treats a late LMS submission: each
    notebook's last attempt, the student late by the started days from the due date to the latest of
    them, PERCENT of the total per day — and only when that leaves the student more points than their
    attempts before the due date (an upload after it, say to read a hidden test's message, never lowers
    a grade)."""
    from ..classroom.workflow import penalise
    from ..platforms.late import late_students
    from ..platforms.report import late_total

    if penalty is not None and not due:
        say("note: --late-penalty ignored: the server has no --due, so no upload is late")
    on_time, every = graded_attempts(store, due), graded_attempts(store)
    score = lambda a: json.loads(a["result"])["score"] if a else 0.0
    chosen, late, kept, unused = {}, [], [], []
    for student in sorted({s for s, _ in every}):
        early = {n: on_time[student, n][-1] for n in notebooks if (student, n) in on_time}
        final = {n: every[student, n][-1] for n in notebooks if (student, n) in every}
        after = [a for a in final.values() if due and uploaded(a) > due]
        take = early
        if after and penalty is not None:
            (when,) = late_students({student: max(uploaded(a) for a in after)}, due)
            if late_total(sum(map(score, final.values())), when.days, penalty) > sum(map(score, early.values())):
                take = final
                late.append(when)
            else:
                kept.append(student)
        elif after:
            unused += [f"{student}/{a['notebook'].split('_')[0]}" for a in after]
        chosen.update({(student, n): a for n, a in take.items()})
    policy = {}
    if due and (late or kept):
        policy = penalise(late, due, penalty, "the Moodle and Canvas grades")
    if kept:
        say(f"  counted before the due date (more points than late with the penalty): {', '.join(kept)}")
    if unused:
        say(
            f"uploads after the due date ({due:%Y-%m-%d %H:%M}), not counted: {', '.join(unused)}; "
            "--late-penalty PERCENT counts them (PERCENT per started day; 0: in full)"
        )
    return chosen, policy


def export_from_server(
    data: Path,
    out: Path,
    kinds: list[str],
    assignment: str = "",
    language: str = "",
    worksheet=None,
    say=print,
    penalty: float | None = None,
) -> Path:
    """OUT/ with grades and the exports `grade` writes, from the server's records (the late policy:
    `counted_attempts`; None: serve's --late-penalty)."""
    from ..classroom.outputs import Outcome
    from ..classroom.workflow import export_grades
    from ..course.course import CourseNotebook
    from ..platforms.report import write_grades_csv, write_roster

    settings = settings_of(data)
    notebooks = settings["notebooks"]
    due = datetime.fromisoformat(settings["due"]) if settings.get("due") else None
    penalty = settings.get("late_penalty") if penalty is None else penalty
    store = Store(Path(data))
    max_scores = {n: CourseNotebook.load(n).max_score for n in notebooks}
    chosen, late = counted_attempts(store, notebooks, due, penalty, say)
    results, pages = [], {}
    for student in sorted({s for s, _ in chosen}):
        for notebook in notebooks:
            attempt = chosen.get((student, notebook))
            if attempt is None:
                results.append(Result(student, notebook, 0, max_scores[notebook], MISSING, "not submitted"))
                continue
            results.append(result_from_dict(json.loads(attempt["result"])))
            if attempt["feedback"]:
                pages[student, notebook] = attempt["feedback"]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    roster = {s: n for s, n in store.students().items() if s in {r.student for r in results}}
    write_roster(roster, out)
    for (student, notebook), page in pages.items():
        (out / "feedback" / student).mkdir(parents=True, exist_ok=True)
        (out / "feedback" / student / f"{notebook}.html").write_text(page, encoding="utf-8")
    write_grades_csv(results, out / "grades.csv")
    outcome = Outcome(results=results, notebooks=notebooks, roster=roster)
    column = assignment or settings.get("assignment", "")
    export_grades(kinds, outcome, out, column, language, late=late, worksheet=worksheet, late_in_canvas=True)
    return out
