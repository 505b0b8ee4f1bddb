"""An upgrade killed at any moment is retried cleanly, with one backup at most.

Each trial starts a process that upgrades a database of the first schema with
many answers, kills it with SIGKILL at a moment within the time a whole run
takes (``kill_runs``), then opens the database again: it must open at the
newest schema, with every answer it had, and with one pre-upgrade backup.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from kill_runs import TRIALS, forked_runs, kill_moments
from store_answers import FIRST_SCHEMA, old_database

from studyapp.store import HEAD, open_store
from studyapp.store.backup import backup_before_migration
from studyapp.store.database import current_revision

OLD = FIRST_SCHEMA
REVIEWS = 20_000


def _reviews(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM review_logs").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.slow
def test_upgrade_killed_at_random_points_is_retried_cleanly(tmp_path: Path) -> None:
    template = tmp_path / "template.sqlite3"
    old_database(template, REVIEWS)
    timing = tmp_path / "timing.sqlite3"
    shutil.copy(template, timing)
    with forked_runs() as runs:
        whole = runs.timed_run(f"sqlite:///{timing}")
        killed_during_upgrade = 0
        for trial, moment in enumerate(kill_moments(whole, seed=17)):
            folder = tmp_path / f"t{trial}"
            folder.mkdir()
            path = folder / "studyapp.sqlite3"
            shutil.copy(template, path)
            url = f"sqlite:///{path}"
            runs.kill_after(url, moment)
            killed_during_upgrade += list(folder.glob("*.bak")) != [] or any(
                folder.glob(".*.partial"))
            store = open_store(url)  # the retry
            try:
                assert current_revision(store.engine) == HEAD, trial
            finally:
                store.close()
            assert _reviews(path) == REVIEWS, trial
            backups = list(folder.glob("*.bak"))
            assert [b.name for b in backups] == [f"studyapp.sqlite3.{OLD}.bak"], trial
            assert not list(folder.glob(".*.partial")), trial
            assert _reviews(backups[0]) == REVIEWS, trial
            conn = sqlite3.connect(backups[0])
            assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == OLD
            conn.close()
            shutil.rmtree(folder)
    assert killed_during_upgrade >= TRIALS // 4  # the kills did land inside the upgrade


def test_upgrade_backup_is_made_once(tmp_path: Path) -> None:
    path = tmp_path / "studyapp.sqlite3"
    open_store(f"sqlite:///{path}", migrate_to=OLD).close()
    first = backup_before_migration(path, OLD)
    stamp = first.stat().st_mtime_ns
    time.sleep(0.01)
    again = backup_before_migration(path, OLD)
    assert again == first and again.stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.glob("*.bak")] == [first.name]
