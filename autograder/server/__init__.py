"""The course server: `python -m autograder serve` (docs/server.md).

Students upload a notebook through their secret link (or `check.py --submit`) and get it graded with the
hidden tests, on demand, by the same sandboxed grader as `grade`. autograder.server.store keeps the
records (SQLite), autograder.server.queue the jobs (huey), autograder.server.web the pages;
autograder.server.lti and lti_web make it an LTI 1.3 tool of Moodle or Canvas (`--lti-config`).

May import: every layer below — `autograder.course`, `autograder.wall`, `autograder.notebook`,
`autograder.platforms`, `autograder.classroom`.
"""

import signal
from datetime import datetime
from pathlib import Path


def serve(args, say) -> int:
    import tornado.httpserver
    import tornado.ioloop

    from .queue import LEASE, Grading, make_queue, register, start_consumer
    from .store import INSTRUCTOR, Store, read_class_list
    from .web import Course, application

    data = Path(args.data).resolve()
    store = Store(data)
    base = args.url or f"http://{args.host}:{args.port}"
    if args.reissue:
        who = INSTRUCTOR if args.reissue == "instructor" else args.reissue
        try:
            link = store.reissue(who, base)
        except KeyError:
            say(f"error: no student {args.reissue} in {data / 'tokens.csv'}")
            return 2
        say(f"a new link for {args.reissue} (the old one no longer works): {link}")
        return 0
    if args.roster:
        store.enrol(read_class_list(Path(args.roster)), base)
    tool = None
    lti_config = args.lti_config or (data / "lti.json" if (data / "lti.json").exists() else None)
    if lti_config:
        from .lti import Tool, read_config

        try:
            tool = Tool(data, read_config(Path(lti_config)), base)
        except ValueError as e:
            say(f"error: {e}")
            return 2
    if not store.students() and tool is None:
        say("error: no students: give --roster (a Moodle worksheet, a Canvas gradebook export or a CSV id,name)")
        return 2
    from .export import remember, server_policy

    due = datetime.fromisoformat(args.due) if args.due else None
    if args.extensions and not Path(args.extensions).is_file():
        say(f"error: --extensions {args.extensions}: no such file")
        return 2
    if args.extensions and not due:
        say("error: --extensions needs --due (the due date they move or waive)")
        return 2
    remember(data, args.notebooks, due, args.assignment, args.late_penalty, args.extensions)
    server_policy(data, say=say)  # a bad row of the extensions file is said once, here
    huey = make_queue(data, args.redis)
    grading = Grading(Path(args.work).resolve() if args.work else data / "worker")
    task = register(huey, grading)
    course = Course(
        store,
        huey,
        task,
        args.notebooks,
        due,
        args.late == "refuse",
        args.attempts_per_hour,
        args.max_mb << 20,
        args.before_due == "points",
        LEASE if args.lease is None else args.lease,
        remote=bool(args.redis),
        late_penalty=args.late_penalty,
        data=data,
    )
    again = course.recover()
    if again:
        say(f"{again} job(s) interrupted by the last stop queued again")
    consumer = start_consumer(huey, args.jobs) if args.jobs else None
    server = tornado.httpserver.HTTPServer(application(course, tool), max_body_size=256 << 20, xheaders=args.proxy)
    server.listen(args.port, args.host)
    loop = tornado.ioloop.IOLoop.current()
    tornado.ioloop.PeriodicCallback(course.collect, 500).start()
    stop = lambda *_: loop.add_callback_from_signal(loop.stop)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    say(
        f"serving {', '.join(args.notebooks)} on {base} for {len(store.students())} students",
        f"  links: {data / 'tokens.csv'} (send each student theirs); the instructor's: {data / 'instructor.txt'}",
    )
    sender = None
    if tool is not None:
        course.graded_changed()  # scores graded while the server was down
        sender = tool.start_sender()
        urls = tool.urls()
        say(
            "  LTI 1.3 tool for " + ", ".join(f"{p['issuer']} (client {p['client_id']})" for p in tool.platforms),
            f"    Tool URL / Target link URI / Redirection URI: {urls['launch']}",
            f"    Initiate login URL / OpenID Connect Initiation URL: {urls['login']}",
            f"    Public keyset URL / JWK URL: {urls['jwks']}",
            f"    Content Selection URL / Deep linking URL: {urls['deep_linking']}",
        )
    loop.start()
    if sender is not None:
        sender.set()
    if consumer:
        consumer.stop(graceful=False)
    return 0
