"""card_stats and review_logs.stability_before (revision 0006) stay equal to what the
logs say, through answers, undo, import, a downgrade and the upgrade's backfill,
on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text
from store_answers import answer

from studyapp.store import Store, open_store
from studyapp.store.database import current_revision
from studyapp.store.progress import ensure_profile, record_answer, undo_answer
from studyapp.store.progress_files import import_progress, read_export, write_json

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
BEFORE = "0005_review_uid_per_profile"


def downgrade(store: Store, target: str) -> None:
    from alembic import command
    from alembic.config import Config

    import studyapp.store.database as database

    config = Config()
    config.set_main_option("script_location",
                           str(Path(database.__file__).parent / "migrations"))
    with (store.write_engine or store.engine).begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, target)


def summary(store: Store) -> dict[int, tuple[int, ...]]:
    """card_id: (reviews, correct, time, answers as a new card, right ones among them)."""
    with store.engine.connect() as conn:
        return {int(row[0]): tuple(int(v) for v in row[1:]) for row in conn.execute(text(
            "SELECT card_id, reviews, correct, duration_ms, first_answers, first_correct "
            "FROM card_stats WHERE reviews > 0"))}


def from_logs(store: Store) -> dict[int, tuple[int, ...]]:
    with store.engine.connect() as conn:
        return {int(row[0]): tuple(int(v) for v in row[1:]) for row in conn.execute(text(
            "SELECT card_id, COUNT(*), SUM(CASE WHEN correct THEN 1 ELSE 0 END), "
            "COALESCE(SUM(duration_ms), 0), SUM(CASE WHEN state_before = 0 THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN state_before = 0 AND correct THEN 1 ELSE 0 END) "
            "FROM review_logs GROUP BY card_id"))}


def stabilities_before(store: Store) -> list[float | None]:
    with store.engine.connect() as conn:
        return [row[0] for row in conn.execute(text(
            "SELECT stability_before FROM review_logs ORDER BY reviewed_at"))]


def answer_some(store: Store, profile_id: int) -> list[int]:
    ids = []
    for n, (card, right, ms) in enumerate([("c1", True, 3000), ("c1", False, 5000),
                                           ("c2", True, 7000), ("c1", True, 1000)]):
        ids.append(record_answer(store, profile_id, answer(
            "d", card, T0 + timedelta(hours=n), correct=right, rating=3 if right else 1,
            duration_ms=ms, stability=2.0 + n)))
    return ids


def test_answers_and_undo_keep_the_sums(db_url: str) -> None:
    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        logs = answer_some(store, ana.id)
        assert sorted(summary(store).values()) == [(1, 1, 7000, 1, 1), (3, 2, 9000, 1, 1)]
        assert summary(store) == from_logs(store)
        # each review keeps the stability its card had before it (None for a new card)
        assert stabilities_before(store) == [None, 2.0, None, 3.0]
        assert undo_answer(store, ana.id, logs[1])
        assert sorted(summary(store).values()) == [(1, 1, 7000, 1, 1), (2, 2, 4000, 1, 1)]
        assert summary(store) == from_logs(store)
        assert undo_answer(store, ana.id, logs[2])  # c2's only answer: the card goes
        assert list(summary(store).values()) == [(2, 2, 4000, 1, 1)]
        assert summary(store) == from_logs(store)
    finally:
        store.close()


def test_an_import_adds_to_the_sums(db_url: str, tmp_path: Path) -> None:
    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        bea = ensure_profile(store, "bea", {}, T0)
        answer_some(store, ana.id)
        export = tmp_path / "ana.json"
        with export.open("w", encoding="utf-8") as fh:
            write_json(store, ana, fh, T0 + timedelta(days=1))
        import_progress(store, bea.id, read_export(export))
        import_progress(store, bea.id, read_export(export))  # twice: nothing more
        assert len(summary(store)) == 4
        assert summary(store) == from_logs(store)
        assert stabilities_before(store).count(None) == 4
    finally:
        store.close()


def test_downgrade_drops_them_and_the_upgrade_backfills(db_url: str) -> None:
    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        answer_some(store, ana.id)
        downgrade(store, BEFORE)
        assert current_revision(store.engine) == BEFORE
        with store.engine.connect() as conn:
            assert {"card_stats", "review_hours"}.isdisjoint(conn.dialect.get_table_names(conn))
            columns = {c["name"] for c in conn.dialect.get_columns(conn, "review_logs")}
            assert "stability_before" not in columns
    finally:
        store.close()
    store = open_store(db_url, upgrade=True)  # upgrades again (as `db upgrade` does on
    # PostgreSQL), backfilling from the logs
    try:
        assert sorted(summary(store).values()) == [(1, 1, 7000, 1, 1), (3, 2, 9000, 1, 1)]
        assert summary(store) == from_logs(store)
        assert stabilities_before(store) == [None, 2.0, None, 3.0]
        hour0 = int(T0.timestamp()) // 3600
        assert hours(store) == {(ana.id, hour0 + n): 1 for n in range(4)}
        record_answer(store, ana.id, answer("d", "c2", T0 + timedelta(days=1), stability=9.0))
        assert summary(store) == from_logs(store)
    finally:
        store.close()


def hours(store: Store) -> dict[tuple[int, int], int]:
    with store.engine.connect() as conn:
        return {(int(p), int(h)): int(n) for p, h, n in conn.execute(text(
            "SELECT profile_id, hour, reviews FROM review_hours WHERE reviews > 0"))}


def test_reviews_per_hour_follow_answers_and_undo(db_url: str) -> None:
    from studyapp.store.stats import reviews_per_bucket

    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        logs = answer_some(store, ana.id)  # T0, +1 h, +2 h, +3 h
        hour0 = int(T0.timestamp()) // 3600
        assert hours(store) == {(ana.id, hour0 + n): 1 for n in range(4)}
        undo_answer(store, ana.id, logs[1])
        assert hours(store) == {(ana.id, hour0 + n): 1 for n in (0, 2, 3)}
        # on the hour: from review_hours; off the hour: counted from the logs; same answers
        on = [T0 - timedelta(hours=1), T0 + timedelta(hours=2), T0 + timedelta(hours=9)]
        off = [b + timedelta(minutes=30) for b in on]
        assert reviews_per_bucket(store, ana.id, on) == [1, 2]
        assert reviews_per_bucket(store, ana.id, off) == [2, 1]
    finally:
        store.close()
