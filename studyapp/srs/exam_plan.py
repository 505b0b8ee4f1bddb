"""An exam plan: how many new cards a day, the review load it brings, recall on the day.

The plan simulates the schedule day by day with the profile's own FSRS
scheduler. New cards are spread evenly so that every one has been seen
``BUFFER_DAYS`` before the exam (or over the days left, with a warning, when
the exam is closer than that). Each review is recalled with the probability
FSRS gives it that day: recalled, it is answered Good; forgotten, it is
answered Again, goes through the relearning steps (answered Good) and comes
back after the shorter interval a lapse leaves. Both branches are followed,
weighted by their probability, so the daily load is the expected number of
answers, lapses and their short intervals included (branches below
``PRUNE`` of a card are folded into the likelier one). Review load counts
every answer except the first sight of a new card, learning steps included.
Predicted recall is the mean probability of recall over all those cards at
the exam's hour (study days since each card's last review, as the scheduler
counts them); recall a month after is the same mean ``KEEP_DAYS`` later with no
review after the exam, and the plan warns of cramming (``cramming``) when the
first is high and the second low (``CRAM_EXAM_RECALL``, ``CRAM_KEPT_RECALL``).
The daily review limit is not applied: the plan says what the material asks for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from studyapp.srs.calendar import day_start, local_zone, study_day
from studyapp.srs.scheduler import CardStage, Memory, Rating, Scheduler

BUFFER_DAYS = 7
"""Everything should have been seen this many days before the exam."""

STUDY_HOUR = 8
"""Hours after the day's rollover at which the walk places a day's reviews (04:00 → noon)."""

EXAM_HOUR = 9
"""The exam's hour (local) when only its date is given."""

PRUNE = 1e-3
"""A lapse branch less likely than this (for one card) is folded into the recall branch."""

KEEP_DAYS = 30
"""Recall is also read this many days after the exam, with no review in between: what
the learner keeps, beside what the exam sees."""

CRAM_EXAM_RECALL = 0.85
CRAM_KEPT_RECALL = 0.75
"""The plan warns of cramming when recall at the exam is at least 85% while a month
later it is below 75%: reviews packed before the exam lift recall on the day without
the stability that keeps it (cards first seen days before have a stability of days)."""


class PlanError(ValueError):
    """An exam date the plan cannot work with."""


@dataclass(frozen=True)
class ExamPlan:
    """The numbers ``plan`` prints (``as_json`` keys are fixed)."""

    exam: date
    today: date
    days_left: int
    new_left: int
    new_per_day: int
    learn_days: int
    reviews_per_day: float  # mean expected answers per day until the exam
    peak_reviews: float
    predicted_recall: float | None  # None when there is nothing to study
    daily_reviews: tuple[float, ...]
    too_close: bool = False
    """The exam is nearer than ``BUFFER_DAYS``: new cards spread over every day left."""
    exam_at: datetime | None = None
    recall_month_after: float | None = None
    """Mean recall ``KEEP_DAYS`` after the exam, the cards' stability as the plan leaves
    it and no review after the exam (None when there is nothing to study)."""
    new_unreached: int = 0
    """New cards of decks with a daily new limit of their own that the limit leaves unseen
    by the exam (counted with recall 0: never learnt)."""

    @property
    def cramming(self) -> bool:
        """High recall at the exam that a month without reviews takes below the floor."""
        return (self.predicted_recall is not None and self.recall_month_after is not None
                and self.predicted_recall >= CRAM_EXAM_RECALL
                and self.recall_month_after < CRAM_KEPT_RECALL)

    def as_json(self) -> dict[str, object]:
        return {"exam": self.exam.isoformat(), "days_left": self.days_left,
                "new_left": self.new_left, "new_per_day": self.new_per_day,
                "reviews_per_day": round(self.reviews_per_day, 1),
                "predicted_recall": (None if self.predicted_recall is None
                                     else recall_floor(self.predicted_recall, 3)),
                "peak_reviews": round(self.peak_reviews, 1), "too_close": self.too_close,
                "recall_month_after": (None if self.recall_month_after is None
                                       else recall_floor(self.recall_month_after, 3)),
                "recall_after_days": KEEP_DAYS, "cramming": self.cramming,
                "new_unreached": self.new_unreached,
                "cramming_rule": {"recall_at_exam_at_least": CRAM_EXAM_RECALL,
                                  "recall_month_after_below": CRAM_KEPT_RECALL}}


def recall_floor(value: float, digits: int) -> float:
    """``value`` rounded down to ``digits``: a recall below 1 never reads as 100%."""
    scale = float(10 ** digits)
    return float(math.floor(value * scale + 1e-9)) / scale


def recall_text(value: float | None, lang: str = "en") -> str:
    """Recall as a percentage with one decimal, rounded down ("—" for none): ``92.8%``,
    in Spanish ``92,8 %`` (decimal comma, the sign after a no-break space)."""
    if value is None:
        return "—"
    text = f"{recall_floor(value * 100, 1):.1f}"
    return text.replace(".", ",") + "\u00a0%" if lang == "es" else text + "%"


def new_cards_per_day(new_left: int, days_left: int, buffer_days: int = BUFFER_DAYS) -> int:
    """New cards a day so that all ``new_left`` are seen ``buffer_days`` before the exam,
    or over every day left when the exam is closer than that."""
    if new_left <= 0:
        return 0
    return math.ceil(new_left / learn_days(days_left, buffer_days))


