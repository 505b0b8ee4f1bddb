"""Consistent copies of an SQLite database (SQLite's online backup API).

A copy is written to a temporary file beside its target and renamed over it
only when complete, so a copy killed half-way never sits under the final name.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path


def _partial(target: Path) -> Path:
    return target.with_name(f".{target.name}.partial")


def backup_sqlite(source: Path, target: Path) -> Path:
    """Copy ``source`` to ``target`` while others may be writing to it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = _partial(target)
    _remove_partial(partial)
    src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        finally:
            dst.close()
        with open(partial, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(partial, target)
    except BaseException:
        _remove_partial(partial)
        raise
    finally:
        src.close()
    return target


def _remove_partial(partial: Path) -> None:
    """The half-written copy and the files SQLite keeps beside it while writing."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            partial.with_name(partial.name + suffix).unlink()


def migration_backup_path(path: Path, revision: str) -> Path:
    """Where the copy of ``path`` taken before upgrading it from ``revision`` lives."""
    return path.with_name(f"{path.name}.{revision}.bak")


def _fingerprint(path: Path) -> tuple[object, ...] | None:
    """Schema revision and answer counters: equal means no answer was added or removed since."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        logs = conn.execute("SELECT count(*), max(id) FROM review_logs").fetchone()
        cards = conn.execute("SELECT count(*), max(id), max(last_review) FROM card_states"
                             ).fetchone()
        return (revision, *logs, *cards)
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def backup_before_migration(path: Path, revision: str) -> Path:
    """Keep the pre-upgrade database next to it, once per schema revision.

    The upgrade is one transaction, so a database still at ``revision`` after
    a killed or failed upgrade is the one already copied: a retry keeps that
    copy instead of writing another full one (unless answers changed since).
    """
    target = migration_backup_path(path, revision)
    _remove_partial(_partial(target))  # left by a copy that was killed
    if target.exists():
        kept = _fingerprint(target)
        if kept is not None and kept == _fingerprint(path):
            return target
    return backup_sqlite(path, target)
