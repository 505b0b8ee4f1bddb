"""Progress figures computed by the database, never by loading every log.

Counts, sums and day buckets are SQL aggregates that run the same on SQLite
and PostgreSQL. Only small results come back to Python: one row per post,
one per day bucket, a handful of cards. Day buckets are given as exact UTC
boundaries by the caller, so the 04:00 rollover and daylight saving time are
the calendar's business, not SQL's.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from itertools import pairwise
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Date,
    and_,
    bindparam,
    case,
    cast,
    func,
    literal,
    select,
)
from sqlalchemy.dialects.postgresql import ARRAY, TIMESTAMP
from sqlalchemy.orm import Session

from studyapp.store.database import Store
from studyapp.store.mastery import (
    MATURE_DAYS,
    REVIEW,
    _dialect,
    age_days,
    study_days_to,
)
from studyapp.store.progress import CardRow, ProfileInfo, _row
from studyapp.store.tables import (
    CardStat,
    CardState,
    Profile,
    ReviewHour,
    ReviewLog,
    UTCDateTime,
)

LEARNING_STAGES = (1, 3)


@dataclass(frozen=True)
class Totals:
    """All-time figures of one profile."""

    reviews: int
    correct: int
    cards_seen: int
    duration_ms: int


@dataclass(frozen=True)
class PostTally:
    """One post's stored cards and answers (cards never seen are not here)."""

    post: str
    seen: int = 0
    learning: int = 0
    review: int = 0
    suspended: int = 0
    leeches: int = 0
    reviews: int = 0
    correct: int = 0
    duration_ms: int = 0



@dataclass(frozen=True)
class CardScore:
    """A card with its answer counts: for weakest cards, leeches and reports."""

    card: CardRow
    reviews: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.reviews if self.reviews else None


@dataclass(frozen=True)
class LogLine:
    """One stored answer, as a drill-down shows it."""

    uid: str
    reviewed_at: datetime
    rating: int
    correct: bool
    duration_ms: int | None
    state_before: int | None
    seed: int | None
    params: Mapping[str, Any] | None
    prompt: str | None
    response: str | None
    expected: str | None
    overridden: bool = False
    looked_at_post: bool = False


@dataclass(frozen=True)
class CardDetail:
    card: CardRow
    reviews: int
    correct: int
    logs: tuple[LogLine, ...]


def day_key(session: Session, column: Any, shift: timedelta) -> ColumnElement[Any]:
    """The calendar date of ``column + shift``: a day bucket for GROUP BY / PARTITION BY."""
    seconds = int(shift.total_seconds())
    if _dialect(session) == "sqlite":
        return func.date(column, f"{seconds:+d} seconds")
    return cast(func.timezone("UTC", column) + literal(timedelta(seconds=seconds)), Date)


def _int(value: Any) -> int:
    return int(value or 0)


def _true(column: Any) -> ColumnElement[int]:
    return case((column, 1), else_=0)


def find_profile(store: Store, name: str) -> ProfileInfo | None:
    """The profile named ``name``, or None (reading never creates one)."""
    with store.sessions() as session:
        profile = session.scalar(select(Profile).where(Profile.name == name))
        return ProfileInfo(profile.id, profile.name, dict(profile.settings or {})) \
            if profile else None


def list_profiles(store: Store) -> list[ProfileInfo]:
    """Every profile in the database, by name."""
    with store.sessions() as session:
        return [ProfileInfo(p.id, p.name, dict(p.settings or {}))
                for p in session.scalars(select(Profile).order_by(Profile.name))]


def totals(store: Store, profile_id: int) -> Totals:
    """Reviews, right answers, cards seen and time studied, all time."""
    with store.sessions() as session:
        reviews, correct, duration = session.execute(
            select(func.sum(CardStat.reviews), func.sum(CardStat.correct),
                   func.sum(CardStat.duration_ms))
            .where(CardStat.profile_id == profile_id)).one()
        # a card marked (buried, flagged) before its first answer is stored new: not seen
        seen = session.scalar(select(func.count()).where(CardState.profile_id == profile_id,
                                                         CardState.state != 0))
        return Totals(_int(reviews), _int(correct), _int(seen), _int(duration))


