"""True retention: the share of reviews passed, young and mature cards apart.

Only each card's first review of a study day counts, as Anki counts it. The
days are counted one at a time from the retention index, each answer's link to
the card's previous review-stage answer telling the first of a day; a window
longer than ``MAX_DAYS_BY_DAY`` ranks each card's reviews of a day with a
window function instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import pairwise

from sqlalchemy import and_, case, func, or_, select, union_all

from studyapp.store.database import Store
from studyapp.store.mastery import MATURE_DAYS, REVIEW
from studyapp.store.stats import _int, _true, day_key
from studyapp.store.tables import ReviewLog


@dataclass(frozen=True)
class Retention:
    """Pass counts of review-stage cards, young and mature apart."""

    young_total: int = 0
    young_passed: int = 0
    mature_total: int = 0
    mature_passed: int = 0

    @staticmethod
    def _rate(passed: int, total: int) -> float | None:
        return passed / total if total else None

    @property
    def total(self) -> int:
        return self.young_total + self.mature_total

    @property
    def rate(self) -> float | None:
        return self._rate(self.young_passed + self.mature_passed, self.total)

    @property
    def young(self) -> float | None:
        return self._rate(self.young_passed, self.young_total)

    @property
    def mature(self) -> float | None:
        return self._rate(self.mature_passed, self.mature_total)



MAX_DAYS_BY_DAY = 62
"""Up to this many study days, retention is counted one day at a time (see below)."""


def true_retention(store: Store, profile_id: int, start: datetime, end: datetime,
                   day_shift: timedelta, mature_days: float = MATURE_DAYS) -> Retention:
    """Share of passed reviews (not Again) of cards that were in review, in [start, end).

    Only each card's first review of a study day counts; ``day_shift`` turns
    a UTC time into its study day (UTC offset minus the rollover hour). Young
    and mature split on the card's stability before the review.
    """
    with store.sessions() as session:
        mature = case((func.coalesce(ReviewLog.stability_before, 0.0) >= mature_days, 1),
                      else_=0)
        in_review = (ReviewLog.profile_id == profile_id, ReviewLog.state_before == REVIEW)
        days = _study_day_starts(start, end, day_shift)
        if len(days) >= 2:
            # day by day: a card's first review-stage answer of a day is the one whose
            # previous review-stage answer (kept by triggers, revision 0007) falls before
            # the day's start (or the window's, for its first day); a plain range of
            # ix_review_logs_retention per day, nothing grouped or sorted
            previous = ReviewLog.previous_review_at
            firsts = union_all(*(
                select(ReviewLog.rating.label("rating"), mature.label("mature"))
                .where(*in_review, ReviewLog.reviewed_at >= lo, ReviewLog.reviewed_at < hi,
                       or_(previous.is_(None), previous < lo))
                for lo, hi in pairwise(days))).subquery()
            rating, is_mature, first = firsts.c.rating, firsts.c.mature, None
        else:
            day = day_key(session, ReviewLog.reviewed_at, day_shift)
            ranked = (
                select(ReviewLog.rating.label("rating"), mature.label("mature"),
                       func.row_number().over(partition_by=(ReviewLog.card_id, day),
                                              order_by=(ReviewLog.reviewed_at, ReviewLog.id))
                       .label("nth"))
                .where(*in_review, ReviewLog.reviewed_at >= start, ReviewLog.reviewed_at < end)
            ).subquery()
            rating, is_mature, first = ranked.c.rating, ranked.c.mature, ranked.c.nth == 1
        passed = rating > 1
        query = select(func.sum(_true(is_mature == 0)),
                       func.sum(_true(and_(is_mature == 0, passed))),
                       func.sum(_true(is_mature == 1)),
                       func.sum(_true(and_(is_mature == 1, passed))))
        row = session.execute(query if first is None else query.where(first)).one()
        return Retention(*(_int(v) for v in row))


def _study_day_starts(start: datetime, end: datetime, day_shift: timedelta) -> list[datetime]:
    """[start, the UTC start of each study day after it..., end]: the days of the window.

    A UTC time ``t`` falls on the study day ``(t + day_shift).date()``, so a
    day ``d`` starts at midnight of ``d`` minus ``day_shift`` (as ``day_key``).
    """
    if end <= start:
        return [start, end]
    first = (start.astimezone(UTC) + day_shift).date()
    last = (end.astimezone(UTC) + day_shift).date()
    if (last - first).days > MAX_DAYS_BY_DAY + 1:
        return []
    starts = [datetime(d.year, d.month, d.day, tzinfo=UTC) - day_shift
              for d in (first + timedelta(days=i) for i in range(1, (last - first).days + 1))]
    return [start, *(s for s in starts if start < s < end), end]


__all__ = ["MATURE_DAYS", "MAX_DAYS_BY_DAY", "Retention", "true_retention"]
