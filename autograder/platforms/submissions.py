"""Finding each student's notebooks: in a folder of student folders, or in an LMS export zip.

The folder layout is SUBMISSIONS_DIR/<student_id>/<NN_name>.ipynb. A zip exported by Moodle or
Canvas (or named by any regex) is unpacked into that layout first (`import_zip`); its file names
are parsed by `LmsCollector`, an nbgrader zip_collect plugin, so the same rules also serve
`nbgrader zip_collect`. Anything that does not fit is reported, never silently dropped; when a
student submitted one notebook twice, the newer file is used and the other is reported.
"""

import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..notebook.sanitize import MAX_NOTEBOOK_BYTES

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]*$")  # never "", ".", ".." or a path
IGNORED = {".ipynb_checkpoints", "__MACOSX", ".DS_Store"}
COPY_SUFFIX = re.compile(r"(?:-(\d+)|\s*\((\d+)\))$")  # Canvas "-1", a browser's " (1)" or "(1)"
NOTHING_GRADABLE = "no course notebook in this student's submission: nothing to grade (listed as missing)"

# File-name rules of the learning platforms' "download all submissions" exports. Identity comes
# from the part the platform wrote, anchored at the start of the zip entry: everything after it is
# the name the student gave the file, which never decides whose file it is.
LMS_PATTERNS = {
    # Moodle (mod/assign/classes/downloader.php): the prefix is clean_filename(fullname with "_"
    # replaced by spaces . "_" . participant id), so the first "_" ends the name and the digits after
    # it are the id; then "_assignsubmission_<plugin>" and
    #   4.1+ folders:  "Ivan Petrov_123456_assignsubmission_file/02_x.ipynb"
    #   <=4.0 folders: "Ivan Petrov_123456_assignsubmission_file_/02_x.ipynb"
    #   single folder: "Ivan Petrov_123456_assignsubmission_file_02_x.ipynb" (every version)
    # and the online-text plugin's "…_assignsubmission_onlinetext/onlinetext.html" the same ways.
    # The name may hold anything but "_" (a hand-made zip may keep a "/" clean_filename removes).
    "moodle": r"^(?P<name>[^_]*)_(?P<student_id>\d+)_assignsubmission_(?P<plugin>[a-z]+)(?:_?/|_)(?P<file_id>.*)$",
    # Canvas: "petrovivan_late_12345_678910_02_x-1.ipynb" (the name: letters only, no "_")
    "canvas": r"^(?P<name>[^\W_]*)_(?P<late>late_|LATE_)?(?P<student_id>\d+)_(?P<submission_id>\d+)_(?P<file_id>[^/]+)$",  # noqa: E501
    # a zip of the folder layout itself: "ivanov/02_x.ipynb" or "class/ivanov/02_x.ipynb"
    "folders": r"^(?:[^/]+/)?(?P<student_id>[^/]+)/(?P<file_id>[^/]+)$",
}
PLATFORMS = ["moodle", "canvas"]  # the namings a platform writes (the folder layout is anyone's)


def usable_id(student_id: str) -> bool:
    """A student id that can name a folder inside OUT: letters, digits, _ . @ -, not starting with
    a dot (so never "", ".", ".."), no path separators."""
    return bool(STUDENT_ID.match(student_id or ""))


def which_lms(filenames: list[str]) -> str:
    """The platform whose naming fits most of an export's files (Moodle, then Canvas on a tie).
    One rule for the whole zip: a file a student named like another platform's export cannot
    switch the rule for that one file. The folder layout counts only the files no platform's own
    naming fits (every Moodle folder would fit it too), so an odd display name — a "/" in it —
    cannot turn a Moodle export into folders."""
    counts = Counter()
    for filename in filenames:
        platforms = [name for name in PLATFORMS if re.match(LMS_PATTERNS[name], filename)]
        counts.update(platforms or (["folders"] if re.match(LMS_PATTERNS["folders"], filename) else []))
    return max(LMS_PATTERNS, key=lambda name: counts[name]) if counts else "folders"


