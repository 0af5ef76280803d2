"""An assignment remembers its settings (issue 25 item 3), in-process: OUT/assignment.json, what a
rerun takes from it and says, exports that no longer apply removed, the Canvas column from
Canvas's gradebook export or --assignment (else refused), and the summary's two counts."""

import pytest

from autograder.classroom.outputs import Outcome
from autograder.classroom.workflow import export_grades
from autograder.cli import parser, record_assignment, remember_assignment
from autograder.notebook.results import GRADED, MISSING, Result
from autograder.platforms.exports import canvas_column

NB1 = "01_hand_example"


def args(*argv):
    return parser().parse_args(["grade", "class", *argv])


def test_a_rerun_uses_the_recorded_settings_and_says_what_changed(tmp_path, capsys):
    first = args("--notebooks", "01", "--export", "moodle", "--lms-language", "ru", "--due", "2026-12-01 23:59")
    first.late_penalty = 20.0
    remember_assignment(first, tmp_path)
    record_assignment(first, tmp_path)
    capsys.readouterr()
    rerun = args("--lms-language", "en")  # nothing else given: the due date and penalty are not dropped
    remember_assignment(rerun, tmp_path)
    record_assignment(rerun, tmp_path)
    said = capsys.readouterr().out
    assert (rerun.notebooks, rerun.export, rerun.due, rerun.late_penalty) == ("01", ["moodle"], "2026-12-01 23:59", 20)
    assert "due=2026-12-01 23:59" in said and "late-penalty=20.0" in said
    assert "lms-language: ru → en" in said
    dropped = args("--export", "none")
    remember_assignment(dropped, tmp_path)
    record_assignment(dropped, tmp_path)
    assert dropped.export == []
    again = args()
    remember_assignment(again, tmp_path)
    record_assignment(again, tmp_path)
    assert not again.export and again.lms_language == "en"


def outcome():
    return Outcome(
        results=[Result("1001", NB1, 17, 17, GRADED), Result("1002", NB1, 0, 17, MISSING)],
        notebooks=[NB1],
        roster={"1001": "Ivan Petrov"},
        from_cache=1,
        graded_now=1,
    )


def test_an_export_no_longer_asked_for_is_removed_not_left_stale(tmp_path):
    export_grades(["moodle", "canvas"], outcome(), tmp_path, "Homework 1 (4711)", "en")
    assert (tmp_path / "canvas_grades_import.csv").exists()
    export_grades(["moodle"], outcome(), tmp_path, "", "en")
    assert not (tmp_path / "canvas_grades_import.csv").exists()
    assert (tmp_path / "moodle_grading_worksheet.csv").exists()
    export_grades([], outcome(), tmp_path, "")
    assert not list(tmp_path.glob("*.csv"))


def gradebook(tmp_path, *assignments):
    path = tmp_path / "canvas_export.csv"
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *assignments]
    path.write_text(
        ",".join(f'"{c}"' for c in [*header, "Current Score", "Final Score"])
        + "\n    Points Possible,,,,,"
        + ",".join("17" for _ in assignments)
        + ",,\n",
        encoding="utf-8",
    )
    return str(path)


def test_the_canvas_column_comes_from_its_gradebook_export_or_is_refused(tmp_path):
    one = gradebook(tmp_path, "Домашнее задание 1 (4711)")
    assert canvas_column(one, "") == "Домашнее задание 1 (4711)"
    two = gradebook(tmp_path, "Homework 1 (4711)", "Homework 2 (4712)")
    assert canvas_column(two, "Homework 2") == "Homework 2 (4712)"
    assert canvas_column(two, "Homework 2 (4712)") == "Homework 2 (4712)"
    with pytest.raises(ValueError, match="say which with --assignment"):
        canvas_column(two, "")
    with pytest.raises(ValueError, match="is not one assignment"):
        canvas_column(two, "Homework 3")
    assert canvas_column(None, "Homework 1 (4711)") == "Homework 1 (4711)"
    assert canvas_column(None, "") == ""  # cmd_grade refuses --export canvas then, with the reason


def test_a_canvas_export_without_its_column_is_refused_with_the_reason(tmp_path):
    from autograder.cli import main

    (tmp_path / "class" / "1001").mkdir(parents=True)
    code = main(["grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--export", "canvas"])
    assert code == 2
    assert not (tmp_path / "out" / "assignment.json").exists()  # a refused option is not remembered
    export_grades(["canvas"], outcome(), tmp_path, "")
    assert not (tmp_path / "canvas_grades_import.csv").exists()


def test_the_summary_tells_this_runs_grading_from_the_cache():
    assert outcome().summary().startswith("graded 1: 1 this run (1 from earlier runs)")
