"""Consistent copies of an SQLite database (SQLite's online backup API)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine


def backup_sqlite(source: Path, target: Path) -> Path:
    """Copy ``source`` to ``target`` while others may be writing to it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()
    return target


def backup_before_migration(engine: Engine, path: Path, revision: str) -> Path:
    """Keep the pre-migration database next to it, stamped with its revision."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return backup_sqlite(path, path.with_name(f"{path.name}.{revision}.{stamp}.bak"))
