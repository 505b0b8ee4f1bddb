"""Progress over time, aggregated by the database: retention per period, mastery at past
dates, one card's answers for its forgetting curve.

As ``store.stats``, only small results come back: one row per period, one row per card
mastered at some sampled moment. Periods and moments are exact UTC instants given by the
caller (the study calendar is not SQL's business).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from itertools import pairwise
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Float,
    Integer,
    bindparam,
    case,
    cast,
    extract,
    func,
    literal,
    or_,
    select,
    union_all,
)
from sqlalchemy.orm import Session, aliased

from studyapp.store.database import Store
from studyapp.store.mastery import MATURE_DAYS, REVIEW, _dialect
from studyapp.store.stats import _int, _true
from studyapp.store.tables import CardState, ReviewLog, UTCDateTime

_UNIX_JULIAN = 2440587.5
"""julianday('1970-01-01'): SQLite's day numbers start 4713 BC."""


def day_number(moment: datetime, dialect: str) -> float:
    """``moment`` as the float day number ``_day_number`` gives a column in SQL."""
    days = moment.astimezone(UTC).timestamp() / 86400.0
    return days + _UNIX_JULIAN if dialect == "sqlite" else days


def _day_number(session: Session, column: Any) -> ColumnElement[Any]:
    if _dialect(session) == "sqlite":
        return func.julianday(column)
    return cast(extract("epoch", column), Float) / 86400.0


def _whole(session: Session, value: ColumnElement[Any]) -> ColumnElement[Any]:
    """Whole days of a non-negative span (SQLite's CAST truncates, as floor does here)."""
    return cast(value, Integer) if _dialect(session) == "sqlite" else func.floor(value)


def retention_per_day(store: Store, profile_id: int,
                      bounds: Sequence[datetime]) -> list[tuple[int, int]]:
    """(review-stage answers counted, passed) on each study day [bounds[i], bounds[i+1]).

    True retention as ``store.retention`` counts it: answers given in review stage,
    each card's first of a study day only (its previous review-stage answer falls before
    the day starts), passed when not Again. One range of the retention index per day,
    read from the index alone; the statement is built once per number of days.
    """
    if len(bounds) < 2:
        return []
    found: list[tuple[int, int]] = []
    chunk = 200
    with store.sessions() as session:
        for first in range(0, len(bounds) - 1, chunk):
            part = bounds[first:first + chunk + 1]
            params: dict[str, Any] = {"profile_id": profile_id}
            for n, (lo, hi) in enumerate(pairwise(part)):
                params[f"lo{n}"], params[f"hi{n}"] = lo, hi
            rows = {int(n): (_int(counted), _int(passed)) for n, counted, passed
                    in session.execute(_retention_per_day(len(part) - 1), params)}
            found.extend(rows.get(n, (0, 0)) for n in range(len(part) - 1))
    return found


@cache
def _retention_per_day(days: int) -> Any:
    """The per-day retention SELECT for ``days`` days (building it costs more than running)."""
    previous = ReviewLog.previous_review_at

    def day(n: int) -> Any:
        lo = bindparam(f"lo{n}", type_=UTCDateTime())
        return (select(literal(n).label("n"), func.count().label("counted"),
                       func.sum(_true(ReviewLog.rating > 1)).label("passed"))
                .where(ReviewLog.profile_id == bindparam("profile_id"),
                       ReviewLog.reviewed_at >= lo,
                       ReviewLog.reviewed_at < bindparam(f"hi{n}", type_=UTCDateTime()),
                       ReviewLog.state_before == REVIEW, or_(previous.is_(None), previous < lo)))

    return union_all(*(day(n) for n in range(days)))


MOST_MOMENTS = 62
"""Mastery is sampled at this many moments at most (each is one bit of a 64-bit sum)."""


