"""The optimizer on a simulated learner whose memory differs from the FSRS defaults."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import fsrs_rs_python as fsrs_rs
import pytest

from studyapp.srs.optimize import MIN_ITEMS, ReviewEvent, fsrs_items, optimize
from studyapp.srs.scheduler import (
    DEFAULT_PARAMETERS,
    Memory,
    Rating,
    Scheduler,
    SchedulerSettings,
    clamp_parameters,
)

# A learner who forgets much faster than the defaults assume: small initial
# stabilities (w0-w3), slow stability growth (w8) and a steeper curve (w20).
TRUE_PARAMETERS = list(DEFAULT_PARAMETERS)
TRUE_PARAMETERS[0:4] = [0.1, 0.3, 0.6, 2.0]
TRUE_PARAMETERS[8] = 1.0
TRUE_PARAMETERS[20] = 0.5

START = datetime(2025, 1, 6, 12, 0, tzinfo=UTC)


def _recall(parameters: list[float], stability: float, days: float) -> float:
    decay = -parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    return float((1 + factor * days / stability) ** decay)


def simulate_learner(cards: int, days: int, seed: int = 7) -> list[ReviewEvent]:
    """Reviews scheduled by the app (default parameters), answered by TRUE_PARAMETERS memory.

    One review per card and day (no same-day steps), at noon UTC.
    """
    rng = random.Random(seed)
    app = Scheduler(SchedulerSettings(learning_steps_s=(), relearning_steps_s=()))
    truth = fsrs_rs.FSRS(TRUE_PARAMETERS)
    events: list[ReviewEvent] = []
    for card in range(1, cards + 1):
        day = rng.randrange(days // 2)
        memory = Memory(card_id=card)
        true_state: fsrs_rs.MemoryState | None = None
        last_day = day
        while day < days:
            elapsed = day - last_day
            if true_state is None:
                recalled = rng.random() < 0.75  # first sight: most are known or guessed
            else:
                recalled = rng.random() < _recall(TRUE_PARAMETERS, true_state.stability,
                                                  elapsed)
            rating = (rng.choice([Rating.HARD, Rating.GOOD, Rating.GOOD, Rating.GOOD,
                                  Rating.EASY]) if recalled else Rating.AGAIN)
            now = START + timedelta(days=day)
            events.append(ReviewEvent(card, now, int(rating)))
            states = truth.next_states(true_state, 0.9, elapsed)
            true_state = {Rating.AGAIN: states.again, Rating.HARD: states.hard,
                          Rating.GOOD: states.good, Rating.EASY: states.easy}[rating].memory
            memory = app.review(memory, rating, now)
            assert memory.due is not None
            last_day = day
            day += max(1, round((memory.due - now).total_seconds() / 86400))
    return events


def test_items_count_days_between_reviews_at_the_study_day_rollover() -> None:
    # 03:00 UTC and 05:00 UTC the next calendar day: with a 04:00 rollover in
    # UTC the first belongs to the previous study day, so they are 2 days apart.
    events = [ReviewEvent(1, datetime(2025, 1, 1, 5, tzinfo=UTC), 3),
              ReviewEvent(1, datetime(2025, 1, 2, 3, tzinfo=UTC), 3),  # same study day
              ReviewEvent(1, datetime(2025, 1, 3, 5, tzinfo=UTC), 1)]
    items = fsrs_items(events, rollover_hour=4, zone=UTC)
    assert len(items) == 1  # the same-day review is history, never a target
    assert list(items[0].reviews) == [(3, 0), (3, 0), (1, 2)]


def test_too_little_history_says_how_many_reviews_are_missing() -> None:
    events = simulate_learner(cards=10, days=20)
    result = optimize(events)
    assert not result.enough and not result.better and result.parameters is None
    assert result.items < MIN_ITEMS
    assert result.missing == MIN_ITEMS - result.items


def test_fitted_parameters_beat_the_defaults_on_held_out_reviews() -> None:
    events = simulate_learner(cards=300, days=120)
    stages: list[str] = []
    result = optimize(events, zone=UTC, progress=lambda stage, _: stages.append(stage))
    assert result.enough and result.items >= MIN_ITEMS
    assert result.log_loss_fitted is not None and result.log_loss_default is not None
    assert result.rmse_fitted is not None and result.rmse_default is not None
    assert result.log_loss_fitted < result.log_loss_default
    assert result.rmse_fitted < result.rmse_default
    assert result.better and result.parameters is not None
    # the fitted learner forgets faster: smaller stability after a first Good
    assert result.parameters[2] < DEFAULT_PARAMETERS[2]
    assert stages[0] == "items" and stages[-1] == "done" and "refit" in stages
    # and the scheduler accepts them
    Scheduler(SchedulerSettings(parameters=result.parameters))


def test_clamped_parameters_stay_inside_the_bounds_fsrs_accepts() -> None:
    wild = [1000.0] * 21
    Scheduler(SchedulerSettings(parameters=clamp_parameters(wild)))
    with pytest.raises(ValueError):
        clamp_parameters([1.0] * 19)
