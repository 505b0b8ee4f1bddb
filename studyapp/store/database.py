"""Opening the database safely: check, migrate, then hand out sessions.

A file that is not SQLite, another application's SQLite file, or a schema
written by a newer studyapp, is refused before anything is written. Creating
and upgrading the schema is one transaction, also on SQLite (pysqlite is told
to leave transactions to us, and we BEGIN explicitly, as SQLAlchemy documents),
so a run killed half-way leaves the database as it was. Alembic is imported
only when a migration is actually due, so a current database opens fast.

Its parts: ``engine`` (SQLite files checked, engines, write locks),
``schema_version`` (which schema a database holds, and the refusals),
``reconnect`` (failures, and retrying while a server is away). Their names
are importable from here too.
"""

from __future__ import annotations

import contextlib
import math
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Engine, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from studyapp.store.engine import (
    BUSY_TIMEOUT_MS,
    CONNECT_TIMEOUT_S,
    LOCK_POLL_MS,
    LOCK_WAIT_MESSAGE,
    SQLITE_MAGIC,
    LockNotice,
    _check_sqlite_file,
    _parse,
    _sqlite_file,
    _unwritable,
    display_url,
    make_engine,
)
from studyapp.store.reconnect import (
    PROBE_EVERY,
    RETRY_DELAYS,
    DatabaseFailure,
    Reconnect,
    ServerAway,
    StoreError,
    connection_lost,
    describe_database_error,
)
from studyapp.store.schema_version import (
    HEAD,
    REVISIONS,
    STUDYAPP_TABLES,
    _check_schema_access,
    current_revision,
    newer_schema_error,
    note_version,
    older_schema_error,
    studyapp_version,
)

__all__ = [
    "BUSY_TIMEOUT_MS", "CONNECT_TIMEOUT_S", "HEAD", "LOCK_POLL_MS", "LOCK_WAIT_MESSAGE",
    "MIGRATION_SPACE_FACTOR", "PROBE_EVERY", "RETRY_DELAYS", "REVISIONS", "SQLITE_MAGIC",
    "STUDYAPP_TABLES", "DatabaseFailure", "LockNotice", "Reconnect", "ServerAway", "Store",
    "StoreError", "check_migration_space", "connection_lost", "current_revision",
    "database_bytes", "describe_database_error", "display_url", "drop_temporary_tables",
    "free_bytes", "make_engine", "migrate", "migration_space", "newer_schema_error",
    "note_version", "older_schema_error", "open_store", "studyapp_version",
]

T = TypeVar("T")


MIGRATION_SPACE_FACTOR = 4.7
"""Free space an SQLite upgrade needs, in multiples of the database's size: the copy
kept before it, tables rebuilt beside the old ones (SQLite's ALTER TABLE copies them into
``_alembic_tmp_*`` tables), and the write-ahead log that holds them until the end."""

TEMPORARY_TABLE_PREFIX = "_alembic_tmp_"


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
    read_only: str | None = None  # why nothing can be written, when that is so
    notice: LockNotice = field(default_factory=LockNotice)
    reconnect: Reconnect = field(default_factory=Reconnect)

    def __post_init__(self) -> None:
        self._writer = sessionmaker(self.write_engine or self.engine, expire_on_commit=False)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One unit of work: committed on success, rolled back on error."""
        if self.read_only:
            raise StoreError(f"{self.read_only}: nothing can be recorded; stats and export "
                             f"still work")
        with self._writer.begin() as session:
            yield session

    def reach(self, work: Callable[[int], T]) -> T:
        """``work(attempt)`` (one whole transaction), retried while a server's connection
        is lost; ``ServerAway`` when it stays lost. SQLite has no server: run once."""
        if self.is_sqlite:
            return work(0)
        return self.reconnect.run(work)

    def on_lock_wait(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when a write has to wait for another process's lock."""
        self.notice.callback = callback

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


def free_bytes(folder: Path) -> int:
    """Bytes free for this user in ``folder``'s file system (tests replace it)."""
    return shutil.disk_usage(folder).free


def database_bytes(path: Path) -> int:
    """The database's size on disk, its write-ahead log included."""
    total = 0
    for part in (path, path.with_name(path.name + "-wal")):
        with contextlib.suppress(OSError):
            total += part.stat().st_size
    return total


def migration_space(path: Path, revision: str) -> int:
    """Bytes an upgrade of ``path`` needs free beside it (``MIGRATION_SPACE_FACTOR``).

    A copy already kept from an earlier try at this upgrade is reused, so its
    size is not needed again.
    """
    from studyapp.store.backup import migration_backup_path

    needed = math.ceil(database_bytes(path) * MIGRATION_SPACE_FACTOR)
    with contextlib.suppress(OSError):
        needed -= migration_backup_path(path, revision).stat().st_size
    return max(needed, 0)


