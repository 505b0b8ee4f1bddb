"""The learner's progress in one call: per post, retention, calendar, forecast, weak cards."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from studyapp.progress.misconceptions import MisconceptionEstimate, learner_misconceptions
from studyapp.progress.recall import (
    MASTERY_RETRIEVABILITY,
    count_mastered,
    day_boundaries,
    mastery_age,
    retrievability,
    round_or_none,
    study_day_shift,
)
from studyapp.progress.sources import ProgressSource
from studyapp.questions.misconceptions import misconception_of
from studyapp.srs.calendar import day_bounds, elapsed_days, study_day
from studyapp.srs.deck_options import shown_options
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store import stats as db
from studyapp.store.mastery import MATURE_DAYS, mastered_keys
from studyapp.store.retention import true_retention
from studyapp.store.stats import CardDetail, CardScore

HEATMAP_DAYS = 180
FORECAST_DAYS = 30
RETENTION_DAYS = 30
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
AUTHORED = "authored"
"""The family name ``stats --json`` gives cards written in a deck (no generator)."""


def mastery_share(mastered: int, total: int) -> float:
    """Mastered cards over all the cards studied (new ones too): the one mastery figure
    of home, the post screen, the progress screen and ``stats``."""
    return min(1.0, mastered / total) if total else 0.0


def mastered_per_place(service: ProgressSource,
                       places: dict[tuple[str, str], tuple[str | None, str]] | None = None
                       ) -> tuple[dict[str, int], dict[str, int]]:
    """Mastered cards per post and per deck (``store.mastery.mastered_card``), counted
    once for every screen that shows mastery."""
    settings, now = service.settings, service.now()
    places = service.mastery_places() if places is None else places
    keys = mastered_keys(service.store, (service.profile.id,), now, mastery_age(settings),
                            day_end=day_bounds(now, settings.day_rollover_hour)[1],
                            deck_ids={deck for _, deck in places.values()})
    return count_mastered(keys[service.profile.id], places)


def post_mastery(service: ProgressSource, slug: str) -> float:
    """One post's mastery, as the progress screen shows it (the post screen's line)."""
    total = next((p.total for p in service.overview(with_streak=False).posts
                  if p.slug == slug), 0)
    return mastery_share(mastered_per_place(service)[0].get(slug, 0), total)


@dataclass(frozen=True)
class PostStats:
    """One post's line: deck counts from the overview, mastery and accuracy from the store."""

    slug: str
    title: str
    total: int
    new: int
    learning: int
    review: int
    due: int
    mastered: int
    reviews: int
    correct: int
    time_ms: int
    leeches: int

    @property
    def mastery(self) -> float:
        return mastery_share(self.mastered, self.total)

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.reviews if self.reviews else None


@dataclass(frozen=True)
class DeckStats:
    """One studied deck's mastery: a course deck's cards, whatever posts they name."""

    deck_id: str
    title: str
    total: int
    mastered: int
    kind: str = "installed"
    """post (built in, one per post), example, installed, or file (see ``deck_kind``)."""

    @property
    def mastery(self) -> float:
        return mastery_share(self.mastered, self.total)


@dataclass(frozen=True)
class CardLine:
    """A card in the weakest or leech list."""

    deck_id: str
    card_key: str
    post: str
    family: str | None
    stage: int
    lapses: int
    reviews: int
    accuracy: float | None
    stability: float | None
    difficulty: float | None
    retrievability: float
    due: datetime
    leech: bool
    suspended: bool = False
    prompt: str | None = None
    """The prompt the card showed at its latest answer (untrusted text: shown, never read)."""


@dataclass(frozen=True)
class FamilyStats:
    """Mastery of one question family (``authored`` for cards written in a deck), over
    the cards of it seen so far."""

    family: str
    seen: int
    mastered: int

    @property
    def mastery(self) -> float:
        return min(1.0, self.mastered / self.seen) if self.seen else 0.0


MASTERY_DEFINITION = {"recall_at_least": MASTERY_RETRIEVABILITY,
                      "stability_days_at_least": MATURE_DAYS}
"""What "mastered" means on every screen and in ``stats --json``: a review card you would
recall now with probability 0.9 or more, whose memory is mature (stability 21+ days)."""


