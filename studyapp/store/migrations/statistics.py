"""Planner statistics after a migration adds an index: the store's own tables only."""

from __future__ import annotations

from alembic import op
from sqlalchemy import text


def refresh_statistics() -> None:
    """ANALYZE what the store owns, so no planner judges a new index on old numbers.

    On SQLite the file is the store, and a bare ``ANALYZE`` reads it whole. On
    PostgreSQL a bare ``ANALYZE`` reads every table of the database: other classes'
    schemas and the system catalogs too (0.45 s of the server's CPU on a small test
    server, where a store's own tables took milliseconds). There it names the tables of
    the schema the store lives in.
    """
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        op.execute("ANALYZE")
        return
    tables = bind.execute(text(
        "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema() "
        "ORDER BY tablename")).scalars().all()
    if tables:
        op.execute("ANALYZE " + ", ".join(tables))
