"""The course server as an LTI 1.3 Advantage tool (docs/server.md, LTI): the platforms it trusts, its own
key, pylti1p3's interfaces for Tornado, and the grades it owes the platforms (Assignment and Grade Services).

The LTI protocol itself — the OIDC login, the id_token's checks (RS256 against the platform's JWKS,
iss, aud, nonce, state, deployment_id, message type and version), the service token, line items and
scores, the deep-linking response — is pylti1p3's (the maintained fork, pylti1p3next); what is here is
what the library leaves to the tool: where its state lives (DATA/lti.db, SQLite), the cookies (set as a
browser keeps them inside an LMS's iframe: SameSite=None; Secure), the few checks it leaves out (azp,
exp and iat required, the algorithm, the course's context, who is an instructor), and a durable outbox
of scores, sent and retried until the platform has them.

DATA/lti.json: the platforms, a list of {issuer, client_id, auth_login_url, auth_token_url, key_set_url,
deployment_ids, contexts?} (`python -m autograder lti add …`, or `serve --lti-config FILE`).
DATA/lti_private.pem: the tool's RSA key, made once, mode 0600; its public half is /lti/jwks.
"""

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

CONFIG = "lti.json"
KEY = "lti_private.pem"
FIELDS = ("issuer", "client_id", "auth_login_url", "auth_token_url", "key_set_url", "deployment_ids")
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DEEP_LINKING = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
# roles whose launch opens the instructor's page (LIS vocabulary, LTI 1.3 §A.2: context roles, and the
# institution/system administrator Moodle adds for a site admin); every other role is a student's
INSTRUCTOR_ROLES = (
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper",
    "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant",
    "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator",
)
ALGORITHMS = ("RS256", "RS384", "RS512")  # LTI Security Framework §5.4: RSA signatures; never none, never HMAC
SESSION_SECONDS = 8 * 3600
RETRY_FIRST, RETRY_MOST = 1.0, 600.0  # the outbox's backoff: 1 s, doubling, at most 10 min between tries

SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires REAL);
CREATE TABLE IF NOT EXISTS users (iss TEXT NOT NULL, sub TEXT NOT NULL, student TEXT NOT NULL,
  PRIMARY KEY (iss, sub));
CREATE TABLE IF NOT EXISTS contexts (iss TEXT NOT NULL, context TEXT NOT NULL, PRIMARY KEY (iss, context));
CREATE TABLE IF NOT EXISTS activities (iss TEXT NOT NULL, client_id TEXT NOT NULL, student TEXT NOT NULL,
  sub TEXT NOT NULL, activity TEXT NOT NULL, resource_link TEXT NOT NULL, lineitems TEXT, lineitem TEXT,
  scope TEXT NOT NULL, label TEXT NOT NULL, PRIMARY KEY (iss, student, resource_link));
CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, iss TEXT NOT NULL, student TEXT NOT NULL,
  resource_link TEXT NOT NULL, score TEXT NOT NULL, made REAL NOT NULL, tries INTEGER NOT NULL DEFAULT 0,
  next REAL NOT NULL, sent REAL, error TEXT, lineitem TEXT);
