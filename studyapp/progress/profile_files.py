"""Progress files: export, import and backup of one profile."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Sequence
from datetime import tzinfo
from pathlib import Path
from typing import IO, Literal

from studyapp.files import open_regular, replacing
from studyapp.progress.sources import ProgressSource
from studyapp.srs.optimize import ReviewEvent, entries_by_card
from studyapp.srs.revlog import ignore_before_setting, replay
from studyapp.srs.scheduler import Scheduler, SchedulerSettings
from studyapp.store.backup import backup_sqlite
from studyapp.store.progress import NewState
from studyapp.store.progress_files import (
    ImportResult,
    LogRow,
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


def answer_replay(settings: SchedulerSettings, zone: tzinfo | None = None) -> Replay:
    """A card's state rebuilt from its whole log in time order, with this scheduler, read
    as Anki's FSRS reads it and as ``optimize`` and the recompute read it
    (``srs.revlog.replay``): cram answers, Forget and Set due date are no answers, a Forget
    cuts what came before, and so does the profile's "ignore reviews before" date."""
    scheduler = Scheduler(settings, zone)
    cutoff = ignore_before_setting(settings.ignore_reviews_before)

    def replay_card(card_id: int, log: Sequence[LogRow]) -> NewState | None:
        entries = entries_by_card(ReviewEvent.logged(card_id, *row) for row in log)
        memory = replay(scheduler, card_id, entries.get(card_id, []), ignore_before=cutoff)
        if memory is None or memory.last_review is None:
            return None
        return NewState(int(memory.stage), memory.step, memory.stability, memory.difficulty,
                        memory.due or memory.last_review, memory.last_review, memory.reps,
                        memory.lapses, scheduler.is_leech(memory))

    return replay_card


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
