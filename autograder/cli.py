"""python -m autograder release | bundle | grade | merge | similarity | check | demo | serve | export | worker
| settings

Exit codes: 0 done (check: every test passed); 1 done, but some submissions could not be
graded (check: some tests failed); 2 bad input (a path, a name, an option); 3 the course itself
could not be prepared (e.g. nbgrader failed on solutions/); 4 some notebooks could not be graded
because of the grader or the machine (status `error`: a worker stopped, the watchdog, a kernel
that would not start) — nothing was cached for them, run the same command again to retry them;
130 interrupted by Ctrl-C or SIGTERM (what was graded is kept and written out, every sandbox's cgroup and
folder removed; run the same command again to go on).
"""

import argparse
import json
import signal
from dataclasses import replace
from pathlib import Path

from bpe_course.vocab import offline_tiktoken

from .classroom.batch import parse_shard
from .classroom.outputs import grading_json, merge_gradebook, merge_outputs
from .classroom.workflow import (
    BAD_INPUT,
    COURSE_BROKEN,
    INTERRUPTED,
    OK,
    RETRY,
    SOME_FAILED,
    Assignment,
    analyse,
    grade_class,
    late_policy,
    late_work,
    load_worksheet,
    merge_similarity,
    record_penalties,
    report_class,
    write_similarity,
)
from .course.course import (
    CourseError,
    CourseNotebook,
    PreparedCourse,
    core_notebooks,
    course_notebooks,
    load_config,
    use_venv_tools,
)
from .notebook.results import ERROR, GRADED, MISSING
from .platforms import lms as lms_files
from .platforms.exports import EXPORTS, ExportSettings, Job, canvas_column, prepare_exports, write_exports
from .platforms.report import say, test_report, write_wide_csv
from .platforms.submissions import LMS_PATTERNS
from .wall.sandbox import Sandbox

ASSIGNMENT_FILE = "assignment.json"
REMEMBERED = ["notebooks", "export", "lms_language", "worksheet", "submission_times", "due", "late_penalty"]
REMEMBERED += ["assignment", "gradebook", "extensions"]
PATHS = {"worksheet", "submission_times", "gradebook", "extensions"}


def remember_assignment(args, out: Path) -> None:
    """OUT/assignment.json records the assignment's settings (notebooks, exports, Moodle language and
    worksheet, due date, penalty, Canvas column); a rerun uses each one not given again, and says
    which it used and which changed. `--export none` drops the exports (their files are removed)."""
    path = out / ASSIGNMENT_FILE
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
        recorded = recorded if isinstance(recorded, dict) else {}
    except (OSError, ValueError):
        recorded = {}
    used, changed = [], []
    for key in REMEMBERED:
        given, old = getattr(args, key, None), recorded.get(key)
        if key in PATHS and given:
            given = str(Path(given).resolve())
            setattr(args, key, given)
        if given in (None, "", []):
            if old not in (None, "", []):
                setattr(args, key, old)
                used.append(f"{key.replace('_', '-')}={old}")
        elif key in recorded and old != given:
            changed.append(f"{key.replace('_', '-')}: {old} → {given}")
    if args.export and "none" in args.export:
        args.export = []
    if used:
        say(f"settings of this assignment from its earlier run ({path}; give an option to change it):")
        say(*("  " + line for line in used))
    if changed:
        say("changed since the earlier run:", *("  " + line for line in changed))


def record_assignment(args, out: Path) -> None:
    """Write OUT/assignment.json (after the options were found good: a bad one is not remembered)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / ASSIGNMENT_FILE).write_text(
        json.dumps({key: getattr(args, key, None) for key in REMEMBERED}, ensure_ascii=False, indent=1),
        encoding="utf-8",
    )


def overrides_of(args) -> dict:
    """Command-line options as settings of the grader's configurables."""
    overrides = {}
    if getattr(args, "cell_timeout", None):
        overrides["KernelSession"] = {"cell_timeout": args.cell_timeout}
    if getattr(args, "notebook_timeout", None):
        overrides["NotebookGrader"] = {"notebook_timeout": args.notebook_timeout}
    if getattr(args, "call_seconds", None):
        overrides["Evaluator"] = {"call_seconds": args.call_seconds}
    if getattr(args, "no_sandbox", False):
        overrides["Sandbox"] = {"mode": "off"}
    return overrides


