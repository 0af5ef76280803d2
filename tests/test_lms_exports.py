"""Upload files, in-process: only a complete run writes them as final; names cannot break Moodle's
folder rule; Canvas warns about Moodle ids. (The full round trip: test_round_trip.py.)"""

import csv

import lms_importers

from autograder.classroom.outputs import Outcome, write_outputs
from autograder.classroom.workflow import export_grades
from autograder.notebook.results import GRADED, Result
from autograder.platforms.lms import moodle_folder, write_moodle_feedback_zip, write_moodle_worksheet

NB1, NB2 = "01_hand_example", "02_byte_level_training"


def outcome(pending=(), interrupted=False):
    results = [Result("1001", NB1, 17, 17, GRADED), Result("1002", NB1, 5, 17, GRADED)]
    if not pending:
        results += [Result("1001", NB2, 20, 20, GRADED), Result("1002", NB2, 20, 20, GRADED)]
    return Outcome(
        results=results,
        notebooks=[NB1, NB2],
        pending=list(pending),
        interrupted=interrupted,
        roster={"1001": "Ivan Petrov", "1002": "Anna Ivanova"},
    )


def test_an_incomplete_run_writes_nothing_that_looks_final(tmp_path, capsys):
    export_grades(["moodle", "canvas"], outcome(), tmp_path, "Homework 1 (1)")  # a finished run first
    assert (tmp_path / "moodle_grading_worksheet.csv").exists()
    partial = outcome(pending=[("1001", NB2), ("1002", NB2)], interrupted=True)
    write_outputs(partial, [NB1, NB2], tmp_path)
    export_grades(["moodle", "canvas"], partial, tmp_path, "Homework 1 (1)")
    said = capsys.readouterr().out
    assert "PARTIAL" in said and "1001/02" in said
    assert (
        not (tmp_path / "moodle_grading_worksheet.csv").exists()
        and not (tmp_path / "canvas_grades_import.csv").exists()
    )
    assert (tmp_path / "moodle_grading_worksheet.partial.csv").exists()
    assert (tmp_path / "canvas_grades_import.partial.csv").exists()
    with open(tmp_path / "grades_wide.csv", encoding="utf-8") as f:
        wide = {row["student_id"]: row for row in csv.DictReader(f)}
    assert wide["1001"]["status"] == "not graded yet: 02" and wide["1001"][NB2] == ""
    export_grades(["moodle"], outcome(), tmp_path, "")  # the rerun finishes: final again
    assert (tmp_path / "moodle_grading_worksheet.csv").exists()
    assert not (tmp_path / "moodle_grading_worksheet.partial.csv").exists()


def test_both_languages_are_read_by_moodles_rules(tmp_path):
    results = outcome().results
    for language in ("en", "ru"):
        path = write_moodle_worksheet(results, {"1001": "Иван Петров"}, tmp_path / f"{language}.csv", language)
        applied = lms_importers.moodle_worksheet(path.read_text(encoding="utf-8"), language, {1001, 1002}, 37)
        assert {k: v["grade"] for k, v in applied.items()} == {1001: 37, 1002: 25}
        assert applied[1002]["feedback"].startswith(f"{NB1}: 5 из 17")


def test_a_name_with_underscores_and_slashes_keeps_moodles_folder_rule(tmp_path):
    hostile = "Evil_2_assignsubmission_file_/../x"
    assert moodle_folder(hostile, "1001").startswith("Evil 2 assignsubmission file") and "/" not in moodle_folder(
        hostile, "1"
    )
    (tmp_path / "feedback" / "1001").mkdir(parents=True)
    (tmp_path / "feedback" / "1001" / f"{NB1}.html").write_text("page")
    (tmp_path / "feedback" / "ivan").mkdir()
    (tmp_path / "feedback" / "ivan" / f"{NB1}.html").write_text("not a Moodle id")
    path, count = write_moodle_feedback_zip(
        tmp_path / "feedback", {"1001": hostile}, ["1001", "ivan"], tmp_path / "f.zip"
    )
    assert count == 1
    assert lms_importers.moodle_feedback_zip(path, {1001, 2}) == {1001: [f"{NB1}.html"]}


