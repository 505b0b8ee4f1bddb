"""Draws that failed at study time: skipped, logged, and shown to the deck's author.

Validation checks every combination of a small parameter space and sweeps
larger ones, so a failing draw is rare; when one happens the study loop
draws again (``CardSpec.instantiate``) and the failure is appended here, one
JSON object a line in the data folder, for ``deck list`` and the Decks screen.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

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
