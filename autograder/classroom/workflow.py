"""Grading a class from what an instructor hands over to the files they upload: one pipeline.

`grade_class` runs its steps in order — collect the submissions (an LMS zip unpacked, or student
folders), name the students (the roster; Moodle's worksheet when given), keep the assignment's
notebooks, prepare the course, grade (autograder.classroom.batch), report to the terminal, write
the item analysis, write the platforms' exports (autograder.platforms.exports) — from one
`Assignment`, the settings the command line (or a test, or the demo) gives. Exit codes are the CLI's.
"""

import hashlib
import json
import shutil
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..course.course import PreparedCourse, course_notebooks, load_config
from ..notebook.results import ERROR, NOT_GRADED
from ..platforms import lms as lms_files
from ..platforms.exports import ExportSettings, Job, write_exports
from ..platforms.report import grade_table, read_roster, say, write_roster
from ..platforms.submissions import Class, Problem, find_submissions, import_zip, which_lms
from ..wall import cgroup
from ..wall.sandbox import Sandbox
from ..wall.session import may_raise_limits
from .batch import ClassGrader
from .cache import Cache

OK, SOME_FAILED, BAD_INPUT, COURSE_BROKEN, RETRY, INTERRUPTED = 0, 1, 2, 3, 4, 130


@dataclass
class Assignment:
    """What to grade and how: the settings of one class-grading run."""

    notebooks: list[str] | None = None  # the assignment's course notebooks (None: all of them)
    export: list[str] = field(default_factory=list)  # the platforms' exports to write (see exports.EXPORTS)
    exports: ExportSettings = field(default_factory=ExportSettings)
    lms: str = "auto"  # the zip's file naming
    pattern: str = ""  # or a regular expression for it
    renames: dict = field(default_factory=dict)  # {(student, file name): course notebook}
    regrade: list[str] = field(default_factory=list)  # students graded again (their cache forgotten)
    jobs: int | None = None  # notebooks graded at once (None: ClassGrader's default, pool.default_jobs)
    feedback: bool = True
    force: bool = False
    shard: tuple[int, int] | None = None
    overrides: dict = field(default_factory=dict)  # settings of the grader's configurables
    late: object = None  # platforms.late.LatePolicy (--due, --late-penalty, --extensions), or None


def grade_class(submissions: Path, out: Path, work: Path, assignment: Assignment) -> int:
    """The whole pipeline (see the module's docstring); returns the exit code."""
    found = collect(submissions, out, assignment)
    name_students(found, out, assignment.exports.worksheet, assignment.exports.gradebook)
    keep_assignment_notebooks(found, assignment.notebooks)
    if not found.students:
        say(f"no student folders in {submissions} (expected {submissions}/<student_id>/<notebook>.ipynb)")
        return BAD_INPUT
    unknown = sorted(set(assignment.regrade) - set(found.students))
    if unknown:
        say(f"--student: no such student in {submissions}: {', '.join(unknown)}")
        return BAD_INPUT
    for student in assignment.regrade:
        Cache(work).forget(student)
        say(f"grading {student} again (--student); the others come from the cache")
    say(f"preparing the course in {work / 'course'} …")
    course = PreparedCourse(work / "course").prepare()
    warn_about_sandbox(load_config(assignment.overrides))
    grader = ClassGrader(
        course,
        work,
        jobs=assignment.jobs,
        force=assignment.force,
        feedback=assignment.feedback,
        overrides=assignment.overrides,
        notebooks=assignment.notebooks,
    )
    grader.penalties = late_work(assignment.late, {s: sorted(files) for s, files in found.students.items()})
    outcome = grader.grade(found, out, shard=assignment.shard)
    if assignment.late is not None:
        record_penalties(course.root, outcome)
    code = report_class(outcome, grader.notebooks, out, assignment.feedback)
    analyse(outcome, out, work)
    compare_students(found.students, grader.notebooks, out, work)
    write_exports(assignment.export, Job(outcome, out, replace(assignment.exports, late=outcome.penalties)))
    return code


# -- the steps ------------------------------------------------------------------------------------


