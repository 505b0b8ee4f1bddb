"""True retention counted day by day on SQLite equals the window-function count."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from store_answers import answer

import studyapp.store.retention as retention
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize("shift_hours", [-4, 0, 5])
def test_day_by_day_equals_the_window_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               shift_hours: int) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'retention.sqlite3'}")
    rng = random.Random(shift_hours)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        moments = sorted(T0 + timedelta(minutes=rng.randrange(0, 20 * 24 * 60))
                         for _ in range(400))
        for at in moments:  # several answers per card and day, young and mature
            right = rng.random() < 0.8
            record_answer(store, ana.id, answer(
                "d", f"c{rng.randrange(12)}", at, correct=right, rating=3 if right else 1,
                stability=rng.choice([2.0, 30.0])))
        shift = timedelta(hours=shift_hours)
        start, end = T0 + timedelta(days=2, hours=7), T0 + timedelta(days=16, hours=1)
        by_day = retention.true_retention(store, ana.id, start, end, shift)
        monkeypatch.setattr(retention, "MAX_DAYS_BY_DAY", 0)  # the window function instead
        windowed = retention.true_retention(store, ana.id, start, end, shift)
    finally:
        store.close()
    assert by_day == windowed
    assert by_day.total > 50 and by_day.young and by_day.mature
