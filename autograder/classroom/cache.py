"""The class grader's cache of results: reruns grade only what is new, interrupts lose nothing.

A result is kept in the work folder (`results/<student>/<notebook>.json`, its feedback page next to it
as `.html`) as soon as it exists, under a key made of what it depends on (`file_key`: the SHA-256 of
the submitted file, of the course notebook and of the settings that change a grade,
autograder.classroom.settings). Each entry also keeps that key's parts (`basis`: the file's hash, the course
notebook's tests, the rest of it, the config, the settings), so a rerun says why it grades a notebook
again (`regrade_reason`: a new file, the tests of 02 changed, a setting changed — which). Only the
class grader writes here, each file atomically (`atomic_write`), so a run stopped at
any point leaves every entry whole or absent.

A forced regrade (`--force`) remembers when it began (`force.json`): a result older than that is
regraded, so an interrupted forced run is finished by the next run, with or without --force.
"""

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

from ..notebook.results import Result, result_from_dict


def atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` whole or not at all (a temporary file renamed over it)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def file_key(path: Path, digest: str) -> str:
    """The cache key of a submitted file graded under `digest` (the course notebook's and the settings')."""
    h = hashlib.sha256(digest.encode())
    try:
        h.update(Path(path).read_bytes())
    except OSError:
        h.update(b"<unreadable>")
    return h.hexdigest()


def file_sha(path: Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "<unreadable>"


NEVER = "not graded before"


def regrade_reason(old: dict | None, new: dict, notebook: str) -> str:
    """Why a notebook is graded again, from the `basis` of its cache entry (`old`; None: no entry)
    and the one it is graded under now — for the instructor, in English."""
    if old is None:
        return NEVER
    if not isinstance(old, dict) or not old:
        return "graded by an earlier version of the grader (its cache entry does not say under what)"
    number = notebook.split("_")[0]
    reasons = []
    if old.get("file") != new["file"]:
        reasons.append("a new file")
    course, before = new["course"], old.get("course") or {}
    if before.get("tests") != course["tests"]:
        reasons.append(f"the tests of {number} changed")
    elif before.get("notebook") != course["notebook"]:
        reasons.append(f"the course notebook {number} changed (not its tests)")
    if before.get("config") != course["config"]:
        reasons.append("the grading config (nbgrader_config.py) changed")
    settings, was = new["settings"], old.get("settings") or {}
    changed = sorted(k for k in set(settings) | set(was) if settings.get(k) != was.get(k))
    if changed:
        value = lambda v: f"{v:g}" if isinstance(v, float) else repr(v)
        shown = ", ".join(f"{k} {value(was.get(k))} → {value(settings.get(k))}" for k in changed[:3])
        reasons.append(f"a setting changed: {shown}" + (f" and {len(changed) - 3} more" if len(changed) > 3 else ""))
    return "; ".join(reasons) or "its cache entry could not be used"


class Cache:
    """work/results/<student>/<notebook>.json (+ .html, the feedback): results keyed by what they
    depend on. Written only by the class grader, each file atomically."""

    def __init__(self, work: Path):
        self.root = Path(work) / "results"
        self.force_file = Path(work) / "force.json"

    def paths(self, student: str, notebook: str) -> tuple[Path, Path]:
        folder = self.root / student
        return folder / f"{notebook}.json", folder / f"{notebook}.html"

    def get(self, student: str, notebook: str, key: str, since: float | None) -> tuple[Result, str | None] | None:
        """(the result, its feedback page or None) cached under `key` — and graded after `since`, if
        given — or None."""
        path, html = self.paths(student, notebook)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry["key"] != key or (since is not None and entry["graded_at"] < since):
                return None
            return result_from_dict(entry["result"]), (html.read_text(encoding="utf-8") if html.exists() else None)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def basis(self, student: str, notebook: str) -> dict | None:
        """What the cached result of a notebook was graded under ({} for an entry that does not say;
        None without an entry)."""
        try:
            entry = json.loads(self.paths(student, notebook)[0].read_text(encoding="utf-8"))
            return entry.get("basis") or {} if isinstance(entry, dict) else {}
        except OSError:
            return None
        except ValueError:
            return {}

    def put(self, result: Result, key: str, html: str | None, basis: dict | None = None) -> None:
        path, html_path = self.paths(result.student, result.notebook)
        path.parent.mkdir(parents=True, exist_ok=True)
        if html is not None:
            atomic_write(html_path, html)
        entry = {"key": key, "graded_at": time.time(), "result": result.to_dict(), "basis": basis or {}}
        atomic_write(path, json.dumps(entry, ensure_ascii=False))

    def forget(self, student: str) -> None:
        """Drop a student's cached results: the next run grades them again (--student)."""
        shutil.rmtree(self.root / student, ignore_errors=True)

    def force_since(self, force: bool) -> float | None:
        """The start of the forced regrade in progress (begun now if `force`), or None."""
        try:
            return json.loads(self.force_file.read_text())["since"]
        except (OSError, ValueError, KeyError):
            pass
        if not force:
            return None
        self.force_file.parent.mkdir(parents=True, exist_ok=True)
        since = time.time()
        atomic_write(self.force_file, json.dumps({"since": since}))
        return since

    def force_done(self) -> None:
        self.force_file.unlink(missing_ok=True)