def parse_renames(specs: list[str] | None) -> dict:
    """--rename STUDENT/FILE=NN → {(student, file name): course notebook}."""
    renames = {}
    for spec in specs or []:
        left, sep, notebook = spec.rpartition("=")
        student, slash, filename = left.partition("/")
        if not (sep and slash and student and filename):
            raise ValueError(f"--rename {spec!r}: expected STUDENT/FILE=NN, e.g. 1003/hw1.ipynb=02")
        renames[student, filename] = choose_notebooks(notebook)[0]
    return renames


def choose_notebooks(text: str | None) -> list[str]:
    """--notebooks 01,02,03 (numbers or names) → the course notebooks, in course order; `core`: the core
    path's notebooks (every one but the deep-dives as a whole, such as 07)."""
    names = course_notebooks()
    if not text:
        return names
    if text.strip() == "core":
        return core_notebooks()
    chosen = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        match = [n for n in names if n == part or n.split("_")[0] == part.zfill(2)]
        if not match:
            raise ValueError(f"--notebooks: no course notebook {part!r} (one of: {', '.join(names)})")
        chosen += match
    return [n for n in names if n in chosen]


def cmd_similarity(args) -> int:
    """The similarity report of a graded class again, from the code its last `grade` run kept."""
    from .classroom import similarity

    out = Path(args.out).resolve()
    record = grading_json(out)
    if not record:
        say(f"not a grade output folder (no grading.json): {out}")
        return BAD_INPUT
    work = Path(record.get("work") or out / "work")
    names = [n for n in record.get("notebooks", []) if n in course_notebooks()]
    store = work / "similarity"
    students = sorted(p.name for p in store.iterdir() if p.is_dir()) if store.is_dir() else []
    graded = {r.get("student") for r in read_results(out)}
    students = [s for s in students if s in graded] if graded else students
    write_similarity(students, similarity.starters(names), out, work)
    return OK


def read_results(out: Path) -> list[dict]:
    try:
        rows = json.loads((out / "results.json").read_text(encoding="utf-8"))
        return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    except (OSError, ValueError):
        return []


def cmd_release(args) -> int:
    from .course.release import release

    for path in release(Path(args.out)):
        say(f"wrote {path}")
    return OK


def keep_out_of_git(out: Path) -> None:
    """OUT holds students' files: inside this repository it is ignored by git (OUT/.gitignore)."""
    repository = Path(__file__).resolve().parent.parent
    if (repository / ".git").exists() and repository in out.parents:
        out.mkdir(parents=True, exist_ok=True)
        (out / ".gitignore").write_text("# students' files and grades: never committed\n*\n", encoding="utf-8")
        say(
            f"note: {out} is inside the course repository; it is git-ignored (its .gitignore). "
            "Better keep grades outside it."
        )


def export_settings(args) -> ExportSettings:
    """The exports' settings from the options, completed and checked by each chosen export."""
    option = lambda name: getattr(args, name, None)
    settings = ExportSettings(
        language=option("lms_language") or "",
        worksheet=load_worksheet(option("worksheet")),
        column=option("assignment") or "",
        gradebook=option("gradebook") or "",
        overwrite_hand_grades=bool(option("overwrite_hand_grades")),
    )
    return prepare_exports(args.export, settings)


def late_policy_of(args):
    """--due, --submission-times (else --worksheet), --late-penalty and --extensions: the LatePolicy, or None."""
    option = lambda name: getattr(args, name, None)
    times = option("submission_times") or option("worksheet")
    return late_policy(option("due"), times, option("late_penalty"), option("extensions"))


