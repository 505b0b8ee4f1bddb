"""The answers that are evidence of misconceptions: a named slip, or traps avoided (0013)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import NamedTuple

import sqlalchemy as sa

from studyapp.store.database import Store
from studyapp.store.tables import ReviewLog

#: The partial index's own condition (revision 0013), so the database can use it.
EVIDENCE = sa.text("(traps IS NOT NULL OR (slip IS NOT NULL AND slip <> ''))")


class TrapRow(NamedTuple):
    """One answer's evidence: when, on which card, the slip it showed, the traps avoided."""

    reviewed_at: datetime
    card_id: int
    slip: str | None
    traps: str | None


def trap_rows(store: Store, profile_id: int, since: datetime) -> list[TrapRow]:
    """The profile's answers since ``since`` that named a slip or avoided a trap, oldest first."""
    query = (sa.select(ReviewLog.reviewed_at, ReviewLog.card_id, ReviewLog.slip, ReviewLog.traps)
             .where(ReviewLog.profile_id == profile_id, ReviewLog.reviewed_at >= since, EVIDENCE)
             .order_by(ReviewLog.reviewed_at, ReviewLog.id))
    with store.sessions() as session:
        return [TrapRow(*row) for row in session.execute(query)]


class ClassSlips(NamedTuple):
    """One student's slips of one key, counted, and on how many cards (the class's
    misconceptions)."""

    profile_id: int
    slip: str
    slips: int
    cards: int
    """Different cards the slips were on."""
    card_id: int
    """One of those cards (the only one when ``cards`` is 1)."""


def class_slips(store: Store, since: datetime, profile_ids: Collection[int] | None = None
                ) -> list[ClassSlips]:
    """Every student's named slips since ``since``, grouped by student and slip in one
    query: the class report counts who holds which misconception from a few rows per
    student, without reading answers."""
    named = sa.text("(slip IS NOT NULL AND slip <> '')")  # ix_review_logs_slips's terms (0019)
    query = (sa.select(ReviewLog.profile_id, ReviewLog.slip, sa.func.count(),
                       sa.func.count(sa.func.distinct(ReviewLog.card_id)),
                       sa.func.min(ReviewLog.card_id))
             .where(EVIDENCE, named, ReviewLog.reviewed_at >= since)
             .group_by(ReviewLog.profile_id, ReviewLog.slip))
    if profile_ids is not None:
        query = query.where(ReviewLog.profile_id.in_(sorted(profile_ids)))
    with store.sessions() as session:
        return [ClassSlips(int(pid), str(slip), int(n), int(cards), int(card))
                for pid, slip, n, cards, card in session.execute(query)]


__all__ = ["EVIDENCE", "ClassSlips", "TrapRow", "class_slips", "trap_rows"]