def test_canvas_warns_when_the_ids_are_moodles(tmp_path, capsys):
    (tmp_path / "lms.txt").write_text("moodle\n")
    export_grades(["canvas"], outcome(), tmp_path, "Homework 1 (1)")
    assert "Canvas will not match them" in capsys.readouterr().out


def test_grades_inside_the_repository_are_ignored_by_git(capsys):
    import shutil
    import subprocess

    from conftest import ROOT

    from autograder.cli import keep_out_of_git

    out = ROOT / "hw-test-keep-out-of-git"
    try:
        keep_out_of_git(out)
        (out / "submissions" / "1001").mkdir(parents=True)
        (out / "submissions" / "1001" / "01_hand_example.ipynb").write_text("{}")
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout
        assert status == "" and "git-ignored" in capsys.readouterr().out
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_item_analysis_counts_failures_and_escapes_messages(tmp_path):
    from autograder.notebook.results import TestResult
    from autograder.platforms.analysis import write_item_analysis

    results = [
        Result(
            s,
            NB1,
            score,
            4,
            GRADED,
            tests=[
                TestResult(
                    "test_count_pairs", score, 4, "" if score == 4 else "<script>alert(1)</script> неверно\nдетали"
                )
            ],
        )
        for s, score in (("a", 4), ("b", 0), ("c", 0))
    ] + [Result("d", NB1, 0, 4, "broken", "not JSON")]
    csv_path, page = write_item_analysis(results, tmp_path)
    with open(csv_path, encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert (row["graded"], row["failed"], row["students_with_it"]) == ("3", "2", "2")
    assert row["most_common_message"] == "<script>alert(1)</script> неверно\nдетали"
    text = page.read_text(encoding="utf-8")
    assert "<script>" not in text and "&lt;script&gt;" in text and "data:image/png;base64," in text


def test_late_submissions_from_moodles_worksheet_reported_and_penalised_only_when_asked(tmp_path, capsys):
    from datetime import datetime

    from autograder.classroom.workflow import late_policy, late_work
    from autograder.platforms.late import moodle_time

    assert moodle_time("Tuesday, 1 December 2026, 11:59 PM") == datetime(2026, 12, 1, 23, 59)
    assert moodle_time("вторник, 3 декабря 2026, 00:05") == datetime(2026, 12, 3, 0, 5)
    assert moodle_time("-") is None
    sheets = {
        "en": ["Identifier", "Full name", "Status", "Last modified (submission)"],
        "ru": ["Идентификатор", "Полное имя", "Статус", "Последнее изменение (ответ)"],
    }
    times = {
        "en": ["Tuesday, 1 December 2026, 10:00 PM", "Thursday, 3 December 2026, 12:05 AM"],
        "ru": ["вторник, 1 декабря 2026, 22:00", "четверг, 3 декабря 2026, 00:05"],
    }
    for language, header in sheets.items():
        prefix = "Participant " if language == "en" else "Участник"
        sheet = tmp_path / f"{language}.csv"
        with open(sheet, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(
                [header, [f"{prefix}1001", "A", "", times[language][0]], [f"{prefix}1002", "B", "", times[language][1]]]
            )
        due = "2026-12-01 23:59"
        policy = late_policy(due, str(sheet), None)  # reported only: nothing taken
        said = late_work(policy, {"1001": [NB1, NB2], "1002": [NB1, NB2]})
        assert [p.fraction for p in said.values()] == [0, 0] and "1002/01: 2 day(s) late" in capsys.readouterr().out
        policy = late_policy(due, str(sheet), 10)
        penalties = late_work(policy, {"1001": [NB1, NB2], "1002": [NB1, NB2]})
        assert sorted(penalties) == [("1002", NB1), ("1002", NB2)]  # Moodle's one time: both notebooks
        assert {(p.days, p.percent, p.shared) for p in penalties.values()} == {(2, 10, (NB1, NB2))}
    export_grades(["moodle"], outcome(), tmp_path, "", "en", late=penalties)
    applied = lms_importers.moodle_worksheet(
        (tmp_path / "moodle_grading_worksheet.csv").read_text(encoding="utf-8"), "en", {1001, 1002}, 37
    )
    assert applied[1001]["grade"] == 37 and applied[1002]["grade"] == 20  # 25 − 20 %
    assert "опозданием на 2 дн." in applied[1002]["feedback"]


def test_item_analysis_names_the_real_mistake_not_the_untouched_stubs(tmp_path):
    """Five untouched stubs (NotImplementedError) and two overlapping merges: the most common message
    among those who attempted the test is the merge's; the stubs are counted apart."""
    from autograder.notebook.results import TestResult as Verdict
    from autograder.platforms.analysis import item_rows

    stub = "Ячейка merge ещё не написана (NotImplementedError: напишите merge)"
    overlap = "merge((1, 1, 1), (1, 1), 9) вернула (9, 9), ожидалось (9, 1)"
    messages = [stub] * 5 + [overlap] * 2 + ["другая ошибка", ""]
    results = [
        Result(f"s{i}", NB1, 0 if m else 2, 2, GRADED, tests=[Verdict("test_merge", 0 if m else 2, 2, m)])
        for i, m in enumerate(messages)
    ]
    (row,) = item_rows(results)
    assert row["most_common_message"] == overlap and row["students_with_it"] == 2
    assert (row["graded"], row["failed"], row["untouched"], row["wrong_answers"]) == (9, 8, 5, 3)


def test_item_analysis_shows_expected_and_got_and_counts_untouched_stubs_apart(tmp_path):
    """A class of 01 graded for real: two untouched, one whose count_pairs counts each pair once. The
    page shows the wrong answer's call, what was expected and what came; a test that only stubs failed
    has no message and no «(0)»; stubs are never counted as wrong answers."""
    from local_session import LocalSession

    from autograder.course.course import CourseNotebook
    from autograder.course.simulate import solution_sources, submission, write
    from autograder.notebook.pipeline import NotebookGrader
    from autograder.platforms.analysis import write_item_analysis

    once = solution_sources(NB1)["count_pairs"].replace("+ freq", "+ 1")  # counts words, not their frequency
    assert once != solution_sources(NB1)["count_pairs"]
    course, results = CourseNotebook.load(NB1), []
    for student, nb in (("a", submission(NB1, solved=False)), ("b", submission(NB1, solved=False))) + (
        ("c", submission(NB1, replace={"count_pairs": once})),
    ):
        path = write(nb, tmp_path / student / f"{NB1}.ipynb")
        results.append(NotebookGrader().grade(course, path, LocalSession, student=student).result)
    csv_path, page = write_item_analysis(results, tmp_path)
    with open(csv_path, encoding="utf-8") as f:
        rows = {r["test"]: r for r in csv.DictReader(f)}
    counted = rows["test_count_pairs"]
    assert (counted["untouched"], counted["wrong_answers"], counted["students_with_it"]) == ("2", "1", "1")
    hidden = rows["test_count_pairs_hidden"]["most_common_message"]
    assert (
        "count_pairs({" in hidden and "ожидалось: {('а', 'а'): 4}" in hidden and "получено:  {('а', 'а'): 2}" in hidden
    )
    only_stubs = [r for r in rows.values() if r["wrong_answers"] == "0"]  # a quiz left unanswered too
    assert sorted(r["test"] for r in only_stubs) == [
        "test_learn_merges_hidden",  # graded against c's own count_pairs: not a second loss
        "test_merge_pair",
        "test_merge_pair_hidden",
        "test_quiz_1",
        "test_quiz_2",
        "test_quiz_3",
    ]
    assert all(r["untouched"] == "2" and r["most_common_message"] == "" for r in only_stubs)
    text = page.read_text(encoding="utf-8")
    assert "(0)" not in text and "ожидалось" in text


def test_the_servers_late_uploads_count_only_with_the_penalty_and_never_lower_a_grade(tmp_path, capsys):
    """`export --from-server` on records made by hand: 1002 improved 01 two days late, 1003 uploaded
    the same 01 again a day late, 1004 only uploaded late. Read back by Moodle's and Canvas's importers."""
    from datetime import datetime, timedelta

    from autograder.cli import main
    from autograder.server.export import remember
    from autograder.server.messages import Graded
    from autograder.server.store import Store

    due = datetime(2026, 12, 1, 23, 59)
    data = tmp_path / "data"
    store = Store(data)
    store.enrol({s: f"Student {s}" for s in ("1001", "1002", "1003", "1004")}, "http://127.0.0.1:1")
    remember(data, [NB1, NB2], due, "Homework 1 (1)")
    uploads = [
        ("1001", NB1, 17, -1),
        ("1001", NB2, 20, -1),
        ("1002", NB1, 5, -2),
        ("1002", NB2, 20, -2),
        ("1002", NB1, 17, 24 * 1 + 1),  # 1 day 1 hour late: 2 started days
        ("1003", NB1, 17, -3),
        ("1003", NB2, 20, -3),
        ("1003", NB1, 17, 2),  # 2 hours late, the same points
        ("1004", NB1, 17, 5),
    ]
    for student, notebook, score, hours in uploads:
        attempt = store.add_attempt(student, notebook, "0" * 64, f"k{score}{hours}", hours > 0)
        when = (due + timedelta(hours=hours)).timestamp()
        store.db.execute("UPDATE attempts SET uploaded=?, task=? WHERE id=?", (when, f"t{attempt}", attempt))
        result = Result(student, notebook, score, 17 if notebook == NB1 else 20, GRADED)
        store.record(f"t{attempt}", Graded(result=result, feedback=f"<p>{student} {score}</p>"))

    def export(*options):
        out = tmp_path / ("out" + "".join(options))
        code = main(
            ["export", "--from-server", str(data), "--out", str(out), "--export", "moodle"]
            + ["--export", "canvas", "--lms-language", "en", *options]
        )
        assert code == 0
        moodle = lms_importers.moodle_worksheet(
            (out / "moodle_grading_worksheet.csv").read_text(encoding="utf-8"), "en", {1001, 1002, 1003, 1004}, 37
        )
        canvas = lms_importers.canvas_gradebook(
            (out / "canvas_grades_import.csv").read_text(encoding="utf-8"), {1001, 1002, 1003, 1004}
        )
        return moodle, {k: float(v["Homework 1 (1)"]) for k, v in canvas.items()}, capsys.readouterr().out

    moodle, canvas, said = export()
    assert {k: v["grade"] for k, v in moodle.items()} == canvas == {1001: 37, 1002: 25, 1003: 37}
    assert "not counted: 1002/01, 1003/01, 1004/01" in said and "--late-penalty" in said

    moodle, canvas, said = export("--late-penalty", "10")
    # each notebook by its own upload time: 1002's 02 was on time, so only its 01 loses 20 %
    assert {k: v["grade"] for k, v in moodle.items()} == canvas == {1001: 37, 1002: 33.6, 1003: 37, 1004: 15.3}
    assert "опозданием на 2 дн." in moodle[1002]["feedback"] and "опозданием" not in moodle[1003]["feedback"]
    assert "1002/01: 2 day(s) late" in said and "1004/01: 1 day(s) late" in said
    assert "1003/01" in said.split("counted before")[1]

    moodle, canvas, _ = export("--late-penalty", "0")  # late work in full, still only where it adds points
    assert {k: v["grade"] for k, v in moodle.items()} == canvas == {1001: 37, 1002: 37, 1003: 37, 1004: 17}