def cmd_grade(args) -> int:
    out = Path(args.out).resolve()
    keep_out_of_git(out)
    try:
        remember_assignment(args, out)
        exports = export_settings(args)
        args.assignment = exports.column
        assignment = Assignment(
            notebooks=choose_notebooks(args.notebooks),
            export=list(args.export or []),
            exports=exports,
            lms=args.lms,
            pattern=args.name_pattern,
            renames=parse_renames(args.rename),
            regrade=list(args.student or []),
            jobs=args.jobs,
            feedback=not args.no_feedback,
            force=args.force,
            shard=parse_shard(args.shard) if args.shard else None,
            overrides=overrides_of(args),
            late=late_policy_of(args),
        )
    except ValueError as e:
        say(f"error: {e}")
        return BAD_INPUT
    record_assignment(args, out)
    work = Path(args.work).resolve() if args.work else out / "work"
    return grade_class(Path(args.submissions), out, work, assignment)


def cmd_merge(args) -> int:
    out = Path(args.out).resolve()
    missing = [p for p in args.parts if not (Path(p) / "results.json").is_file()]
    if missing:
        say(f"not a grade output folder (no results.json): {', '.join(missing)}")
        return BAD_INPUT
    try:
        exports = export_settings(args)
        policy = late_policy_of(args)
    except ValueError as e:
        say(f"error: {e}")
        return BAD_INPUT
    outcome = merge_outputs([Path(p) for p in args.parts], out, course_notebooks())
    handed_in = {}
    for r in outcome.results:
        if r.status != MISSING:
            handed_in.setdefault(r.student, []).append(r.notebook)
    outcome.penalties = late_work(policy, handed_in)
    if outcome.penalties:  # the merged wide table with the late policy (the parts' pages already say it)
        write_wide_csv(outcome.results, outcome.notebooks, out / "grades_wide.csv", outcome.pending, outcome.penalties)
    course = PreparedCourse(out / "work" / "course").prepare()
    recorded = merge_gradebook([Path(p) for p in args.parts], outcome, course.root)
    if policy is not None:
        record_penalties(course.root, outcome)
    code = report_class(outcome, outcome.notebooks, out, feedback=False)
    analyse(outcome, out, out / "work")
    merge_similarity([Path(p) for p in args.parts], outcome, out)
    say(f"gradebook: {course.root / 'gradebook.db'} ({recorded} notebooks; formgrader: jupyter lab in {course.root})")
    write_exports(args.export, Job(outcome, out, replace(exports, late=outcome.penalties)))
    return code


def cmd_check(args) -> int:
    """A self-check: one notebook against all tests, hidden ones included; spoken to in Russian."""
    from .notebook.pipeline import NotebookGrader
    from .wall.session import KernelSession

    path = Path(args.notebook)
    if not path.is_file():
        say(f"Файл не найден: {path}")
        return BAD_INPUT
    names = course_notebooks()
    name = args.name or next((n for n in names if path.stem == n or path.stem.startswith(n[:3])), None)
    if name not in names:
        say(f"Не понимаю, какой это блокнот курса: {path.name}. Укажите его через --as, один из: {', '.join(names)}")
        return BAD_INPUT
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `check … | head` ends quietly, without a traceback
    say(f"Проверяю {path} как {name} (со скрытыми тестами) …")
    config = load_config(overrides_of(args))
    course_nb = CourseNotebook.load(name)
    sandbox = Sandbox(config=config)
    result = NotebookGrader(config=config).grade(course_nb, path, lambda: KernelSession(sandbox, config=config)).result
    say(test_report(result))
    if result.status == ERROR:
        say(
            "Проверка не завершилась из-за лимита времени или сбоя машины: запустите её ещё раз. "
            "Если это повторится, блокнот работает слишком долго."
        )
        return RETRY
    return OK if result.status == GRADED and result.score >= result.max_score else SOME_FAILED


def cmd_bundle(args) -> int:
    """The student edition of an assignment: notebooks, data, helpers, a self-check; no answers."""
    from .course.bundle import BundleError, build

    try:
        notebooks = choose_notebooks(args.notebooks)
        path = build(notebooks, Path(args.out), allow_reveal=args.allow_reveal, say=say)
    except (ValueError, BundleError) as e:
        say(f"error: {e}")
        return BAD_INPUT
    say(
        f"student edition of {', '.join(n.split('_')[0] for n in notebooks)}: {path}",
        f"  (students: unzip, `make setup`, `make lab`; `make check NB={notebooks[0][:2]}` runs the visible tests)",
    )
    return OK


