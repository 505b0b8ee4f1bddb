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
    """One student's slips of one key on one card, counted (the class's misconceptions)."""

    profile_id: int
    slip: str
    card_id: int
    slips: int


def class_slips(store: Store, since: datetime, profile_ids: Collection[int] | None = None
                ) -> list[ClassSlips]:
    """Every student's named slips since ``since``, grouped by student, slip and card in one
    query: the class report counts who holds which misconception without reading answers."""
    named = sa.text("(slip IS NOT NULL AND slip <> '')")  # the partial index's own terms
    query = (sa.select(ReviewLog.profile_id, ReviewLog.slip, ReviewLog.card_id, sa.func.count())
             .where(EVIDENCE, named, ReviewLog.reviewed_at >= since)
             .group_by(ReviewLog.profile_id, ReviewLog.slip, ReviewLog.card_id))
    if profile_ids is not None:
        query = query.where(ReviewLog.profile_id.in_(sorted(profile_ids)))
    with store.sessions() as session:
        return [ClassSlips(int(pid), str(slip), int(card), int(n))
                for pid, slip, card, n in session.execute(query)]


__all__ = ["EVIDENCE", "ClassSlips", "TrapRow", "class_slips", "trap_rows"]
