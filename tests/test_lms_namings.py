"""Every naming of Moodle's "Download all submissions" zip, built by Moodle's own rules.

The zips are made with `lms_importers.moodle_download_path`, a reimplementation of
mod/assign/classes/downloader.php (Moodle 4.1+: `Full Name_123456_assignsubmission_file/`), the
≤ 4.0 naming (`…_assignsubmission_file_/`) and the single-folder download
(`…_assignsubmission_file_<file>`), with clean_filename applied to the names as Moodle does. Each
is read in-process by `import_zip` + `find_submissions` (what `grade` does first): every student
lands under their participant id, browser copies `name(1).ipynb` / `name (1).ipynb` are the
notebook they copy, online texts and PDFs are reported with their student, and a student with
nothing gradable is still in the class (a row, and a problem).
"""

import zipfile

import pytest
from lms_importers import moodle_download_path

from autograder.platforms.submissions import NOTHING_GRADABLE, find_submissions, import_zip, which_lms

NB1, NB2 = "01_hand_example", "02_byte_level_training"
NOTEBOOKS = [NB1, NB2]
NAMINGS = [("4.1", True), ("4.0", True), ("4.1", False)]
IDS = ["moodle-4.1-folders", "moodle-4.0-folders", "single-folder"]


def moodle_zip(path, files, version, folders, empty=()):
    """files: (full name, participant id, file name, text, plugin); `empty`: students with a folder only."""
    with zipfile.ZipFile(path, "w") as z:
        for name, pid, filename, text, plugin in files:
            z.writestr(moodle_download_path(name, pid, filename, version, folders, plugin), text)
        for name, pid in empty if folders else ():
            z.writestr(moodle_download_path(name, pid, "", version, folders).rstrip("/") + "/", "")
    return path


def unpack(tmp_path, files, version, folders, empty=()):
    dest = tmp_path / "submissions"
    archive = moodle_zip(tmp_path / "export.zip", files, version, folders, empty)
    problems, names = import_zip(archive, dest, NOTEBOOKS)
    found = find_submissions(dest, NOTEBOOKS)
    found.problems[:0] = problems
    contents = {student: {nb: p.read_text() for nb, p in files.items()} for student, files in found.students.items()}
    return contents, found.problems, names


@pytest.mark.parametrize(("version", "folders"), NAMINGS, ids=IDS)
def test_each_naming_puts_every_file_with_its_student(tmp_path, version, folders):
    files = [
        ("Иван Петров", 1001, f"{NB1}.ipynb", "ivan 01", "file"),
        ("Иван Петров", 1001, f"{NB2}.ipynb", "ivan 02", "file"),
        ("Anna_Maria O'Brien", 1002, f"{NB1}.ipynb", "anna 01", "file"),  # "_" → " ", "'" removed
        ("Anna_Maria O'Brien", 1002, "onlinetext.html", "<p>my answer</p>", "onlinetext"),
        ("Olga Smith", 1003, "report.pdf", "%PDF", "file"),
    ]
    contents, problems, names = unpack(tmp_path, files, version, folders)
    assert contents == {
        "1001": {NB1: "ivan 01", NB2: "ivan 02"},
        "1002": {NB1: "anna 01"},
        "1003": {},
    }
    assert names == {"1001": "Иван Петров", "1002": "Anna Maria OBrien", "1003": "Olga Smith"}
    about = {(p.student_id, p.problem) for p in problems}
    assert ("1002", "an online text; not used") in about
    assert ("1003", "not a notebook; not used") in about
    assert ("1003", NOTHING_GRADABLE) in about  # the PDF-only student is in the class, with nothing to grade


