"""A profile's answers in time order, as plain tuples (what the FSRS optimizer reads)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from studyapp.store.database import Store
from studyapp.store.models import ReviewLog


def review_history(store: Store, profile_id: int) -> list[tuple[int, datetime, int]]:
    """(card row id, answered at, rating 1-4) for every answer of the profile."""
    with store.transaction() as session:
        rows = session.execute(
            select(ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.rating)
            .where(ReviewLog.profile_id == profile_id)
            .order_by(ReviewLog.reviewed_at, ReviewLog.id))
        return [(int(card), when, int(rating)) for card, when, rating in rows]