def learn_days(days_left: int, buffer_days: int = BUFFER_DAYS) -> int:
    """Days available for new cards: up to a week before the exam, or all days left when
    the exam is nearer (at least today)."""
    if days_left <= buffer_days:
        return max(1, days_left)
    return days_left - buffer_days


def daily_new(per_day: int, days: int, new_left: int,
              deck_limits: Sequence[tuple[int, int]] = ()) -> list[int]:
    """New cards introduced on each of ``days`` days: ``per_day`` in all, as the session
    takes them, and each deck with a limit of its own (``deck_limits``: its new cards and
    that limit) at most its limit a day; the other decks' cards fill the rest."""
    capped = [[count, limit] for count, limit in deck_limits]
    free = max(0, new_left - sum(count for count, _ in deck_limits))
    plan = []
    for _ in range(days):
        budget = per_day
        for deck in capped:
            take = min(deck[0], deck[1], budget)
            deck[0] -= take
            budget -= take
        take = min(free, budget)
        free -= take
        plan.append(per_day - budget + take)
    return plan


def plan_exam(exam: date | datetime, now: datetime, scheduler: Scheduler,
              cards: Sequence[Memory], new_left: int, *, zone: tzinfo | None = None,
              buffer_days: int = BUFFER_DAYS,
              deck_limits: Sequence[tuple[int, int]] = ()) -> ExamPlan:
    """The plan for ``exam`` (a date, at ``EXAM_HOUR``, or a local time) from the cards
    already seen and the count still new (``deck_limits``: the new cards and daily new
    limit of each deck with a limit of its own, which the session keeps to)."""
    zone = zone or scheduler.zone or local_zone()
    rollover = scheduler.settings.day_rollover_hour
    if isinstance(exam, datetime):
        exam_at = exam if exam.tzinfo is not None else exam.replace(tzinfo=zone)
    else:
        exam_at = datetime.combine(exam, time(hour=EXAM_HOUR), tzinfo=zone)
    exam_day = study_day(exam_at, rollover, zone)
    today = study_day(now, rollover, zone)
    days_left = (exam_day - today).days
    if days_left <= 0:
        raise PlanError(f"the exam date {exam_day.isoformat()} must be after today "
                        f"({today.isoformat()})")
    per_day = new_cards_per_day(new_left, days_left, buffer_days)

    def moment(day_index: int) -> datetime:
        return day_start(today + timedelta(days=day_index), rollover, zone) + \
            timedelta(hours=STUDY_HOUR)

    def day_of(when: datetime) -> int:
        return (study_day(when, rollover, zone) - today).days

    loads = [0.0] * days_left
    recall_sum = 0.0
    kept_sum = 0.0
    kept_at = exam_at + timedelta(days=KEEP_DAYS)
    counted = 0

    def steps(memory: Memory, day: int, weight: float) -> Memory:
        """Same-day (re)learning steps, each answered Good, counted as reviews."""
        while memory.stage is not CardStage.REVIEW and memory.due is not None \
                and day_of(memory.due) <= day:
            loads[day] += weight
            memory = scheduler.review(memory, Rating.GOOD, memory.due)
        return memory

    def walk(start: Memory, first_day: int) -> None:
        """Every branch of the card's reviews until the exam, weighted by its probability."""
        nonlocal recall_sum, kept_sum
        pending = [(start, first_day, 1.0)]
        while pending:
            memory, day, weight = pending.pop()
            if day >= days_left:
                recall_sum += weight * scheduler.recall_probability(
                    memory.stability, memory.last_review, exam_at)
                kept_sum += weight * scheduler.recall_probability(
                    memory.stability, memory.last_review, kept_at)
                continue
            when = moment(day)
            if memory.stage is CardStage.REVIEW and memory.last_review is not None:
                loads[day] += weight
                recalled = scheduler.recall_probability(memory.stability, memory.last_review,
                                                        when)
                lapse = weight * (1.0 - recalled)
                if lapse >= PRUNE:
                    failed = steps(scheduler.review(memory, Rating.AGAIN, when), day, lapse)
                    pending.append((failed, _next_day(failed, day, day_of), lapse))
                    weight -= lapse
            elif memory.stage is not CardStage.NEW:
                loads[day] += weight  # a learning or relearning step left from before
            passed = steps(scheduler.review(memory, Rating.GOOD, when), day, weight)
            pending.append((passed, _next_day(passed, day, day_of), weight))

    for memory in cards:
        first = 0 if memory.due is None else max(0, day_of(memory.due))
        walk(memory, first)
        counted += 1
    introduced = 0
    for day, count in enumerate(daily_new(per_day, days_left, new_left, deck_limits)):
        for _ in range(count):
            walk(Memory(card_id=introduced + 1), day)
            introduced += 1
            counted += 1
    unreached = new_left - introduced
    counted += unreached  # never seen by the exam: recall 0 then and a month later
    mean_load = sum(loads) / days_left
    return ExamPlan(exam=exam_day, today=today, days_left=days_left, new_left=new_left,
                    new_per_day=per_day, learn_days=learn_days(days_left, buffer_days),
                    reviews_per_day=mean_load, peak_reviews=max(loads, default=0.0),
                    predicted_recall=recall_sum / counted if counted else None,
                    daily_reviews=tuple(loads), too_close=new_left > 0 and days_left <= buffer_days,
                    exam_at=exam_at, recall_month_after=kept_sum / counted if counted else None,
                    new_unreached=unreached)


def _next_day(memory: Memory, day: int, day_of: Callable[[datetime], int]) -> int:
    """The day the card is next asked: its due day, and never the same day again."""
    assert memory.due is not None
    return max(day + 1, day_of(memory.due))
