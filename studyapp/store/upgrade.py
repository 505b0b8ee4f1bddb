"""``db upgrade``: the one way a shared database's schema changes, after a backup.

On PostgreSQL the backup is ``pg_dump`` of the schema studyapp uses, in its
custom format (``pg_restore`` reads it back), written beside the other
backups under a temporary name and renamed when complete. Without
``pg_dump`` nothing is changed: the message says how to back up by hand and
how to go on once that is done. On SQLite the copy is the one every upgrade
of a learner's file takes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import URL, make_url

from studyapp.store.database import (
    HEAD,
    REVISIONS,
    StoreError,
    _migration_lock,
    current_revision,
    display_url,
    make_engine,
    migrate,
    newer_schema_error,
    open_store,
)

PG_DUMP_SECONDS = 3600


@dataclass(frozen=True)
class Upgrade:
    """What ``db upgrade`` did: the revisions before and after, and where the backup is."""

    before: str | None
    after: str
    backup: Path | None
    class_roles: bool = False  # the class's grants and policies were laid again
    dumped: bool = False  # the backup is a pg_dump archive (else a copy of the SQLite file)


def _by_hand(url: str, schema: str) -> str:
    """The pg_dump command a user runs to back up the database themselves."""
    parsed = make_url(url)
    parts = ["pg_dump", "-Fc"]
    if parsed.host:
        parts += ["-h", parsed.host]
    if parsed.port:
        parts += ["-p", str(parsed.port)]
    if parsed.username:
        parts += ["-U", parsed.username]
    parts += ["-n", schema, "-f", "BACKUP.dump", str(parsed.database or "")]
    return " ".join(parts)


def pg_backup(url: str, schema: str, folder: Path, revision: str) -> Path:
    """Dump ``schema`` of the database at ``url`` into ``folder``; the dump's path."""
    parsed = make_url(url)
    program = shutil.which("pg_dump")
    if program is None:
        raise StoreError(f"pg_dump was not found, so no backup was taken and nothing was "
                         f"changed: install PostgreSQL's client tools (Debian and Ubuntu: apt "
                         f"install postgresql-client), or back up by hand "
                         f"({_by_hand(url, schema)}) and then run: "
                         f"studyapp --db URL db upgrade --no-backup")
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = folder / f"{parsed.database}-{schema}-{revision}-{stamp}.dump"
    partial = target.with_name(f".{target.name}.partial")
    libpq = URL.create("postgresql", username=parsed.username, host=parsed.host,
                       port=parsed.port, database=parsed.database,
                       query=parsed.query).render_as_string(hide_password=False)
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    try:
        done = subprocess.run([program, "-Fc", "-n", schema, "-f", str(partial), "-d", libpq],
                              env=env, capture_output=True, text=True, timeout=PG_DUMP_SECONDS,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        partial.unlink(missing_ok=True)
        raise StoreError(f"pg_dump failed ({exc}); nothing was changed") from None
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise StoreError(f"pg_dump failed, so nothing was changed: {why} (back up by hand, "
                         f"{_by_hand(url, schema)}, then run: studyapp --db URL db upgrade "
                         f"--no-backup)")
    os.replace(partial, target)
    return target


def upgrade_database(url: str, backup_folder: Path, *, backup: bool = True) -> Upgrade:
    """Bring the database's schema to ``HEAD``, after a backup; lay the class's roles again.

    Refused when the connected login does not own the schema (the server
    would refuse the DDL anyway, half-way; this says so first).
    """
    engine = make_engine(url)
    try:
        before = current_revision(engine)
        if before is not None and before not in REVISIONS:
            raise newer_schema_error(engine, display_url(url), before)
        if engine.dialect.name != "postgresql":
            open_store(url, upgrade=True).close()  # a learner's file: backed up, then migrated
            path = make_url(url).database
            from studyapp.store.backup import migration_backup_path

            kept = (migration_backup_path(Path(path), before)
                    if path and before and before != HEAD else None)
            return Upgrade(before=before, after=HEAD, backup=kept)
        from studyapp.store.roles import class_is_set_up, setup_class

        with engine.connect() as conn:
            schema = str(conn.execute(text("SELECT current_schema()")).scalar())
            owns = conn.execute(text(
                "SELECT r.rolsuper OR c.oid IS NULL OR pg_has_role(current_user, c.relowner, "
                "'USAGE') FROM pg_roles r LEFT JOIN pg_class c ON c.oid = "
                "to_regclass('alembic_version') WHERE r.rolname = current_user")).scalar()
        if not owns:
            raise StoreError("only the database's owner (the login that created its tables) "
                             "can upgrade it; ask them to run: studyapp --db URL db upgrade")
        copy: Path | None = None
        with _migration_lock(engine, None):
            before = current_revision(engine)
            if before != HEAD:
                if backup and before is not None:
                    copy = pg_backup(url, schema, backup_folder, before)
                migrate(engine, HEAD)
        relaid = class_is_set_up(engine)
        if relaid:
            setup_class(engine)  # a new table gets the class's grants and policies
        return Upgrade(before=before, after=HEAD, backup=copy, class_roles=relaid,
                       dumped=copy is not None)
    finally:
        engine.dispose()


__all__ = ["Upgrade", "pg_backup", "upgrade_database"]
