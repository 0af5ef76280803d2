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


def remember(
    data: Path, notebooks: list[str], due: datetime | None, assignment: str, penalty=None, extensions=None
) -> None:
    settings = {
        "notebooks": notebooks,
        "due": due.isoformat() if due else None,
        "assignment": assignment,
        "late_penalty": penalty,
        "extensions": str(Path(extensions).resolve()) if extensions else None,
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


def server_policy(data: Path, penalty=None, extensions: str | None = None, say=print):
    """The late policy of the server's records: serve's --due, its --late-penalty (or `penalty`) and its
    --extensions (or `extensions`), the times being each upload's own (platforms.late.LatePolicy); None
    without a due date."""
    from ..platforms.late import LatePolicy, read_extensions

    settings = settings_of(data)
    penalty = settings.get("late_penalty") if penalty is None else penalty
    extensions = extensions or settings.get("extensions")
    if not settings.get("due"):
        if penalty is not None:
            say("note: --late-penalty ignored: the server has no --due, so no upload is late")
        return None
    return LatePolicy(
        datetime.fromisoformat(settings["due"]),
        penalty,
        extensions=read_extensions(Path(extensions), say) if extensions else {},
    )


def attempt_penalty(policy, attempt: dict):
    """The late policy's word on one upload (platforms.late.Penalty; None: nothing to say)."""
    return policy.penalty(attempt["student"], attempt["notebook"], uploaded(attempt)) if policy else None


def late_note_ru(policy, attempt: dict) -> str:
    """What the student's page says of an upload: on time, counted with a penalty, waived or not counted."""
    p = attempt_penalty(policy, attempt)
    if p is None:
        return ""
    if p.days > 0 and p.percent is None and not p.waived:
        return f"Сдано после срока ({p.due:%Y-%m-%d %H:%M}): в оценку не идёт, идёт последняя попытка до срока."
    counted = " В оценку идёт, только если так баллов больше, чем до срока." if p.days > 0 and p.fraction else ""
    return p.reason_ru() + counted


def counted_attempts(store: Store, notebooks: list[str], policy, say=print):
    """The attempt that counts per (student, notebook) for the exports, and the late policy:
    ({(student, notebook): attempt}, {(student, notebook): platforms.late.Penalty}).

    Each notebook's last graded attempt before the student's due date (serve's --due, or their
    extension) counts. Its last upload after it counts only under the late policy — with a penalty
    (`export --late-penalty PERCENT`, 0: in full) for the started days that upload was late (each
    notebook by its own upload time), or in full when the student's penalty is waived — and only when
    that leaves more points than the attempt before the due date (an upload after it, say to read a
    hidden test's message, never lowers a grade)."""
    every = graded_attempts(store)
    score = lambda a: json.loads(a["result"])["score"] if a else 0.0
    chosen, penalties, kept, unused = {}, {}, [], []
    for (student, notebook), attempts in sorted(every.items()):
        if notebook not in notebooks:
            continue
        final = attempts[-1]
        p = attempt_penalty(policy, final)
        if p is None or p.days <= 0:
            chosen[student, notebook] = final
            if p is not None:
                penalties[student, notebook] = p  # an extension: said with the grade
            continue
        early = [a for a in attempts if uploaded(a) <= p.due]
        label = f"{student}/{notebook.split('_')[0]}"
        if p.percent is None and not p.waived:
            unused.append(label)
        elif p.apply(score(final)) > score(early[-1] if early else None):
            chosen[student, notebook], penalties[student, notebook] = final, p
            continue
        else:
            kept.append(label)
        if early:
            chosen[student, notebook] = early[-1]
            earlier = attempt_penalty(policy, early[-1])
            if earlier is not None:
                penalties[student, notebook] = earlier
    if policy is not None:
        counted = {key: p for key, p in penalties.items() if p.days > 0 or p.extended or p.waived}
        say(f"late uploads (due {policy.due:%Y-%m-%d %H:%M}; each notebook by its own upload time):")
        late_work_said(counted, say)
    if kept:
        say(f"  counted before the due date (more points than late with the penalty): {', '.join(kept)}")
    if unused:
        say(
            f"uploads after the due date ({policy.due:%Y-%m-%d %H:%M}), not counted: {', '.join(unused)}; "
            "--late-penalty PERCENT counts them (PERCENT per started day; 0: in full)"
        )
    return chosen, penalties


def late_work_said(penalties: dict, say) -> None:
    from ..platforms.late import report

    if penalties:
        report(penalties, say)
    else:
        say("  none")


def export_from_server(
    data: Path,
    out: Path,
    kinds: list[str],
    assignment: str = "",
    language: str = "",
    worksheet=None,
    say=print,
    penalty: float | None = None,
    extensions: str | None = None,
) -> Path:
    """OUT/ with grades and the exports `grade` writes, from the server's records (the late policy:
    `counted_attempts`; penalty and extensions None: serve's --late-penalty and --extensions)."""
    from ..classroom.outputs import Outcome
    from ..classroom.workflow import export_grades
    from ..course.course import CourseNotebook
    from ..notebook.feedback import with_penalty
    from ..platforms.report import write_grades_csv, write_roster, write_wide_csv

    settings = settings_of(data)
    notebooks = settings["notebooks"]
    store = Store(Path(data))
    max_scores = {n: CourseNotebook.load(n).max_score for n in notebooks}
    chosen, late = counted_attempts(store, notebooks, server_policy(data, penalty, extensions, say), say)
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
    scores = {(r.student, r.notebook): r.score for r in results}
    for (student, notebook), page in pages.items():
        (out / "feedback" / student).mkdir(parents=True, exist_ok=True)
        page = with_penalty(page, late.get((student, notebook)), scores.get((student, notebook)))
        (out / "feedback" / student / f"{notebook}.html").write_text(page, encoding="utf-8")
    write_grades_csv(results, out / "grades.csv")
    write_wide_csv(results, notebooks, out / "grades_wide.csv", penalties=late)
    outcome = Outcome(results=results, notebooks=notebooks, roster=roster, penalties=late)
    column = assignment or settings.get("assignment", "")
    export_grades(kinds, outcome, out, column, language, late=late, worksheet=worksheet, late_in_canvas=True)
    return out
