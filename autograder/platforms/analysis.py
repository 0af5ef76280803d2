"""Item analysis of a graded class: which tests the class failed, and why; how scores spread.

Per test (as Gradescope's and PrairieLearn's question statistics): how many students it was run
for, how many failed it, the mean points, and the most common failure message among the students
who attempted it, with what was expected and what came instead (the message's first lines) — a stub
left as given (its NotImplementedError) is counted apart, as `untouched`, and never as a wrong answer,
so that the class's real mistakes are the ones named — and how many students' submissions changed its cell
(`changed_by`: deleted, edited, unlocked… it, autograder.notebook.guard.cell_changes). Per notebook: the
distribution of scores. Written as OUT/item_analysis.csv and OUT/item_analysis.html (with
matplotlib plots, embedded). Only graded notebooks count: a missing or broken one has no tests.
Messages come from tests about students' values: the page escapes them.
"""

import base64
import io
import types
from collections import Counter
from pathlib import Path

from ..notebook.results import GRADED, Result
from ..notebook.templating import Templates
from .report import csv_writer, points

ANALYSIS_TEMPLATES = Templates(Path(__file__).parent / "templates")  # the item analysis page, autoescaped

FIELDS = [
    "notebook",
    "test",
    "max_points",
    "graded",
    "failed",
    "failed_share",
    "mean_points",
    "most_common_message",
    "students_with_it",
    "untouched",
    "wrong_answers",
    "changed_by",
]
# what a stub the student never wrote fails with, and a quiz left unanswered
UNTOUCHED = ("NotImplementedError", "ещё не написана", "впишите ответы в ячейку с ответами")
MESSAGE_LINES = 4  # a failure's call, what was expected, what came, where they first differ (checks.check_equal)
MESSAGE_CHARS = 300  # per line


def summary(message: str) -> str:
    """What a failure message says, as the analysis groups and shows it: its first lines, without the hint."""
    lines = [line.rstrip()[:MESSAGE_CHARS] for line in (message or "").strip().splitlines()]
    lines = [line for line in lines if line and not line.startswith("Подсказка:")]
    return "\n".join(lines[:MESSAGE_LINES])


def untouched(message: str) -> bool:
    """A failure of a stub as the course gave it (the student did not attempt the task)."""
    return any(mark in (message or "") for mark in UNTOUCHED)


def attempted(row: dict) -> str:
    """A row's wrong answers among those who attempted the test, in words."""
    return f"{row['wrong_answers']} из {row['graded'] - row['untouched']}"


def item_rows(results: list[Result]) -> list[dict]:
    stats: dict[tuple, dict] = {}
    for r in results:
        if r.status != GRADED:
            continue
        for t in r.tests:
            row = stats.setdefault(
                (r.notebook, t.name),
                {"max": t.max_score, "n": 0, "failed": 0, "sum": 0.0, "messages": Counter(), "untouched": 0},
            )
            row["n"] += 1
            row["sum"] += t.score
            if t.score < t.max_score:
                row["failed"] += 1
                if untouched(t.message):  # counted apart: the stubs' NotImplementedError hides real mistakes
                    row["untouched"] += 1
                    continue
                row["messages"][summary(t.message)] += 1
    changed = Counter((r.notebook, c.cell) for r in results if r.status == GRADED for c in set_of_cells(r))
    rows = []
    for (notebook, test), row in stats.items():
        message, count = row["messages"].most_common(1)[0] if row["messages"] else ("", 0)
        rows.append(
            {
                "notebook": notebook,
                "test": test,
                "max_points": points(row["max"]),
                "graded": row["n"],
                "failed": row["failed"],
                "failed_share": f"{row['failed'] / row['n']:.2f}",
                "mean_points": f"{row['sum'] / row['n']:.2f}",
                "most_common_message": message,
                "students_with_it": count,
                "untouched": row["untouched"],
                "wrong_answers": row["failed"] - row["untouched"],
                "changed_by": changed[notebook, test],
            }
        )
    return rows


def set_of_cells(result: Result) -> list:
    """One change per test cell a result changed (a test deleted and duplicated counts once)."""
    return list({c.cell: c for c in result.changes}.values())


def for_review(results: list[Result], notebook: str) -> list[tuple[str, str]]:
    """(student, line) for each graded result of `notebook` with something listed For review."""
    return [(r.student, line) for r in results if r.notebook == notebook and r.status == GRADED for line in r.review]


def scores_by_notebook(results: list[Result]) -> dict[str, tuple[list[float], float]]:
    found: dict[str, tuple[list[float], float]] = {}
    for r in results:
        if r.status == GRADED:
            found.setdefault(r.notebook, ([], r.max_score))[0].append(r.score)
    return found


def plot(draw) -> str:
    """A matplotlib figure drawn by `draw(ax)`, as a PNG in base64 (the page embeds it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 2.6))
    draw(ax)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def failure_bars(ax, rows: list[dict]) -> None:
    """Per test, the share of the class that answered wrong, and next to it the share that never started."""
    names = [r["test"] for r in rows][::-1]
    wrong = [r["wrong_answers"] / r["graded"] for r in rows][::-1]
    stubs = [r["untouched"] / r["graded"] for r in rows][::-1]
    ax.barh(names, wrong, color="#c0392b", label="ошиблись")
    ax.barh(names, stubs, left=wrong, color="#bbbbbb", label="не начинали")
    ax.set_xlim(0, 1)
    ax.set_xlabel("доля класса")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)


def write_item_analysis(results: list[Result], out: Path, penalties: dict | None = None) -> tuple[Path, Path]:
    """item_analysis.csv and .html; the tests' figures are the raw points (what the code earned), and each
    notebook's late work (`penalties`: (student, notebook) → platforms.late.Penalty) is listed under it
    with the points after the penalty."""
    penalties = penalties or {}
    rows = item_rows(results)
    csv_path, html_path = Path(out) / "item_analysis.csv", Path(out) / "item_analysis.html"
    with open(csv_path, "w", newline="", encoding="utf-8", errors="backslashreplace") as f:
        writer = csv_writer(f)
        writer.writerow(FIELDS)
        writer.writerows([row[field] for field in FIELDS] for row in rows)
    notebooks = []
    for notebook, (scores, maximum) in scores_by_notebook(results).items():
        mine = [r for r in rows if r["notebook"] == notebook]
        late = [
            (r, penalties[r.student, notebook])
            for r in results
            if (r.student, notebook) in penalties and r.notebook == notebook and r.status == GRADED
        ]
        after = [r.score - r.score * p.fraction for r, p in late]
        notebooks.append(
            types.SimpleNamespace(
                name=notebook,
                count=len(scores),
                mean=sum(scores) / len(scores),
                maximum=points(maximum),
                histogram=plot(
                    lambda ax: (
                        ax.hist(scores, bins=min(20, int(maximum) + 1 or 1), range=(0, maximum or 1)),  # noqa: B023
                        ax.set_xlabel("баллы"),
                        ax.set_ylabel("студентов"),
                    )
                ),
                bars=plot(lambda ax: failure_bars(ax, mine)),  # noqa: B023
                rows=mine,
                late=[(r.student, points(r.score), points(p.apply(r.score)), p.reason_ru()) for r, p in late],
                late_mean=(sum(scores) - sum(r.score for r, _ in late) + sum(after)) / len(scores),
                review=for_review(results, notebook),
            )
        )
    page = ANALYSIS_TEMPLATES.render("item_analysis.html", notebooks=notebooks, attempted=attempted)
    html_path.write_text(page, encoding="utf-8", errors="backslashreplace")
    return csv_path, html_path