def _lms_collector() -> type:
    """LmsCollector, made on first use: importing nbgrader costs about a second, which `check` and the
    grading workers, who never read an LMS zip, need not pay."""
    global _collector
    if _collector is None:
        from nbgrader.plugins import FileNameCollectorPlugin
        from traitlets import Enum

        class LmsCollector(FileNameCollectorPlugin):
            """Reads student id and file name from Moodle or Canvas export names, or from `named_regexp`
            (a regex with the groups student_id and file_id), e.g.
            `nbgrader zip_collect --ZipCollectApp.collector_plugin=autograder.platforms.submissions.LmsCollector`."""

            lms = Enum(["auto", *LMS_PATTERNS], "auto", help="which platform's naming to read").tag(config=True)

            def _match(self, filename: str):
                if self.named_regexp:
                    return super()._match(filename)
                if filename.startswith("/"):  # zip_collect passes …/extracted/<archive name>/<the zip's own path>
                    filename = filename.partition("/extracted/")[2].partition("/")[2]
                names = list(LMS_PATTERNS) if self.lms == "auto" else [self.lms]
                for name in names:
                    match = re.match(LMS_PATTERNS[name], filename)
                    if match:
                        return match.groupdict()
                return None

        LmsCollector.__module__ = __name__
        _collector = LmsCollector
    return _collector


_collector = None


def __getattr__(name: str):
    """`autograder.platforms.submissions.LmsCollector`, an nbgrader zip_collect plugin (made on first use)."""
    if name == "LmsCollector":
        return _lms_collector()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class Problem:
    """A file or a student the grader could not use as given, for the instructor to look at."""

    file: str = ""  # the file as the instructor named it (in the folder or the zip), if one
    student_id: str = ""  # whose, if known
    problem: str = ""

    def __str__(self):
        return f"{self.file or self.student_id}: {self.problem}"


@dataclass
class Class:
    students: dict[str, dict[str, Path]] = field(default_factory=dict)  # student → notebook → file
    problems: list[Problem] = field(default_factory=list)  # what could not be used


def course_name(filename: str, notebooks: list[str]) -> tuple[str | None, int]:
    """The course notebook a file name stands for, and its copy number (0 for the original)."""
    stem = filename[: -len(".ipynb")] if filename.endswith(".ipynb") else None
    if stem is None:
        return None, 0
    copy = COPY_SUFFIX.search(stem)
    number = int(next(g for g in copy.groups() if g)) if copy else 0
    stem = stem[: copy.start()] if copy else stem
    return (stem if stem in notebooks else None), number


def keep_newest(found: Class, student: str, name: str, path: Path, rank) -> None:
    files = found.students.setdefault(student, {})
    if name in files:
        older, newer = sorted([files[name], path], key=rank)
        found.problems.append(
            Problem("", student, f"two submissions of {name}; graded {newer.name}, ignored {older.name}")
        )
        path = newer
    files[name] = path


def find_submissions(folder: Path, notebooks: list[str], renames: dict | None = None) -> Class:
    """The class in a folder of student folders. `renames` maps (student, file name) to the course
    notebook a misnamed file is (the instructor's --rename)."""
    renames = renames or {}
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"submissions folder not found: {folder}")
    found = Class()
    for entry in sorted(folder.iterdir()):
        if entry.name in IGNORED or entry.name.startswith("."):
            continue
        if not entry.is_dir():
            found.problems.append(
                Problem(entry.name, "", "not in a student folder (expected <student_id>/<notebook>.ipynb)")
            )
            continue
        if not usable_id(entry.name):
            found.problems.append(
                Problem(f"{entry.name}/", "", "not a usable student id (letters, digits, _ . @ - only)")
            )
            continue
        found.students[entry.name] = {}
        for path in sorted(entry.rglob("*")):
            if path.is_dir() or any(part in IGNORED or part.startswith(".") for part in path.relative_to(entry).parts):
                continue
            name, copy = course_name(path.name, notebooks)
            name = renames.get((entry.name, path.name), name)
            if name and path.parent == entry:
                keep_newest(found, entry.name, name, path, rank=lambda p: (p.stat().st_mtime, p.name))
            else:
                found.problems.append(
                    Problem(
                        f"{entry.name}/{path.relative_to(entry)}",
                        entry.name,
                        f"not a course notebook (expected one of: {', '.join(n + '.ipynb' for n in notebooks)})",
                    )
                )
        if not found.students[entry.name]:
            found.problems.append(Problem(f"{entry.name}/", entry.name, NOTHING_GRADABLE))
    return found