def collect(submissions: Path, out: Path, assignment: Assignment) -> Class:
    """The class's submitted notebooks: an LMS zip is unpacked into OUT/submissions first."""
    problems = []
    if submissions.is_file() and submissions.suffix == ".zip":
        out.mkdir(parents=True, exist_ok=True)
        submissions, problems = unpack(submissions, out, assignment.lms, assignment.pattern, assignment.renames)
    found = find_submissions(submissions, course_notebooks(), assignment.renames)
    found.problems[:0] = problems
    return found


def unpack(archive: Path, out: Path, lms: str, pattern: str, renames: dict | None = None) -> tuple[Path, list[str]]:
    """An LMS export zip, unpacked into OUT/submissions/<student_id>/; names go to OUT/roster.csv."""
    dest = out / "submissions"
    shutil.rmtree(dest, ignore_errors=True)
    problems, names = import_zip(archive, dest, course_notebooks(), pattern=pattern, lms=lms, renames=renames)
    write_roster(names, out)
    if lms == "auto" and not pattern:
        with zipfile.ZipFile(archive) as z:
            lms = which_lms([n for n in z.namelist() if n.endswith(".ipynb")])
    (out / "lms.txt").write_text(("regex" if pattern else lms) + "\n", encoding="utf-8")
    say(f"unpacked {archive.name}: {len(names)} students into {dest} (names: {out / 'roster.csv'})")
    return dest, problems


def name_students(found: Class, out: Path, worksheet, gradebook: str = "") -> None:
    """With Moodle's worksheet, the roster takes the names as Moodle shows them (the zip's went
    through clean_filename); with Canvas's gradebook export, its Student column (a Canvas zip names
    students by login)."""
    names = worksheet.names() if worksheet else {}
    if gradebook:
        people = lms_files.read_canvas_gradebook(Path(gradebook), "")
        names.update({uid: row["Student"] for uid, row in people.items() if row["Student"].strip()})
    named = {pid: name for pid, name in names.items() if pid in found.students}
    if named:
        out.mkdir(parents=True, exist_ok=True)
        write_roster({**read_roster(out), **named}, out)


def keep_assignment_notebooks(found: Class, notebooks: list[str] | None) -> None:
    """A course notebook that is not part of this assignment is set aside, with a problem that says so."""
    for student, files in found.students.items():
        for name in sorted(set(files) - set(notebooks or course_notebooks())):
            found.problems.append(
                Problem(
                    f"{student}/{files.pop(name).name}",
                    student,
                    "not part of this assignment (--notebooks); not graded",
                )
            )


def warn_about_sandbox(config) -> None:
    """Say loudly when student code is not walled in as docs/grading.md describes."""
    sandbox = Sandbox(config=config)
    if sandbox.resolved_mode() == "limits":
        say(
            "",
            "!" * 78,
            "WARNING: bubblewrap (bwrap) is not available, so student code is NOT walled in: it runs",
            "with resource limits and a clean environment only, as the user running the grader, and can",
            "read what that user can read. Grades are still decided outside the student's process.",
            "Install it (Debian/Ubuntu: apt-get install bubblewrap) before grading a real class.",
            "!" * 78,
            "",
        )
    why = cgroup.available()
    if why and sandbox.resolved_mode() != "off" and sandbox.cgroups != "off":
        say(
            "",
            "WARNING: no cgroup per sandbox: " + why + ".",
            "Each kernel process keeps its own memory, CPU-time and process limits, but a notebook's forked",
            "processes together (and its shared memory) may use more than Sandbox.memory_bytes, and its",
            "processes compete for the CPU with the other notebooks' (docs/grading.md).",
            "",
        )
    no_cgroup = sandbox.cgroups == "off" or why is not None
    provable = may_raise_limits() and sandbox.resolved_mode() == "bwrap"
    if no_cgroup and sandbox.resolved_mode() != "off" and not provable:
        say(
            "WARNING: speed is NOT graded automatically in this mode. Without a cgroup, only bubblewrap and",
            "CAP_SYS_RESOURCE let the grader keep a timed call's work from hiding in processes it never sees;",
            "here every speed check fails saying so, and the notebook is listed For review (docs/grading.md).",
            "",
        )
    if no_cgroup and sandbox.resolved_mode() != "off":
        say(
            "WARNING: memory is NOT graded automatically in this mode. Without a cgroup, the memory a sandbox holds",
            "outside its processes (pipe and socket buffers nobody reads, memfds, files) is out of the grader's sight;",
            "here every memory check (08's streaming) fails saying so, and the notebook is listed For review",
            "(docs/grading.md).",
            "",
        )


