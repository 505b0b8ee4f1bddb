"""Backends for storage tests: SQLite always, PostgreSQL when STUDYAPP_TEST_PG is set.

Each PostgreSQL test gets its own schema (dropped afterwards), so tests never
see each other's rows; CI sets STUDYAPP_TEST_PG to a real server.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_URL = os.environ.get("STUDYAPP_TEST_PG")


def pg_schema_url(schema: str) -> str:
    from sqlalchemy.engine import make_url

    assert PG_URL
    return make_url(PG_URL).update_query_dict(
        {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)


def _pg_admin(statement: str) -> None:
    from sqlalchemy import create_engine, text

    assert PG_URL
    engine = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(statement))
    finally:
        engine.dispose()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A URL to an empty PostgreSQL schema of its own."""
    if not PG_URL:
        pytest.skip("STUDYAPP_TEST_PG is not set")
    schema = f"t_{uuid.uuid4().hex[:16]}"
    _pg_admin(f"CREATE SCHEMA {schema}")
    try:
        yield pg_schema_url(schema)
    finally:
        _pg_admin(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'progress.sqlite3'}"
        return
    yield request.getfixturevalue("pg_url")


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """User files (installed decks, default database) in a temporary folder."""
    home = tmp_path / "home"
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    monkeypatch.delenv("STUDYAPP_DB", raising=False)
    monkeypatch.delenv("STUDYAPP_PROFILE", raising=False)
    return home
