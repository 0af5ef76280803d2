"""Identity comes from the folder the LMS made, never from the name a student gave the file.

Attacks on `import_zip` (in-process, no grading): an upload named like another student's export
entry, ids that are path tricks, and a Canvas export read under `--lms auto`. Whatever the zip
holds, nothing is written outside the destination folder and each file lands with its uploader.
"""

import zipfile

import pytest

from autograder.platforms.submissions import import_zip, inside, usable_id, which_lms

NB1, NB2 = "01_hand_example", "02_byte_level_training"
NOTEBOOKS = [NB1, NB2]


def make_zip(path, entries: dict[str, str]):
    with zipfile.ZipFile(path, "w") as z:
        for name, text in entries.items():
            z.writestr(name, text)
    return path


def unpacked(tmp_path, entries, lms="auto"):
    dest = tmp_path / "out" / "submissions"
    problems, names = import_zip(make_zip(tmp_path / "export.zip", entries), dest, NOTEBOOKS, lms=lms)
    files = {str(p.relative_to(dest)): p.read_text() for p in dest.rglob("*.ipynb")}
    return files, problems, names


@pytest.mark.parametrize("folders", [True, False])
def test_a_moodle_upload_named_like_the_victim_stays_with_its_uploader(tmp_path, folders):
    sep = "/" if folders else ""
    files, problems, names = unpacked(
        tmp_path,
        {
            f"Victim Student_222222_assignsubmission_file_{sep}{NB1}.ipynb": "victim's solved notebook",
            f"Attacker Name_111111_assignsubmission_file_{sep}Victim Student_222222_assignsubmission_file_{NB1} (9).ipynb": "the attacker's stub",  # noqa: E501
            f"Attacker Name_111111_assignsubmission_file_{sep}{NB2}.ipynb": "attacker's own 02",
        },
    )
    assert files == {f"222222/{NB1}.ipynb": "victim's solved notebook", f"111111/{NB2}.ipynb": "attacker's own 02"}
    assert names == {"222222": "Victim Student", "111111": "Attacker Name"}
    spoof = [p for p in problems if "Victim Student_222222" in p.file and "Attacker" in p.file]
    assert spoof and spoof[0].student_id == "111111" and "not a course notebook" in spoof[0].problem


def test_a_canvas_upload_named_like_another_export_stays_with_its_uploader(tmp_path):
    files, problems, _ = unpacked(
        tmp_path,
        {
            f"victimstudent_222_900_{NB1}.ipynb": "victim's solved notebook",
            f"attackername_111_901_victimstudent_222_900_{NB1}.ipynb": "stub 1",
            f"attackername_111_902_Victim Student_222_assignsubmission_file_{NB1}.ipynb": "stub 2",
            f"attackername_late_111_903_{NB2}-1.ipynb": "attacker's own 02",
        },
    )  # read under --lms auto: the Moodle-looking upload must not switch the rule
    assert files == {f"222/{NB1}.ipynb": "victim's solved notebook", f"111/{NB2}.ipynb": "attacker's own 02"}
    assert sum(p.student_id == "111" and "not a course notebook" in p.problem for p in problems) == 2


@pytest.mark.parametrize(
    "entry",
    [
        f"_.._/{NB1}.ipynb",
        f"../{NB1}.ipynb",
        f"./{NB1}.ipynb",
        f"a/../{NB1}.ipynb",
        f"class/_.._/{NB1}.ipynb",
        f"class/.hidden/{NB1}.ipynb",
        f"class/ /{NB1}.ipynb",
    ],
)
def test_path_tricks_are_refused_and_nothing_is_written_outside(tmp_path, entry):
    files, problems, _ = unpacked(tmp_path, {entry: "x", f"honest/{NB2}.ipynb": "y"})
    assert files == {f"honest/{NB2}.ipynb": "y"}
    assert [p.file for p in problems] == [entry] or entry.startswith(("./", "class/.hidden"))  # dot folders are skipped
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.zip", "out"]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["submissions"]


