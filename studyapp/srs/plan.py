"""An exam plan: how many new cards a day, the review load it brings, recall on the day.

The plan is a day-by-day walk with the profile's own FSRS scheduler. New cards
are spread evenly so that every one has been seen ``BUFFER_DAYS`` before the
exam. Every review is assumed answered Good (at the desired retention that is
the usual answer), which fixes each card's path; a review recalled with
probability ``p`` adds ``1 - p`` expected answers for the lapse (one per
relearning step, at least one). Review load counts every answer except the
first sight of a new card, learning steps included. Predicted recall is the
mean probability of recall over all those cards at noon of the exam day. The
daily review limit is not applied: the plan says what the material asks for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from studyapp.srs.calendar import day_start, study_day
from studyapp.srs.scheduler import CardStage, Memory, Rating, Scheduler

BUFFER_DAYS = 7
"""Everything should have been seen this many days before the exam."""

STUDY_HOUR = 8
"""Hours after the day's rollover at which the walk places a day's reviews (04:00 → noon)."""


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

    def as_json(self) -> dict[str, object]:
        return {"exam": self.exam.isoformat(), "days_left": self.days_left,
                "new_left": self.new_left, "new_per_day": self.new_per_day,
                "reviews_per_day": round(self.reviews_per_day, 1),
                "predicted_recall": (None if self.predicted_recall is None
                                     else round(self.predicted_recall, 3))}


def new_cards_per_day(new_left: int, days_left: int, buffer_days: int = BUFFER_DAYS) -> int:
    """New cards a day so that all ``new_left`` are seen ``buffer_days`` before the exam."""
    if new_left <= 0:
        return 0
    return math.ceil(new_left / learn_days(days_left, buffer_days))


def learn_days(days_left: int, buffer_days: int = BUFFER_DAYS) -> int:
    """Days available for new cards (at least today)."""
    return max(1, days_left - buffer_days)


def plan_exam(exam: date, now: datetime, scheduler: Scheduler, cards: Sequence[Memory],
              new_left: int, *, zone: tzinfo | None = None,
              buffer_days: int = BUFFER_DAYS) -> ExamPlan:
    """The plan for ``exam`` from the cards already seen and the count still new."""
    rollover = scheduler.settings.day_rollover_hour
    today = study_day(now, rollover, zone)
    days_left = (exam - today).days
    if days_left <= 0:
        raise PlanError(f"the exam date {exam.isoformat()} must be after today "
                        f"({today.isoformat()})")
    per_day = new_cards_per_day(new_left, days_left, buffer_days)

    def moment(day_index: int) -> datetime:
        return day_start(today + timedelta(days=day_index), rollover, zone) + \
            timedelta(hours=STUDY_HOUR)

    def day_of(when: datetime) -> int:
        return (study_day(when, rollover, zone) - today).days

    loads = [0.0] * days_left
    relearn_answers = max(1, len(scheduler.settings.relearning_steps_s))
    exam_moment = moment(days_left)
    recalls: list[float] = []

    def walk(memory: Memory, first_day: int) -> None:
        """Answer Good whenever due until the exam; add up the load, then the exam recall."""
        day = first_day
        while day < days_left:
            when = moment(day)
            if memory.stage is CardStage.REVIEW and memory.last_review is not None:
                recalled = scheduler.recall_probability(memory.stability, memory.last_review,
                                                        when)
                loads[day] += 1.0 + (1.0 - recalled) * relearn_answers
            elif memory.stage is not CardStage.NEW:
                loads[day] += 1.0  # a learning or relearning step
            memory = scheduler.review(memory, Rating.GOOD, when)
            while memory.stage is not CardStage.REVIEW and memory.due is not None \
                    and day_of(memory.due) <= day:  # same-day learning steps
                loads[day] += 1.0
                memory = scheduler.review(memory, Rating.GOOD, memory.due)
            assert memory.due is not None
            day = max(day + 1, day_of(memory.due))
        recalls.append(scheduler.recall_probability(memory.stability, memory.last_review,
                                                    exam_moment))

    for memory in cards:
        first = 0 if memory.due is None else max(0, day_of(memory.due))
        walk(memory, first)
    introduced = 0
    for day in range(days_left):
        for _ in range(min(per_day, new_left - introduced)):
            walk(Memory(card_id=introduced + 1), day)
            introduced += 1
    mean_load = sum(loads) / days_left
    return ExamPlan(exam=exam, today=today, days_left=days_left, new_left=new_left,
                    new_per_day=per_day, learn_days=learn_days(days_left, buffer_days),
                    reviews_per_day=mean_load, peak_reviews=max(loads, default=0.0),
                    predicted_recall=sum(recalls) / len(recalls) if recalls else None,
                    daily_reviews=tuple(loads))