"""


class Refused(Exception):
    """A launch the tool does not accept: the reason, shown on the page (nothing is recorded)."""


# -- the configuration --------------------------------------------------------------------------------
def read_config(path: Path) -> list[dict]:
    """The platforms of an LTI configuration file: one object or a list, each with FIELDS (and optionally
    `contexts`: the LMS course ids this server serves; without it the first instructor's launch sets it)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not an LTI configuration ({e})") from e
    platforms = data if isinstance(data, list) else [data]
    for p in platforms:
        missing = [f for f in FIELDS if not p.get(f)]
        if not isinstance(p, dict) or missing:
            raise ValueError(f"{path}: a platform without {', '.join(missing or FIELDS)}")
        if isinstance(p["deployment_ids"], str):
            p["deployment_ids"] = [p["deployment_ids"]]
        p["deployment_ids"] = [str(d) for d in p["deployment_ids"]]
        p["client_id"] = str(p["client_id"])
    return platforms


def add_platform(data: Path, platform: dict) -> Path:
    """DATA/lti.json with `platform` added (replacing the one with the same issuer and client id)."""
    path = Path(data) / CONFIG
    platforms = read_config(path) if path.exists() else []
    same = lambda p: (p["issuer"], p["client_id"]) == (platform["issuer"], str(platform["client_id"]))
    platforms = [p for p in platforms if not same(p)] + [platform]
    Path(data).mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(platforms, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)
    read_config(path)
    return path


# -- the tool's key -----------------------------------------------------------------------------------
def private_key(data: Path) -> str:
    """DATA/lti_private.pem, made the first time (RSA 2048, created with mode 0600: never readable by others)."""
    path = Path(data) / KEY
    if not path.exists():
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        with contextlib.suppress(FileExistsError):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
    return path.read_text(encoding="ascii")


def public_key(private_pem: str) -> str:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


# -- the state pylti1p3 keeps, in SQLite --------------------------------------------------------------
def connect(data: Path) -> sqlite3.Connection:
    db = sqlite3.connect(Path(data) / "lti.db", isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA busy_timeout=10000")
    db.executescript(SCHEMA)
    return db


def storage_class():
    from pylti1p3.launch_data_storage.base import LaunchDataStorage

    class SqliteStorage(LaunchDataStorage):
        """pylti1p3's launch-data storage on DATA/lti.db: the nonces it issued, the state of a launch,
        the launch data a deep link comes back to. Keys are not tied to a browser's session cookie (an LMS's
        iframe may keep none); the state cookie ties a launch to its browser. A nonce is read once:
        `check_value` deletes it in the same statement, so a replayed id_token finds none."""

        _session_cookie_name = ""

        def __init__(self, db: sqlite3.Connection):
            super().__init__()
            self.db = db

        def can_set_keys_expiration(self) -> bool:
            return True

        def get_value(self, key):
            row = self.db.execute(
                "SELECT value FROM kv WHERE key=? AND (expires IS NULL OR expires > ?)",
                (self._prepare_key(key), time.time()),
            ).fetchone()
            return json.loads(row[0]) if row else None

        def set_value(self, key, value, exp=None):
            self.db.execute("DELETE FROM kv WHERE expires IS NOT NULL AND expires < ?", (time.time(),))
            self.db.execute(
                "INSERT OR REPLACE INTO kv VALUES (?, ?, ?)",
                (self._prepare_key(key), json.dumps(value), time.time() + exp if exp else None),
            )

        def check_value(self, key) -> bool:
            row = self.db.execute(
                "DELETE FROM kv WHERE key=? AND (expires IS NULL OR expires > ?) RETURNING key",
                (self._prepare_key(key), time.time()),
            ).fetchone()
            return row is not None

    return SqliteStorage


# -- the tool -----------------------------------------------------------------------------------------
class Tool:
    """The LTI side of one course server: its platforms, its key, its records in DATA/lti.db."""

    def __init__(self, data: Path, platforms: list[dict], base_url: str):
        from pylti1p3.tool_config import ToolConfDict

        self.data, self.platforms, self.base = Path(data), platforms, base_url.rstrip("/")
        self.private = private_key(self.data)
        self.public = public_key(self.private)
        self.db = connect(self.data)
        self.lock = threading.Lock()
        by_issuer: dict[str, list[dict]] = {}
        for p in platforms:
            by_issuer.setdefault(p["issuer"], []).append(
                {
                    "default": not by_issuer.get(p["issuer"]),
                    "client_id": p["client_id"],
                    "auth_login_url": p["auth_login_url"],
                    "auth_token_url": p["auth_token_url"],
                    "auth_audience": p.get("auth_audience"),
                    "key_set_url": p["key_set_url"],
                    "key_set": None,
                    "deployment_ids": p["deployment_ids"],
                }
            )
        self.conf = ToolConfDict(by_issuer)
        for iss, items in by_issuer.items():
            for item in items:
                self.conf.set_private_key(iss, self.private, client_id=item["client_id"])
                self.conf.set_public_key(iss, self.public, client_id=item["client_id"])
        for p in platforms:
            for context in p.get("contexts") or []:
                self.db.execute("INSERT OR IGNORE INTO contexts VALUES (?, ?)", (p["issuer"], str(context)))

    # the URLs a platform is given (printed by `serve`, named in docs/server.md)
    def urls(self) -> dict[str, str]:
        return {
            "login": f"{self.base}/lti/login",
            "launch": f"{self.base}/lti/launch",
            "jwks": f"{self.base}/lti/jwks",
            "deep_linking": f"{self.base}/lti/launch",
        }

    def jwks(self) -> dict:
        return self.conf.get_jwks()

    def storage(self):
        return storage_class()(self.db)

    def origins(self) -> list[str]:
        """The platforms' web origins (the LMS pages that may frame the tool's pages and receive its forms)."""
        from urllib.parse import urlsplit

        found = []
        for p in self.platforms:
            for url in (p["issuer"], p["auth_login_url"]):
                parts = urlsplit(url)
                if parts.scheme in ("http", "https") and parts.netloc:
                    origin = f"{parts.scheme}://{parts.netloc}"
                    if origin not in found:
                        found.append(origin)
        return found

    def platform(self, iss: str, client_id: str) -> dict | None:
        return next((p for p in self.platforms if (p["issuer"], p["client_id"]) == (iss, client_id)), None)

    # the checks pylti1p3 leaves to the tool
    def check(self, header: dict, body: dict) -> dict:
        """What a validated launch must also hold (else Refused): an RSA algorithm, aud holding the client id
        and azp equal to it (required when aud names more than one client), exp and iat, a context of this
        course. The platform entry it came through."""
        if header.get("alg") not in ALGORITHMS:
            raise Refused(f"подпись {header.get('alg')!r} не принимается: только RS256")
        aud = body.get("aud")
        auds = aud if isinstance(aud, list) else [aud]
        client = auds[0] if auds else None
        platform = self.platform(body.get("iss"), str(client))
        if platform is None or platform["client_id"] not in auds:
            raise Refused("токен выписан не этому инструменту (aud)")
        if (len(auds) > 1 or "azp" in body) and body.get("azp") != platform["client_id"]:
            raise Refused("токен выписан не этому инструменту (azp)")
        for claim in ("exp", "iat"):
            if not isinstance(body.get(claim), (int, float)):
                raise Refused(f"в токене нет {claim}")
        if body.get(LTI + "version") != "1.3.0":
            raise Refused("версия LTI не 1.3.0")
        context = (body.get(LTI + "context") or {}).get("id")
        bound = {c for (c,) in self.db.execute("SELECT context FROM contexts WHERE iss=?", (platform["issuer"],))}
        if not context:
            raise Refused("запуск без курса (context)")
        if bound and context not in bound:
            raise Refused("запуск из другого курса: этот сервер проверяет задания другого курса")
        if not bound:
            if not is_instructor(body):
                raise Refused("курс ещё не подключён: преподаватель должен открыть инструмент первым")
            self.db.execute("INSERT OR IGNORE INTO contexts VALUES (?, ?)", (platform["issuer"], context))
        return platform

    def student_of(self, store, body: dict) -> str:
        """The roster's student this launch is (the same iss and sub as before, else a roster id the platform
        names: lis person_sourcedid, the login, the e-mail), enrolled if new."""
        iss, sub = body["iss"], str(body["sub"])
        row = self.db.execute("SELECT student FROM users WHERE iss=? AND sub=?", (iss, sub)).fetchone()
        if row:
            return row[0]
        known = store.students()
        candidates = [
            (body.get(LTI + "lis") or {}).get("person_sourcedid"),
            (body.get("https://purl.imsglobal.org/spec/lti/claim/ext") or {}).get("user_username"),
            body.get("email"),
        ]
        student = next((c for c in candidates if c and c in known), None)
        if student is None:
            student = (
                sub
                if valid_id(sub) and sub not in known
                else "lti-" + hashlib.sha256(f"{iss} {sub}".encode()).hexdigest()[:16]
            )
            name = body.get("name") or " ".join(x for x in (body.get("given_name"), body.get("family_name")) if x)
            store.enrol({student: name or student}, self.base)
        self.db.execute("INSERT OR IGNORE INTO users VALUES (?, ?, ?)", (iss, sub, student))
        return student

    def remember_activity(self, platform: dict, student: str, body: dict, activity: str, label: str) -> None:
        """The launch's AGS endpoint, to post this student's score for `activity` to (a notebook, or "" for
        the whole assignment)."""
        ags = body.get(AGS) or {}
        scope = ags.get("scope") or []
        if not ags or "https://purl.imsglobal.org/spec/lti-ags/scope/score" not in scope:
            return
        link = (body.get(LTI + "resource_link") or {}).get("id", "")
        self.db.execute(
            "INSERT OR REPLACE INTO activities VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                platform["issuer"],
                platform["client_id"],
                student,
                str(body["sub"]),
                activity,
                link,
                ags.get("lineitems"),
                ags.get("lineitem"),
                json.dumps(scope),
                label,
            ),
        )

    # -- grades: Assignment and Grade Services ----------------------------------------------------------
    def scores(self, store, notebooks: list[str], policy, max_scores: dict[str, float]) -> dict:
        """(iss, student, resource_link) → the score that activity holds now: the attempts that count, as
        `export --from-server` counts them (server.export.counted_attempts under the server's late policy,
        platforms.late.LatePolicy or None), each late notebook less its penalty, as the exports' totals."""
        from ..platforms.late import penalised_total
        from .export import counted_attempts

        chosen, late = counted_attempts(store, notebooks, policy, say=lambda *a: None)
        found = {}
        for iss, _client, student, _sub, activity, link, *_ in self.db.execute("SELECT * FROM activities"):
            parts = [activity] if activity else notebooks
            attempts = {n: chosen.get((student, n)) for n in parts if n in max_scores}
            if not any(attempts.values()):
                continue
            results = {n: json.loads(a["result"]) for n, a in attempts.items() if a}
            rows = [SimpleNamespace(student=student, notebook=n, score=r["score"]) for n, r in results.items()]
            given = penalised_total(rows, late)  # each late notebook less its penalty, as the exports' totals
            graded = max(a["graded"] or a["uploaded"] for a in attempts.values() if a)
            found[iss, student, link] = {
                "scoreGiven": round(given, 6),
                "scoreMaximum": sum(max_scores[n] for n in attempts),
                "comment": summary(results, max_scores),
                "graded": graded,
            }
        return found

    def sync(self, store, notebooks, policy, max_scores) -> int:
        """Queue in the outbox each activity's score that changed since it was last queued (how many)."""
        queued = 0
        with self.lock:
            for (iss, student, link), score in self.scores(store, notebooks, policy, max_scores).items():
                text = json.dumps(score, sort_keys=True)
                last = self.db.execute(
                    "SELECT score FROM outbox WHERE iss=? AND student=? AND resource_link=? ORDER BY id DESC LIMIT 1",
                    (iss, student, link),
                ).fetchone()
                if last and last[0] == text:
                    continue
                self.db.execute(
                    "INSERT INTO outbox (iss, student, resource_link, score, made, next) VALUES (?,?,?,?,?,?)",
                    (iss, student, link, text, time.time(), 0.0),
                )
                queued += 1
        return queued

    def pending(self) -> list[dict]:
        cur = self.db.execute("SELECT * FROM outbox WHERE sent IS NULL ORDER BY id")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur]

    def send_due(self, now: float | None = None) -> int:
        """Send every outbox score whose time has come (oldest first); a failure waits longer each time
        (RETRY_FIRST doubling to RETRY_MOST) and is tried again, never dropped. A score that a newer one of
        the same activity replaced before it went out is marked sent with the newer one. How many were sent."""
        now = time.time() if now is None else now
        sent = 0
        rows = self.pending()
        newest = {}
        for row in rows:
            newest[row["iss"], row["student"], row["resource_link"]] = row["id"]
        for row in rows:
            key = (row["iss"], row["student"], row["resource_link"])
            if newest[key] != row["id"]:
                self.db.execute(
                    "UPDATE outbox SET sent=?, error=? WHERE id=?", (now, "replaced by a newer score", row["id"])
                )
                continue
            if row["next"] > now:
                continue
            try:
                lineitem = self.post(row)
            except Exception as e:  # the platform down, refusing, unreachable: try again later
                tries = row["tries"] + 1
                wait = min(RETRY_MOST, RETRY_FIRST * 2 ** (tries - 1))
                self.db.execute(
                    "UPDATE outbox SET tries=?, next=?, error=? WHERE id=?",
                    (tries, time.time() + wait, f"{type(e).__name__}: {e}"[:500], row["id"]),
                )
                continue
            self.db.execute(
                "UPDATE outbox SET sent=?, tries=tries+1, error=NULL, lineitem=? WHERE id=?",
                (time.time(), lineitem, row["id"]),
            )
            sent += 1
        return sent

    # -- the roster: Names and Role Provisioning Services ---------------------------------------------
    def registration(self, platform: dict):
        from pylti1p3.registration import Registration

        registration = (
            Registration()
            .set_issuer(platform["issuer"])
            .set_client_id(platform["client_id"])
            .set_auth_token_url(platform["auth_token_url"])
            .set_auth_login_url(platform["auth_login_url"])
            .set_key_set_url(platform["key_set_url"])
            .set_tool_private_key(self.private)
            .set_tool_public_key(self.public)
        )
        if platform.get("auth_audience"):
            registration.set_auth_audience(platform["auth_audience"])
        return registration

    def members(self, platform: dict, service: dict) -> list[dict]:
        """The course's members from the platform's NRPS endpoint (every page), as the platform lists them.
        Network only, no records: may run in a thread of its own."""
        from pylti1p3.names_roles import NamesRolesProvisioningService

        return NamesRolesProvisioningService(connector(self.registration(platform)), service).get_members()

    def enrol_members(self, store, platform: dict, members: list[dict]) -> list[str]:
        """The active students among `members` in the roster (each mapped as their launch will be: the same
        user_id is the launch's sub); instructors are not students. Their ids."""
        found = []
        for m in members:
            if m.get("status", "Active") != "Active" or not m.get("user_id"):
                continue
            body = {
                "iss": platform["issuer"],
                "sub": str(m["user_id"]),
                "name": m.get("name"),
                "given_name": m.get("given_name"),
                "family_name": m.get("family_name"),
                "email": m.get("email"),
                LTI + "lis": {"person_sourcedid": m.get("lis_person_sourcedid")},
                LTI + "ext": {"user_username": m.get("ext_user_username")},
                LTI + "roles": m.get("roles") or [],
            }
            if is_instructor(body) or not any("Learner" in r or "Student" in r for r in body[LTI + "roles"]):
                continue
            found.append(self.student_of(store, body))
        return found

    def post(self, row: dict) -> str:
        """POST one score to its activity's line item (found by tag, or made, when the launch named none). The
        line item's URL."""
        from pylti1p3.assignments_grades import AssignmentsGradesService
        from pylti1p3.grade import Grade
        from pylti1p3.lineitem import LineItem

        activity = self.db.execute(
            "SELECT * FROM activities WHERE iss=? AND student=? AND resource_link=?",
            (row["iss"], row["student"], row["resource_link"]),
        ).fetchone()
        iss, client_id, _student, sub, notebook, link, lineitems, lineitem_url, scope, label = activity
        service = AssignmentsGradesService(
            connector(self.registration(self.platform(iss, client_id))),
            {"scope": json.loads(scope), "lineitems": lineitems, "lineitem": lineitem_url},
        )
        score = json.loads(row["score"])
        grade = (
            Grade()
            .set_score_given(score["scoreGiven"])
            .set_score_maximum(score["scoreMaximum"])
            .set_activity_progress("Completed")
            .set_grading_progress("FullyGraded")
            .set_timestamp(datetime.fromtimestamp(row["made"], timezone.utc).isoformat(timespec="milliseconds"))
            .set_user_id(sub)
            .set_comment(score["comment"])
        )
        if lineitem_url:
            item = LineItem({"id": lineitem_url})
        else:
            wanted = (
                LineItem()
                .set_tag(notebook or "assignment")
                .set_label(label)
                .set_score_maximum(score["scoreMaximum"])
                .set_resource_id(notebook or "assignment")
                .set_resource_link_id(link)
            )
            item = service.find_or_create_lineitem(wanted)
        service.put_grade(grade, item)
        return item.get_id()

    def start_sender(self, every: float = 1.0):
        """A thread sending the outbox (its own connection to DATA/lti.db); stop with the returned event."""
        stop = threading.Event()
        sender = Tool.__new__(Tool)
        sender.__dict__.update(self.__dict__)
        sender.db = connect(self.data)

        def run():
            while not stop.wait(every):
                with contextlib.suppress(Exception):
                    sender.send_due()

        threading.Thread(target=run, name="lti-outbox", daemon=True).start()
        return stop


