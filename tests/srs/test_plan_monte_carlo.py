"""The exam plan's expected load against a Monte Carlo of the same schedule.

The Monte Carlo answers every due card with FSRS's own odds (recalled → Good,
forgotten → Again, then the relearning steps answered Good) through the same
scheduler, many times over; the plan's expected reviews a day must come
within 10% of its mean, on a fresh profile and on one with an overdue history
(where a plan that counted a lapse as one extra answer was about half).
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta

import pytest

from studyapp.srs.calendar import day_start, study_day
from studyapp.srs.exam_plan import STUDY_HOUR, new_cards_per_day, plan_exam
from studyapp.srs.scheduler import CardStage, Memory, Rating, Scheduler, SchedulerSettings

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
EXAM = date(2025, 4, 2)  # 30 days


def _monte_carlo(scheduler: Scheduler, cards: list[Memory], new_left: int, runs: int,
                 seed: int) -> list[float]:
    rollover = scheduler.settings.day_rollover_hour
    today = study_day(NOW, rollover, UTC)
    days = (EXAM - today).days
    per_day = new_cards_per_day(new_left, days)
    rng = random.Random(seed)
    loads = [0.0] * days

    def moment(day: int) -> datetime:
        return day_start(today + timedelta(days=day), rollover, UTC) + timedelta(
            hours=STUDY_HOUR)

    def day_of(when: datetime) -> int:
        return (study_day(when, rollover, UTC) - today).days

    def run(memory: Memory, day: int) -> None:
        while day < days:
            when = moment(day)
            if memory.stage is CardStage.REVIEW:
                loads[day] += 1
                recalled = scheduler.recall_probability(memory.stability, memory.last_review,
                                                        when)
                rating = Rating.GOOD if rng.random() < recalled else Rating.AGAIN
            else:
                if memory.stage is not CardStage.NEW:
                    loads[day] += 1
                rating = Rating.GOOD
            memory = scheduler.review(memory, rating, when)
            while memory.stage is not CardStage.REVIEW and memory.due is not None \
                    and day_of(memory.due) <= day:
                loads[day] += 1
                memory = scheduler.review(memory, Rating.GOOD, memory.due)
            assert memory.due is not None
            day = max(day + 1, day_of(memory.due))

    for _ in range(runs):
        for memory in cards:
            run(memory, 0 if memory.due is None else max(0, day_of(memory.due)))
        introduced = 0
        for day in range(days):
            for _ in range(min(per_day, new_left - introduced)):
                run(Memory(card_id=introduced + 1), day)
                introduced += 1
    return [load / runs for load in loads]


def _overdue_history(count: int) -> list[Memory]:
    rng = random.Random(7)
    cards = []
    for n in range(count):
        stability = rng.uniform(0.5, 20)
        seen = rng.randint(2, 60)  # days ago: many long overdue
        last = NOW - timedelta(days=seen)
        cards.append(Memory(card_id=1000 + n, stage=CardStage.REVIEW, step=None,
                            stability=stability, difficulty=rng.uniform(3, 9),
                            due=last + timedelta(days=max(1, round(stability))),
                            last_review=last, reps=4, lapses=rng.randint(0, 3)))
    return cards


@pytest.mark.slow
@pytest.mark.parametrize(("history", "new_left"), [(0, 120), (150, 40)],
                         ids=["fresh", "overdue"])
def test_expected_reviews_a_day_match_a_monte_carlo(history: int, new_left: int) -> None:
    scheduler = Scheduler(SchedulerSettings(), zone=UTC)
    cards = _overdue_history(history)
    plan = plan_exam(EXAM, NOW, scheduler, cards, new_left, zone=UTC)
    simulated = _monte_carlo(scheduler, cards, new_left, runs=60, seed=11)
    mean = sum(simulated) / len(simulated)
    assert plan.reviews_per_day == pytest.approx(mean, rel=0.10)
    weekly = [sum(simulated[i:i + 7]) for i in range(0, len(simulated), 7)]
    planned = [sum(plan.daily_reviews[i:i + 7]) for i in range(0, len(simulated), 7)]
    for ours, theirs in zip(planned, weekly, strict=True):  # the shape too, week by week
        assert ours == pytest.approx(theirs, rel=0.15, abs=3)
    assert plan.peak_reviews == pytest.approx(max(simulated), rel=0.2)
