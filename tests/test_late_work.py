"""Late work, visible and fair (issue 45 item 2): one Penalty per (student, notebook) from the due date,
the extensions file and the submission times (platforms.late), shown wherever a grade is — the terminal
table, grades_wide.csv, the feedback and review pages, the item analysis, the exports, the course
server's pages and its exports — and the exact command docs/instructors.md shows, run on the example class."""

import csv
import json
import re
import shlex
from datetime import datetime, timedelta
from pathlib import Path

import lms_importers
from conftest import ROOT
from test_docs import commands

from autograder.classroom.outputs import Outcome, write_outputs
from autograder.classroom.workflow import export_grades, late_work
from autograder.notebook.results import GRADED, Result
from autograder.platforms.analysis import write_item_analysis
from autograder.platforms.late import LatePolicy, read_extensions, read_submission_times
from autograder.platforms.report import grade_table
from autograder.server.messages import Graded

NB1, NB2 = "01_hand_example", "02_byte_level_training"
DUE = datetime(2026, 12, 1, 23, 59)
PAGE = '<!DOCTYPE html><html><body><h1>{0}</h1><p class="total">Итог: {1:g} из {2:g}</p><p>тесты</p></body></html>'


def extensions_file(folder: Path, text: str) -> Path:
    path = folder / "extensions.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_extension_moves_the_due_date_and_a_waiver_removes_the_penalty(tmp_path):
    times = {
        ("a", NB1): DUE + timedelta(days=2),
        ("b", NB1): DUE + timedelta(days=2),
        ("c", NB1): DUE + timedelta(days=2),
    }
    plain = LatePolicy(DUE, 10, times)
    assert {s: plain.penalties({s: [NB1]})[s, NB1].fraction for s in "abc"} == {"a": 0.2, "b": 0.2, "c": 0.2}
    extensions = read_extensions(
        extensions_file(tmp_path, "student,due,note\na,2026-12-04 23:59,болезнь\nb,waive,сбой сервера\n")
    )
    policy = LatePolicy(DUE, 10, times, extensions)
    a, b, c = (policy.penalties({s: [NB1]})[s, NB1] for s in "abc")
    assert (a.days, a.fraction, a.extended, a.due) == (0, 0, True, datetime(2026, 12, 4, 23, 59))
    assert "Срок продлён до 2026-12-04 23:59 (болезнь)" in a.reason_ru()
    assert (b.days, b.fraction, b.waived) == (2, 0, True) and "снят (сбой сервера)" in b.reason_ru()
    assert (c.days, c.fraction) == (2, 0.2) and c.apply(17) == 13.6  # no row: the class's due date
    # an extension that is not long enough: late from the new date
    late_anyway = LatePolicy(DUE, 10, {("a", NB1): DUE + timedelta(days=4)}, extensions)
    assert late_anyway.penalties({"a": [NB1]})["a", NB1].days == 1
    assert LatePolicy(DUE, 60, times).penalties({"c": [NB1]})["c", NB1].apply(17) == 0  # never below 0


def test_malformed_extension_rows_are_named_and_the_rest_is_used(tmp_path):
    said = []
    path = extensions_file(
        tmp_path,
        "student,due,note\n1001,2026-12-05 23:59,ok\n1002,tomorrow,bad date\n1003\n,waive,no student\n"
        "1004,WAIVE,ok too\n\n1005,2026-12-31,a date alone\n",
    )
    found = read_extensions(path, said.append)
    assert sorted(found) == ["1001", "1004", "1005"] and found["1004"].due is None
    assert found["1005"].due == datetime(2026, 12, 31)
    assert len(said) == 3 and all(str(path) in line for line in said)
    assert "line 3" in said[0] and "'tomorrow'" in said[0] and "line 4" in said[1] and "line 5" in said[2]


