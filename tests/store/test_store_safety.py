"""The store on SQLite and PostgreSQL: round trip, migrations, refusing bad files,
profiles kept apart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import MetaData, create_engine, func, insert, select, text
from store_answers import answer

from studyapp.store import HEAD, REVISIONS, StoreError, open_store
from studyapp.store.database import current_revision
from studyapp.store.progress import (
    card_state,
    card_states,
    ensure_profile,
    record_answer,
    review_count,
    undo_answer,
)

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_round_trip(db_url: str) -> None:
    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {"desired_retention": 0.9}, T0)
        first = record_answer(store, ana.id, answer("d", "c1", T0, stage=1, stability=0.5))
        record_answer(store, ana.id, answer("d", "c1", T0 + timedelta(minutes=10),
                                            stability=2.5))
        row = card_state(store, ana.id, "d", "c1")
        assert row is not None and row.stage == 2 and row.stability == 2.5
        assert row.last_review == T0 + timedelta(minutes=10)
        assert row.due.tzinfo is not None
        assert review_count(store, ana.id) == 2
        assert first > 0
        assert ensure_profile(store, "ana", {}, T0).settings == {"desired_retention": 0.9}
    finally:
        store.close()
    reopened = open_store(db_url)
    try:
        ana = ensure_profile(reopened, "ana", {}, T0)
        assert set(card_states(reopened, ana.id)) == {("d", "c1")}
    finally:
        reopened.close()


def test_undo_restores_the_card(db_url: str) -> None:
    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        record_answer(store, ana.id, answer("d", "c1", T0, stability=1.0))
        log = record_answer(store, ana.id, answer("d", "c1", T0 + timedelta(days=1),
                                                  stability=9.0))
        assert undo_answer(store, ana.id, log)
        row = card_state(store, ana.id, "d", "c1")
        assert row is not None and row.stability == 1.0 and row.last_review == T0
        assert review_count(store, ana.id) == 1
    finally:
        store.close()


def test_migration_from_empty(db_url: str) -> None:
    store = open_store(db_url)
    try:
        assert current_revision(store.engine) == HEAD
        with store.engine.connect() as conn:
            tables = set(conn.dialect.get_table_names(conn))
        assert {"profiles", "card_states", "review_logs", "post_reads"} <= tables
    finally:
        store.close()


def test_revisions_match_the_migration_scripts() -> None:
    folder = Path(__file__).parents[2] / "studyapp" / "store" / "migrations" / "versions"
    scripts = {p.stem for p in folder.glob("*.py") if not p.name.startswith("_")}
    assert set(REVISIONS) == scripts
    assert REVISIONS[-1] == HEAD


def _fill_reflected(url: str) -> dict[str, int]:
    """Rows in every table the schema has at this revision, using only its columns."""
    engine = create_engine(url)
    meta = MetaData()
    meta.reflect(engine)
    values = {
        "profiles": [{"id": 1, "name": "ana", "created_at": T0, "settings": {"a": 1}},
                     {"id": 2, "name": "ben", "created_at": T0, "settings": {}}],
        "card_states": [{"id": i, "profile_id": 1 + i % 2, "deck_id": "d", "card_key": f"c{i}",
                         "post": "intro", "family": None, "state": 2, "step": None,
                         "stability": 3.0 + i, "difficulty": 5.0, "due": T0, "last_review": T0,
                         "reps": 2, "lapses": 0, "suspended": False, "leech": False,
                         "created_at": T0} for i in range(1, 11)],
        "review_logs": [{"id": i, "profile_id": 1 + (i % 10 + 1) % 2, "card_id": i % 10 + 1,
                         "reviewed_at": T0 - timedelta(hours=i), "rating": 3, "correct": True,
                         "duration_ms": 1000 + i, "state_before": 2, "previous": None,
                         "seed": i, "params": {"n": i}, "prompt": "p", "response": "r",
                         "expected": "e", "lang": "en", "uid": f"uid-{i}"}
                        for i in range(1, 51)],
        "post_reads": [{"id": 1, "profile_id": 1, "post": "intro", "first_read_at": T0,
                        "last_read_at": T0, "times": 2}],
    }
    counts = {}
    with engine.begin() as conn:
        for name in ("profiles", "card_states", "review_logs", "post_reads"):
            table = meta.tables[name]
            rows = [{k: v for k, v in row.items() if k in table.c} for row in values[name]]
            if engine.dialect.name == "sqlite":  # reflected types are naive there
                rows = [{k: (v.replace(tzinfo=None) if isinstance(v, datetime) else v)
                         for k, v in row.items()} for row in rows]
            conn.execute(insert(table), rows)
            counts[name] = len(rows)
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            for name in counts:
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                                  f"(SELECT max(id) FROM {name}))"))
    engine.dispose()
    return counts


@pytest.mark.parametrize("revision", REVISIONS)
def test_upgrade_keeps_every_row(db_url: str, revision: str) -> None:
    old = open_store(db_url, migrate_to=revision)
    old.close()
    counts = _fill_reflected(db_url)
    if revision != HEAD and not db_url.startswith("sqlite"):
        with pytest.raises(StoreError, match="db upgrade"):  # a shared schema: its owner's
            open_store(db_url)
    store = open_store(db_url, upgrade=True)  # what `studyapp db upgrade` does
    try:
        assert current_revision(store.engine) == HEAD
        with store.engine.connect() as conn:
            for name, count in counts.items():
                assert conn.execute(select(func.count()).select_from(text(name))).scalar() \
                    == count, name
        ana = ensure_profile(store, "ana", {}, T0)
        assert ana.settings == {"a": 1}
        assert review_count(store, ana.id) == 25
        rows = card_states(store, ana.id)
        assert rows[("d", "c2")].stability == 5.0 and rows[("d", "c2")].due == T0
        # the upgraded database takes new answers
        record_answer(store, ana.id, answer("d", "new", T0))
        assert review_count(store, ana.id) == 26
    finally:
        store.close()


def _stamp(url: str, revision: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    engine.dispose()


def test_newer_database_is_refused_untouched_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    url = f"sqlite:///{path}"
    open_store(url).close()
    _stamp(url, "9999_future")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer version"):
        open_store(url)
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.bak"))


def test_newer_database_is_refused_postgresql(pg_url: str) -> None:
    open_store(pg_url).close()
    _stamp(pg_url, "9999_future")
    with pytest.raises(StoreError, match="newer version"):
        open_store(pg_url)
    engine = create_engine(pg_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() \
            == "9999_future"
    engine.dispose()


@pytest.mark.parametrize("content", [
    b"this is a text file, not a database\n" * 20,
    b"SQLite format 3\x00" + b"\xff" * 4000,
    b"\x00" * 8192,
], ids=["text", "corrupt-sqlite", "zeros"])
def test_not_a_database_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "progress.sqlite3"
    path.write_bytes(content)
    with pytest.raises(StoreError) as error:
        open_store(f"sqlite:///{path}")
    assert str(path) in str(error.value)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["progress.sqlite3"]


def test_profiles_never_mix(db_url: str) -> None:
    from studyapp.store.progress_files import iter_records
    from studyapp.store.stats import post_tallies, totals, weakest_cards

    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        ben = ensure_profile(store, "ben", {}, T0)
        for n in range(5):
            record_answer(store, ana.id, answer("d", f"a{n}", T0 + timedelta(minutes=n)))
        ben_logs = [record_answer(store, ben.id, answer("d", f"a{n}", T0, correct=False,
                                                        rating=1, lapses=1))
                    for n in range(3)]
        assert set(card_states(store, ana.id)) == {("d", f"a{n}") for n in range(5)}
        assert set(card_states(store, ben.id)) == {("d", f"a{n}") for n in range(3)}
        assert card_state(store, ben.id, "d", "a4") is None
        assert review_count(store, ana.id) == 5 and review_count(store, ben.id) == 3
        assert totals(store, ana.id).correct == 5 and totals(store, ben.id).correct == 0
        assert post_tallies(store, ben.id)["intro"].seen == 3
        def by_lapses(stability: float | None, age: float | None, lapses: int) -> float:
            return -lapses

        weakest_ben = weakest_cards(store, ben.id, 10, by_lapses, T0)
        assert [s.card.lapses for s in weakest_ben] == [1] * 3
        assert [s.reviews for s in weakest_cards(store, ana.id, 10, by_lapses, T0)] == [1] * 5
        kinds = [kind for kind, _ in iter_records(store, ben.id)]
        assert kinds.count("review") == 3 and kinds.count("card") == 3
        assert not any(undo_answer(store, ana.id, log) for log in ben_logs)
        assert review_count(store, ben.id) == 3
    finally:
        store.close()
