"""Progress files: export, import and backup of one profile."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, Literal

from studyapp.files import open_regular, replacing
from studyapp.progress.sources import ProgressSource
from studyapp.srs.scheduler import Memory, Rating, Scheduler, SchedulerSettings
from studyapp.store.backup import backup_sqlite
from studyapp.store.progress import NewState
from studyapp.store.progress_files import (
    ImportResult,
    Replay,
    import_progress,
    read_export,
    write_csv,
    write_json,
)


def export_progress(service: ProgressSource, out: IO[str], fmt: Literal["csv", "json"]) -> int:
    """Write the profile's cards, answers and parameters to ``out``; returns the records."""
    if fmt == "json":
        return int(write_json(service.store, service.profile, out, service.now()))
    return int(write_csv(service.store, service.profile, out))


def export_file(service: ProgressSource, target: Path, fmt: Literal["csv", "json"]) -> int:
    """Export into ``target`` through a fresh temporary file: no half file, no symlink followed."""
    with replacing(target, newline="") as fh:
        return export_progress(service, fh, fmt)


ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")
"""How a zip file (an Anki package) begins: a first member, or no member at all."""


def is_package(path: Path) -> bool:
    """Whether ``path`` is a zip file (an Anki package) rather than a progress export.

    Only its first bytes are read, from a regular file: a device or pipe is
    refused (``FileRefused``) before anything is read.
    """
    with open_regular(path, sys.maxsize, what="file to import") as handle:
        return handle.read(4) in ZIP_STARTS


def import_file(service: ProgressSource, path: Path) -> ImportResult:
    """Merge an export file into the profile; importing a file twice changes nothing.

    A card that gains answers is rescheduled from all of them in time order, so
    two copies of one profile merge into one history and one schedule.
    """
    return import_progress(service.store, service.profile.id, read_export(path),
                           answer_replay(service.settings))


def answer_replay(settings: SchedulerSettings) -> Replay:
    """A card's state rebuilt from all its answers in time order, with this scheduler."""
    scheduler = Scheduler(settings)

    def replay(card_id: int, answers: Sequence[tuple[datetime, int]]) -> NewState:
        memory = Memory(card_id=card_id)
        for at, rating in answers:
            memory = scheduler.review(memory, Rating(rating), at)
        last = answers[-1][0]
        return NewState(int(memory.stage), memory.step, memory.stability, memory.difficulty,
                        memory.due or last, memory.last_review or last, memory.reps,
                        memory.lapses, scheduler.is_leech(memory))

    return replay


class BackupError(Exception):
    """A backup that cannot be made; the message is meant for the user."""


def backup_database(service: ProgressSource, target: Path) -> Path:
    """A consistent copy of the SQLite database, safe while studying goes on."""
    path = service.store.sqlite_path()
    if path is None:
        raise BackupError("backup copies an SQLite database; for PostgreSQL use pg_dump")
    try:
        return backup_sqlite(path, target)
    except (OSError, sqlite3.Error) as exc:
        raise BackupError(f"backup failed: {exc}") from exc