def window(store: Store, profile_id: int, start: datetime, end: datetime) -> Totals:
    """Reviews, right answers, distinct cards and time in [start, end)."""
    with store.sessions() as session:
        reviews, correct, cards, duration = session.execute(
            select(func.count(), func.sum(_true(ReviewLog.correct)),
                   func.count(func.distinct(ReviewLog.card_id)),
                   func.sum(ReviewLog.duration_ms))
            .where(ReviewLog.profile_id == profile_id, ReviewLog.reviewed_at >= start,
                   ReviewLog.reviewed_at < end)).one()
        return Totals(_int(reviews), _int(correct), _int(cards), _int(duration))


def post_tallies(store: Store, profile_id: int) -> dict[str, PostTally]:
    """Per post: card stages, answers and time (sum over posts = totals).

    Mastery is not here: it counts only the cards of the decks studied now
    (``mastered_keys``, matched to them by the caller).
    """
    with store.sessions() as session:
        live = CardState.suspended.is_(False)
        cards = session.execute(
            select(CardState.post, func.sum(_true(CardState.state != 0)),
                   func.sum(_true(and_(CardState.state.in_(LEARNING_STAGES), live))),
                   func.sum(_true(and_(CardState.state == REVIEW, live))),
                   func.sum(_true(CardState.suspended)),
                   func.sum(_true(CardState.leech)))
            .where(CardState.profile_id == profile_id).group_by(CardState.post)).all()
        # the per-card sums the triggers keep (card_stats), then per post
        answers = session.execute(
            select(CardState.post, func.sum(CardStat.reviews), func.sum(CardStat.correct),
                   func.sum(CardStat.duration_ms))
            .join(CardState, CardState.id == CardStat.card_id)
            .where(CardStat.profile_id == profile_id, CardStat.reviews > 0)
            .group_by(CardState.post)).all()
    found: dict[str, dict[str, int]] = {}
    for post, seen, learning, review, suspended, leeches in cards:
        found[post] = {"seen": _int(seen), "learning": _int(learning), "review": _int(review),
                       "suspended": _int(suspended), "leeches": _int(leeches)}
    for post, reviews, correct, duration in answers:
        found.setdefault(post, {}).update(reviews=_int(reviews), correct=_int(correct),
                                          duration_ms=_int(duration))
    return {post: PostTally(post, **values) for post, values in found.items()}


def _bucket_counts(session: Session, column: Any, where: Sequence[Any],
                   bounds: Sequence[datetime]) -> list[int]:
    """COUNT of rows in each [bounds[i], bounds[i+1]): one index range count per bucket.

    One SELECT of scalar subqueries, so each bucket is a plain range on an
    index on both backends; the caller's boundaries keep calendar rules in Python.
    """
    if _dialect(session) == "postgresql":
        # one index range scan; width_bucket places each row by the exact boundaries
        thresholds = cast(literal([b.astimezone(UTC) for b in bounds],
                                  ARRAY(TIMESTAMP(timezone=True))), ARRAY(TIMESTAMP(timezone=True)))
        bucket = func.width_bucket(column, thresholds)
        found: dict[int, int] = {
            int(b): int(n) for b, n in session.execute(
                select(bucket, func.count())
                .where(*where, column >= bounds[0], column < bounds[-1])
                .group_by(bucket))}
        return [_int(found.get(i)) for i in range(1, len(bounds))]
    counts: list[int] = []
    chunk = 200
    for first in range(0, len(bounds) - 1, chunk):
        part = bounds[first:first + chunk + 1]
        columns = [select(func.count()).where(*where, column >= lo, column < hi)
                   .scalar_subquery() for lo, hi in pairwise(part)]
        counts.extend(_int(n) for n in session.execute(select(*columns)).one())
    return counts


def reviews_per_bucket(store: Store, profile_id: int,
                       bounds: Sequence[datetime]) -> list[int]:
    """Reviews in each [bounds[i], bounds[i+1]): the heat map's days.

    Boundaries on the hour (every time zone with a whole-hour offset) are
    answered from review_hours, a few rows per day; others count the logs.
    """
    if len(bounds) < 2:
        return []
    hours = [_whole_hour(b) for b in bounds]
    with store.sessions() as session:
        if None in hours:
            return _bucket_counts(session, ReviewLog.reviewed_at,
                                  [ReviewLog.profile_id == profile_id], bounds)
        edges = [h for h in hours if h is not None]
        counts = [0] * (len(edges) - 1)
        for hour, n in session.execute(
                select(ReviewHour.hour, ReviewHour.reviews)
                .where(ReviewHour.profile_id == profile_id, ReviewHour.hour >= edges[0],
                       ReviewHour.hour < edges[-1])):
            counts[bisect_right(edges, hour) - 1] += int(n)
        return counts


