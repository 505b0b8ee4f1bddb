"""A shared database's schema changes only by ``studyapp db upgrade``, after a backup;
a learner's SQLite file still upgrades itself when opened, after a copy."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, text

from studyapp.cli import main
from studyapp.store import HEAD, REVISIONS, StoreError, open_store
from studyapp.store.database import current_revision, make_engine
from studyapp.store.progress import ensure_profile, review_count

OLDER = REVISIONS[-2]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _run(url: str, home: Path, *args: str, env: dict[str, str | None] | None = None
         ) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--lang", "en", "--db", url, *args],
                                env={"STUDYAPP_HOME": str(home), "STUDYAPP_DB": None,
                                     **(env or {})})
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    return result.exit_code, result.stdout, result.stderr


def _older_with_answers(url: str) -> None:
    """One profile with one answer, written as the older schema's columns allow (today's
    answers carry columns it does not have)."""
    store = open_store(url, migrate_to=OLDER)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        with store.transaction() as session:
            session.execute(text(
                "INSERT INTO card_states (profile_id, deck_id, card_key, post, state, due, reps,"
                " lapses, suspended, leech, created_at, flag) VALUES (:p, 'd', 'c1', 'intro', 2,"
                " :at, 1, 0, :no, :no, :at, 0)"), {"p": ana.id, "at": T0, "no": False})
            session.execute(text(
                "INSERT INTO review_logs (profile_id, card_id, reviewed_at, rating, correct, uid,"
                " overridden, looked_at_post, state_before) SELECT :p, id, :at, 3, :yes, 'u1',"
                " :no, :no, 0 FROM card_states WHERE card_key = 'c1'"),
                {"p": ana.id, "at": T0, "yes": True, "no": False})
    finally:
        store.close()


def _revision(url: str) -> str | None:
    engine = make_engine(url)
    try:
        return current_revision(engine)
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_an_older_shared_schema_is_left_alone_and_named_the_command(pg_url: str,
                                                                     tmp_path: Path) -> None:
    _older_with_answers(pg_url)
    with pytest.raises(StoreError, match=r"older schema \(" + OLDER + r"\).*db upgrade"):
        open_store(pg_url)
    code, _out, err = _run(pg_url, tmp_path / "home", "--profile", "ana", "stats")
    assert code == 1
    assert err.count("\n") == 1 and "studyapp --db URL db upgrade" in err, err
    assert _revision(pg_url) == OLDER  # nobody but the owner's command migrates it


@pytest.mark.postgres
@pytest.mark.skipif(shutil.which("pg_dump") is None, reason="pg_dump is not installed")
def test_db_upgrade_backs_up_with_pg_dump_then_migrates(pg_url: str, tmp_path: Path) -> None:
    _older_with_answers(pg_url)
    home = tmp_path / "home"
    code, out, err = _run(pg_url, home, "db", "upgrade")
    assert code == 0, err
    dumps = list((home / "data" / "backups").glob(f"*-{OLDER}-*.dump"))
    assert len(dumps) == 1, list(home.rglob("*"))
    assert dumps[0].read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format: pg_restore reads it
    assert f"backup taken: {dumps[0]}" in out
    assert f"schema upgraded from {OLDER} to {HEAD}" in out
    assert _revision(pg_url) == HEAD
    store = open_store(pg_url)
    try:
        assert review_count(store, ensure_profile(store, "ana", {}, T0).id) == 1
    finally:
        store.close()
    code, out, _ = _run(pg_url, home, "db", "upgrade")
    assert code == 0 and f"already current ({HEAD})" in out
    assert len(list((home / "data" / "backups").glob("*.dump"))) == 1  # no needless copy


@pytest.mark.postgres
def test_without_pg_dump_nothing_changes_until_the_owner_says_it_is_backed_up(
        pg_url: str, tmp_path: Path) -> None:
    _older_with_answers(pg_url)
    empty = tmp_path / "no-tools"
    empty.mkdir()
    code, _out, err = _run(pg_url, tmp_path / "home", "db", "upgrade", env={"PATH": str(empty)})
    assert code == 1
    assert "pg_dump was not found, so no backup was taken and nothing was changed" in err
    assert "pg_dump -Fc" in err and "db upgrade --no-backup" in err
    assert _revision(pg_url) == OLDER
    code, out, err = _run(pg_url, tmp_path / "home", "db", "upgrade", "--no-backup",
                          env={"PATH": str(empty)})
    assert code == 0, err
    assert "no backup taken (--no-backup)" in out
    assert _revision(pg_url) == HEAD


@pytest.mark.postgres
def test_a_newer_schema_names_the_version_that_wrote_it(pg_url: str) -> None:
    open_store(pg_url).close()
    engine = create_engine(pg_url)
    with engine.begin() as conn:
        note = conn.execute(text(
            "SELECT obj_description(to_regclass('alembic_version'), 'pg_class')")).scalar()
        assert str(note).startswith("studyapp ")  # written by the migration
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
        conn.execute(text("COMMENT ON TABLE alembic_version IS 'studyapp 99.1.0'"))
    engine.dispose()
    with pytest.raises(StoreError, match=r"install studyapp 99\.1\.0 or newer"):
        open_store(pg_url)
    with pytest.raises(StoreError, match=r"install studyapp 99\.1\.0 or newer"):
        open_store(pg_url, upgrade=True)


def test_a_learners_sqlite_file_still_upgrades_itself_after_a_copy(tmp_path: Path) -> None:
    path = tmp_path / "mine.sqlite3"
    url = f"sqlite:///{path}"
    _older_with_answers(url)
    store = open_store(url)
    try:
        assert current_revision(store.engine) == HEAD
        assert review_count(store, ensure_profile(store, "ana", {}, T0).id) == 1
    finally:
        store.close()
    copy = tmp_path / f"mine.sqlite3.{OLDER}.bak"
    assert copy.exists()
    assert _revision(f"sqlite:///{copy}") == OLDER


def test_db_upgrade_on_sqlite_names_its_copy(tmp_path: Path) -> None:
    path = tmp_path / "mine.sqlite3"
    url = f"sqlite:///{path}"
    _older_with_answers(url)
    code, out, err = _run(url, tmp_path / "home", "db", "upgrade")
    assert code == 0, err
    assert f"backup taken: {tmp_path / f'mine.sqlite3.{OLDER}.bak'}" in out
    assert _revision(url) == HEAD
