"""The course server's records, in DATA/server.db (SQLite): the class, the secret links, the attempts.

Tokens are `secrets.token_urlsafe(32)` (256 bits); only their SHA-256 is kept, and a presented token
is compared with every stored hash by `hmac.compare_digest`. The links themselves go to
DATA/tokens.csv (student_id,name,link) for the instructor to send, written by the spreadsheet-safe
csv writer; DATA/instructor.txt holds the instructor's link.
"""

import csv
import hashlib
import hmac
import json
import secrets
import sqlite3
import time
from pathlib import Path

from ..notebook.results import safe_text
from ..platforms.lms import read_moodle_worksheet
from ..platforms.report import csv_writer, from_spreadsheet_cell
from .messages import Graded

QUEUED, RUNNING, GRADED, ERROR = "queued", "running", "graded", "error"
INSTRUCTOR = ""  # the instructor's row in `tokens`

SCHEMA = """
CREATE TABLE IF NOT EXISTS students (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (who TEXT PRIMARY KEY, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (
  id INTEGER PRIMARY KEY, student TEXT NOT NULL, notebook TEXT NOT NULL, sha TEXT NOT NULL, key TEXT NOT NULL,
  uploaded REAL NOT NULL, late INTEGER NOT NULL, status TEXT NOT NULL, task TEXT NOT NULL DEFAULT '',
  result TEXT, feedback TEXT, graded REAL, cached INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS attempts_student ON attempts (student, uploaded);
CREATE TABLE IF NOT EXISTS sessions (hash TEXT PRIMARY KEY, who TEXT NOT NULL, expires REAL NOT NULL);
"""


