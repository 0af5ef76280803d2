"""python -m autograder release | grade | check | demo

Exit codes: 0 done (check: every test passed); 1 done, but some submissions could not be
graded (check: some tests failed); 2 bad input (a path, a name); 3 the course itself could not
be prepared (e.g. nbgrader failed on solutions/).
"""
import argparse
import shutil
import tempfile
from pathlib import Path

from .course import CourseError, course_notebooks
from .grading import GRADED, MISSING, Grader
from .report import grade_table, test_report, write_grades_csv, write_results_json
from .submissions import find_submissions

OK, SOME_FAILED, BAD_INPUT, COURSE_BROKEN = 0, 1, 2, 3


def say(*lines: str) -> None:
    print(*lines, sep="\n", flush=True)


def work_dir(given: str | None, prefix: str) -> Path:
    return Path(given).resolve() if given else Path(tempfile.mkdtemp(prefix=prefix))


def cmd_release(args) -> int:
    from .release import release
    for path in release(Path(args.out)):
        say(f"wrote {path}")
    return OK


def grade_class(submissions: Path, out: Path, work: Path, feedback: bool = True,
                cell_timeout: int | None = None) -> int:
    names = course_notebooks()
    found = find_submissions(submissions, names)
    if not found.students:
        say(f"no student folders in {submissions} (expected {submissions}/<student_id>/<notebook>.ipynb)")
        return BAD_INPUT
    say(f"preparing the course in {work} …")
    grader = Grader(work, cell_timeout=cell_timeout)
    results = []
    for student, files in found.students.items():
        for name in names:
            if name not in files:
                result = grader.missing(student, name)
            else:
                result = grader.grade(student, name, files[name])
                if result.status == GRADED and feedback:
                    grader.write_feedback(student, name, out / "feedback" / student / f"{name}.html")
            results.append(result)
            say(f"  {student:<16} {name:<28} {result.score:g}/{result.max_score:g}  {result.status}")
    csv_path = write_grades_csv(results, out / "grades.csv")
    write_results_json(results, out / "results.json")
    say("", grade_table(results, names), "")
    problems = [f"{r.student}/{r.notebook}: {r.status}: {r.message}" for r in results
                if r.status not in (GRADED, MISSING)] + found.problems
    if problems:
        say("Problems (graded as 0 or not used):", *("  " + p for p in problems), "")
    say(f"grades: {csv_path} (per test: {out / 'results.json'})")
    if feedback:
        say(f"feedback: {out / 'feedback'}/<student_id>/<notebook>.html")
    return SOME_FAILED if any(r.status not in (GRADED, MISSING) for r in results) else OK


def cmd_grade(args) -> int:
    return grade_class(Path(args.submissions), Path(args.out).resolve(), work_dir(args.work, "bpe-grade-"),
                       feedback=not args.no_feedback, cell_timeout=args.cell_timeout)


def cmd_check(args) -> int:
    path = Path(args.notebook)
    if not path.is_file():
        say(f"no such file: {path}")
        return BAD_INPUT
    names = course_notebooks()
    name = args.name or next((n for n in names if path.stem == n or path.stem.startswith(n[:3])), None)
    if name not in names:
        say(f"cannot tell which course notebook {path.name} is; pass --as with one of: {', '.join(names)}")
        return BAD_INPUT
    say(f"checking {path} as {name} (hidden tests included) …")
    result = Grader(work_dir(args.work, "bpe-check-")).grade("self", name, path)
    say(test_report(result))
    return OK if result.status == GRADED and result.score >= result.max_score else SOME_FAILED


def cmd_demo(args) -> int:
    from .demo import build_demo_class
    out = Path(args.out).resolve()
    shutil.rmtree(out / "work", ignore_errors=True)  # a fresh nbgrader course each time
    submissions = build_demo_class(out / "class")
    say(f"demo class: {submissions} (alice: all solved, bob: untouched, carol: a mistake, dave: 01 only)")
    return grade_class(submissions, out, out / "work")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m autograder", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("release", help="generate the student notebooks from solutions/")
    r.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "notebooks"))
    r.set_defaults(run=cmd_release)
    g = sub.add_parser("grade", help="autograde a class: SUBMISSIONS/<student_id>/<notebook>.ipynb")
    g.add_argument("submissions")
    g.add_argument("--out", default="grades", help="where grades.csv and feedback/ go (default: ./grades)")
    g.add_argument("--work", help="nbgrader course directory to use (default: a new temporary folder)")
    g.add_argument("--no-feedback", action="store_true", help="skip the feedback HTML")
    g.add_argument("--cell-timeout", type=int, help="seconds a cell may run (default: nbgrader_config.py)")
    g.set_defaults(run=cmd_grade)
    c = sub.add_parser("check", help="grade one notebook against the hidden tests")
    c.add_argument("notebook")
    c.add_argument("--as", dest="name", help="the course notebook it is, if its file name does not say")
    c.add_argument("--work", help="nbgrader course directory to use (default: a new temporary folder)")
    c.set_defaults(run=cmd_check)
    d = sub.add_parser("demo", help="grade the bundled example class")
    d.add_argument("--out", default="demo-output")
    d.set_defaults(run=cmd_demo)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
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
        return 130
