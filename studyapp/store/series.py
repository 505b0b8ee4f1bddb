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
from itertools import pairwise
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Float,
    Integer,
    and_,
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
from studyapp.store.models import CardState, ReviewLog
from studyapp.store.stats import _int, _true, day_key

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


def retention_per_bucket(store: Store, profile_id: int, bounds: Sequence[datetime],
                         day_shift: Any) -> list[tuple[int, int]]:
    """(review-stage answers counted, passed) in each [bounds[i], bounds[i+1]).

    True retention as ``store.retention`` counts it: answers given in review stage,
    each card's first of a study day only (its previous review-stage answer falls on an
    earlier study day; ``day_shift`` turns a UTC time into its study day), passed when
    not Again. One range of the retention index per period.
    """
    if len(bounds) < 2:
        return []
    with store.sessions() as session:
        previous = ReviewLog.previous_review_at
        first = or_(previous.is_(None),
                    day_key(session, previous, day_shift)
                    < day_key(session, ReviewLog.reviewed_at, day_shift))
        parts = [select(literal(n).label("n"), func.count().label("counted"),
                        func.sum(_true(ReviewLog.rating > 1)).label("passed"))
                 .where(ReviewLog.profile_id == profile_id, ReviewLog.state_before == REVIEW,
                        ReviewLog.reviewed_at >= lo, ReviewLog.reviewed_at < hi, first)
                 for n, (lo, hi) in enumerate(pairwise(bounds))]
        found = {int(n): (_int(counted), _int(passed))
                 for n, counted, passed in session.execute(union_all(*parts))}
    return [found.get(n, (0, 0)) for n in range(len(bounds) - 1)]


def mastered_at(store: Store, profile_id: int, moments: Sequence[datetime],
                mastery_age: float, *, deck_ids: Collection[str] | None = None
                ) -> dict[tuple[str, str], tuple[int, ...]]:
    """(deck, card) → the indexes of ``moments`` at which the card was mastered.

    Mastered as ``store.mastery.mastered_card`` says, at a past moment T: in review
    stage, stability of ``MATURE_DAYS`` or more, and whole days from its last review to
    T at most ``mastery_age`` times that stability. Each answer given in review stage
    knows the stability its card had since its previous review-stage answer
    (``stability_before``, ``previous_review_at``): that span is one stretch a card may
    have been mastered in; after its latest answer, the card's stored state holds
    (unsuspended, as now). Pass the ends of study days to count days as the scheduler
    does. Only answers after the first moment are read, from the retention index.
    """
    if not moments or (deck_ids is not None and not deck_ids):
        return {}
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
        # each day number worked out once per span, then compared with every moment
        stretch = union_all(spans, open_ended).cte("stretch").prefix_with("MATERIALIZED")
        since, until, reach = stretch.c.since, stretch.c.until, stretch.c.reach
        covered = []
        for moment in moments:
            at = literal(day_number(moment, dialect), Float)
            covered.append(func.max(case((and_(
                since.is_not(None), since <= at, or_(until.is_(None), until > at),
                _whole(session, at - since) <= reach), 1), else_=0)))
        per_card = (select(stretch.c.card_id, *covered).group_by(stretch.c.card_id)
                    .subquery())
        query = (select(CardState.deck_id, CardState.card_key,
                        *list(per_card.c)[1:])
                 .join(per_card, per_card.c.card_id == CardState.id))
        if deck_ids is not None:
            query = query.where(CardState.deck_id.in_(sorted(deck_ids)))
        found: dict[tuple[str, str], tuple[int, ...]] = {}
        for deck_id, card_key, *flags in session.execute(query):
            when = tuple(n for n, flag in enumerate(flags) if flag)
            if when:
                found[(deck_id, card_key)] = when
        return found


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


__all__ = ["CardAnswer", "card_answers", "day_number", "mastered_at",
           "retention_per_bucket"]