def read_class_list(path: Path) -> dict[str, str]:
    """student_id → name from a Moodle grading worksheet, a Canvas gradebook export or a CSV of
    student_id,name (a header row is optional)."""
    try:
        return read_moodle_worksheet(path).names() or {pid: pid for pid in read_moodle_worksheet(path).rows}
    except ValueError:
        pass
    with open(path, newline="", encoding="utf-8-sig") as f:
        table = [row for row in csv.reader(f) if row and any(c.strip() for c in row)]
    if not table:
        raise ValueError(f"{path}: an empty class list")
    header = [c.strip() for c in table[0]]
    if header[:2] == ["Student", "ID"]:  # Canvas: Student, ID, …; a "Points Possible" row has no ID
        return {row[1].strip(): row[0].strip() for row in table[1:] if len(row) > 1 and row[1].strip().isdigit()}
    rows = table[1:] if header[:2] in (["student_id", "name"], ["id", "name"]) else table
    students = {
        from_spreadsheet_cell(r[0].strip()): from_spreadsheet_cell(r[1].strip() if len(r) > 1 else "") for r in rows
    }
    bad = [s for s in students if not s or not all(c.isalnum() or c in "._-@" for c in s)]
    if bad:
        raise ValueError(f"{path}: not a student id: {bad[0]!r} (letters, digits, . _ - @)")
    return students


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class Store:
    def __init__(self, data: Path):
        self.data = Path(data)
        self.data.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.data / "server.db", isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    # -- the class and its links ---------------------------------------------------------------
    def enrol(self, students: dict[str, str], base_url: str) -> list[str]:
        """Add the roster's students (names updated); a new student gets a link. The ids given links now."""
        new = []
        for sid, name in students.items():
            self.db.execute(
                "INSERT INTO students VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET name=excluded.name",
                (safe_text(sid), safe_text(name)),
            )
        known = {w for (w,) in self.db.execute("SELECT who FROM tokens")}
        links = self.links()
        for who in [INSTRUCTOR, *students]:
            if who not in known or who not in links:
                links[who] = self.issue(who, base_url)
                new.append(who)
        self.write_links(links)
        return new

    def issue(self, who: str, base_url: str) -> str:
        """A new secret link for `who` (a student id, or INSTRUCTOR); the old one stops working."""
        token = secrets.token_urlsafe(32)
        self.db.execute("INSERT OR REPLACE INTO tokens VALUES (?, ?)", (who, digest(token)))
        return f"{base_url.rstrip('/')}/{'teacher' if who == INSTRUCTOR else 's'}/{token}"

    def reissue(self, who: str, base_url: str) -> str:
        if who != INSTRUCTOR and who not in self.students():
            raise KeyError(who)
        links = self.links()
        links[who] = self.issue(who, base_url)
        self.write_links(links)
        return links[who]

    def links(self) -> dict[str, str]:
        links = {}
        try:
            with open(self.data / "tokens.csv", newline="", encoding="utf-8") as f:
                links = {from_spreadsheet_cell(r["student_id"]): r["link"] for r in csv.DictReader(f)}
        except (OSError, KeyError):
            pass
        try:
            links[INSTRUCTOR] = (self.data / "instructor.txt").read_text(encoding="utf-8").strip()
        except OSError:
            pass
        return links

    def write_links(self, links: dict[str, str]) -> None:
        names = self.students()
        path = self.data / "tokens.csv"
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            csv_writer(f).writerows(
                [("student_id", "name", "link"), *((s, names[s], links[s]) for s in sorted(names) if s in links)]
            )
        tmp.chmod(0o600)
        tmp.replace(path)
        if INSTRUCTOR in links:
            teacher = self.data / "instructor.txt"
            teacher.write_text(links[INSTRUCTOR] + "\n", encoding="utf-8")
            teacher.chmod(0o600)

    def who(self, token: str) -> str | None:
        """The student id (or INSTRUCTOR) whose token this is (a link's, or an LTI launch's session not yet
        expired), or None: every hash compared in constant time."""
        presented, found = digest(token), None
        rows = self.db.execute(
            "SELECT who, hash FROM tokens UNION ALL SELECT who, hash FROM sessions WHERE expires > ?", (time.time(),)
        )
        for who, stored in rows:
            if hmac.compare_digest(presented, stored):
                found = who
        return found

    def open_session(self, who: str, seconds: float) -> str:
        """A token for `who` that works like their link's for `seconds` (an LTI launch's page); only its hash kept."""
        token = secrets.token_urlsafe(32)
        self.db.execute("DELETE FROM sessions WHERE expires <= ?", (time.time(),))
        self.db.execute("INSERT INTO sessions VALUES (?, ?, ?)", (digest(token), who, time.time() + seconds))
        return token

    def students(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT id, name FROM students ORDER BY id"))

    # -- attempts ------------------------------------------------------------------------------
    def add_attempt(self, student: str, notebook: str, sha: str, key: str, late: bool) -> int:
        cur = self.db.execute(
            "INSERT INTO attempts (student, notebook, sha, key, uploaded, late, status) VALUES (?,?,?,?,?,?,?)",
            (student, notebook, sha, key, time.time(), int(late), QUEUED),
        )
        return cur.lastrowid

    def cached(self, student: str, notebook: str, key: str):
        """An earlier attempt of the same file, graded (not a grader's error) or on its way: its row, or None."""
        return self.db.execute(
            "SELECT status, task, result, feedback FROM attempts WHERE student=? AND notebook=? AND key=? "
            "AND status != ? ORDER BY status = ? DESC, id DESC LIMIT 1",
            (student, notebook, key, ERROR, GRADED),
        ).fetchone()

    def set_task(self, attempt: int, task: str) -> None:
        self.db.execute("UPDATE attempts SET task=? WHERE id=?", (task, attempt))

    def copy_result(self, attempt: int, result: str, feedback: str | None) -> None:
        self.db.execute(
            "UPDATE attempts SET status=?, result=?, feedback=?, graded=?, cached=1 WHERE id=?",
            (GRADED, result, feedback, time.time(), attempt),
        )

    def record(self, task: str, graded: Graded) -> int:
        """The answer of job `task`, for every attempt waiting on it (only those not yet graded)."""
        status = ERROR if graded.result.status == "error" else GRADED
        cur = self.db.execute(
            "UPDATE attempts SET status=?, result=?, feedback=?, graded=? WHERE task=? AND status IN (?, ?)",
            (
                status,
                json.dumps(graded.result.to_dict(), ensure_ascii=False),
                graded.feedback,
                time.time(),
                task,
                QUEUED,
                RUNNING,
            ),
        )
        return cur.rowcount

    def retask(self, old: str, new: str) -> None:
        """The attempts waiting on job `old` now wait on job `new` (the same file queued again)."""
        self.db.execute(
            "UPDATE attempts SET task=?, status=? WHERE task=? AND status IN (?, ?)",
            (new, QUEUED, old, QUEUED, RUNNING),
        )

    def mark_running(self, task: str) -> None:
        self.db.execute("UPDATE attempts SET status=? WHERE task=? AND status=?", (RUNNING, task, QUEUED))

    def unfinished(self) -> list[tuple]:
        """(attempt, student, notebook, sha, task) of every attempt not yet graded, oldest first."""
        return list(
            self.db.execute(
                "SELECT id, student, notebook, sha, task FROM attempts WHERE status IN (?, ?) ORDER BY id",
                (QUEUED, RUNNING),
            )
        )

    def attempts(self, student: str | None = None) -> list[dict]:
        query = "SELECT * FROM attempts" + (" WHERE student=?" if student else "") + " ORDER BY id DESC"
        cur = self.db.execute(query, (student,) if student else ())
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur]

    def attempt(self, attempt_id: int) -> dict | None:
        cur = self.db.execute("SELECT * FROM attempts WHERE id=?", (attempt_id,))
        row = cur.fetchone()
        return dict(zip([d[0] for d in cur.description], row)) if row else None

    def uploads_since(self, student: str, since: float) -> list[float]:
        return [
            t
            for (t,) in self.db.execute(
                "SELECT uploaded FROM attempts WHERE student=? AND uploaded>? ORDER BY uploaded", (student, since)
            )
        ]
