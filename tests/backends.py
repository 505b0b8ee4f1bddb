"""Database backends for tests: SQLite always, PostgreSQL when STUDYAPP_TEST_PG is set.

Each PostgreSQL user of ``fresh_pg_schema`` gets its own schema (dropped
afterwards), so tests never see each other's rows; CI sets STUDYAPP_TEST_PG
to a real server.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import unquote, urlsplit

PG_URL = os.environ.get("STUDYAPP_TEST_PG")
if PG_URL and (PG_PASSWORD := urlsplit(PG_URL).password):
    # ``--db`` refuses a URL with a password (``ps`` would show it): the tests give it as
    # a user does, outside the URL, where libpq reads it (the app processes inherit it)
    os.environ.setdefault("PGPASSWORD", unquote(PG_PASSWORD))


def pg_schema_url(schema: str) -> str:
    """The PostgreSQL URL with ``schema`` first on the search path, without the password."""
    from sqlalchemy.engine import make_url

    assert PG_URL
    # URL.set(password=None) keeps the password (None means "unchanged" there)
    return make_url(PG_URL)._replace(password=None).update_query_dict(
        {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)


def pg_admin(statement: str) -> None:
    """Run one statement outside a transaction (CREATE/DROP SCHEMA)."""
    from sqlalchemy import create_engine, text

    assert PG_URL
    engine = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(statement))
    finally:
        engine.dispose()


@contextmanager
def fresh_pg_schema() -> Iterator[str]:
    """A URL to an empty schema of its own, dropped on exit."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    pg_admin(f"CREATE SCHEMA {schema}")
    try:
        yield pg_schema_url(schema)
    finally:
        pg_admin(f"DROP SCHEMA {schema} CASCADE")
