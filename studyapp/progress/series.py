"""Progress over time: reviews and true retention per period, mastery per post at the end
of each period, and one card's forgetting curve.

The pure parts (the periods, a curve from a card's answers, mastery shares from cards
mastered at each moment) take plain values and are tested by hand; ``progress_series``
and ``card_curve`` read the store (SQL aggregates, never every log) and apply them.
The forgetting curve is the scheduler's own (``srs.scheduler.Scheduler.recall_probability``:
FSRS-6 with the profile's parameters, time in whole study days).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from math import ceil
from typing import Any

from studyapp.progress.recall import mastery_age, round_or_none
from studyapp.progress.sources import ProgressSource
from studyapp.srs.calendar import day_start, local_zone, study_day
from studyapp.srs.scheduler import Scheduler
from studyapp.store import stats as db
from studyapp.store.card_reads import CardRow
from studyapp.store.series import CardAnswer, card_answers, mastered_at, retention_per_day

DAILY_UP_TO = 35
"""A history shorter than this many days is shown per day; a longer one per week."""
WEEKS = 26
"""Weeks shown of a longer history (half a year)."""
CURVE_DAYS = 365
"""At most this many points on a card's curve: a longer history is sampled every few days."""


# -- periods --------------------------------------------------------------------------------

def series_periods(today: date, first: date | None,
                   weeks: int = WEEKS) -> tuple[str, list[date]]:
    """("day" or "week", the first day of every period and the day after the last one).

    Per day from the first study day while the history is under ``DAILY_UP_TO`` days;
    else per week (Monday first) over the last ``weeks`` weeks, or fewer since the first
    study day. The last period ends today: its mastery is today's.
    """
    if first is None or first > today:
        return "day", []
    tomorrow = today + timedelta(days=1)
    if (today - first).days < DAILY_UP_TO:
        return "day", [first + timedelta(days=n) for n in range((tomorrow - first).days + 1)]
    this_week = today - timedelta(days=today.weekday())
    earliest = max(first - timedelta(days=first.weekday()),
                   this_week - timedelta(weeks=weeks - 1))
    starts = [earliest + timedelta(weeks=n) for n in range((this_week - earliest).days // 7 + 1)]
    return "week", [*starts, tomorrow]


# -- the series -----------------------------------------------------------------------------

@dataclass(frozen=True)
class SeriesPoint:
    """One period: answers, true retention's count, and mastery at its end."""

    start: date
    end: date
    """The period's last study day (inclusive)."""
    reviews: int
    counted: int
    """Answers given in review stage, each card's first of a study day (true retention)."""
    passed: int

    @property
    def retention(self) -> float | None:
        return self.passed / self.counted if self.counted else None


@dataclass(frozen=True)
class PostMastery:
    """One post's mastered cards at the end of every period, over its cards now."""

    slug: str
    title: str
    total: int
    mastered: tuple[int, ...]

    @property
    def shares(self) -> tuple[float, ...]:
        return tuple(min(1.0, n / self.total) if self.total else 0.0 for n in self.mastered)


@dataclass(frozen=True)
class ProgressSeries:
    """What the progress charts draw, and ``stats --json`` gives as ``series``."""

    period: str
    points: tuple[SeriesPoint, ...]
    posts: tuple[PostMastery, ...]

    @property
    def mastery_now(self) -> float | None:
        """Mastered cards of every post over all their cards, at the last point."""
        total = sum(post.total for post in self.posts)
        if not self.points or not total:
            return None
        return sum(post.mastered[-1] for post in self.posts) / total

    def as_json(self) -> dict[str, Any]:
        return {
            "period": self.period,
            "points": [{"start": p.start.isoformat(), "end": p.end.isoformat(),
                        "reviews": p.reviews, "retention_reviews": p.counted,
                        "retention_passed": p.passed,
                        "retention": round_or_none(p.retention)} for p in self.points],
            "mastery": {post.slug: [round(s, 4) for s in post.shares] for post in self.posts},
            "mastered": {post.slug: list(post.mastered) for post in self.posts},
        }


def mastered_per_post(flags: Mapping[tuple[str, str], Iterable[int]],
                      places: Mapping[tuple[str, str], tuple[str | None, str]],
                      moments: int) -> dict[str, list[int]]:
    """Cards mastered per post at each of ``moments`` moments (``flags``: a card → the
    moments it was mastered at). A card of no studied post counts nowhere, as in
    ``recall.count_mastered``."""
    found: dict[str, list[int]] = {}
    for key, when in flags.items():
        place = places.get(key)
        if place is None or place[0] is None:
            continue
        counts = found.setdefault(place[0], [0] * moments)
        for n in when:
            counts[n] += 1
    return found


def per_period(days: Sequence[date], edges: Sequence[date],
               per_day: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Day figures (``per_day[i]`` for ``days[i]``) summed over the periods ``edges``."""
    sums = [(0, 0)] * (len(edges) - 1)
    at = 0
    for day, (counted, passed) in zip(days, per_day, strict=False):
        while at + 1 < len(edges) - 1 and day >= edges[at + 1]:
            at += 1
        sums[at] = (sums[at][0] + counted, sums[at][1] + passed)
    return sums


def build_series(period: str, edges: Sequence[date], reviews: Sequence[int],
                 retention: Sequence[tuple[int, int]], posts: Sequence[tuple[str, str, int]],
                 mastered: Mapping[str, Sequence[int]]) -> ProgressSeries:
    """The series from per-period figures (``posts``: slug, title, cards now)."""
    points = tuple(SeriesPoint(start, end - timedelta(days=1), n, counted, passed)
                   for start, end, n, (counted, passed)
                   in zip(edges[:-1], edges[1:], reviews, retention, strict=True))
    zero = [0] * len(points)
    return ProgressSeries(period, points, tuple(
        PostMastery(slug, title, total, tuple(mastered.get(slug, zero)))
        for slug, title, total in posts))


def progress_series(service: ProgressSource, weeks: int = WEEKS,
                    posts: Sequence[tuple[str, str, int]] | None = None) -> ProgressSeries:
    """Reviews, true retention and mastery per post over time, for one profile.

    ``posts``: (slug, title, cards now) of every post, when the caller has them
    (``learner_stats`` does); else read from the study overview."""
    service.record_abandoned()
    store, profile, settings = service.store, service.profile, service.settings
    now, rollover, zone = service.now(), settings.day_rollover_hour, local_zone()
    first = db.first_review_before(store, profile.id)
    period, edges = series_periods(study_day(now, rollover, zone),
                                   None if first is None else study_day(first, rollover, zone),
                                   weeks)
    bounds = [day_start(day, rollover, zone) for day in edges]
    if not bounds:
        if posts is None:
            posts = [(p.slug, p.title, p.total)
                     for p in service.overview(with_streak=False).posts]
        return build_series(period, [], [], [], posts, {})
    days = [edges[0] + timedelta(days=n) for n in range((edges[-1] - edges[0]).days + 1)]
    places = service.mastery_places()
    # independent reads, each on its own connection: the database works outside Python's
    # lock (as learner_stats runs its aggregates), the heaviest first
    with ThreadPoolExecutor(max_workers=3) as pool:
        mastered_job = pool.submit(mastered_at, store, profile.id, bounds[1:],
                                   mastery_age(settings),
                                   deck_ids={deck for _, deck in places.values()})
        retention_job = pool.submit(retention_per_day, store, profile.id,
                                    [day_start(day, rollover, zone) for day in days])
        reviews_job = pool.submit(db.reviews_per_bucket, store, profile.id, bounds)
        if posts is None:
            posts = [(p.slug, p.title, p.total)
                     for p in service.overview(with_streak=False).posts]
        flags, per_day, reviews = (mastered_job.result(), retention_job.result(),
                                   reviews_job.result())
    return build_series(period, edges, reviews, per_period(days, edges, per_day), posts,
                        mastered_per_post(flags, places, len(bounds) - 1))


# -- one card's forgetting curve ------------------------------------------------------------

@dataclass(frozen=True)
class CurvePoint:
    day: date
    recall: float | None
    """Probability of recall on that study day (None while no stability is known)."""
    projected: bool
    """After today: where the curve goes without another answer."""


@dataclass(frozen=True)
class CurveReview:
    """One answer on the curve: when, its rating, and the recall predicted just before."""

    at: datetime
    day: date
    rating: int
    recall_before: float | None
    stability_after: float | None


@dataclass(frozen=True)
class CardCurve:
    deck_id: str
    card_key: str
    today: date
    points: tuple[CurvePoint, ...]
    reviews: tuple[CurveReview, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "deck": self.deck_id, "card": self.card_key, "today": self.today.isoformat(),
            "points": [{"day": p.day.isoformat(), "recall": round_or_none(p.recall),
                        "projected": p.projected} for p in self.points],
            "reviews": [{"at": r.at.isoformat(), "day": r.day.isoformat(),
                         "rating": r.rating, "recall_before": round_or_none(r.recall_before),
                         "stability_after": round_or_none(r.stability_after, 2)}
                        for r in self.reviews],
        }


Recall = Callable[[float | None, datetime | None, datetime], float]
"""Probability of recall of (stability, last review) at a moment: the scheduler's."""


def _segments(answers: Sequence[CardAnswer], card: CardRow) -> list[tuple[datetime, float | None]]:
    """(last review, stability after it) for every answer: the stability an answer left
    is the next answer's ``stability_before``, the card's stored one after the last."""
    found: list[tuple[datetime, float | None]] = []
    for answer, after in zip(answers, [*answers[1:], None], strict=True):
        if after is not None:
            found.append((answer.reviewed_at, after.stability_before))
        else:
            found.append((card.last_review or answer.reviewed_at,
                          card.stability if card.stage != 0 else None))
    return found


def curve_from_answers(deck_id: str, card_key: str, answers: Sequence[CardAnswer],
                       card: CardRow, recall: Recall, day_of: Callable[[datetime], date],
                       start_of: Callable[[date], datetime], today: date,
                       max_points: int = CURVE_DAYS) -> CardCurve:
    """A card's recall on every study day from its first answer to a while after today.

    On each day the latest answer before the day ends holds (recall 1 on the day of an
    answer, elapsed days counted as the scheduler counts them); each answer is marked
    with the recall predicted just before it. The curve goes on past today by a third of
    the history (a week at least, four months at most), sampled every few days when it
    would pass ``max_points``.
    """
    if not answers:
        return CardCurve(deck_id, card_key, today, (), ())
    segments = _segments(answers, card)
    first = day_of(answers[0].reviewed_at)
    span = (today - first).days
    last = today + timedelta(days=min(120, max(7, ceil(span / 3))))
    step = max(1, ceil(((last - first).days + 1) / max_points))
    days = {first + timedelta(days=n) for n in range(0, (last - first).days + 1, step)}
    days |= {today, today + timedelta(days=7), last}  # the figures a text shows, the end
    points: list[CurvePoint] = []
    at = 0
    for day in sorted(days):
        end = start_of(day + timedelta(days=1))
        while at + 1 < len(answers) and answers[at + 1].reviewed_at < end:
            at += 1
        review, stability = segments[at]
        value = recall(stability, review, start_of(day)) if stability else None
        points.append(CurvePoint(day, value, day > today))
    marks = []
    for n, answer in enumerate(answers):
        before = None
        if n:
            review, stability = segments[n - 1]
            before = recall(stability, review, answer.reviewed_at) if stability else None
        marks.append(CurveReview(answer.reviewed_at, day_of(answer.reviewed_at), answer.rating,
                                 before, segments[n][1]))
    return CardCurve(deck_id, card_key, today, tuple(points), tuple(marks))


def card_curve(service: ProgressSource, deck_id: str, card_key: str) -> CardCurve | None:
    """One card's forgetting curve from its stored answers (None: never answered)."""
    service.record_abandoned()
    detail = db.card_detail(service.store, service.profile.id, deck_id, card_key, last=0)
    if detail is None:
        return None
    settings, zone = service.settings, local_zone()
    rollover = settings.day_rollover_hour
    scheduler = Scheduler(settings, zone)
    answers = card_answers(service.store, service.profile.id, detail.card.id)
    return curve_from_answers(
        deck_id, card_key, answers, detail.card, scheduler.recall_probability,
        lambda moment: study_day(moment, rollover, zone),
        lambda day: day_start(day, rollover, zone),
        study_day(service.now(), rollover, zone))


__all__ = [
    "CURVE_DAYS", "DAILY_UP_TO", "WEEKS", "CardCurve", "CurvePoint", "CurveReview",
    "PostMastery", "ProgressSeries", "SeriesPoint", "build_series", "card_curve",
    "curve_from_answers", "mastered_per_post", "progress_series", "series_periods",
]
