"""Which schema a database holds, and the refusals of one this studyapp cannot use.

A schema written by a newer studyapp names the version to install (PostgreSQL
keeps it in a note on the schema); an older shared schema is upgraded by its
owner, never by whoever opens it first.
"""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DBAPIError

from studyapp.store.reconnect import StoreError

# The newest revision this code knows, and every earlier one (oldest first).
# A test checks these against the Alembic scripts in migrations/versions.
REVISIONS: tuple[str, ...] = (
    "0001_initial", "0002_stats_indexes", "0003_session_queue", "0004_review_flags",
    "0005_review_uid_per_profile", "0006_card_stats", "0007_previous_review",
    "0008_held_answers", "0009_published_decks", "0010_wrong_answers_index",
    "0011_deck_versions", "0012_review_verdicts", "0013_review_traps",
    "0015_regrade_notices",
    "0017_implicit_reviews",
    "0018_anki_revlog",
    "0019_class_report_indexes",
)

HEAD = REVISIONS[-1]

STUDYAPP_TABLES = frozenset({"profiles", "card_states", "review_logs", "post_reads",
                             "card_stats", "review_hours", "held_answers",
                             "published_decks", "published_deck_versions", "schedule_changes",
                             "alembic_version"})


def current_revision(engine: Engine) -> str | None:
    """The schema revision stamped in the database, or None when it is empty."""
    with engine.connect() as conn:
        names = inspect(conn).get_table_names()
        if "alembic_version" not in names:
            foreign = sorted(set(names) - STUDYAPP_TABLES)
            if foreign:
                raise StoreError(
                    f"the database holds tables that are not studyapp's ({', '.join(foreign[:5])})"
                    f" and no studyapp schema version; it was left untouched. Choose another "
                    f"database with --db.")
            if names and "profiles" in names:
                raise StoreError("the database has studyapp tables but no schema version")
            return None
        row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
        return row[0] if row else None


def studyapp_version() -> str | None:
    """The installed studyapp's version, as a schema's note names it."""

    try:
        return version("studyapp")
    except PackageNotFoundError:  # pragma: no cover - run from a tree never installed
        return None


def _written_by(engine: Engine) -> str | None:
    """The studyapp version a PostgreSQL schema's note names (``note_version``), if any."""
    if engine.dialect.name != "postgresql":
        return None
    try:
        with engine.connect() as conn:
            note = conn.execute(text(
                "SELECT obj_description(to_regclass('alembic_version'), 'pg_class')")).scalar()
    except DBAPIError:
        return None
    found = re.fullmatch(r"studyapp ([0-9][0-9A-Za-z.+-]{0,40})", str(note or ""))
    return found.group(1) if found else None


def note_version(conn: Any) -> None:
    """Write the migrating studyapp's version on the schema (PostgreSQL), so an older
    client can say which version to install instead of only "newer"."""
    found = studyapp_version()
    if conn.dialect.name == "postgresql" and found and re.fullmatch(r"[0-9A-Za-z.+-]+", found):
        conn.exec_driver_sql(f"COMMENT ON TABLE alembic_version IS 'studyapp {found}'")


def newer_schema_error(engine: Engine, where: str, revision: str) -> StoreError:
    """The refusal of a schema this studyapp does not know, naming the version to install."""
    wrote = _written_by(engine)
    install = (f"install studyapp {wrote} or newer (pip install 'studyapp>={wrote}')"
               if wrote else "upgrade studyapp to open it")
    return StoreError(f"the database {where} was written by a newer version of studyapp "
                      f"(schema {revision}); it was left untouched: {install}")


def older_schema_error(where: str, revision: str) -> StoreError:
    """A shared database is never upgraded by whoever opens it first: its owner does it."""
    return StoreError(f"the database {where} has an older schema ({revision}) than this "
                      f"studyapp uses ({HEAD}); it was left untouched. Its owner upgrades it, "
                      f"after a backup, with: studyapp --db URL db upgrade")


def _check_schema_access(engine: Engine) -> None:
    """An empty-looking PostgreSQL database may only be one this login cannot see into."""
    if engine.dialect.name != "postgresql":
        return
    with engine.connect() as conn:
        schema, user = conn.execute(text("SELECT current_schema(), current_user")).one()
    if schema is None:
        raise StoreError(f"the login {user} has no access to any schema on its search path in "
                         f"this database, so it sees no studyapp tables: ask the database's "
                         f"owner for a login of the class (studyapp class add-student)")
