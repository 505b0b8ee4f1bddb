"""Draws that failed at study time (shown to the deck's author), and draws shown lately.

Validation checks every combination of a small parameter space and sweeps
larger ones, so a failing draw is rare; when one happens the study loop
draws again (``CardSpec.instantiate``) and the failure is appended here, one
JSON object a line in the data folder, for ``deck list`` and the Decks screen.

Each showing's marks (``study.draws.draw_marks``: its family with the figures
it gives, or with its answer) are appended to a second log, so a session does
not ask what the same profile was asked in the last week (``study.draws``).
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from studyapp.files import FileRefused, read_regular, write_text_replacing
from studyapp.locations import data_dir

LOG_NAME = "draw-problems.jsonl"
MAX_LOG_BYTES = 1_000_000


@dataclass(frozen=True)
class DrawProblem:
    """One card's failing draw: where it is written, what failed, how often."""

    deck: str
    card: str
    where: str
    message: str
    times: int


def log_path() -> Path:
    return data_dir() / LOG_NAME


def record(deck: str, card: str, where: str, message: str) -> None:
    """Append one failed draw; never raises (the study goes on regardless)."""
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_LOG_BYTES:
            return
        entry = {"deck": deck, "card": card, "where": where, "message": message}
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
    except OSError:
        pass


def draw_problems() -> dict[str, list[DrawProblem]]:
    """Logged failures by deck id, one entry per (card, message) with its count."""
    try:
        lines = log_path().read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    counts: Counter[tuple[str, str, str, str]] = Counter()
    for line in lines:
        try:
            entry = json.loads(line)
            counts[(str(entry["deck"]), str(entry["card"]), str(entry["where"]),
                    str(entry["message"]))] += 1  # fmt: skip
        except (ValueError, KeyError, TypeError):
            continue
    found: dict[str, list[DrawProblem]] = {}
    for (deck, card, where, message), times in counts.items():
        found.setdefault(deck, []).append(DrawProblem(deck, card, where, message, times))
    return found


# -- draws shown: no exercise asked again within a week ---------------------------------

SHOWN_NAME = "draws-shown.jsonl"
MAX_SHOWN_BYTES = 2_000_000
"""Past this the log is rewritten with the lines still inside the window."""
SHOWN_READ_LIMIT = 8_000_000


def shown_path() -> Path:
    return data_dir() / SHOWN_NAME


def record_shown(profile: str, at: datetime, marks: Iterable[str]) -> None:
    """Append what one showing asked (its marks, ``study.draws.draw_marks``); never raises."""
    marks = sorted(marks)
    if not marks:
        return
    try:
        path = shown_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"profile": profile, "at": at.isoformat(), "marks": marks}
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
    except OSError:
        pass


def shown_since(profile: str, since: datetime) -> set[str]:
    """The marks of the profile's showings at or after ``since`` (none when unreadable).

    A log grown past its size is rewritten first with only the lines of the last
    window, for every profile, so it stays small without a clean-up job."""

    path = shown_path()
    try:
        lines = read_regular(path, SHOWN_READ_LIMIT, what="draw log").decode(
            "utf-8", "replace").splitlines()
    except (OSError, FileRefused):
        return set()
    found: set[str] = set()
    kept: list[str] = []
    for line in lines:
        try:
            entry = json.loads(line)
            at = datetime.fromisoformat(str(entry["at"]))
            if at.tzinfo is None:
                at = at.replace(tzinfo=UTC)
            if at < since:
                continue
            kept.append(line)
            if entry["profile"] == profile:
                found.update(str(mark) for mark in entry["marks"])
        except (ValueError, KeyError, TypeError):
            continue
    if len(lines) > len(kept) and sum(map(len, lines)) > MAX_SHOWN_BYTES:
        with contextlib.suppress(OSError):
            write_text_replacing(path, "".join(f"{line}\n" for line in kept))
    return found