def cmd_settings(args) -> int:
    """Every setting of the grading classes: its effective value (nbgrader_config.py over the
    traitlet's default), whether the config changes it, and its help."""
    from .classroom.settings import grading_classes, setting

    config = load_config({})
    for cls in grading_classes():
        for name, trait in sorted(cls.class_traits(config=True).items()):
            value = setting(config, cls, name)
            changed = "" if value == trait.default() else f"  (default {trait.default()!r})"
            say(f"{cls.__name__}.{name} = {value!r}{changed}\n    {trait.help}")
    return OK


def cmd_demo(args) -> int:
    from .course.demo import build_demo_class, write_late_example

    out = Path(args.out).resolve()
    try:
        notebooks = choose_notebooks(args.notebooks)
    except ValueError as e:
        say(f"error: {e}")
        return BAD_INPUT
    submissions = build_demo_class(out / "class", notebooks)
    say(f"demo class: {submissions} (alice: all solved, bob: untouched, carol: a mistake, dave: 01 only)")
    submitted, extensions = write_late_example(out)
    say(f"its submission times and extensions, for the late policy (docs/instructors.md): {submitted}, {extensions}")
    return grade_class(submissions, out, out / "work", Assignment(notebooks=notebooks, jobs=args.jobs))


def cmd_serve(args) -> int:
    """The course server (docs/server.md): on-demand grading with the hidden tests, through secret links."""
    from .server import serve

    try:
        args.notebooks = choose_notebooks(args.notebooks)
        return serve(args, say)
    except ValueError as e:
        say(f"error: {e}")
        return BAD_INPUT


def cmd_export(args) -> int:
    """The exports of `grade` (Moodle worksheet and feedback zip, Canvas CSV) from the course server's records."""
    from .server.export import export_from_server

    kinds = [k for k in args.export or [] if k != "none"]
    try:
        worksheet = lms_files.read_moodle_worksheet(Path(args.worksheet)) if args.worksheet else None
        assignment = canvas_column(args.gradebook, args.assignment)
    except ValueError as e:
        say(f"error: {e}")
        return BAD_INPUT
    out = export_from_server(
        Path(args.from_server),
        Path(args.out),
        kinds,
        assignment,
        args.lms_language,
        worksheet,
        say,
        args.late_penalty,
        args.extensions,
    )
    say(f"grades from the server's records: {out / 'grades.csv'}")
    return OK


def export_parser(sub) -> None:
    e = sub.add_parser("export", help="the class's exports from the course server's records (no LMS download)")
    e.add_argument("--from-server", required=True, metavar="DATA", help="the server's --data folder")
    e.add_argument("--out", default="grades", help="where grades.csv and the exports go (default: ./grades)")
    e.add_argument("--export", action="append", choices=[*sorted(EXPORTS), "none"], required=True)
    e.add_argument("--assignment", default="", help="the Canvas gradebook column (default: serve's --assignment)")
    e.add_argument("--gradebook", metavar="CANVAS_CSV", help="Canvas's gradebook export: the column is its assignment")
    e.add_argument("--lms-language", choices=sorted(lms_files.MOODLE_STRINGS), default="")
    e.add_argument("--worksheet", metavar="WORKSHEET", help="Moodle's grading worksheet as downloaded")
    e.add_argument(
        "--late-penalty",
        type=float,
        metavar="PERCENT",
        help="count uploads after serve's --due, taking PERCENT of the total per started day late (0: in full); "
        "only when that gives more points than the uploads before it "
        "(default: serve's --late-penalty, else not counted)",
    )
    e.add_argument(
        "--extensions",
        metavar="CSV",
        help="per-student extensions and waivers (student,due,note; default: serve's --extensions)",
    )
    e.set_defaults(run=cmd_export)


def cmd_worker(args) -> int:
    """A grading worker on another host: takes the course server's jobs from Redis, grades them here."""
    from .server.queue import CONSUMER, Grading, make_queue, register

    huey = make_queue(redis_url=args.redis)
    register(huey, Grading(Path(args.work).resolve()))
    say(f"grading the course server's jobs from {args.redis} in {args.work} ({args.jobs} at once)")
    huey.create_consumer(**CONSUMER, workers=args.jobs).run()
    return OK


