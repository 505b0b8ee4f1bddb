"""Weak cards by their record, the prompt a learner last saw, and mastery per family.

Weakness is read from what happened (lapses, wrong answers, FSRS difficulty),
not from recall now: recall ranks a card answered a minute ago above one
failed four times in eight, and changes by the hour.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection
from datetime import datetime

from sqlalchemy import and_, func, select

from studyapp.store.database import Store
from studyapp.store.mastery import mastered_card
from studyapp.store.stats import CardScore, _int, _scores, _true
from studyapp.store.tables import CardStat, CardState, ReviewLog


def weakness_key(lapses: int, reviews: int, correct: int,
                 difficulty: float | None) -> tuple[int, float, float] | None:
    """How weak a card's record is, smaller first: most lapses, then lowest accuracy, then
    highest FSRS difficulty. ``None`` for a clean record (no lapse, every answer right):
    such a card is not weak, whatever its recall today."""
    accuracy = correct / reviews if reviews else 1.0
    if lapses == 0 and accuracy >= 1.0:
        return None
    return (-lapses, accuracy, -(difficulty or 0.0))


def weakest_by_record(store: Store, profile_id: int, limit: int) -> list[CardScore]:
    """The ``limit`` studied, unsuspended cards with the weakest record (``weakness_key``).

    Five columns per card (its state and its summed answers); whole rows for
    the chosen ones only."""
    with store.sessions() as session:
        candidates = session.connection().execute(
            select(CardState.id, CardState.lapses, CardState.difficulty,
                   CardStat.reviews, CardStat.correct)
            .outerjoin(CardStat, and_(CardStat.card_id == CardState.id,
                                      CardStat.profile_id == profile_id))
            .where(CardState.profile_id == profile_id, CardState.suspended.is_(False),
                   CardState.reps > 0, CardState.state != 0)).cursor.fetchall()
        scored = []
        for card_id, lapses, difficulty, reviews, correct in candidates:
            key = weakness_key(_int(lapses), _int(reviews), _int(correct),
                               None if difficulty is None else float(difficulty))
            if key is not None:
                scored.append((key, card_id))
        chosen = [card_id for _, card_id in heapq.nsmallest(limit, scored)]
        if not chosen:
            return []
        rows = {c.id: c for c in session.scalars(select(CardState)
                                                 .where(CardState.id.in_(chosen)))}
        return _scores(session, profile_id, [rows[i] for i in chosen if i in rows])


def last_prompts(store: Store, card_ids: Collection[int]) -> dict[int, str]:
    """The prompt each card showed at its latest answer (a generated card's own draw)."""
    if not card_ids:
        return {}
    found: dict[int, str] = {}
    with store.sessions() as session:
        for card_id, prompt in session.execute(
                select(ReviewLog.card_id, ReviewLog.prompt)
                .where(ReviewLog.card_id.in_(sorted(card_ids)), ReviewLog.prompt.is_not(None))
                .order_by(ReviewLog.reviewed_at, ReviewLog.id)):
            if prompt:
                found[card_id] = prompt  # the latest wins
    return found


def family_mastery(store: Store, profile_id: int, now: datetime, mastery_age: float,
                   day_end: datetime | None = None) -> dict[str | None, tuple[int, int]]:
    """(cards seen, cards mastered) per question family (None: authored cards), as
    ``mastered_card`` defines mastered."""
    with store.sessions() as session:
        rows = session.execute(
            select(CardState.family, func.count(),
                   func.sum(_true(mastered_card(session, now, mastery_age, day_end))))
            .where(CardState.profile_id == profile_id, CardState.suspended.is_(False),
                   CardState.state != 0)
            .group_by(CardState.family)).all()
    return {family: (_int(seen), _int(mastered)) for family, seen, mastered in rows}


__all__ = ["family_mastery", "last_prompts", "weakest_by_record", "weakness_key"]