def _megabytes(size: int) -> int:
    return max(1, math.ceil(size / 10**6))


def check_migration_space(path: Path, revision: str) -> int:
    """Refuse an upgrade the disk has no room for, before anything is written; the need."""
    needed = migration_space(path, revision)
    try:
        free = free_bytes(path.parent)
    except OSError:
        return needed  # the file system cannot tell: the upgrade itself says if it runs out
    if free < needed:
        raise StoreError(
            f"the database {path} needs an upgrade from schema {revision}, which needs "
            f"{_megabytes(needed)} MB free in {path.parent} (about "
            f"{MIGRATION_SPACE_FACTOR:g} times its size); {free // 10**6} MB are free. It was "
            f"left untouched: free some space, or move it to a larger disk, and open it again.")
    return needed


def _is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc``, or anything it was raised from or while handling, was a full disk.

    SQLite may roll the whole transaction back when the disk fills; Alembic's
    clean-up then fails on the table that is gone, and that later error is the
    one raised: the full disk is found in its context.
    """
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, sqlite3.OperationalError) and "disk is full" in str(current):
            return True
        if isinstance(current, OSError) and current.errno in (28, 122):  # ENOSPC, EDQUOT
            return True
        origin = current.orig if isinstance(current, DBAPIError) else None
        pending += [e for e in (origin, current.__cause__, current.__context__)
                    if isinstance(e, BaseException)]
    return False


def drop_temporary_tables(engine: Engine) -> list[str]:
    """Remove the tables an interrupted SQLite ALTER TABLE left behind; their names."""
    with engine.connect() as conn:
        names = [name for name in inspect(conn).get_table_names()
                 if name.startswith(TEMPORARY_TABLE_PREFIX)]
    if names:
        with engine.begin() as conn:
            for name in names:
                conn.exec_driver_sql(f'DROP TABLE "{name}"')
    return names


def _failed_upgrade(engine: Engine, path: Path | None, url: str, revision: str | None,
                    backup: Path | None, needed: int, exc: BaseException) -> StoreError:
    """What a failed upgrade did, in one line: where the database is, and what to do."""
    where = path or display_url(url)
    full = _is_disk_full(exc)
    with contextlib.suppress(Exception):
        drop_temporary_tables(engine)  # none should be left; if SQLite left one, it goes
    try:
        now = current_revision(engine)
        with engine.connect() as conn:
            left = [name for name in inspect(conn).get_table_names()
                    if name.startswith(TEMPORARY_TABLE_PREFIX)]
    except Exception:  # the message below still says what is known
        now, left = None, ["?"]
    if full:
        room = (f"; it needs about {_megabytes(needed)} MB free in {path.parent}"
                if path is not None else "")
        why = f"the disk filled up{room}"
    else:
        original = getattr(exc, "orig", None) or exc
        lines = str(original).strip().splitlines()
        why = lines[0] if lines else type(original).__name__
    if now == revision and not left:
        state = (f"the database was left as it was (schema {revision})" if revision
                 else "the database was left empty")
    elif left == ["?"]:
        state = "the database could not be read back to check it"
    else:
        state = f"the database is at schema {now or 'none'}"
    copy = f"; the copy taken before the upgrade is {backup}" if backup is not None else ""
    return StoreError(f"the upgrade of {where} stopped: {why}; {state}{copy}. Open it again "
                      f"once this is fixed.")


def migrate(engine: Engine, target: str = HEAD) -> None:
    """Run Alembic up to ``target`` (imports Alembic: only when needed)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as conn:  # one transaction: all of the upgrade or none of it
        config.attributes["connection"] = conn
        command.upgrade(config, target)
        note_version(conn)


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


def _open_read_only(url: str, path: Path, reason: str) -> Store:
    """The database opened read-only: reading works, every write says why not.

    A WAL database in a folder we cannot write to has no shared-memory file
    to open; then it is read as immutable (nobody else can be writing it).
    """
    engine = make_engine(url, read_only="mode=ro")
    try:
        revision = current_revision(engine)
    except OperationalError:
        engine.dispose()
        engine = make_engine(url, read_only="immutable=1")
        revision = current_revision(engine)
    if revision != HEAD:
        engine.dispose()
        raise StoreError(f"{reason}; it also needs a schema upgrade, which needs write access")
    return Store(engine=engine, sessions=sessionmaker(engine, expire_on_commit=False), url=url,
                 read_only=reason)