def report_class(outcome, notebooks: list[str], out: Path, feedback: bool) -> int:
    """The grade table, the problems and the review list on the terminal; the exit code."""
    say("", grade_table(outcome.results, notebooks, outcome.roster, outcome.penalties), "")
    problems = (
        [f"{r.student}/{r.notebook}: {r.status}: {r.message}" for r in outcome.results if r.status in NOT_GRADED]
        + [f"{r.student}/{r.notebook}: {r.feedback_error}" for r in outcome.results if r.feedback_error]
        + [str(p) for p in outcome.problems]
    )
    if problems:
        say("Problems (graded as 0 or not used):", *("  " + p for p in problems), "")
    review = [f"{r.student}/{r.notebook}: {finding}" for r in outcome.results for finding in r.review]
    if review:
        say(
            "For review (graded as usual; the code reaches for the grading machinery or changed the course's tests):",
            *("  " + line for line in review[:50]),
            "",
        )
    say(outcome.summary(), f"grades: {out / 'grades.csv'} (wide: grades_wide.csv, per test: results.json)")
    if feedback:
        say(f"feedback: {out / 'feedback'}/<student_id>/<notebook>.html")
    if outcome.interrupted:
        return INTERRUPTED
    if outcome.count(ERROR):
        say(
            f"{outcome.count(ERROR)} notebook(s) could not be graded because of the grader or the machine "
            "(status error, not cached): run the same command again to retry them."
        )
        return RETRY
    return SOME_FAILED if outcome.count(*NOT_GRADED) or any(r.feedback_error for r in outcome.results) else OK


def analyse(outcome, out: Path, work: Path | None = None) -> None:
    """The class's item analysis (per test: failures and the most common message; score spread), written
    again only when a result or the code that writes it changed (its pictures cost matplotlib's import)."""
    from ..platforms import analysis

    key = hashlib.sha256(
        json.dumps(
            [
                [r.to_dict() for r in outcome.results],
                Path(analysis.__file__).read_text(encoding="utf-8"),
                sorted(f"{s}/{n}: {p.reason_en()}" for (s, n), p in outcome.penalties.items()),
            ]
        ).encode("utf-8", "surrogatepass")
    ).hexdigest()
    stamp = Path(work or out) / "item_analysis.key"
    page = Path(out) / "item_analysis.html"
    try:
        if stamp.read_text(encoding="utf-8") == key and page.is_file() and (Path(out) / "item_analysis.csv").is_file():
            say(f"item analysis: {page} (and item_analysis.csv; no result changed)")
            return
    except OSError:
        pass
    try:
        stamp.unlink(missing_ok=True)
        _, page = analysis.write_item_analysis(outcome.results, out, outcome.penalties)
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(key, encoding="utf-8")
        say(f"item analysis: {page} (and item_analysis.csv)")
    except Exception as e:  # a report only: it never stops the grades from being written
        say(f"the item analysis could not be written: {type(e).__name__}: {e}")


def compare_students(students: dict, notebooks: list[str], out: Path, work: Path) -> None:
    """The similarity report of the class (OUT/similarity.csv and .html): each student's own code,
    kept in the work folder, compared notebook by notebook. A list to look at, never a penalty."""
    from . import similarity

    try:
        starters = similarity.starters(notebooks)
        for student, files in students.items():
            for name, path in files.items():
                if name in starters:
                    similarity.remember_code(work, student, name, path, starters[name])
        write_similarity(sorted(students), starters, out, work)
    except Exception as e:  # a report only: it never stops the grades from being written
        say(f"the similarity report could not be written: {type(e).__name__}: {e}")


