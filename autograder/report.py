"""What grading produces: grades.csv, the grade table, and a per-test report."""
import csv
import json
from dataclasses import asdict
from pathlib import Path

from .results import GRADED, Result

CSV_FIELDS = ["student_id", "notebook", "score", "max_score", "status", "message"]


def points(x: float) -> str:
    return f"{x:g}"


def write_grades_csv(results: list[Result], path: Path) -> Path:
    """One row per student and notebook, in the order graded."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_FIELDS)
        for r in results:
            writer.writerow([r.student, r.notebook, points(r.score), points(r.max_score), r.status,
                             r.message.replace("\n", " | ")])
    return path


def write_wide_csv(results: list[Result], notebooks: list[str], path: Path) -> Path:
    """One row per student, one column per notebook, and the total: for a gradebook upload."""
    scores: dict[str, dict[str, float]] = {}
    for r in results:
        scores.setdefault(r.student, {})[r.notebook] = r.score
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", *notebooks, "total"])
        for student, row in scores.items():
            writer.writerow([student, *(points(row.get(n, 0)) for n in notebooks), points(sum(row.values()))])
    return path


def write_results_json(results: list[Result], path: Path) -> Path:
    """Everything known about each graded notebook, test by test, for scripts and tools."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([asdict(r) for r in results], ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def grade_table(results: list[Result], notebooks: list[str]) -> str:
    """Students × notebooks, points / max, with a total column and a note for non-graded cells."""
    by_key = {(r.student, r.notebook): r for r in results}
    students = list(dict.fromkeys(r.student for r in results))
    header = ["student", *notebooks, "total"]
    rows = []
    for s in students:
        cells, total, total_max = [], 0.0, 0.0
        for n in notebooks:
            r = by_key.get((s, n))
            if r is None:
                cells.append("")
                continue
            note = "" if r.status == GRADED else f" ({r.status})"
            cells.append(f"{points(r.score)}/{points(r.max_score)}{note}")
            total += r.score
            total_max += r.max_score
        rows.append([s, *cells, f"{points(total)}/{points(total_max)}"])
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    line = lambda row: "  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def test_report(result: Result) -> str:
    """Each test of one notebook with its points and, if it failed, why (for a student: in Russian)."""
    status = {"graded": "проверен", "broken": "файл не читается", "error": "не удалось проверить"}.get(
        result.status, result.status)
    lines = [f"{result.notebook}: {points(result.score)} из {points(result.max_score)} ({status})"]
    if result.status != GRADED:
        lines.append("  " + result.message)
    for t in result.tests:
        mark = "ок  " if t.score >= t.max_score else "НЕТ "
        lines.append(f"  {mark} {t.name}  {points(t.score)}/{points(t.max_score)}")
        if t.message and t.score < t.max_score:
            lines.extend("         " + m for m in t.message.splitlines())
    return "\n".join(lines)
