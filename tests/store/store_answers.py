"""Answers written straight through the store, and a small deck, for storage tests."""

from __future__ import annotations

import sqlite3
import uuid
from datetime import datetime, timedelta
from pathlib import Path

from studyapp.locations import sqlite_url
from studyapp.store import open_store
from studyapp.store.progress import Answer, NewState

FIRST_SCHEMA = "0001_initial"


def answer(deck: str, card: str, at: datetime, *, post: str = "intro", stage: int = 2,
           stability: float = 5.0, rating: int = 3, correct: bool = True, lapses: int = 0,
           reps: int = 1, leech: bool = False, due_in: timedelta = timedelta(days=3),
           duration_ms: int = 4000) -> Answer:
    return Answer(
        deck_id=deck, card_key=card, post=post, family=None,
        state=NewState(stage=stage, step=None if stage == 2 else 0, stability=stability,
                       difficulty=5.0, due=at + due_in, last_review=at, reps=reps,
                       lapses=lapses, leech=leech),
        reviewed_at=at, rating=rating, correct=correct, duration_ms=duration_ms, seed=7,
        params={"gpu": "h200-sxm", "batch": 4}, prompt=f"Question {card}?", response="42",
        expected="42", lang="en")


TRUEFALSE_DECK = """\
deck: store-drill
title: Store drill
language: en
post: intro
cards:
"""


def write_deck(folder: Path, cards: int = 30, deck_id: str = "store-drill") -> Path:
    """A deck of true/false cards whose answer is always true (so "n" is always wrong)."""
    lines = [TRUEFALSE_DECK.replace("store-drill", deck_id)]
    for n in range(cards):
        lines.append(f"  - id: fact-{n:03d}\n    type: truefalse\n"
                     f"    prompt: \"Fact number {n} is true.\"\n    answer: true\n"
                     f"    explanation: \"It is.\"\n")
    path = folder / f"{deck_id}.yaml"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def course_deck(cards: int, deck: str = "course-kv") -> str:
    """A course deck of ``cards`` true/false facts (``fact-0``...), as an instructor writes
    one to publish for a class."""
    return f"""\
deck: {deck}
title: KV course
language: en
post: hbm-kv-cache
cards:
""" + "".join(f"""\
  - id: fact-{n}
    type: truefalse
    prompt: "KV fact {n} holds."
    answer: true
""" for n in range(cards))


def old_database(path: Path, reviews: int, *, prompt_words: int = 8) -> None:
    """A database at the first schema revision (``FIRST_SCHEMA``): one profile, 200 cards
    and ``reviews`` answers whose prompts repeat ``prompt_words`` words, checkpointed so
    the file holds them all. What the upgrade tests migrate."""
    open_store(sqlite_url(path), migrate_to=FIRST_SCHEMA).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO profiles (id, name, created_at, settings) "
                     "VALUES (1, 'ana', '2026-01-01 00:00:00', '{}')")
        conn.executemany(
            "INSERT INTO card_states (id, profile_id, deck_id, card_key, post, state, due, "
            "reps, lapses, suspended, leech, created_at) VALUES (?, 1, 'd', ?, 'intro', 2, "
            "'2026-01-02 00:00:00', 1, 0, 0, 0, '2026-01-01 00:00:00')",
            [(n, f"c{n}") for n in range(1, 201)])
        conn.executemany(
            "INSERT INTO review_logs (profile_id, card_id, reviewed_at, rating, correct, "
            "duration_ms, state_before, prompt, uid) VALUES (1, ?, '2026-01-01 00:00:00', 3, "
            "1, 4000, 2, ?, ?)",
            [(1 + n % 200, f"prompt {n} " * prompt_words, uuid.uuid4().hex)
             for n in range(reviews)])
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