@pytest.mark.parametrize(("version", "folders"), NAMINGS, ids=IDS)
@pytest.mark.parametrize("copy", ["(1)", " (1)", " (2)"])
def test_a_browsers_copy_is_the_notebook_it_copies(tmp_path, version, folders, copy):
    files = [
        ("Ivan Petrov", 1001, f"{NB1}.ipynb", "the stub", "file"),
        ("Ivan Petrov", 1001, f"{NB1}{copy}.ipynb", "the solved copy", "file"),
        ("Anna Ivanova", 1002, f"{NB2}{copy}.ipynb", "her only 02", "file"),
    ]
    contents, problems, _ = unpack(tmp_path, files, version, folders)
    assert contents == {"1001": {NB1: "the solved copy"}, "1002": {NB2: "her only 02"}}
    assert [p.student_id for p in problems if "two submissions" in p.problem] == ["1001"]


@pytest.mark.parametrize(("version", "folders"), NAMINGS[:2], ids=IDS[:2])
def test_an_empty_student_folder_is_a_student_with_nothing_gradable(tmp_path, version, folders):
    files = [("Ivan Petrov", 1001, f"{NB1}.ipynb", "ivan", "file")]
    contents, problems, names = unpack(tmp_path, files, version, folders, empty=[("Пустой Студент", 1004)])
    assert contents == {"1001": {NB1: "ivan"}, "1004": {}}
    assert names["1004"] == "Пустой Студент"
    assert [(p.student_id, p.problem) for p in problems] == [("1004", NOTHING_GRADABLE)]


@pytest.mark.parametrize(("version", "folders"), NAMINGS, ids=IDS)
@pytest.mark.parametrize("odd", ["A/B Smith", "Dr. ..Who", 'Zoë "Z" <b>&', '=HYPERLINK("http://x","y")', ""])
def test_an_odd_display_name_cannot_flip_the_zips_layout(tmp_path, version, folders, odd):
    files = [(odd, 1009, f"{NB1}.ipynb", "odd", "file")] + [
        (f"Student {i}", 1000 + i, f"{NB1}.ipynb", f"s{i}", "file") for i in range(1, 3)
    ]
    contents, _, _ = unpack(tmp_path, files, version, folders)
    assert contents == {"1009": {NB1: "odd"}, "1001": {NB1: "s1"}, "1002": {NB1: "s2"}}


@pytest.mark.parametrize("sep", ["/", "_/"])
def test_a_hand_made_zip_keeping_a_slash_in_a_name_is_still_moodles(tmp_path, sep):
    """clean_filename removes "/", but a zip repacked by hand may keep it: it must not turn the
    whole export into the folder layout (which every Moodle folder also fits)."""
    entries = [f"A/B Smith_1009_assignsubmission_file{sep}{NB1}.ipynb"] + [
        f"Student {i}_100{i}_assignsubmission_file{sep}{NB1}.ipynb" for i in (1, 2)
    ]
    assert which_lms(entries) == "moodle"
    assert which_lms(entries[:1]) == "moodle"
    with zipfile.ZipFile(tmp_path / "x.zip", "w") as z:
        for entry in entries:
            z.writestr(entry, entry)
    problems, names = import_zip(tmp_path / "x.zip", tmp_path / "dest", NOTEBOOKS)
    assert sorted(names) == ["1001", "1002", "1009"] and names["1009"] == "A/B Smith"
    assert not problems


def test_the_naming_rules_are_moodles():
    """What the reimplementation writes, spelled out (so a change to it is seen here)."""
    assert moodle_download_path("Ivan Petrov", 7, "a.ipynb") == "Ivan Petrov_7_assignsubmission_file/a.ipynb"
    assert moodle_download_path("Ivan Petrov", 7, "a.ipynb", "4.0") == "Ivan Petrov_7_assignsubmission_file_/a.ipynb"
    single = moodle_download_path("Ivan Petrov", 7, "a.ipynb", folders=False)
    assert single == "Ivan Petrov_7_assignsubmission_file_a.ipynb"
    assert moodle_download_path("a_b/c: d", 7, "x") == "a bc d_7_assignsubmission_file/x"
    assert (
        moodle_download_path("Ivan", 7, "onlinetext.html", plugin="onlinetext")
        == "Ivan_7_assignsubmission_onlinetext/onlinetext.html"
    )