def _whole_hour(moment: datetime) -> int | None:
    """Hours since 1970 (UTC) when ``moment`` is exactly on the hour, else None."""
    seconds = moment.timestamp()
    return int(seconds) // 3600 if seconds % 3600 == 0 else None


def studied_in_buckets(store: Store, profile_id: int,
                       bounds: Sequence[datetime]) -> list[bool]:
    """Whether any review falls in each [bounds[i], bounds[i+1]): for streaks.

    EXISTS stops at the first row, so a long streak costs one index seek per
    day instead of counting every review of every day.
    """
    if len(bounds) < 2:
        return []
    hours = [_whole_hour(b) for b in bounds]
    edges: Sequence[datetime | int] = bounds
    by_hour = None not in hours  # review_hours: a smaller index, whole numbers bound
    if by_hour:
        edges = [h for h in hours if h is not None]
    found: list[bool] = []
    chunk = 200
    with store.sessions() as session:
        for first in range(0, len(edges) - 1, chunk):
            part = edges[first:first + chunk + 1]
            params: dict[str, Any] = {"profile_id": profile_id}
            for n, (lo, hi) in enumerate(pairwise(part)):
                params[f"lo{n}"], params[f"hi{n}"] = lo, hi
            row = session.execute(_exists_per_bucket(len(part) - 1, by_hour), params).one()
            found.extend(bool(v) for v in row)
    return found


@cache
def _exists_per_bucket(buckets: int, by_hour: bool = False) -> Any:
    """The EXISTS-per-bucket SELECT, built once per size (building it costs more than running).

    ``by_hour``: buckets given as hours since 1970, looked up in review_hours.
    """
    def exists(n: int) -> Any:
        if by_hour:
            return select(ReviewHour.hour).where(
                ReviewHour.profile_id == bindparam("profile_id"),
                ReviewHour.hour >= bindparam(f"lo{n}"), ReviewHour.hour < bindparam(f"hi{n}"),
                ReviewHour.reviews > 0).exists()
        return select(ReviewLog.id).where(
            ReviewLog.profile_id == bindparam("profile_id"),
            ReviewLog.reviewed_at >= bindparam(f"lo{n}", type_=UTCDateTime()),
            ReviewLog.reviewed_at < bindparam(f"hi{n}", type_=UTCDateTime())).exists()

    return select(*(exists(n) for n in range(buckets)))


def due_per_bucket(store: Store, profile_id: int, bounds: Sequence[datetime]) -> list[int]:
    """Unsuspended cards falling due in each [bounds[i], bounds[i+1]): the forecast."""
    if len(bounds) < 2:
        return []
    with store.sessions() as session:
        return _bucket_counts(session, CardState.due,
                              [CardState.profile_id == profile_id,
                               CardState.suspended.is_(False), CardState.state != 0],
                              bounds)


def first_review_before(store: Store, profile_id: int) -> datetime | None:
    with store.sessions() as session:
        return session.scalar(select(func.min(ReviewLog.reviewed_at))
                              .where(ReviewLog.profile_id == profile_id))


def _scores(session: Session, profile_id: int, cards: Sequence[CardState]) -> list[CardScore]:
    ids = [c.id for c in cards]
    counts: dict[int, tuple[int, int]] = {}
    if ids:
        for card_id, n, ok in session.execute(
                select(CardStat.card_id, CardStat.reviews, CardStat.correct)
                .where(CardStat.card_id.in_(ids), CardStat.profile_id == profile_id)):
            counts[card_id] = (_int(n), _int(ok))
    return [CardScore(_row(c), *counts.get(c.id, (0, 0))) for c in cards]


