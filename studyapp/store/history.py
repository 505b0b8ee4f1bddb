"""A profile's answers in time order, as plain tuples (what the FSRS optimizer reads)."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from studyapp.store.database import Store
from studyapp.store.tables import CardState, ReviewLog, ScheduleChange

_CHUNK = 500
"""Card ids per ``IN (...)``: well under SQLite's and PostgreSQL's bound parameters."""


def review_history(store: Store, profile_id: int) -> list[tuple[int, datetime, int]]:
    """(card row id, answered at, rating 1-4) for every answer of the profile, and every
    Good a scenario's step gave (``implicit``; a wrong step's row moved only the due date)."""
    with store.transaction() as session:
        moved_only = ReviewLog.implicit.is_(True) & (ReviewLog.rating == 1)
        rows = session.execute(
            select(ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.rating)
            .where(ReviewLog.profile_id == profile_id, ~moved_only)
            .order_by(ReviewLog.reviewed_at, ReviewLog.id))
        return [(int(card), when, int(rating)) for card, when, rating in rows]


def card_memories(store: Store, profile_id: int) -> dict[int, tuple[int, datetime | None]]:
    """Card row id → (stage, last review) for every card the profile has answered."""
    from studyapp.store.tables import CardState

    with store.sessions() as session:
        rows = session.execute(
            select(CardState.id, CardState.state, CardState.last_review)
            .where(CardState.profile_id == profile_id, CardState.state != 0))
        return {int(card): (int(stage), last) for card, stage, last in rows}


def save_memory_states(store: Store, profile_id: int,
                       states: dict[int, tuple[float, float, datetime | None]]) -> int:
    """Set (stability, difficulty, due or None to keep it) of the given cards in one
    transaction; the number of cards changed."""
    from sqlalchemy import update

    from studyapp.store.tables import CardState

    changed = 0
    with store.transaction() as session:
        for card, (stability, difficulty, due) in states.items():
            values: dict[str, object] = {"stability": stability, "difficulty": difficulty}
            if due is not None:
                values["due"] = due
            result = session.execute(update(CardState).where(
                CardState.profile_id == profile_id, CardState.id == card).values(**values))
            changed += int(getattr(result, "rowcount", 0) or 0)
    return changed


CardLogRow = tuple[int, datetime, int, int | None, dict[str, Any] | None]
"""(card row id, time, rating or 0, stage before, Anki entry or None)."""


def review_log(store: Store, profile_id: int) -> list[CardLogRow]:
    """(card row id, answered at, rating, stage before, Anki entry or None) of every answer,
    and (card row id, changed at, 0, None, {"type", "factor", "ivl"}) of every change of
    schedule that was no answer (Forget, Set due date), in time order: what FSRS reads."""
    with store.transaction() as session:
        return card_logs(session, profile_id)


def card_logs(session: Session, profile_id: int,
              card_ids: Collection[int] | None = None) -> list[CardLogRow]:
    """``review_log`` within an open session, of the given cards only (None: every card):
    the one reading of the log every replay of memory states starts from."""
    # a scenario's wrong step only moved its card sooner: no lapse to replay
    moved_only = ReviewLog.implicit.is_(True) & (ReviewLog.rating == 1)
    answers = select(ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.rating,
                     ReviewLog.state_before, ReviewLog.anki).where(
        ReviewLog.profile_id == profile_id, ~moved_only)
    changes = select(ScheduleChange.card_id, ScheduleChange.changed_at, ScheduleChange.kind,
                     ScheduleChange.factor, ScheduleChange.interval).where(
        ScheduleChange.profile_id == profile_id)
    chunks: list[list[int] | None] = [None]
    if card_ids is not None:
        ids = sorted(card_ids)
        chunks = [ids[i:i + _CHUNK] for i in range(0, len(ids), _CHUNK)]
    rows: list[CardLogRow] = []
    for chunk in chunks:
        found_answers, found_changes = answers, changes
        if chunk is not None:
            found_answers = answers.where(ReviewLog.card_id.in_(chunk))
            found_changes = changes.where(ScheduleChange.card_id.in_(chunk))
        rows += [(int(card), when, int(rating), state, anki) for card, when, rating, state, anki
                 in session.execute(found_answers.order_by(ReviewLog.reviewed_at,
                                                           ReviewLog.id))]
        rows += [(int(card), when, 0, None, {"type": kind, "factor": factor, "ivl": interval})
                 for card, when, kind, factor, interval in session.execute(found_changes)]
    rows.sort(key=lambda row: (row[1], row[2] == 0))  # stable: answers keep their id order
    return rows


def log_rescheduled(store: Store, profile_id: int, at: datetime,
                    intervals: dict[int, int]) -> None:
    """Log each card's move to a new interval (days) at ``at`` as a schedule change of kind
    5, as Anki logs "Reschedule cards on change" in its review log."""
    if not intervals:
        return
    with store.transaction() as session:  # a fresh uid: two runs may share one clock time
        session.add_all(ScheduleChange(profile_id=profile_id, card_id=card,
                                       uid=f"rescheduled-{uuid.uuid4().hex}", changed_at=at,
                                       kind=5, factor=0, interval=days)
                        for card, days in intervals.items())


def answer_moments(store: Store, profile_id: int, cards: set[tuple[str, str]]
                   ) -> dict[tuple[str, str], list[datetime]]:
    """When each of ``cards`` (deck id, card key) was answered, for telling an answer that
    comes back from Anki from a new one."""
    moments: dict[tuple[str, str], list[datetime]] = {}
    with store.sessions() as session:
        for deck_id, key, at in session.execute(
                select(CardState.deck_id, CardState.card_key, ReviewLog.reviewed_at)
                .join(ReviewLog, ReviewLog.card_id == CardState.id)
                .where(CardState.profile_id == profile_id)):
            if (deck_id, key) in cards:
                moments.setdefault((deck_id, key), []).append(at)
    return moments