def worker_parser(sub) -> None:
    w = sub.add_parser("worker", help="grade the course server's jobs on this host (the queue on Redis)")
    w.add_argument("--redis", required=True, help="the queue's Redis, e.g. redis://queue-host:6379/0")
    w.add_argument("--work", default="grading-work", help="this host's work folder (the prepared course, files)")
    w.add_argument("--jobs", type=int, default=1, help="notebooks graded at once (default 1)")
    w.set_defaults(run=cmd_worker)


def serve_parser(sub) -> None:
    s = sub.add_parser("serve", help="the course server: students upload, the hidden tests grade on demand")
    s.add_argument("--notebooks", required=True, help="the assignment's notebooks, e.g. 01,02")
    s.add_argument("--roster", help="the class: Moodle's grading worksheet, Canvas's gradebook export or a CSV id,name")
    s.add_argument("--data", default="server-data", help="everything the server keeps (default: ./server-data)")
    s.add_argument("--due", help="the due date, e.g. '2026-12-01 23:59' (the server's local time)")
    s.add_argument("--late", choices=["record", "refuse"], default="record", help="uploads after --due")
    s.add_argument(
        "--before-due",
        choices=["messages", "points"],
        default="messages",
        help="what the hidden tests show before --due: their messages (default), or their points only",
    )
    s.add_argument("--attempts-per-hour", type=int, default=10, help="uploads per student per hour (default 10)")
    s.add_argument("--max-mb", type=int, default=20, help="the largest upload, in MB (default 20)")
    s.add_argument("--host", default="127.0.0.1", help="where to listen (default 127.0.0.1: behind a proxy)")
    s.add_argument("--port", type=int, default=8765)
    s.add_argument("--url", default="", help="the address students use, for their links (default http://HOST:PORT)")
    s.add_argument("--proxy", action="store_true", help="trust X-Forwarded-For/-Proto from the reverse proxy")
    s.add_argument("--jobs", type=int, default=1, help="notebooks graded at once here (0: only other hosts grade)")
    s.add_argument("--work", help="the grading work folder (default: DATA/worker)")
    s.add_argument("--redis", default="", help="the queue on Redis (redis://HOST:PORT/0) instead of DATA/queue.db")
    s.add_argument(
        "--lease",
        type=float,
        metavar="SECONDS",
        help="a job whose worker has not been heard from for this long is queued again (default: server.queue.LEASE)",
    )
    s.add_argument("--assignment", default="", help="the Canvas gradebook column for the download button")
    s.add_argument(
        "--late-penalty",
        type=float,
        metavar="PERCENT",
        help="the exports count uploads after --due, less PERCENT per started day (see export --late-penalty)",
    )
    s.add_argument(
        "--lti-config",
        metavar="FILE",
        help="serve as an LTI 1.3 tool for the platforms in FILE (JSON; default: DATA/lti.json if any; see `lti add`)",
    )
    s.add_argument(
        "--extensions",
        metavar="CSV",
        help="per-student extensions and waivers, rows student,due,note (due: a date, or waive); "
        "read again at each page and export, so an edit applies at once",
    )
    s.add_argument("--reissue", metavar="STUDENT_ID", help="a new link for one student (or: instructor), then exit")
    s.set_defaults(run=cmd_serve)


def cmd_lti(args) -> int:
    """Register a learning platform (Moodle, Canvas) with the course server: DATA/lti.json."""
    from .server.lti import add_platform

    platform = {
        "issuer": args.issuer,
        "client_id": args.client_id,
        "auth_login_url": args.auth_login_url,
        "auth_token_url": args.auth_token_url,
        "key_set_url": args.key_set_url,
        "deployment_ids": args.deployment_id,
    }
    if args.context:
        platform["contexts"] = args.context
    path = add_platform(Path(args.data), platform)
    print(f"the platform {args.issuer} (client {args.client_id}) is in {path}; `serve --data {args.data}` uses it")
    return 0


