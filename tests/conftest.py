"""Shared helpers: grading through the real command line, as an instructor runs it."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

# A secret in the grader's environment: no student code, output or feedback may ever show it.
SECRET = "instructor-token-5f3a9c1e"


def grade(submissions: Path, out: Path, *options: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m autograder grade`, as an instructor runs it (with a secret in the environment)."""
    return subprocess.run([sys.executable, "-m", "autograder", "grade", str(submissions), "--out", str(out), *options],
                          cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**os.environ, "INSTRUCTOR_TOKEN": SECRET, **(env or {})})


def results_of(out: Path) -> dict:
    return {(r["student"], r["notebook"]): r for r in json.loads((out / "results.json").read_text(encoding="utf-8"))}