def test_per_file_times_are_used_and_one_time_per_student_says_where_it_applied(tmp_path):
    per_file = tmp_path / "submitted.csv"
    per_file.write_text(f"student_id,notebook,submitted\n1002,01,2026-12-03 00:05\n1002,{NB2},2026-12-01 20:00\n")
    times = read_submission_times(per_file, [NB1, NB2])
    penalties = LatePolicy(DUE, 10, times).penalties({"1002": [NB1, NB2]})
    assert list(penalties) == [("1002", NB1)] and not penalties["1002", NB1].shared  # 02 was on time
    sheet = tmp_path / "worksheet.csv"
    sheet.write_text(
        'Identifier,Full name,Last modified (submission)\nParticipant 1002,B,"Thursday, 3 December 2026, 12:05 AM"\n'
    )
    penalties = LatePolicy(DUE, 10, read_submission_times(sheet, [NB1, NB2])).penalties({"1002": [NB1, NB2]})
    assert sorted(penalties) == [("1002", NB1), ("1002", NB2)]
    assert all(p.shared == (NB1, NB2) for p in penalties.values())
    assert "одно на все блокноты студента" in penalties["1002", NB1].reason_ru() and "01, 02" in (
        penalties["1002", NB1].reason_ru()
    )
    assert "one submission time for 01, 02" in penalties["1002", NB2].reason_en()
    bad = tmp_path / "bad.csv"
    bad.write_text("student_id,notebook,submitted\n1002,42,2026-12-03 00:05\n")
    try:
        read_submission_times(bad, [NB1, NB2])
    except ValueError as e:
        assert "line 2" in str(e) and "'42'" in str(e)
    else:
        raise AssertionError("a notebook that is not the course's was taken")


def graded_class(tmp_path, percent=10):
    """1001 on time, 1002 late by two days with 01 (per-file times), 1003 with an extension; 1002's 01
    has something For review (so the instructor's review page is written)."""
    results = [
        Result("1001", NB1, 17, 17, GRADED),
        Result("1002", NB1, 17, 17, GRADED, review=["a finding"]),
        Result("1002", NB2, 20, 20, GRADED),
        Result("1003", NB1, 10, 17, GRADED),
    ]
    times = {("1001", NB1): DUE, ("1002", NB1): DUE + timedelta(days=1, hours=1), ("1002", NB2): DUE}
    times[("1003", NB1)] = DUE + timedelta(days=1)
    ext = read_extensions(extensions_file(tmp_path, "1003,2026-12-03 23:59,болезнь\n"))
    penalties = late_work(LatePolicy(DUE, percent, times, ext), {"1001": [NB1], "1002": [NB1, NB2], "1003": [NB1]})
    outcome = Outcome(results=results, notebooks=[NB1, NB2], roster={"1002": "Анна"}, penalties=penalties)
    html = {(r.student, r.notebook): PAGE.format(r.notebook, r.score, r.max_score) for r in results}
    return outcome, html


