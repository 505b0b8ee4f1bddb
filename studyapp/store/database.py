"""Opening the database safely: check, migrate, then hand out sessions.

A file that is not SQLite, another application's SQLite file, or a schema
written by a newer studyapp, is refused before anything is written. Creating
and upgrading the schema is one transaction, also on SQLite (pysqlite is told
to leave transactions to us, and we BEGIN explicitly, as SQLAlchemy documents),
so a run killed half-way leaves the database as it was. Alembic is imported
only when a migration is actually due, so a current database opens fast.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import sqlite3
import stat
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    InterfaceError,
    NoSuchModuleError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.orm import Session, sessionmaker

# The newest revision this code knows, and every earlier one (oldest first).
# A test checks these against the Alembic scripts in migrations/versions.
REVISIONS: tuple[str, ...] = (
    "0001_initial", "0002_stats_indexes", "0003_session_queue", "0004_review_flags",
    "0005_review_uid_per_profile", "0006_card_stats", "0007_previous_review",
    "0008_held_answers", "0009_published_decks", "0010_wrong_answers_index",
    "0011_deck_versions",
)
HEAD = REVISIONS[-1]
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 30_000
LOCK_POLL_MS = 1_000
"""How long a writer waits for SQLite's write lock before saying so (then it keeps waiting)."""
STUDYAPP_TABLES = frozenset({"profiles", "card_states", "review_logs", "post_reads",
                             "card_stats", "review_hours", "held_answers",
                             "published_decks", "published_deck_versions",
                             "alembic_version"})
LOCK_WAIT_MESSAGE = "another studyapp is writing, waiting..."
MIGRATION_SPACE_FACTOR = 4.7
"""Free space an SQLite upgrade needs, in multiples of the database's size: the copy
kept before it, tables rebuilt beside the old ones (SQLite's ALTER TABLE copies them into
``_alembic_tmp_*`` tables), and the write-ahead log that holds them until the end."""
TEMPORARY_TABLE_PREFIX = "_alembic_tmp_"
RETRY_DELAYS: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0)
"""Waits between tries of a call whose server connection was lost (under 4 s in all):
a server restarting comes back within them; a longer outage is then said once."""
PROBE_EVERY = 5.0
"""While the server is away, a call tries it again once this many seconds have passed
(in between, it is known to be away and no call waits for it)."""
CONNECT_TIMEOUT_S = 10
"""How long a connection to a server may take before it counts as away."""

T = TypeVar("T")


DatabaseFailure = SQLAlchemyError
"""Any failure of the database or its driver, for callers above the store that only need to
know one happened (they never import SQLAlchemy themselves)."""


class StoreError(Exception):
    """The database cannot be used as it is; the message says why and what to do."""


class ServerAway(StoreError):
    """The database server cannot be reached, even after retrying with backoff."""


def connection_lost(exc: BaseException) -> bool:
    """Whether a server database error is the connection going away (worth a fresh try).

    A refused or dropped connection, a server shutting down or starting up are
    the driver's OperationalError (or InterfaceError on a closed connection);
    a wrong query or a broken constraint is not, and is never retried.
    """
    if not isinstance(exc, DBAPIError):
        return False
    return exc.connection_invalidated or isinstance(exc, (OperationalError, InterfaceError))


@dataclass
class Reconnect:
    """Retries a unit of work whose connection was lost, each time in a fresh transaction.

    ``run(work)`` calls ``work(attempt)``; the work is one whole transaction, so
    a try that failed left nothing behind, except when the commit reached the
    server and its reply did not: ``attempt > 0`` tells the work to check for
    that (an answer looks for its uid). After the last wait the server counts
    as away: until ``probe_every`` seconds pass, calls fail at once, then one
    call tries it again. The clock and sleep are injected for tests.
    """

    delays: tuple[float, ...] = RETRY_DELAYS
    probe_every: float = PROBE_EVERY
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    away: bool = False
    tried_at: float = 0.0
    reason: str = ""

    def run(self, work: Callable[[int], T]) -> T:
        if self.away and self.clock() - self.tried_at < self.probe_every:
            raise ServerAway(self.reason)
        waits = () if self.away else self.delays
        attempt = 0
        while True:
            try:
                result = work(attempt)
            except DBAPIError as exc:
                if not connection_lost(exc):
                    raise
                if attempt >= len(waits):
                    self.away = True
                    self.tried_at = self.clock()
                    self.reason = describe_database_error(exc) or type(exc).__name__
                    raise ServerAway(self.reason) from exc
                self.sleep(waits[attempt])
                attempt += 1
            else:
                self.away = False
                return result


def _say_waiting() -> None:
    print(f"studyapp: {LOCK_WAIT_MESSAGE}", file=sys.stderr, flush=True)


