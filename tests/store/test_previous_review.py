"""review_logs.previous_review_at (revision 0007) links each review-stage answer to the
card's previous one, through answers in any order, undo, import, a downgrade and the
upgrade's backfill, on SQLite and PostgreSQL; true retention reads it."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from store_answers import answer
from test_card_stats import downgrade, from_logs, summary

import studyapp.store.retention as retention
from studyapp.store import Store, open_store
from studyapp.store.database import current_revision
from studyapp.store.progress import ensure_profile, record_answer, undo_answer
from studyapp.store.progress_files import import_progress, read_export, write_json

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
BEFORE = "0006_card_stats"


def _moment(value: object) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    assert isinstance(value, datetime)
    return value.astimezone(UTC)


def links(store: Store) -> dict[int, datetime | None]:
    """log id: previous_review_at as stored, for review-stage answers."""
    with store.engine.connect() as conn:
        return {int(i): _moment(p) for i, p in conn.execute(text(
            "SELECT id, previous_review_at FROM review_logs WHERE state_before = 2"))}


def expected_links(store: Store) -> dict[int, datetime | None]:
    """The same worked out in Python: each card's review-stage answers in (time, id) order."""
    with store.engine.connect() as conn:
        rows = sorted((int(c), _moment(at), int(i)) for i, c, at in conn.execute(text(
            "SELECT id, card_id, reviewed_at FROM review_logs WHERE state_before = 2")))
    found: dict[int, datetime | None] = {}
    for n, (card, _, log_id) in enumerate(rows):
        before = rows[n - 1] if n and rows[n - 1][0] == card else None
        found[log_id] = before[1] if before else None
    return found


def answer_out_of_order(store: Store, profile_id: int, rng: random.Random) -> list[int]:
    """Answers of a few cards at shuffled times, two of them at the same instant."""
    times = [T0 + timedelta(hours=rng.randrange(0, 200)) for _ in range(40)]
    times[7] = times[6]
    ids = []
    for n, at in enumerate(times):
        card = f"c{n % 4}" if n != 7 else "c2"
        ids.append(record_answer(store, profile_id, answer("d", card, at,
                                                           stability=rng.choice([2.0, 30.0]))))
    return ids


def test_links_follow_answers_in_any_order_undo_and_import(db_url: str,
                                                          tmp_path: Path) -> None:
    store = open_store(db_url)
    rng = random.Random(4)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        ids = answer_out_of_order(store, ana.id, rng)
        assert len(links(store)) > 30
        assert links(store) == expected_links(store)
        undone = 0
        for log_id in rng.sample(ids, 12):  # undo answers from the middle of each chain
            undone += undo_answer(store, ana.id, log_id)  # (a card's first takes the card)
            assert links(store) == expected_links(store)
        assert undone >= 6
        export = tmp_path / "ana.json"
        with export.open("w", encoding="utf-8") as fh:
            write_json(store, ana, fh, T0 + timedelta(days=30))
        bea = ensure_profile(store, "bea", {}, T0)
        record_answer(store, bea.id, answer("d", "c1", T0 + timedelta(hours=100)))
        record_answer(store, bea.id, answer("d", "c1", T0 + timedelta(hours=101)))
        import_progress(store, bea.id, read_export(export))
        assert links(store) == expected_links(store)
    finally:
        store.close()


def test_downgrade_drops_the_links_and_the_upgrade_backfills(db_url: str) -> None:
    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        answer_out_of_order(store, ana.id, random.Random(5))
        before = links(store)
        downgrade(store, BEFORE)
        assert current_revision(store.engine) == BEFORE
        with store.engine.connect() as conn:
            columns = {c["name"] for c in conn.dialect.get_columns(conn, "review_logs")}
        assert "previous_review_at" not in columns
        # revision 0006's triggers still work without it (written as 0006 code would)
        with (store.write_engine or store.engine).begin() as conn:
            conn.execute(text(
                "INSERT INTO review_logs (profile_id, card_id, reviewed_at, rating, correct, "
                "duration_ms, state_before, uid) SELECT profile_id, card_id, reviewed_at, "
                "rating, correct, 500, 2, 'late' FROM review_logs WHERE id = 1"))
        assert summary(store) == from_logs(store)
    finally:
        store.close()
    store = open_store(db_url, upgrade=True)  # upgrades again (as `db upgrade` does on
    # PostgreSQL), backfilling from the logs
    try:
        assert links(store) == expected_links(store)
        assert set(before) < set(links(store))
        record_answer(store, ana.id, answer("d", "c1", T0 + timedelta(hours=1)))
        assert links(store) == expected_links(store)
        assert summary(store) == from_logs(store)
    finally:
        store.close()


@pytest.mark.parametrize("shift_hours", [-4, 5])
def test_first_review_of_each_day_read_from_the_links(db_url: str,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      shift_hours: int) -> None:
    """Day by day equals ranking each card's answers of a day, with learning answers
    between review ones (only review-stage answers count) and answers at one instant."""
    store = open_store(db_url)
    rng = random.Random(shift_hours)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        moments = sorted(T0 + timedelta(minutes=rng.randrange(0, 12 * 24 * 60))
                         for _ in range(300))
        for n, at in enumerate(moments):
            right = rng.random() < 0.75
            record_answer(store, ana.id, answer(
                "d", f"c{rng.randrange(10)}", moments[n - 1] if n % 50 == 1 else at,
                correct=right, rating=3 if right else 1, stage=2 if right else 3,
                stability=rng.choice([2.0, 30.0])))
        shift = timedelta(hours=shift_hours)
        start, end = T0 + timedelta(days=1, hours=7), T0 + timedelta(days=11, hours=1)
        by_day = retention.true_retention(store, ana.id, start, end, shift)
        monkeypatch.setattr(retention, "MAX_DAYS_BY_DAY", 0)  # the window function instead
        windowed = retention.true_retention(store, ana.id, start, end, shift)
    finally:
        store.close()
    assert by_day == windowed
    assert by_day.total > 40 and by_day.young and by_day.mature


def test_study_days_read_from_review_hours_follow_answers_and_undo(db_url: str) -> None:
    """Streak days on the hour come from review_hours: an hour emptied by undo is no study."""
    from studyapp.store.stats import studied_in_buckets

    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        logs = [record_answer(store, ana.id, answer("d", f"c{n}", T0 + timedelta(days=n)))
                for n in range(4)]
        days = [T0 - timedelta(hours=9) + timedelta(days=n) for n in range(6)]  # midnights
        assert studied_in_buckets(store, ana.id, days) == [True, True, True, True, False]
        assert undo_answer(store, ana.id, logs[2])
        assert studied_in_buckets(store, ana.id, days) == [True, True, False, True, False]
        off_hour = [d + timedelta(minutes=30) for d in days]  # counted from the logs
        assert studied_in_buckets(store, ana.id, off_hour) == [True, True, False, True, False]
    finally:
        store.close()