def test_the_penalty_is_shown_wherever_the_grade_is(tmp_path, capsys):
    outcome, html = graded_class(tmp_path)
    assert "1002/01: 2 day(s) late; -20% (10%/day)" in capsys.readouterr().out
    table = grade_table(outcome.results, outcome.notebooks, outcome.roster, outcome.penalties)
    row = next(line for line in table.splitlines() if line.startswith("1002"))
    assert "17/17 −20%" in row and "37/37 → 33.6" in row  # only 01 was late
    assert "extended" in next(line for line in table.splitlines() if line.startswith("1003"))
    plain = grade_table(outcome.results, outcome.notebooks, outcome.roster)
    assert "→" not in plain and "−20%" not in plain  # the attack: without the policy, nothing is said
    out = tmp_path / "out"
    write_outputs(outcome, outcome.notebooks, out, html)
    with open(out / "grades_wide.csv", encoding="utf-8") as f:
        wide = {r["student_id"]: r for r in csv.DictReader(f)}
    assert wide["1002"]["total"] == "37" and wide["1002"]["late_total"] == "33.6"
    assert "01: 2 day(s) late" in wide["1002"]["late"] and "02" not in wide["1002"]["late"]
    assert wide["1001"]["late_total"] == wide["1001"]["late"] == ""
    assert "extended to 2026-12-03 23:59: болезнь" in wide["1003"]["late"]
    page = (out / "feedback" / "1002" / f"{NB1}.html").read_text(encoding="utf-8")
    assert "Сдано с опозданием на 2 дн." in page and "Итог с учётом штрафа: 13.6." in page
    assert page.index('class="total"') < page.index('class="late"') < page.index("тесты")  # under the total
    assert "опоздани" not in (out / "feedback" / "1002" / f"{NB2}.html").read_text(encoding="utf-8")
    assert "продлён" in (out / "feedback" / "1003" / f"{NB1}.html").read_text(encoding="utf-8")
    review = (out / "review" / "1002" / f"{NB1}.html").read_text(encoding="utf-8")  # the instructor's view
    assert "Сдано с опозданием на 2 дн." in review and "a finding" in review
    _, analysis = write_item_analysis(outcome.results, out, outcome.penalties)
    text = analysis.read_text(encoding="utf-8")
    assert "Опоздания и продления" in text and "1002: 17 → 13.6" in text
    export_grades(["moodle"], outcome, out, "", "en", late=outcome.penalties)
    moodle = lms_importers.moodle_worksheet(
        (out / "moodle_grading_worksheet.csv").read_text(encoding="utf-8"), "en", {1001, 1002, 1003}, 37
    )
    assert (moodle[1001]["grade"], moodle[1002]["grade"], moodle[1003]["grade"]) == (17, 33.6, 10)
    assert "Сдано с опозданием на 2 дн." in moodle[1002]["feedback"] and "продлён" in moodle[1003]["feedback"]


def test_the_course_servers_pages_and_export_apply_the_same_policy(tmp_path):
    """Records made by hand: 1002 uploaded 01 two days late (02 on time), 1003 two days late within an
    extension, 1004 a day late with the penalty waived. The student's page, the instructor's page and
    `export --from-server` apply serve's --due, --late-penalty and --extensions."""
    from autograder.cli import main
    from autograder.server.export import remember
    from autograder.server.store import Store
    from autograder.server.web import Course, late_section, student_page

    data = tmp_path / "data"
    store = Store(data)
    store.enrol({s: f"Student {s}" for s in ("1001", "1002", "1003", "1004")}, "http://127.0.0.1:1")
    ext = extensions_file(tmp_path, "student,due,note\n1003,2026-12-04 23:59,болезнь\n1004,waive,сбой\n1009,nope\n")
    remember(data, [NB1, NB2], DUE, "Homework 1 (1)", 10, ext)
    uploads = [("1001", NB1, 17, -1), ("1002", NB2, 20, -2), ("1002", NB1, 17, 25), ("1003", NB1, 17, 48)]
    uploads += [("1004", NB1, 5, -1), ("1004", NB1, 17, 20)]
    for student, notebook, score, hours in uploads:
        attempt = store.add_attempt(student, notebook, "0" * 64, f"k{student}{score}{hours}", hours > 0)
        when = (DUE + timedelta(hours=hours)).timestamp()
        store.db.execute("UPDATE attempts SET uploaded=?, task=? WHERE id=?", (when, f"t{attempt}", attempt))
        result = Result(student, notebook, score, 17 if notebook == NB1 else 20, GRADED)
        page = PAGE.format(notebook, score, result.max_score)
        store.record(f"t{attempt}", Graded(result=result, feedback=page))
    course = Course(store, None, None, [NB1, NB2], DUE, refuse_late=True, late_penalty=10, data=data)
    assert course.due_of("1003") == datetime(2026, 12, 4, 23, 59) and course.due_of("1001") == DUE
    assert course.due_of("1004") is None  # waived: late work is let in even with --late refuse
    assert "Ваш срок продлён до 2026-12-04 23:59 (болезнь)" in student_page(course, "1003", "tok", "")
    late_page = student_page(course, "1002", "tok", "")
    assert "Сдано с опозданием на 2 дн." in late_page and "−20% баллов" in late_page
    assert "опоздани" not in student_page(course, "1001", "tok", "")
    waived = student_page(course, "1004", "tok", "")
    assert "Штраф за опоздание вам снят (сбой)" in waived and "Сдано с опозданием на 1 дн." in waived
    assert student_page(course, "1003", "tok", "").count("продлён") == 1  # said once, not on each upload
    section = late_section(course)
    assert "1002/01: 17 → 13.6" in section and "1003/01: 17 → 17" in section and "1004/01: 17 → 17" in section
    out = tmp_path / "out"
    assert (
        main(["export", "--from-server", str(data), "--out", str(out), "--export", "moodle", "--lms-language", "en"])
        == 0
    )
    moodle = lms_importers.moodle_worksheet(
        (out / "moodle_grading_worksheet.csv").read_text(encoding="utf-8"), "en", {1001, 1002, 1003, 1004}, 37
    )
    assert {k: v["grade"] for k, v in moodle.items()} == {1001: 17, 1002: 33.6, 1003: 17, 1004: 17}
    with open(out / "grades_wide.csv", encoding="utf-8") as f:
        wide = {r["student_id"]: r for r in csv.DictReader(f)}
    assert wide["1002"]["late_total"] == "33.6" and "waived: сбой" in wide["1004"]["late"]
    assert "Итог с учётом штрафа: 13.6." in (out / "feedback" / "1002" / f"{NB1}.html").read_text(encoding="utf-8")
    # without the extensions file (the attack): 1003 and 1004 are penalised too
    remember(data, [NB1, NB2], DUE, "Homework 1 (1)", 10)
    bare = tmp_path / "bare"
    assert (
        main(["export", "--from-server", str(data), "--out", str(bare), "--export", "moodle", "--lms-language", "en"])
        == 0
    )
    moodle = lms_importers.moodle_worksheet(
        (bare / "moodle_grading_worksheet.csv").read_text(encoding="utf-8"), "en", {1001, 1002, 1003, 1004}, 37
    )
    assert (moodle[1003]["grade"], moodle[1004]["grade"]) == (13.6, 15.3)


