"""Mock exams handed in, kept for the progress screens without a database table.

One JSON object a line in the user data folder, one file per profile and
database (as ``decks.draw_log`` keeps its showings), so a class database with
per-role permissions needs no new table. Each line holds the score, per post
and per misconception, not the questions' prompts and solutions (kept small).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from studyapp.files import FileRefused, read_regular
from studyapp.locations import data_dir
from studyapp.numbers import format_number
from studyapp.study.exam import ExamResult

KEPT_KEYS = ("started_at", "handed_in_at", "minutes", "score", "out_of", "share", "posts",
             "misconceptions")
"""The keys of ``ExamResult.as_json`` a line keeps ("questions" is left out)."""
MAX_LOG_BYTES = 2_000_000
"""Past this nothing more is appended (thousands of papers; the file is never read whole
beyond it)."""


def log_path(profile: str, url: str) -> Path:
    """The profile's exam log for this database (the URL is hashed: it is not written down)."""
    tag = hashlib.sha256(f"{profile}\n{url}".encode()).hexdigest()[:12]
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", profile)[:40] or "profile"
    return data_dir() / f"exams-{safe}-{tag}.jsonl"


def record(profile: str, url: str, result: ExamResult) -> bool:
    """Append one handed-in paper; False when it could not be written (never raises:
    the result on screen matters more than its copy)."""
    entry = {key: value for key, value in result.as_json().items() if key in KEPT_KEYS}
    try:
        path = log_path(profile, url)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_LOG_BYTES:
            return False
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
    except OSError:
        return False
    return True


def _readable(entry: Any) -> bool:
    """A line written by ``record``: the fields the screens read, of the right types."""
    return (isinstance(entry, dict) and isinstance(entry.get("handed_in_at"), str)
            and all(isinstance(entry.get(k), int | float) and not isinstance(entry.get(k), bool)
                    for k in ("score", "out_of", "share"))
            and isinstance(entry.get("posts", []), list))


def exams(profile: str, url: str) -> list[dict[str, Any]]:
    """The profile's handed-in papers, newest first; a line that cannot be read is skipped."""
    try:
        raw = read_regular(log_path(profile, url), MAX_LOG_BYTES * 2, what="exam log")
    except (OSError, FileRefused):
        return []
    found: list[dict[str, Any]] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if _readable(entry):
            found.append(entry)
    found.sort(key=lambda e: str(e["handed_in_at"]), reverse=True)
    return found


def exam_fields(entry: dict[str, Any], lang: str) -> dict[str, str]:
    """One kept paper's figures as text (the day handed in, score, share, per post), for the
    stats line and the progress screen; post slugs are ids, not markup."""
    posts = [p for p in entry.get("posts", []) if isinstance(p, dict)]
    return {
        "date": str(entry["handed_in_at"])[:10],
        "score": format_number(float(entry["score"]), lang, 3),
        "out_of": str(entry["out_of"]),
        "share": f"{format_number(float(entry['share']) * 100, lang, 3)}%",
        "posts": ", ".join(f"{p.get('post')} {format_number(float(p.get('score', 0)), lang, 3)}"
                           f"/{p.get('out_of')}" for p in posts),
    }