def connector(registration):
    from pylti1p3.service_connector import ServiceConnector

    class Connector(ServiceConnector):
        tokens: dict = {}

        def _get_cached_access_token(self, scope_key):
            token, until = Connector.tokens.get(scope_key, (None, 0.0))
            return token if until > time.time() + 10 else None

        def _cache_access_token(self, scope_key, access_token, expires_in):
            Connector.tokens[scope_key] = (access_token, time.time() + float(expires_in or 0))

    return Connector(registration)


def is_instructor(body: dict) -> bool:
    return any(role in INSTRUCTOR_ROLES for role in body.get(LTI + "roles") or [])


def valid_id(text: str) -> bool:
    return bool(text) and len(text) <= 64 and all(c.isalnum() or c in "._-@" for c in text)


def summary(results: dict[str, dict], max_scores: dict[str, float]) -> str:
    """The feedback's summary for the gradebook (AGS comment): per notebook its points and the tests it lost."""
    lines = []
    for notebook, r in results.items():
        lost = [t["name"] for t in r.get("tests", []) if t["score"] < t["max_score"] and not t.get("optional")]
        line = f"{notebook}: {r['score']:g} из {max_scores[notebook]:g}"
        if r.get("extra"):
            line += f" + {r['extra']:g} дополнительно"
        if r.get("status") == "error":
            line += f" (ошибка проверки: {str(r.get('message', ''))[:200]})"
        elif lost:
            line += "; не пройдены: " + ", ".join(lost[:20])
        lines.append(line)
    return "\n".join(lines)