def weakest_cards(store: Store, profile_id: int, limit: int,
                  weakness: Callable[[float | None, float | None, int], float | None],
                  now: datetime, *, day_end: datetime | None = None) -> list[CardScore]:
    """The ``limit`` cards with the lowest ``weakness(stability, days since review, lapses)``.

    With ``day_end`` the days are whole study days, as the scheduler counts them.

    The caller supplies the score (the FSRS forgetting curve lives above the
    store); a score of ``None`` leaves the card out. Only four columns are read
    for every card, the age worked out by the database (no time parsed per
    card); whole rows only for the chosen ones.
    """
    with store.sessions() as session:
        age = (age_days(session, CardState.last_review, now) if day_end is None
               else study_days_to(session, CardState.last_review, day_end))
        candidates = session.connection().execute(
            select(CardState.id, CardState.stability, age, CardState.lapses)
            .where(CardState.profile_id == profile_id, CardState.suspended.is_(False),
                   CardState.reps > 0, CardState.state != 0)).cursor.fetchall()
        scored = [(score, card_id) for card_id, stability, days, lapses in candidates
                  if (score := weakness(stability, None if days is None else float(days),
                                        int(lapses or 0))) is not None]
        chosen = [card_id for _, card_id in heapq.nsmallest(limit, scored)]
        if not chosen:
            return []
        rows = {c.id: c for c in session.scalars(select(CardState)
                                                 .where(CardState.id.in_(chosen)))}
        return _scores(session, profile_id, [rows[i] for i in chosen if i in rows])


def leeches(store: Store, profile_id: int, limit: int = 50) -> list[CardScore]:
    """Cards flagged as leeches (many lapses), worst first."""
    with store.sessions() as session:
        cards = list(session.scalars(
            select(CardState)
            .where(CardState.profile_id == profile_id, CardState.leech.is_(True))
            .order_by(CardState.lapses.desc(), CardState.id).limit(limit)))
        return _scores(session, profile_id, cards)


def review_cards(store: Store, profile_id: int) -> list[tuple[str, float, datetime]]:
    """(post, stability, last review) of unsuspended review cards: card rows, not logs."""
    with store.sessions() as session:
        rows = session.execute(
            select(CardState.post, CardState.stability, CardState.last_review)
            .where(CardState.profile_id == profile_id, CardState.state == REVIEW,
                   CardState.suspended.is_(False), CardState.stability.is_not(None),
                   CardState.last_review.is_not(None))).all()
        return [(post, float(s or 0.0), last) for post, s, last in rows if last is not None]


def card_detail(store: Store, profile_id: int, deck_id: str, card_key: str,
                last: int = 10) -> CardDetail | None:
    """One card's state and its latest answers with their parameters."""
    with store.sessions() as session:
        card = session.scalar(select(CardState).where(
            CardState.profile_id == profile_id, CardState.deck_id == deck_id,
            CardState.card_key == card_key))
        if card is None:
            return None
        n, ok = session.execute(
            select(func.count(), func.sum(_true(ReviewLog.correct)))
            .where(ReviewLog.card_id == card.id)).one()
        logs = session.scalars(select(ReviewLog).where(ReviewLog.card_id == card.id)
                               .order_by(ReviewLog.reviewed_at.desc(), ReviewLog.id.desc())
                               .limit(last))
        lines = tuple(LogLine(log.uid, log.reviewed_at, log.rating, log.correct,
                              log.duration_ms, log.state_before, log.seed, log.params,
                              log.prompt, log.response, log.expected,
                              bool(log.overridden), bool(log.looked_at_post)) for log in logs)
        return CardDetail(_row(card), _int(n), _int(ok), lines)


def overdue_by_profile(store: Store, now: datetime) -> dict[int, int]:
    """Unsuspended cards past due, per profile (for the class report)."""
    with store.sessions() as session:
        return {pid: _int(n) for pid, n in session.execute(
            select(CardState.profile_id, func.count())
            .where(CardState.suspended.is_(False), CardState.state != 0, CardState.due < now)
            .group_by(CardState.profile_id))}


__all__ = [
    "MATURE_DAYS", "CardDetail", "CardScore", "LogLine", "PostTally", "Totals",
    "age_days", "card_detail", "day_key", "due_per_bucket", "find_profile",
    "first_review_before", "leeches", "list_profiles", "overdue_by_profile", "post_tallies",
    "review_cards", "reviews_per_bucket", "totals", "weakest_cards",
    "window",
]
