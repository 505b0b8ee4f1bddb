"""The exam plan against a small case computed by hand."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta

import pytest

from studyapp.srs.exam_plan import (
    PlanError,
    learn_days,
    new_cards_per_day,
    plan_exam,
    recall_text,
)
from studyapp.srs.scheduler import (
    DEFAULT_PARAMETERS,
    CardStage,
    Memory,
    Rating,
    Scheduler,
    SchedulerSettings,
)

# FSRS-6 formulas, from https://github.com/open-spaced-repetition/fsrs4anki/wiki/The-Algorithm
#   R(t, S) = (1 + F·t/S)^(-w20),  F = 0.9^(-1/w20) - 1   (so R(S, S) = 0.9)
#   S' (Good) = S · (1 + e^w8 · (11 - D) · S^(-w9) · (e^(w10·(1-R)) - 1))
W = list(DEFAULT_PARAMETERS)
W[2] = 100.0  # a first Good gives 100 days of stability: no review of a new card before the exam
NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)  # noon, study day 2025-03-03 (rollover 04:00 UTC)
EXAM = date(2025, 3, 13)


def recall(t_days: float, stability: float) -> float:
    factor = 0.9 ** (-1 / W[20]) - 1
    return float((1 + factor * t_days / stability) ** -W[20])


@pytest.mark.parametrize(("new_left", "days_left", "expected"), [
    (3, 10, 1),     # 3 learning days (10 - 7): one a day
    (100, 27, 5),   # 20 learning days
    (101, 27, 6),   # one more card needs one more a day
    (10, 5, 2),     # the exam is within the buffer: spread over the 5 days left
    (0, 30, 0),
])
def test_new_cards_per_day(new_left: int, days_left: int, expected: int) -> None:
    assert new_cards_per_day(new_left, days_left) == expected


def test_plan_against_a_hand_computed_case() -> None:
    settings = SchedulerSettings(parameters=tuple(W), learning_steps_s=(),
                                 relearning_steps_s=(600,))
    scheduler = Scheduler(settings, zone=UTC)
    # A: S = 50 d, last seen 10 days ago, due in 40 days: untouched until the exam.
    far = Memory(card_id=1, stage=CardStage.REVIEW, step=None, stability=50.0, difficulty=5.0,
                 due=NOW + timedelta(days=40), last_review=NOW - timedelta(days=10), reps=3)
    # B: S = 4 d, seen yesterday, due on day 3 (2025-03-06), when R = R(4, 4) = 0.9.
    near = Memory(card_id=2, stage=CardStage.REVIEW, step=None, stability=4.0, difficulty=5.0,
                  due=NOW + timedelta(days=3), last_review=NOW - timedelta(days=1), reps=2)
    plan = plan_exam(EXAM, NOW, scheduler, [far, near], new_left=3, zone=UTC)

    assert plan.days_left == 10 and plan.learn_days == 3 and plan.new_per_day == 1
    assert not plan.too_close
    # B's review on day 3: 1 answer, and with probability 0.1 a lapse: Again, then
    # the 10-minute relearning step answered Good the same day.
    assert plan.daily_reviews[:3] == (0.0, 0.0, 0.0)
    assert plan.daily_reviews[3] == pytest.approx(1.1)
    # the lapse's short interval brings B back before the exam, in that 0.1 of cases
    after = scheduler.review(near, Rating.AGAIN, NOW + timedelta(days=3))
    after = scheduler.review(after, Rating.GOOD, after.due)  # type: ignore[arg-type]
    assert after.stability is not None and after.stability < 4
    assert after.due is not None and (after.due - NOW).days < 10
    back = (after.due - NOW).days
    assert plan.daily_reviews[back] >= 0.1 - 1e-9
    assert sum(plan.daily_reviews[4:]) <= 0.1 * 6 + 1e-9  # at most one a day in that branch
    # B after a Good at R = 0.9 (D = 5): S' = 4 · (1 + e^w8 · 6 · 4^-w9 · (e^(0.1·w10) - 1))
    s_b = 4.0 * (1 + math.exp(W[8]) * 6 * 4.0 ** -W[9] * (math.exp(W[10] * 0.1) - 1))
    assert s_b > 7  # its next review falls after the exam
    # the exam at 09:00 (UTC here): study days since each last review
    sure = [recall(20, 50.0),  # A: 20 days since its last review at the exam
            recall(10, 100.0), recall(9, 100.0), recall(8, 100.0)]  # new cards of days 0-2
    b_recalled = recall(7, s_b)  # B: reviewed on day 3, exam on day 10
    lowest = (sum(sure) + 0.9 * b_recalled) / 5  # the lapse branch adds something
    highest = (sum(sure) + 0.9 * b_recalled + 0.1) / 5
    assert plan.predicted_recall is not None
    assert lowest < plan.predicted_recall < highest
    assert plan.as_json()["predicted_recall"] == math.floor(plan.predicted_recall * 1000) / 1000


def test_learning_steps_count_as_reviews_on_the_day_a_card_is_introduced() -> None:
    # default steps 1 min and 10 min: a Good moves from step 0 to step 1, another graduates
    scheduler = Scheduler(SchedulerSettings())
    plan = plan_exam(date(2025, 3, 4), NOW, scheduler, [], new_left=2, zone=UTC)
    assert plan.new_per_day == 2 and learn_days(1) == 1
    assert plan.daily_reviews == (2.0,)


def test_an_exam_today_or_past_is_refused() -> None:
    with pytest.raises(PlanError):
        plan_exam(date(2025, 3, 3), NOW, Scheduler(), [], new_left=1, zone=UTC)


@pytest.mark.parametrize(("value", "lang", "text"), [
    (0.99996, "en", "99.9%"),  # rounded down: never 100.0% short of certain recall
    (0.99996, "es", "99,9\u00a0%"),
    (0.9284, "en", "92.8%"),
    (0.9284, "es", "92,8\u00a0%"),
    (None, "es", "—"),
])
def test_recall_reads_in_the_learners_language_and_never_rounds_up(
        value: float | None, lang: str, text: str) -> None:
    assert recall_text(value, lang) == text
