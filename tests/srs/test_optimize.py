"""The optimizer on a simulated learner whose memory differs from the FSRS defaults."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from learner_sim import simulate_learner

from studyapp.srs.optimize import MIN_ITEMS, ReviewEvent, fsrs_items, optimize
from studyapp.srs.scheduler import (
    DEFAULT_PARAMETERS,
    Scheduler,
    SchedulerSettings,
    clamp_parameters,
)


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