def test_the_command_docs_instructors_md_shows_runs_on_the_example_class(tmp_path, monkeypatch, capsys):
    """The section «Late work on the example class»: its commands, exactly as shown, in a fresh folder;
    what it says they print and write is what they print and write."""
    from autograder.cli import main

    doc = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    section = doc.split("### Late work on the example class", 1)[1].split("\n## ", 1)[0]
    shown = list(commands(section))
    assert len(shown) == 2 and shown[0].startswith("demo ") and "--extensions" in shown[1]
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split(shown[0])) == 0
    capsys.readouterr()
    assert main(shlex.split(shown[1])) == 0
    said = capsys.readouterr().out
    printed = section.split("The run prints", 1)[1].split("```", 2)[1].strip().splitlines()
    for line in printed:
        assert line.rstrip() in said, f"docs/instructors.md shows {line!r}, the run did not print it"
    files = section.split("is the format", 1)[1].split("```", 2)[1].strip()
    assert (tmp_path / "demo-output" / "extensions.csv").read_text(encoding="utf-8").strip() == files
    out = tmp_path / "demo-output" / "late"
    with open(out / "grades_wide.csv", encoding="utf-8") as f:
        wide = {r["student_id"]: r for r in csv.DictReader(f)}
    assert wide["carol"]["late_total"] == "13.6" and "waived" in wide["alice"]["late"]
    for student, quoted in re.findall(r"(\w+)'s (?:page `[^`]+` says under its total )?«([^»]+)»", section):
        page = (out / "feedback" / student / f"{NB1}.html").read_text(encoding="utf-8")
        assert " ".join(quoted.split()) in page, f"{student}'s page does not say {quoted!r}"
    assert json.loads((out / "assignment.json").read_text(encoding="utf-8"))["extensions"].endswith("extensions.csv")
    from nbgrader.api import Gradebook  # the instructor's formgrader reads nbgrader's own column

    with Gradebook(f"sqlite:///{tmp_path / 'demo-output' / 'work' / 'course' / 'gradebook.db'}") as gb:
        taken = {
            s: gb.find_submission_notebook(NB1, NB1, s).late_submission_penalty for s in ("alice", "carol", "dave")
        }
    assert taken == {"alice": 0, "carol": 3.4, "dave": 0}
    # the same policy through shards and `merge` (the shards' results from the work folder's cache)
    policy = shlex.split(shown[1].split("--out demo-output/late", 1)[1])
    parts = []
    for i in (1, 2):
        parts.append(f"part{i}")
        assert main(["grade", "demo-output/class", "--out", parts[-1], "--shard", f"{i}/2", *policy]) == 0
    late = [a for a in policy if a not in ("--notebooks", "01", "--work", "demo-output/work")]
    capsys.readouterr()
    assert main(["merge", *parts, "--out", "merged", *late, "--export", "moodle", "--lms-language", "en"]) == 0
    said = capsys.readouterr().out
    assert "carol    17/17 −20%          17/17 → 13.6" in said
    with open(tmp_path / "merged" / "grades_wide.csv", encoding="utf-8") as f:
        assert {r["student_id"]: r["late_total"] for r in csv.DictReader(f)}["carol"] == "13.6"
    with Gradebook(f"sqlite:///{tmp_path / 'merged' / 'work' / 'course' / 'gradebook.db'}") as gb:
        assert gb.find_submission_notebook(NB1, NB1, "carol").late_submission_penalty == 3.4