def lti_parser(sub) -> None:
    lti = sub.add_parser("lti", help="the course server as an LTI 1.3 tool: register a platform")
    how = lti.add_subparsers(dest="lti_command", required=True)
    a = how.add_parser("add", help="add (or replace) a platform in DATA/lti.json (docs/server.md, LTI)")
    a.add_argument("--data", default="server-data", help="the server's --data folder (default: ./server-data)")
    a.add_argument(
        "--issuer",
        required=True,
        help="the platform's issuer (Moodle: its address; Canvas: https://canvas.instructure.com)",
    )
    a.add_argument("--client-id", required=True, help="the client id the platform gave the tool")
    a.add_argument("--auth-login-url", required=True, help="the platform's OIDC authentication URL")
    a.add_argument("--auth-token-url", required=True, help="the platform's access token URL")
    a.add_argument("--key-set-url", required=True, help="the platform's public keyset (JWKS) URL")
    a.add_argument("--deployment-id", action="append", required=True, help="a deployment id (repeat for more)")
    a.add_argument(
        "--context", action="append", help="the LMS course id served (default: the first instructor's launch)"
    )
    a.set_defaults(run=cmd_lti)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m autograder", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("release", help="generate the student notebooks from solutions/")
    r.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "notebooks"))
    r.set_defaults(run=cmd_release)
    g = sub.add_parser("grade", help="autograde a class: SUBMISSIONS/<student_id>/<notebook>.ipynb, or an LMS zip")
    g.add_argument("submissions", help="a folder of student folders, or a Moodle/Canvas export .zip")
    g.add_argument(
        "--lms",
        choices=["auto", *LMS_PATTERNS],
        default="auto",
        help="file naming of the zip (default: recognise Moodle, Canvas, or student/notebook folders)",
    )
    g.add_argument(
        "--name-pattern", default="", help="a regex with groups student_id and file_id for other platforms' zip names"
    )
    g.add_argument(
        "--notebooks",
        help="grade only these course notebooks, e.g. 01,02,03 (an assignment); "
        "others are not listed, not even as missing",
    )
    g.add_argument(
        "--student",
        action="append",
        help="grade this student again (their cached results are dropped); may be given more than once",
    )
    g.add_argument(
        "--rename",
        action="append",
        metavar="STUDENT/FILE=NN",
        help="a misnamed file is this course notebook, e.g. --rename 1003/hw1.ipynb=02 "
        "(FILE as the student named it, without folders)",
    )
    g.add_argument("--out", default="grades", help="where grades.csv and feedback/ go (default: ./grades)")
    g.add_argument("--work", help="the grader's work folder: course, gradebook, cache (default: OUT/work; keep it)")
    g.add_argument(
        "--jobs",
        type=int,
        help="notebooks graded at once (default: the cores this process may use)",
    )
    g.add_argument("--force", action="store_true", help="grade again what was already graded")
    g.add_argument("--shard", help="grade only shard i of n (i/n), for several machines; then `merge`")
    g.add_argument("--no-feedback", action="store_true", help="skip the feedback HTML")
    g.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run student code in a plain kernel, without walls or limits (only for trusted notebooks)",
    )
    g.add_argument(
        "--cell-timeout", type=int, help="seconds a cell may run (default: KernelSession.cell_timeout, see `settings`)"
    )
    g.add_argument(
        "--notebook-timeout", type=int, help="seconds a notebook may run (default: NotebookGrader.notebook_timeout)"
    )
    g.add_argument(
        "--call-seconds",
        type=float,
        help="CPU seconds a test's call of a student's function may take (default: Evaluator.call_seconds)",
    )
    g.set_defaults(run=cmd_grade)
    m = sub.add_parser("merge", help="combine the output folders of shard runs")
    m.add_argument("parts", nargs="+")
    m.add_argument("--out", required=True)
    for command in (g, m):
        command.add_argument(
            "--export",
            action="append",
            choices=[*sorted(EXPORTS), "none"],
            help="also write the grades for upload: moodle (grading worksheet) or canvas "
            "(gradebook import); may be given twice; remembered for the next run (none: no exports)",
        )
        command.add_argument(
            "--assignment",
            default="",
            help="the Canvas gradebook column, e.g. 'Homework 1 (123456)' (or its title, with --gradebook)",
        )
        command.add_argument(
            "--gradebook",
            metavar="CANVAS_CSV",
            help="Canvas's gradebook export (Grades → Export): the Canvas column is its assignment",
        )
        command.add_argument(
            "--lms-language",
            choices=sorted(lms_files.MOODLE_STRINGS),
            default="",
            help="the Moodle interface language the worksheet is uploaded in: its column "
            f"names and id prefix (default: the --worksheet's, else {lms_files.DEFAULT_LANGUAGE})",
        )
        command.add_argument(
            "--worksheet",
            metavar="WORKSHEET",
            help="Moodle's grading worksheet as downloaded (Download grading worksheet): the upload keeps its "
            "language, ids, names and Last modified (grade), so grades changed in Moodle since are kept; "
            "its submission times serve --due",
        )
        command.add_argument(
            "--due",
            help="the due date, in the Moodle's time zone, e.g. '2026-12-01 23:59': "
            "late submissions are reported (needs --worksheet or --submission-times)",
        )
        command.add_argument(
            "--submission-times",
            metavar="WORKSHEET",
            help="when each notebook was handed in: Moodle's downloaded grading worksheet (one time per student, "
            "applied to all their notebooks; default: --worksheet) "
            "or a CSV student_id,notebook,submitted (one per file)",
        )
        command.add_argument(
            "--extensions",
            metavar="CSV",
            help="per-student extensions and waivers, rows student,due,note: due a new due date "
            "('2026-12-05 23:59') or waive (no late penalty); remembered (docs/instructors.md)",
        )
        command.add_argument(
            "--late-penalty",
            type=float,
            metavar="PERCENT",
            help="take PERCENT of the grade per started day late from the Moodle grade (with --due)",
        )
        command.add_argument(
            "--overwrite-hand-grades",
            action="store_true",
            help="replace the grades entered by hand in Moodle (the --worksheet) or Canvas (the --gradebook) "
            "since the grader's last upload; by default they are kept and listed (never remembered)",
        )
    m.set_defaults(run=cmd_merge)
    c = sub.add_parser("check", help="grade one notebook against the hidden tests (a self-check)")
    c.add_argument("notebook")
    c.add_argument("--as", dest="name", help="the course notebook it is, if its file name does not say")
    c.set_defaults(run=cmd_check)
    b = sub.add_parser("bundle", help="a student edition of an assignment (a zip without solutions)")
    b.add_argument("--notebooks", required=True, help="the assignment's notebooks, e.g. 01,02")
    b.add_argument("--out", required=True, help="the zip to write, e.g. hw1-student.zip")
    b.add_argument(
        "--allow-reveal",
        action="store_true",
        help="write it even if a notebook's read-only cells hold an answer of this or a later assignment",
    )
    b.set_defaults(run=cmd_bundle)
    s = sub.add_parser("similarity", help="the similarity report of a graded class again (OUT/similarity.html)")
    s.add_argument("out", help="the output folder of a grade run")
    s.set_defaults(run=cmd_similarity)
    d = sub.add_parser("demo", help="grade the bundled example class")
    d.add_argument("--out", default="demo-output")
    d.add_argument("--jobs", type=int, help="notebooks graded at once (default: the cores this process may use)")
    d.add_argument("--notebooks", help="grade only these notebooks of the example class, e.g. 01 (default: all)")
    d.set_defaults(run=cmd_demo)
    t = sub.add_parser("settings", help="the grader's settings: effective values (nbgrader_config.py), defaults, help")
    t.set_defaults(run=cmd_settings)
    serve_parser(sub)
    lti_parser(sub)
    export_parser(sub)
    worker_parser(sub)
    return p


def interrupt(signum, frame):
    """SIGTERM (a scheduler, `kill`, a container stopping) stops a command as Ctrl-C does: cleanly."""
    raise KeyboardInterrupt


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    signal.signal(signal.SIGTERM, interrupt)  # the server sets handlers of its own
    use_venv_tools()
    offline_tiktoken()
    try:
        return args.run(args)
    except FileNotFoundError as e:
        say(f"error: {e}")
        return BAD_INPUT
    except CourseError as e:
        say(f"error: the course could not be prepared: {e}")
        return COURSE_BROKEN
    except KeyboardInterrupt:
        say("interrupted")
        return INTERRUPTED
