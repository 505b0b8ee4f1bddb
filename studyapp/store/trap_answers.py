"""The answers that are evidence of misconceptions: a named slip, or traps avoided (0013)."""

from __future__ import annotations

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


__all__ = ["EVIDENCE", "TrapRow", "trap_rows"]