def test_a_name_pattern_cannot_produce_a_path_either(tmp_path):
    dest = tmp_path / "out"
    archive = make_zip(tmp_path / "x.zip", {f"hw--..--{NB1}.ipynb": "x", f"hw--ok--{NB1}.ipynb": "y"})
    problems, _ = import_zip(archive, dest, NOTEBOOKS, pattern=r"hw--(?P<student_id>[^-]+)--(?P<file_id>.+)")
    assert [p.relative_to(dest).as_posix() for p in dest.rglob("*.ipynb")] == [f"ok/{NB1}.ipynb"]
    assert "not a usable student id '..'" in problems[0].problem


def test_usable_ids_and_the_second_wall(tmp_path):
    assert all(usable_id(i) for i in ["123456", "ivan.petrov", "a@b.c", "x-1_2"])
    assert not any(usable_id(i) for i in ["", ".", "..", "_.._", "a/b", "a\\b", ".a", "a\x00", "a b"])
    with pytest.raises(ValueError):
        inside(tmp_path, "..", "x")
    assert inside(tmp_path, "a", "b") == tmp_path.resolve() / "a" / "b"


def test_one_rule_for_the_whole_zip():
    moodle = [f"A B_1_assignsubmission_file_/{NB1}.ipynb", f"C D_2_assignsubmission_file_/{NB1}.ipynb"]
    assert which_lms(moodle) == "moodle"
    assert which_lms([f"ab_1_2_{NB1}.ipynb", f"cd_late_3_4_{NB1}.ipynb", moodle[0].replace("/", "")]) == "canvas"
    assert which_lms([f"ivanov/{NB1}.ipynb", f"petrov/{NB2}.ipynb"]) == "folders"


def test_a_misnamed_file_is_mapped_only_when_the_instructor_says_so(tmp_path):
    from autograder.cli import parse_renames
    from autograder.platforms.submissions import find_submissions

    renames = parse_renames(["1003/hw1.ipynb=02"])
    assert renames == {("1003", "hw1.ipynb"): NB2}
    entries = {
        "Olga Smith_1003_assignsubmission_file_/hw1.ipynb": "02 under another name",
        "Ivan Petrov_1001_assignsubmission_file_/hw1.ipynb": "not mapped",
    }
    dest = tmp_path / "class"
    problems, _ = import_zip(make_zip(tmp_path / "x.zip", entries), dest, NOTEBOOKS, renames=renames)
    assert [p.relative_to(dest).as_posix() for p in dest.rglob("*.ipynb")] == [f"1003/{NB2}.ipynb"]
    assert [p.student_id for p in problems] == ["1001"]
    (tmp_path / "folder" / "1003").mkdir(parents=True)
    (tmp_path / "folder" / "1003" / "hw1.ipynb").write_text("x")
    found = find_submissions(tmp_path / "folder", NOTEBOOKS, renames)
    assert found.students["1003"][NB2].name == "hw1.ipynb" and not found.problems
    with pytest.raises(ValueError):
        parse_renames(["hw1.ipynb=02"])


def test_a_canvas_late_mark_is_reported_and_the_file_graded_as_usual(tmp_path):
    files, problems, _ = unpacked(
        tmp_path, {f"petrovivan_late_1001_900_{NB1}.ipynb": "late one", f"ivanovaanna_1002_901_{NB1}.ipynb": "on time"}
    )
    assert files == {f"1001/{NB1}.ipynb": "late one", f"1002/{NB1}.ipynb": "on time"}
    late = [p for p in problems if "late" in p.problem]
    assert [(p.student_id, "Canvas marks" in p.problem) for p in late] == [("1001", True)]


def test_the_grade_table_names_the_students_the_roster_knows():
    from autograder.notebook.results import GRADED, Result
    from autograder.platforms.report import grade_table

    table = grade_table(
        [Result("1001", NB1, 17, 17, GRADED), Result("1002", NB1, 3, 17, GRADED)], [NB1], {"1001": "Иван Петров"}
    )
    assert "1001 Иван Петров" in table and "\n1002 " in table