def test_extensions_without_a_due_date_or_times_are_refused_before_grading(tmp_path, capsys):
    from autograder.cli import main

    ext = extensions_file(tmp_path, "1001,waive,x\n")
    assert main(["grade", str(tmp_path), "--out", str(tmp_path / "o"), "--extensions", str(ext)]) == 2
    assert "--extensions needs --due" in capsys.readouterr().out
    assert main(["grade", str(tmp_path), "--out", str(tmp_path / "o"), "--due", "2026-12-01 23:59"]) == 2
    assert "--due needs --worksheet" in capsys.readouterr().out
    assert (
        main(["grade", str(tmp_path), "--out", str(tmp_path / "o"), "--due", "1 Dec", "--submission-times", str(ext)])
        == 2
    )
    assert "'1 Dec' is not a date" in capsys.readouterr().out


def test_the_real_course_server_lets_an_extended_student_upload_and_says_so(tmp_path):
    """`serve --due (past) --late refuse --extensions`: 1001 is refused, 1002 (extended to 2999) and 1003
    (waived) are let in; 1002's page names the extension; editing the file applies at once."""
    import pytest
    import requests

    from autograder.course.simulate import submission
    from autograder.wall.sandbox import bwrap_works

    if not bwrap_works():
        pytest.skip("bubblewrap is not available (.ci/run installs it)")
    from test_server import Server, notebook_bytes

    ext = extensions_file(tmp_path, "student,due,note\n1002,2999-01-01 00:00,болезнь\n1003,waive,сбой\n1004,soon,x\n")
    server = Server(tmp_path)
    server.extra = ["--due", "2000-01-01 00:00", "--late", "refuse", "--jobs", "0", "--extensions", str(ext)]
    server.start()
    stub = notebook_bytes(submission(NB1, solved=False), tmp_path, "stub")
    try:
        refused = server.submit("1001", stub)
        assert refused.status_code == 403 and "2000-01-01 00:00" in refused.json()["error"]
        assert server.submit("1002", stub).status_code == 202 and server.submit("1003", stub).status_code == 202
        page = requests.get(server.links()["1002"], timeout=10).text
        assert "Ваш срок продлён до 2999-01-01 00:00 (болезнь)" in page
        assert "line 4" in (tmp_path / "server.log").read_text()  # the bad row, said at the start
        ext.write_text("student,due,note\n1001,2999-01-01 00:00,позже\n", encoding="utf-8")
        assert server.submit("1001", stub).status_code == 202  # the edit applies without a restart
        assert server.submit("1002", stub).status_code == 403
    finally:
        server.process.terminate()
        server.process.wait(30)