@dataclass(frozen=True)
class LearnerStats:
    """Everything ``studyapp stats`` shows for one profile."""

    profile: str
    generated_at: datetime
    today: date
    reviews_total: int
    correct_total: int
    cards_seen: int
    due_today: int
    new_left_today: int
    reviews_today: int
    time_today_ms: int
    time_total_ms: int
    retention_30d: float | None
    retention_young: float | None
    retention_mature: float | None
    retention_reviews: int
    desired_retention: float
    streak_days: int
    posts: tuple[PostStats, ...]
    reviews_per_day: tuple[tuple[date, int], ...]
    due_forecast: tuple[tuple[date, int], ...]
    weakest: tuple[CardLine, ...]
    leeches: tuple[CardLine, ...]
    comes_back_within_hour: int = 0
    comes_back_next_s: int | None = None
    """Learning cards due within the hour, and seconds until the soonest (stored due)."""
    decks: tuple[DeckStats, ...] = ()
    """Mastery per studied deck, beside the mastery per post."""
    families: tuple[FamilyStats, ...] = ()
    """Mastery per question family, over the cards seen."""
    misconceptions: tuple[MisconceptionEstimate, ...] = ()
    """The wrong ideas the learner's slips show, held ones first (``progress.misconceptions``)."""
    exams: tuple[dict[str, Any], ...] = ()
    """Mock exams handed in, newest first (``study.exam_log``: score, share, per post)."""
    deck_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Decks with options of their own, each option as the deck uses it (``srs.deck_options``)."""

    @property
    def accuracy(self) -> float | None:
        return self.correct_total / self.reviews_total if self.reviews_total else None

    def as_json(self) -> dict[str, Any]:
        """The ``stats --json`` object; the first keys are a fixed contract."""
        return {
            "profile": self.profile,
            "reviews_total": self.reviews_total,
            "cards_seen": self.cards_seen,
            "due_today": self.due_today,
            "retention_30d": round_or_none(self.retention_30d),
            "posts": {p.slug: {
                "title": p.title, "total": p.total, "new": p.new, "learning": p.learning,
                "review": p.review, "due": p.due, "mastery": round(p.mastery, 4),
                "mastered": p.mastered, "reviews": p.reviews, "accuracy": round_or_none(p.accuracy),
                "time_s": round(p.time_ms / 1000, 1), "leeches": p.leeches,
            } for p in self.posts},
            "decks": {d.deck_id: {"title": d.title, "kind": d.kind, "total": d.total,
                                  "mastered": d.mastered, "mastery": round(d.mastery, 4)}
                      for d in self.decks},
            "generated_at": self.generated_at.isoformat(),
            "study_day": self.today.isoformat(),
            "correct_total": self.correct_total,
            "accuracy": round_or_none(self.accuracy),
            "new_left_today": self.new_left_today,
            "reviews_today": self.reviews_today,
            "comes_back": {"within_hour": self.comes_back_within_hour,
                           "next_in_s": self.comes_back_next_s},
            "retention": {"desired": self.desired_retention,
                          "true_30d": round_or_none(self.retention_30d),
                          "young": round_or_none(self.retention_young),
                          "mature": round_or_none(self.retention_mature),
                          "reviews": self.retention_reviews},
            "desired_retention": self.desired_retention,
            "streak_days": self.streak_days,
            "time_today_s": round(self.time_today_ms / 1000, 1),
            "time_total_s": round(self.time_total_ms / 1000, 1),
            "reviews_per_day": {d.isoformat(): n for d, n in self.reviews_per_day},
            "due_forecast": {d.isoformat(): n for d, n in self.due_forecast},
            "weakest": [_card_json(c) for c in self.weakest],
            "leeches": [_card_json(c) for c in self.leeches],
            "mastery_definition": dict(MASTERY_DEFINITION),
            "families": {f.family: {"seen": f.seen, "mastered": f.mastered,
                                    "mastery": round(f.mastery, 4)} for f in self.families},
            "misconceptions": [{**m.as_json(), "name": misconception_of(m.key).name("en")}
                               for m in self.misconceptions],
            "exams": [dict(e) for e in self.exams],
            "deck_options": {deck: dict(options) for deck, options in self.deck_options.items()},
        }


def _card_json(card: CardLine) -> dict[str, Any]:
    return {"deck": card.deck_id, "card": card.card_key, "post": card.post,
            "family": card.family, "stage": card.stage, "lapses": card.lapses,
            "reviews": card.reviews, "accuracy": round_or_none(card.accuracy),
            "stability_days": round_or_none(card.stability, 2),
            "difficulty": round_or_none(card.difficulty, 2),
            "retrievability": round_or_none(card.retrievability), "due": card.due.isoformat(),
            "leech": card.leech, "prompt": card.prompt}



def _card_line(score: CardScore, settings: SchedulerSettings, now: datetime,
               prompts: dict[int, str] | None = None) -> CardLine:
    card = score.card
    elapsed = (elapsed_days(card.last_review, now, settings.day_rollover_hour)
               if card.last_review else 0)
    return CardLine(card.deck_id, card.card_key, card.post, card.family, card.stage,
                    card.lapses, score.reviews, score.accuracy, card.stability,
                    card.difficulty, retrievability(settings, card.stability, elapsed),
                    card.due, card.leech, card.suspended, (prompts or {}).get(card.id))


def _card_lines(service: ProgressSource, scores: list[CardScore]) -> tuple[CardLine, ...]:
    """Lines with the prompt each card last showed (the id says little to a learner)."""
    from studyapp.store import weak_cards

    prompts = weak_cards.last_prompts(service.store, [s.card.id for s in scores])
    return tuple(_card_line(s, service.settings, service.now(), prompts) for s in scores)


def family_lines(service: ProgressSource) -> tuple[FamilyStats, ...]:
    """Mastery per question family, most cards seen first."""
    from studyapp.store import weak_cards

    settings, now = service.settings, service.now()
    found = weak_cards.family_mastery(service.store, service.profile.id, now,
                                      mastery_age(settings),
                                      day_bounds(now, settings.day_rollover_hour)[1])
    lines = [FamilyStats(family or AUTHORED, seen, mastered)
             for family, (seen, mastered) in found.items()]
    return tuple(sorted(lines, key=lambda f: (-f.seen, f.family)))


def weakest_lines(service: ProgressSource, top: int = 10) -> tuple[CardLine, ...]:
    """The cards with the weakest record: most lapses, then lowest accuracy, then highest
    difficulty (``store.weak_cards.weakness_key``); a card never lapsed nor missed is not one."""

    from studyapp.store import weak_cards

    return _card_lines(service, weak_cards.weakest_by_record(service.store,
                                                             service.profile.id, top))


def _streak(service: ProgressSource, today: date, recent: list[int], rollover: int) -> int:
    """Consecutive study days with reviews, ending today (or yesterday, if not yet today).

    ``recent`` holds the last days' review counts (oldest first); older days
    are checked with EXISTS in blocks, so a years-long streak stays cheap.
    """
    studied = [n > 0 for n in reversed(recent)]  # studied[i] is today - i days
    i = 1 if studied and not studied[0] else 0
    streak = 0
    block = 120
    while streak < 36500:
        if i >= len(studied):
            first = today - timedelta(days=len(studied) + block - 1)
            older = db.studied_in_buckets(service.store, service.profile.id,
                                       day_boundaries(first, block, rollover))
            studied += list(reversed(older))
        if not studied[i]:
            break
        streak += 1
        i += 1
    return streak


def streak_days(service: ProgressSource) -> int:
    """Consecutive study days with reviews up to today (for the home screen)."""
    rollover = service.settings.day_rollover_hour
    today = study_day(service.now(), rollover)
    window = 31
    bounds = day_boundaries(today - timedelta(days=window - 1), window, rollover)
    recent = db.reviews_per_bucket(service.store, service.profile.id, bounds)
    return _streak(service, today, recent, rollover)


def learner_stats(service: ProgressSource, *, top: int = 10) -> LearnerStats:
    """The learner's progress: per post, retention, calendar, forecast, weak cards.

    Answers a killed app held are recorded first, so they are counted at once."""
    service.record_abandoned()
    store, profile = service.store, service.profile
    settings = service.settings
    now = service.now()
    rollover = settings.day_rollover_hour
    today = study_day(now, rollover)
    heat_bounds = day_boundaries(today - timedelta(days=HEATMAP_DAYS - 1), HEATMAP_DAYS,
                                 rollover)
    today_start, today_end = heat_bounds[-2], heat_bounds[-1]
    forecast_bounds = day_boundaries(today, FORECAST_DAYS, rollover)
    # The aggregates are independent reads: on SQLite's WAL (and on PostgreSQL)
    # they run at once on their own connections while the overview is built
    # here (the database works outside Python's lock), heaviest first.
    with ThreadPoolExecutor(max_workers=3) as pool:
        retention_job = pool.submit(true_retention, store, profile.id,
                                    today_end - timedelta(days=RETENTION_DAYS), today_end,
                                    study_day_shift(now, rollover))
        heat_job = pool.submit(db.reviews_per_bucket, store, profile.id, heat_bounds)
        tallies_job = pool.submit(db.post_tallies, store, profile.id)
        weakest_job = pool.submit(weakest_lines, service, top)
        # the first day of the forecast also holds everything already overdue
        forecast_job = pool.submit(db.due_per_bucket, store, profile.id,
                                   [_EPOCH, *forecast_bounds[1:]])
        leeches_job = pool.submit(db.leeches, store, profile.id, max(top, 50))
        families_job = pool.submit(family_lines, service)
        misconceptions_job = pool.submit(learner_misconceptions, store, profile.id, now,
                                         lambda at: study_day(at, rollover))
        today_job = pool.submit(db.window, store, profile.id, today_start, today_end)
        places = service.mastery_places()
        mastered_job = pool.submit(mastered_per_place, service, places)
        overview = service.overview(with_streak=False)
        tallies = tallies_job.result()
        retention = retention_job.result()
        heat = heat_job.result()
        weakest = weakest_job.result()
        forecast = forecast_job.result()
        leeches = leeches_job.result()
        families = families_job.result()
        misconceptions = misconceptions_job.result()
        today_totals = today_job.result()
        post_mastered, deck_mastered = mastered_job.result()
    totals = db.Totals(reviews=sum(t.reviews for t in tallies.values()),
                       correct=sum(t.correct for t in tallies.values()),
                       cards_seen=sum(t.seen for t in tallies.values()),
                       duration_ms=sum(t.duration_ms for t in tallies.values()))
    coming = overview.coming_back
    posts = []
    for post in overview.posts:
        tally = tallies.get(post.slug) or db.PostTally(post.slug)
        posts.append(PostStats(post.slug, post.title, post.total, post.new, post.learning,
                               post.review, post.due, post_mastered.get(post.slug, 0),
                               tally.reviews,
                               tally.correct, tally.duration_ms, tally.leeches))
    leech_lines = _card_lines(service, leeches)
    return LearnerStats(
        profile=profile.name, generated_at=now, today=today,
        reviews_total=totals.reviews, correct_total=totals.correct,
        cards_seen=totals.cards_seen, due_today=overview.due_today,
        new_left_today=overview.new_left, reviews_today=today_totals.reviews,
        time_today_ms=today_totals.duration_ms, time_total_ms=totals.duration_ms,
        retention_30d=retention.rate, retention_young=retention.young,
        retention_mature=retention.mature, retention_reviews=retention.total,
        desired_retention=settings.desired_retention,
        streak_days=_streak(service, today, heat, rollover),
        posts=tuple(posts),
        reviews_per_day=tuple((today - timedelta(days=HEATMAP_DAYS - 1 - i), n)
                              for i, n in enumerate(heat)),
        due_forecast=tuple((today + timedelta(days=i), n) for i, n in enumerate(forecast)),
        weakest=weakest, leeches=leech_lines,
        comes_back_within_hour=coming.within_hour if coming else 0,
        comes_back_next_s=(round(coming.next_in.total_seconds())
                           if coming and coming.next_in is not None else None),
        decks=tuple(DeckStats(deck_id, title, total, deck_mastered.get(deck_id, 0), kind)
                    for deck_id, title, total, kind in overview.deck_totals),
        families=families, misconceptions=misconceptions, exams=tuple(service.exams()),
        deck_options=shown_options(settings),
    )


def card_drilldown(service: ProgressSource, deck_id: str, card_key: str,
                   last: int = 10) -> CardDetail | None:
    """One card's stored state and latest answers (with their parameters), held ones
    of a killed app included."""
    service.record_abandoned()
    return db.card_detail(service.store, service.profile.id, deck_id, card_key, last)