def import_zip(
    archive: Path, dest: Path, notebooks: list[str], pattern: str = "", lms: str = "auto", renames: dict | None = None
) -> tuple[list[Problem], dict[str, str]]:
    """Unpack the course notebooks of an LMS export into dest/<student_id>/<notebook>.ipynb.

    Returns the problems (files that matched no student or notebook, unusable ids, duplicates,
    oversized files) and the students' names as the export gives them (student_id → name).
    Under `lms="auto"` one platform's rule is chosen for the whole zip (`which_lms`)."""
    problems, chosen, names = [], {}, {}  # chosen: (student, notebook) → (rank, zip entry)
    late = set()  # entries Canvas marks late
    dest = Path(dest)
    with zipfile.ZipFile(archive) as zf:
        entries = [
            e
            for e in zf.infolist()
            if not any(p in IGNORED or (p.startswith(".") and p not in (".", "..")) for p in e.filename.split("/"))
        ]
        for entry in [e for e in entries if {".", ".."} & set(e.filename.split("/"))]:
            if not entry.is_dir():
                problems.append(Problem(entry.filename, "", "a path with . or .. in it; not used"))
            entries.remove(entry)
        folders, entries = [e for e in entries if e.is_dir()], [e for e in entries if not e.is_dir()]
        if lms == "auto" and not pattern:
            notebooks_in_zip = [e.filename for e in entries if e.filename.endswith(".ipynb")]
            lms = which_lms(notebooks_in_zip or [e.filename for e in entries])
        collector = _lms_collector()(named_regexp=pattern, lms=lms)
        for entry in folders if lms == "moodle" else []:  # an empty student folder still names a student
            info = collector._match(entry.filename)
            if info and usable_id(info["student_id"]):
                names.setdefault(info["student_id"], info.get("name") or info["student_id"])
        for entry in entries:
            if not entry.filename.endswith(".ipynb"):
                info = collector._match(entry.filename) or {}
                student = info.get("student_id", "") if usable_id(info.get("student_id", "")) else ""
                if student:  # a student who handed in only a PDF or an online text is still in the class
                    names.setdefault(student, info.get("name") or student)
                what = "an online text" if info.get("plugin") == "onlinetext" else "not a notebook"
                problems.append(Problem(entry.filename, student, f"{what}; not used"))
                continue
            info = collector.collect(entry.filename)
            if not info:
                problems.append(Problem(entry.filename, "", f"no student id in the name ({lms} naming)"))
                continue
            student = info["student_id"]
            if not usable_id(student):
                problems.append(
                    Problem(
                        entry.filename,
                        "",
                        f"not a usable student id {student!r} "
                        "(letters, digits, _ . @ - only, not starting with a dot); not used",
                    )
                )
                continue
            names[student] = info.get("name") or student
            name, copy = course_name(Path(info["file_id"]).name, notebooks)
            name = (renames or {}).get((student, Path(info["file_id"]).name), name)
            if not name:
                problems.append(Problem(entry.filename, student, "not a course notebook"))
                continue
            if info.get("late"):
                late.add(entry.filename)
            if entry.file_size > MAX_NOTEBOOK_BYTES:
                problems.append(
                    Problem(entry.filename, student, f"{entry.file_size} bytes, too large for a notebook; not used")
                )
                continue
            rank = (copy, entry.date_time, entry.filename)
            key = (student, name)
            if key in chosen:
                older, newer = sorted([chosen[key], (rank, entry)], key=lambda x: x[0])
                problems.append(
                    Problem(
                        older[1].filename,
                        student,
                        f"two submissions of {name}; graded {newer[1].filename}, ignored {older[1].filename}",
                    )
                )
                chosen[key] = newer
            else:
                chosen[key] = (rank, entry)
        for student in names:  # every student the export names gets a folder, empty or not
            inside(dest, student).mkdir(parents=True, exist_ok=True)
        for (student, name), (_, entry) in chosen.items():
            if entry.filename in late:  # reported, not penalised: Canvas applies its own late policy
                problems.append(
                    Problem(
                        entry.filename,
                        student,
                        f"Canvas marks this submission of {name} late "
                        "(graded as usual; Canvas's late policy applies in its gradebook)",
                    )
                )
            target = inside(dest, student, f"{name}.ipynb")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(entry))  # written by our name: no path from the zip is used
    return problems, names


def inside(folder: Path, *parts: str) -> Path:
    """folder/parts…, refusing any path that would leave folder (a second wall behind usable_id)."""
    base = Path(folder).resolve()
    target = base.joinpath(*parts).resolve()
    if target != base and base not in target.parents:
        raise ValueError(f"refused to write outside {base}: {'/'.join(parts)!r}")
    return target
