"""Engines: SQLite files checked before they are opened, WAL, busy waits and write locks.

A file that is not SQLite is refused untouched; a writer waiting for
another process's lock says so once and keeps waiting; a server that does
not answer gives up in time.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from studyapp.store.reconnect import StoreError

SQLITE_MAGIC = b"SQLite format 3\x00"

BUSY_TIMEOUT_MS = 30_000

LOCK_POLL_MS = 1_000
"""How long a writer waits for SQLite's write lock before saying so (then it keeps waiting)."""

LOCK_WAIT_MESSAGE = "another studyapp is writing, waiting..."

CONNECT_TIMEOUT_S = 10
"""How long a connection to a server may take before it counts as away."""


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