def write_similarity(students: list[str], starters: dict, out: Path, work: Path) -> None:
    from . import similarity

    pairs = similarity.compare_class(work, students, starters)
    titles = {name: starter.title or name for name, starter in starters.items()}
    _, page = similarity.write_report(pairs, titles, read_roster(out), out)
    shown = sum(p.score >= similarity.THRESHOLD for p in pairs)
    say(f"similarity: {page} ({shown} pairs at or above {similarity.THRESHOLD:g}; all in similarity.csv)")


def merge_similarity(parts: list[Path], outcome, out: Path) -> None:
    """The similarity report of merged shards: each shard kept the code of the whole class (a shard grades
    its part, but compares everyone); their kept code is gathered into OUT's work folder and compared."""
    from . import similarity
    from .outputs import grading_json

    try:
        for part in parts:
            store = Path(grading_json(part).get("work") or part / "work") / "similarity"
            if store.is_dir():
                shutil.copytree(store, out / "work" / "similarity", dirs_exist_ok=True)
        write_similarity(
            sorted({r.student for r in outcome.results}), similarity.starters(outcome.notebooks), out, out / "work"
        )
    except Exception as e:  # a report only: it never stops the grades from being written
        say(f"the similarity report could not be written: {type(e).__name__}: {e}")


def late_policy(due: str | None, times: str | None, penalty: float | None, extensions: str | None = None):
    """--due with the submission times (Moodle's worksheet: one per student; or a CSV
    student_id,notebook,submitted: one per file), --late-penalty (percent per started day; None: reported
    only) and --extensions: the LatePolicy (platforms.late), or None without --due."""
    from ..course.course import course_notebooks
    from ..platforms.late import LatePolicy, parse_due, read_extensions, read_submission_times

    if not due:
        if extensions:
            raise ValueError("--extensions needs --due (the due date they move or waive)")
        return None
    deadline = parse_due(due)
    if not times:
        raise ValueError(
            "--due needs --worksheet (Moodle's downloaded grading worksheet: its Last modified (submission) column) "
            "or --submission-times (the worksheet, or a CSV student_id,notebook,submitted)"
        )
    return LatePolicy(
        deadline,
        penalty,
        read_submission_times(Path(times), course_notebooks()),
        read_extensions(Path(extensions), say) if extensions else {},
    )


def record_penalties(course_root: Path, outcome) -> None:
    """The penalties in nbgrader's gradebook too (formgrader's database, `nbgrader export`)."""
    from . import gradebook

    try:
        gradebook.record_penalties(course_root, outcome.results, outcome.penalties)
    except Exception as e:  # the grades and the exports do not depend on it
        say(f"the late penalties could not be recorded in the gradebook: {type(e).__name__}: {e}")


def late_work(policy, submitted: dict[str, list[str]]) -> dict:
    """The penalties of the class (one per late, extended or waived notebook), said on the terminal."""
    from ..platforms.late import report

    if policy is None:
        return {}
    penalties = policy.penalties(submitted)
    unknown = sorted(set(policy.extensions) - set(submitted))
    if unknown:
        say(f"extensions for students with nothing handed in here: {', '.join(unknown)}")
    late = [p for p in penalties.values() if p.days > 0 and not p.waived]
    say(f"late submissions (due {policy.due:%Y-%m-%d %H:%M}): {len(late)} notebook(s)")
    report(penalties, say)
    if late and not policy.percent:
        say("  reported only; --late-penalty PERCENT (per started day) takes a penalty")
    return penalties


def load_worksheet(path: str | None):
    """--worksheet: Moodle's grading worksheet as downloaded (None without one)."""
    return lms_files.read_moodle_worksheet(Path(path)) if path else None


def export_grades(
    kinds: list[str],
    outcome,
    out: Path,
    column: str = "",
    language: str = "",
    late=None,
    worksheet=None,
    late_in_canvas: bool = False,
    gradebook: str = "",
    overwrite_hand_grades: bool = False,
) -> None:
    """The exports of an outcome (for `merge`, the server and the tests): see autograder.platforms.exports."""
    settings = ExportSettings(
        language=language,
        worksheet=worksheet,
        late=late or {},
        column=column,
        late_in_canvas=late_in_canvas,
        gradebook=gradebook,
        overwrite_hand_grades=overwrite_hand_grades,
    )
    write_exports(kinds, Job(outcome, out, settings))
