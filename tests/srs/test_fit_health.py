"""Anki's health check after fitting: passes a learner FSRS describes, fails one it cannot."""

from __future__ import annotations

import random
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from learner_sim import START, simulate_learner

from studyapp.srs.fit_health import (
    HEALTH_MIN_ITEMS,
    LOG_LOSS_BOUND,
    RMSE_BOUND,
    HealthCheck,
    health_check,
)
from studyapp.srs.optimize import ReviewEvent, fsrs_items


def _check(events: list[ReviewEvent]) -> HealthCheck | None:
    items = fsrs_items(events, zone=UTC)
    return health_check([t.reviews for t in items], [t.card_id for t in items])


def _against_the_curve(cards: int = 300, seed: int = 5) -> list[ReviewEvent]:
    """A learner who forgets a day or two after a review and remembers after weeks: the
    opposite of any forgetting curve, so no FSRS parameters can predict them."""
    rng = random.Random(seed)
    events = []
    for card in range(cards):
        when = START + timedelta(hours=rng.randrange(24 * 10))
        events.append(ReviewEvent(card, when, 3))
        for k in range(16):
            gap = rng.choice([1, 2]) if k % 2 == 0 else rng.choice([8, 13, 20])
            when += timedelta(days=gap)
            passed = rng.random() < (0.05 if gap <= 2 else 0.95)
            events.append(ReviewEvent(card, when, 3 if passed else 1))
    return events


def test_a_learner_fsrs_describes_passes() -> None:
    health = _check(simulate_learner(cards=300, days=120))
    assert health is not None and health.passed
    assert health.adjusted_log_loss <= LOG_LOSS_BOUND and health.adjusted_rmse <= RMSE_BOUND


def test_a_learner_whose_recall_runs_against_the_curve_fails_both_bounds() -> None:
    health = _check(_against_the_curve())
    assert health is not None and not health.passed
    assert health.adjusted_log_loss > LOG_LOSS_BOUND and health.adjusted_rmse > RMSE_BOUND
    assert 0.4 < health.retention < 0.6  # half the answers pass


def test_no_check_at_300_items_or_fewer_as_in_anki() -> None:
    events = simulate_learner(cards=40, days=30)
    items = fsrs_items(events, zone=UTC)
    assert len(items) <= HEALTH_MIN_ITEMS
    assert health_check([t.reviews for t in items], [t.card_id for t in items]) is None


def test_either_figure_within_its_bound_passes() -> None:
    """params.rs: ``adjusted_log_loss <= 1.11 || adjusted_rmse <= 1.53``."""
    def verdict(log_loss: float, rmse: float) -> bool:
        return HealthCheck(0.5, 0.05, 0.9, log_loss, rmse).passed

    assert verdict(LOG_LOSS_BOUND, RMSE_BOUND + 1)
    assert verdict(LOG_LOSS_BOUND + 1, RMSE_BOUND)
    assert not verdict(LOG_LOSS_BOUND + 0.01, RMSE_BOUND + 0.01)


def _anki_check(events: list[ReviewEvent], folder: Path) -> tuple[int, bool | None]:
    """Anki's own health check (``compute_fsrs_params`` with ``health_check``) of the same
    answers written into a collection's review log: (FSRS items, passed)."""
    from anki.collection import Collection

    col = Collection(str(folder / "health.anki2"))
    try:
        seen: set[int] = set()
        rows = []
        for n, event in enumerate(sorted(events, key=lambda e: e.reviewed_at)):
            kind = 1 if event.card_id in seen else 0  # the first answer learns
            seen.add(event.card_id)
            rows.append((int(event.reviewed_at.timestamp() * 1000) + n % 1000,
                         event.card_id + 1, -1, event.rating, 1, 0, 2500, 1000, kind))
        col.db.executemany("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, "
                           "time, type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        found = col._backend.compute_fsrs_params(
            search="", current_params=[], ignore_revlogs_before_ms=0,
            num_of_relearning_steps=1, health_check=True)
    finally:
        col.close()
    return found.fsrs_items, (found.health_check_passed
                              if found.HasField("health_check_passed") else None)


@pytest.mark.slow
@pytest.mark.parametrize("learner", ["described", "against the curve"])
def test_anki_gives_the_same_verdict_on_the_same_answers(learner: str, tmp_path: Path) -> None:
    pytest.importorskip("anki.collection")
    events = simulate_learner(cards=300, days=120) if learner == "described" \
        else _against_the_curve()
    items, anki_passed = _anki_check(events, tmp_path)
    ours = _check(events)
    assert ours is not None and anki_passed is not None
    assert items == len(fsrs_items(events, zone=UTC))  # the same FSRS items
    assert ours.passed == anki_passed == (learner == "described")
