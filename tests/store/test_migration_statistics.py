"""Migrations that add an index refresh the planner's statistics of the store's own
tables, and on a shared PostgreSQL database of no other schema's tables."""

from __future__ import annotations

import pytest
from backends import fresh_pg_schema, pg_admin
from sqlalchemy import create_engine, make_url, text

from studyapp.store import open_store


def _reltuples(url: str, table: str) -> float:
    """PostgreSQL's row estimate: -1 until the table is first analyzed or vacuumed."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return float(conn.execute(text(
                "SELECT reltuples FROM pg_class WHERE oid = to_regclass(:t)"), {"t": table})
                .scalar_one())
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_a_new_store_on_postgresql_analyzes_its_tables_and_no_other_schemas(
        pg_url: str) -> None:
    with fresh_pg_schema() as neighbour:
        # another class's schema on the same database, never analyzed
        schema = str(make_url(neighbour).query["options"]).removeprefix("-csearch_path=")
        pg_admin(f"CREATE TABLE {schema}.answers (n integer)")
        pg_admin(f"INSERT INTO {schema}.answers SELECT generate_series(1, 50)")
        assert _reltuples(neighbour, "answers") == -1

        open_store(pg_url).close()

        # the store's own tables have statistics (rows counted, even if none) ...
        assert _reltuples(pg_url, "review_logs") >= 0
        assert _reltuples(pg_url, "card_states") >= 0
        # ... and the neighbour's table was not read
        assert _reltuples(neighbour, "answers") == -1