@dataclass
class LockNotice:
    """Told once per wait when another process holds the write lock (faces may replace it)."""

    callback: Callable[[], None] = _say_waiting


def display_url(url: str | URL) -> str:
    """The URL as it may be shown to a user: never with its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", str(url))


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


def _parse(url: str) -> URL:
    """The URL parsed, or a clear refusal of one studyapp cannot use."""
    try:
        parsed = make_url(url)
        _ = parsed.port  # a port that is not a number fails here, not in the driver
    except (ArgumentError, ValueError) as exc:
        shown = display_url(url)  # a password is never echoed
        why = " (its port is not a number)" if isinstance(exc, ValueError) else ""
        raise StoreError(
            f"{shown!r} is not a database URL{why}; give a file as sqlite:///PATH or a server "
            f"as postgresql+psycopg://USER@HOST/DB") from None
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise StoreError(f"{display_url(parsed)}: studyapp stores progress in SQLite or "
                         f"PostgreSQL, not {backend}")
    if backend == "sqlite" and (not parsed.database or parsed.database == ":memory:"):
        raise StoreError(f"{display_url(parsed)} is an in-memory database: every answer would "
                         f"be lost on exit; give a file, for example sqlite:///study.sqlite3")
    return parsed


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
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise StoreError(f"{path} is a folder, not a database file; give a file path "
                         f"(for example {path / 'studyapp.sqlite3'})")
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(f"{path} is not a regular file; give a database file with --db")
    if info.st_size == 0:
        return
    try:
        with path.open("rb") as fh:
            header = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if header != SQLITE_MAGIC:
        raise StoreError(
            f"{path} is not an SQLite database (it may be corrupt); it was left untouched. "
            f"Move it aside (for example: mv '{path}' '{path}.bak') or choose another "
            f"database with --db."
        )


def _unwritable(path: Path) -> str | None:
    """Why an existing database file cannot be written to, or None when it can."""
    if not path.exists():
        return None
    for place in (path, path.parent):
        if not os.access(place, os.W_OK):
            return f"the database {path} is read-only ({place} is not writable)"
    return None


def _on_sqlite_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.close()


def _is_locked(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _begin_write(dbapi_connection: sqlite3.Connection, notice: LockNotice) -> None:
    """BEGIN IMMEDIATE, waiting as long as another process writes, and saying so once."""
    dbapi_connection.execute(f"PRAGMA busy_timeout = {LOCK_POLL_MS}")
    try:
        told = False
        while True:
            try:
                dbapi_connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _is_locked(exc):
                    raise
                if not told:
                    notice.callback()
                    told = True
    finally:
        dbapi_connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


def make_engine(url: str, *, immediate: bool = False, notice: LockNotice | None = None,
                read_only: str | None = None) -> Engine:
    """An engine with WAL, a busy timeout and foreign keys on SQLite.

    ``immediate`` makes every transaction take SQLite's write lock up front,
    with pysqlite's own transaction handling off, so DDL is transactional too.
    ``read_only`` ("mode=ro" or "immutable=1") opens the file read-only.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        connect_args: dict[str, Any] = {"timeout": BUSY_TIMEOUT_MS / 1000}
        if read_only and parsed.database:
            uri = f"{Path(parsed.database).resolve().as_uri()}?{read_only}"

            def _connect_read_only() -> sqlite3.Connection:
                return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                       check_same_thread=False)

            engine = create_engine(parsed, creator=_connect_read_only)
        else:
            engine = create_engine(parsed, connect_args=connect_args)
        event.listen(engine, "connect", _on_sqlite_connect)
        if immediate:
            waiting = notice or LockNotice()

            def _autocommit_driver(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
                dbapi_connection.isolation_level = None

            def _begin_immediate(conn: Any) -> None:
                _begin_write(conn.connection.driver_connection, waiting)

            event.listen(engine, "connect", _autocommit_driver)
            event.listen(engine, "begin", _begin_immediate)
        return engine
    # a connection checked out after the server restarted is tested and replaced
    # (pool_pre_ping); one to a server that does not answer gives up in time
    timeout = {} if "connect_timeout" in parsed.query else {"connect_timeout": CONNECT_TIMEOUT_S}
    return create_engine(parsed, pool_pre_ping=True, connect_args=timeout)


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


def studyapp_version() -> str | None:
    """The installed studyapp's version, as a schema's note names it."""
    from importlib.metadata import PackageNotFoundError, version

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


def describe_database_error(exc: BaseException) -> str | None:
    """One line for a database failure met after opening (a corrupt page, a lost server)."""
    if isinstance(exc, DBAPIError):
        original = exc.orig if exc.orig is not None else exc
        text = str(original).strip().splitlines()[0] if str(original).strip() else ""
        return f"database error: {text or type(original).__name__}"
    if isinstance(exc, sqlite3.DatabaseError):
        return f"database error: {exc}"
    return None
