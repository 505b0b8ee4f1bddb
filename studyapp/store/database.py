"""Opening the database safely: check, migrate, then hand out sessions.

A file that is not SQLite, or a schema written by a newer studyapp, is
refused before anything is written. Alembic is imported only when a
migration is actually due, so a current database opens fast.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

# The newest revision this code knows, and every earlier one (oldest first).
# A test checks these against the Alembic scripts in migrations/versions.
REVISIONS: tuple[str, ...] = (
    "0001_initial", "0002_stats_indexes", "0003_session_queue", "0004_review_flags",
)
HEAD = REVISIONS[-1]
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 30_000


class StoreError(Exception):
    """The database cannot be used as it is; the message says why and what to do."""


@dataclass
class Store:
    """An open, current database: engines and session factories.

    ``sessions`` are for reading; ``transaction()`` is for writing. On SQLite
    writes start with BEGIN IMMEDIATE, so two processes answering at once
    queue behind the busy timeout instead of failing on a stale snapshot.
    """

    engine: Engine
    sessions: sessionmaker[Session]
    url: str
    write_engine: Engine | None = None

    def __post_init__(self) -> None:
        self._writer = sessionmaker(self.write_engine or self.engine, expire_on_commit=False)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One unit of work: committed on success, rolled back on error."""
        with self._writer.begin() as session:
            yield session

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    def sqlite_path(self) -> Path | None:
        database = make_url(self.url).database
        if self.is_sqlite and database and database != ":memory:":
            return Path(database)
        return None

    def close(self) -> None:
        self.engine.dispose()
        if self.write_engine is not None:
            self.write_engine.dispose()


def _sqlite_file(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _check_sqlite_file(path: Path) -> None:
    """Refuse a file that exists and is not an SQLite database; never touch it."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as fh:
        header = fh.read(len(SQLITE_MAGIC))
    if header != SQLITE_MAGIC:
        raise StoreError(
            f"{path} is not an SQLite database (it may be corrupt); it was left untouched. "
            f"Move it aside (for example: mv '{path}' '{path}.bak') or choose another "
            f"database with --db."
        )


def _on_sqlite_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.close()


def make_engine(url: str, *, immediate: bool = False) -> Engine:
    """An engine with WAL, a busy timeout and foreign keys on SQLite.

    ``immediate`` makes every transaction take SQLite's write lock up front.
    """
    if make_url(url).get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
        event.listen(engine, "connect", _on_sqlite_connect)
        if immediate:
            def _autocommit_driver(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
                dbapi_connection.isolation_level = None

            def _begin_immediate(conn: Any) -> None:
                conn.exec_driver_sql("BEGIN IMMEDIATE")

            event.listen(engine, "connect", _autocommit_driver)
            event.listen(engine, "begin", _begin_immediate)
        return engine
    return create_engine(url, pool_pre_ping=True)


def current_revision(engine: Engine) -> str | None:
    """The schema revision stamped in the database, or None when it is empty."""
    with engine.connect() as conn:
        names = inspect(conn).get_table_names()
        if "alembic_version" not in names:
            if names and "profiles" in names:
                raise StoreError("the database has studyapp tables but no schema version")
            return None
        row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
        return row[0] if row else None


def migrate(engine: Engine, target: str = HEAD) -> None:
    """Run Alembic up to ``target`` (imports Alembic: only when needed)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, target)


@contextmanager
def _migration_lock(engine: Engine, path: Path | None) -> Iterator[None]:
    """One process at a time checks and migrates a database.

    Several learners (or two terminals) opening a new database at once must
    not both create the tables. SQLite: an advisory lock on a file beside the
    database. PostgreSQL: an advisory lock held for the migration.
    """
    if path is not None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: SQLite's own locks only
            yield
            return
        with open(path.with_name(path.name + ".lock"), "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT pg_advisory_lock(7410291)")
            conn.commit()
            try:
                yield
            finally:
                conn.exec_driver_sql("SELECT pg_advisory_unlock(7410291)")
                conn.commit()
        return
    yield


def open_store(url: str, *, migrate_to: str = HEAD) -> Store:
    """Check the database, migrate it when due, and return it ready to use."""
    path = _sqlite_file(url)
    if path is not None:
        _check_sqlite_file(path)
        path.parent.mkdir(parents=True, exist_ok=True)
    engine = make_engine(url)
    try:
        revision = current_revision(engine)
        if revision is not None and revision not in REVISIONS:
            raise StoreError(
                f"the database {path or url} was written by a newer version of studyapp "
                f"(schema {revision}); it was left untouched. Upgrade studyapp to open it."
            )
        if revision != migrate_to:
            with _migration_lock(engine, path):
                revision = current_revision(engine)  # another process may have migrated
                if revision != migrate_to:
                    if path is not None and revision:
                        from studyapp.store.backup import backup_before_migration

                        backup_before_migration(engine, path, revision)
                    migrate(engine, migrate_to)
                    if path is not None:
                        with engine.connect() as conn:
                            conn.exec_driver_sql("PRAGMA journal_mode = WAL")
    except (OperationalError, DBAPIError) as exc:
        engine.dispose()
        original = getattr(exc, "orig", exc)
        if path is not None and "not a database" in str(original):
            raise StoreError(
                f"{path} is not a usable SQLite database ({original}); it was left untouched. "
                f"Move it aside or choose another database with --db."
            ) from None
        raise StoreError(f"cannot open the database {path or url}: {original}") from None
    except StoreError:
        engine.dispose()
        raise
    writer = make_engine(url, immediate=True) if path is not None else None
    return Store(engine=engine, sessions=sessionmaker(engine, expire_on_commit=False), url=url,
                 write_engine=writer)