def mastered_at(store: Store, profile_id: int, moments: Sequence[datetime],
                mastery_age: float, *, deck_ids: Collection[str] | None = None
                ) -> dict[tuple[str, str], tuple[int, ...]]:
    """(deck, card) → the indexes of ``moments`` (ascending) at which the card was mastered.

    Mastered as ``store.mastery.mastered_card`` says, at a past moment T: in review
    stage, stability of ``MATURE_DAYS`` or more, and whole days from its last review to
    T at most ``mastery_age`` times that stability. Each answer given in review stage
    knows the stability its card had since its previous review-stage answer
    (``stability_before``, ``previous_review_at``): that span is one stretch a card may
    have been mastered in; after its latest answer, the card's stored state holds
    (unsuspended, as now). Pass the ends of study days to count days as the scheduler
    does. Only answers after the first moment are read, from the retention index.

    A stretch from ``since`` is mastered until ``stop`` = the next answer, or
    ``since`` + ⌊reach⌋ + 1 days (whole days ≤ reach), whichever comes first, so it
    covers the moments from the first one not before ``since`` up to the first one not
    before ``stop``: one range, one bit each, summed per card (a card's stretches never
    overlap). Finding a range is a binary search written as nested CASEs.
    """
    if not moments or (deck_ids is not None and not deck_ids):
        return {}
    if len(moments) > MOST_MOMENTS:
        raise ValueError(f"mastery is sampled at {MOST_MOMENTS} moments at most")
    with store.sessions() as session:
        dialect = _dialect(session)
        earlier = aliased(ReviewLog)
        # the first review-stage answer after learning has no previous one: its card's
        # previous answer of any kind (a rare row: one index seek)
        last_before = (select(func.max(earlier.reviewed_at))
                       .where(earlier.card_id == ReviewLog.card_id,
                              earlier.reviewed_at < ReviewLog.reviewed_at)
                       .scalar_subquery())
        last = func.coalesce(ReviewLog.previous_review_at, last_before)
        spans = (select(ReviewLog.card_id.label("card_id"),
                        _day_number(session, last).label("since"),
                        _day_number(session, ReviewLog.reviewed_at).label("until"),
                        (ReviewLog.stability_before * mastery_age).label("reach"))
                 .where(ReviewLog.profile_id == profile_id,
                        ReviewLog.reviewed_at > moments[0],
                        ReviewLog.state_before == REVIEW,
                        ReviewLog.stability_before >= MATURE_DAYS))
        open_ended = (select(CardState.id.label("card_id"),
                             _day_number(session, CardState.last_review).label("since"),
                             literal(None, Float).label("until"),
                             (CardState.stability * mastery_age).label("reach"))
                      .where(CardState.profile_id == profile_id,
                             CardState.state == REVIEW, CardState.suspended.is_(False),
                             CardState.stability >= MATURE_DAYS,
                             CardState.last_review.is_not(None)))
        stretch = union_all(spans, open_ended).subquery("stretch")
        reach_end = stretch.c.since + _whole(session, stretch.c.reach) + 1
        stop = case((or_(stretch.c.until.is_(None), stretch.c.until > reach_end), reach_end),
                    else_=stretch.c.until)
        # each day number worked out once per stretch (SQLite would copy the expressions
        # of a flattened subquery into every use)
        ranged = (select(stretch.c.card_id, stretch.c.since.label("since"), stop.label("stop"))
                  .where(stretch.c.since.is_not(None))
                  .cte("ranged").prefix_with("MATERIALIZED"))
        points = [day_number(moment, dialect) for moment in moments]
        first, after = _rank(ranged.c.since, points), _rank(ranged.c.stop, points)
        one = literal(1, BigInteger)
        bits = (select(ranged.c.card_id, func.sum(one.op("<<")(after) - one.op("<<")(first))
                       .label("bits"))
                .group_by(ranged.c.card_id).subquery())
        query = (select(CardState.deck_id, CardState.card_key, bits.c.bits)
                 .join(bits, bits.c.card_id == CardState.id).where(bits.c.bits != 0))
        if deck_ids is not None:
            query = query.where(CardState.deck_id.in_(sorted(deck_ids)))
        found: dict[tuple[str, str], tuple[int, ...]] = {}
        for deck_id, card_key, mask in session.execute(query):
            mask = int(mask)
            found[(deck_id, card_key)] = tuple(n for n in range(len(points)) if mask >> n & 1)
        return found


def _rank(value: ColumnElement[Any], points: Sequence[float], low: int = 0,
          high: int | None = None) -> ColumnElement[Any]:
    """How many of the ascending ``points`` lie below ``value``: a binary search as nested
    CASEs (a handful of comparisons, where a sum over every point costs one each)."""
    high = len(points) if high is None else high
    if low == high:
        return literal(low, Integer)
    middle = (low + high) // 2
    return case((value <= literal(points[middle], Float), _rank(value, points, low, middle)),
                else_=_rank(value, points, middle + 1, high))


@dataclass(frozen=True)
class CardAnswer:
    """One answer of a card, with the state its card had just before it."""

    reviewed_at: datetime
    rating: int
    state_before: int | None
    stability_before: float | None


def card_answers(store: Store, profile_id: int, card_id: int) -> list[CardAnswer]:
    """Every answer of one card, oldest first (a card has tens, not millions)."""
    with store.sessions() as session:
        rows = session.execute(
            select(ReviewLog.reviewed_at, ReviewLog.rating, ReviewLog.state_before,
                   ReviewLog.stability_before)
            .where(ReviewLog.profile_id == profile_id, ReviewLog.card_id == card_id)
            .order_by(ReviewLog.reviewed_at, ReviewLog.id))
        return [CardAnswer(at, int(rating), None if before is None else int(before),
                           None if stability is None else float(stability))
                for at, rating, before, stability in rows]


__all__ = ["CardAnswer", "card_answers", "day_number", "mastered_at", "retention_per_day"]