def _cannot_open(url: str, path: Path | None, original: BaseException) -> StoreError:
    text = str(original).strip().splitlines()[0] if str(original).strip() else type(
        original).__name__
    where = str(path) if path is not None else display_url(url)
    if getattr(original, "sqlstate", None) == "42501":  # a login outside a class's roles
        return StoreError(f"permission denied: this login cannot read studyapp's tables in "
                          f"{where} ({text}); ask the database's owner for a login of the "
                          f"class (studyapp class add-student)")
    if path is not None and ("not a database" in text or "malformed" in text):
        return StoreError(f"{path} is not a usable SQLite database ({text}); it was left "
                          f"untouched. Move it aside or choose another database with --db.")
    return StoreError(f"cannot open the database {where}: {text}")


def _backup_before_upgrade(path: Path, revision: str, needed: int) -> Path:
    """The copy kept before an upgrade; a full disk is said as such, with what is needed."""
    from studyapp.store.backup import backup_before_migration

    try:
        return backup_before_migration(path, revision)
    except (OSError, sqlite3.Error) as exc:
        why = (f"the disk is full (the upgrade needs about {_megabytes(needed)} MB free in "
               f"{path.parent})" if _is_disk_full(exc) else str(exc))
        raise StoreError(f"cannot copy {path} before its upgrade from schema {revision}: "
                         f"{why}; it was left untouched") from None


def open_store(url: str, *, migrate_to: str = HEAD, upgrade: bool | None = None) -> Store:
    """Check the database, migrate it when due, and return it ready to use.

    A SQLite file is one learner's: it is backed up and upgraded when opened.
    A PostgreSQL database is shared: an older schema is refused with the
    command that upgrades it (``db upgrade``, which passes ``upgrade=True``),
    so no client changes the schema under its classmates. An empty database
    is created either way.
    """
    _parse(url)
    path = _sqlite_file(url)
    notice = LockNotice()
    if path is not None:
        _check_sqlite_file(path)
        reason = _unwritable(path)
        if reason is not None:
            try:
                return _open_read_only(url, path, reason)
            except (OperationalError, DBAPIError) as exc:
                raise _cannot_open(url, path, getattr(exc, "orig", exc)) from None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder {path.parent} for the database: "
                             f"{exc.strerror or exc}") from None
    try:
        engine = make_engine(url)
    except NoSuchModuleError as exc:
        raise StoreError(f"{display_url(url)}: no database driver for it ({exc})") from None
    except (ArgumentError, ImportError) as exc:
        raise StoreError(f"{display_url(url)}: {exc}") from None
    try:
        revision = current_revision(engine)
        if revision is not None and revision not in REVISIONS:
            raise newer_schema_error(engine, str(path or display_url(url)), revision)
        if revision is None and path is None:
            _check_schema_access(engine)
        if upgrade is None:
            upgrade = path is not None
        if revision is not None and revision != migrate_to and not upgrade:
            raise older_schema_error(display_url(url), revision)
        if revision != migrate_to:
            with _migration_lock(engine, path):
                revision = current_revision(engine)  # another process may have migrated
                if revision != migrate_to:
                    backup, needed = None, 0
                    if path is not None and revision:
                        needed = check_migration_space(path, revision)
                        backup = _backup_before_upgrade(path, revision, needed)
                    migrator = make_engine(url, immediate=True, notice=notice)
                    try:
                        if path is not None:
                            drop_temporary_tables(migrator)  # left by an older studyapp
                        migrate(migrator, migrate_to)
                    except (OperationalError, DBAPIError, sqlite3.Error, OSError) as exc:
                        migrator.dispose()  # its lock released before the clean-up
                        raise _failed_upgrade(engine, path, url, revision, backup, needed,
                                              exc) from None
                    finally:
                        migrator.dispose()
                    if path is not None:
                        with engine.connect() as conn:
                            conn.exec_driver_sql("PRAGMA journal_mode = WAL")
    except (OperationalError, DBAPIError) as exc:
        engine.dispose()
        raise _cannot_open(url, path, getattr(exc, "orig", exc)) from None
    except OSError as exc:
        engine.dispose()
        raise StoreError(f"cannot prepare the database {path or display_url(url)}: "
                         f"{exc.strerror or exc}") from None
    except StoreError:
        engine.dispose()
        raise
    writer = make_engine(url, immediate=True, notice=notice) if path is not None else None
    return Store(engine=engine, sessions=sessionmaker(engine, expire_on_commit=False), url=url,
                 write_engine=writer, notice=notice)
