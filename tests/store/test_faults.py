"""A first run or an upgrade killed at any moment leaves a database that opens.

Each trial starts a process that creates or upgrades a database, kills it
with SIGKILL after a random delay within the time a whole run takes, then
opens the database again: it must open at the newest schema, with every
answer it had, and with one pre-upgrade backup at most.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from store_answers import FIRST_SCHEMA, old_database

from studyapp.store import HEAD, open_store
from studyapp.store.database import current_revision

TRIALS = 50
# imports first, then "ready", then the work the kill should land in
OPEN = ("import sys; import alembic.command; from studyapp.store import open_store; "
        "import studyapp.store.backup; print('ready', flush=True); "
        "open_store(sys.argv[1]).close()")
OLD = FIRST_SCHEMA
REVIEWS = 20_000


def _run(url: str) -> subprocess.Popen[bytes]:
    """The process, once its imports are done and its database work begins."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2]))
    proc = subprocess.Popen([sys.executable, "-c", OPEN, url], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    return proc


def _timed_run(url: str) -> float:
    """Seconds the database work of a whole run takes (imports excluded)."""
    proc = _run(url)
    start = time.monotonic()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    return time.monotonic() - start


def _kill_after(url: str, delay: float) -> None:
    proc = _run(url)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)


def _old_database(path: Path) -> int:
    """A database at the first schema revision with REVIEWS answers; returns their count."""
    old_database(path, REVIEWS)
    return REVIEWS


def _reviews(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM review_logs").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.slow
def test_first_run_killed_at_random_points_opens_afterwards(tmp_path: Path) -> None:
    rng = random.Random(13)
    whole = _timed_run(f"sqlite:///{tmp_path / 'timing.sqlite3'}")
    for trial in range(TRIALS):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        url = f"sqlite:///{folder / 'studyapp.sqlite3'}"
        _kill_after(url, rng.uniform(0, whole))
        store = open_store(url)
        try:
            assert current_revision(store.engine) == HEAD, trial
        finally:
            store.close()
        shutil.rmtree(folder)


@pytest.mark.slow
def test_upgrade_killed_at_random_points_is_retried_cleanly(tmp_path: Path) -> None:
    rng = random.Random(17)
    template = tmp_path / "template.sqlite3"
    answers = _old_database(template)
    timing = tmp_path / "timing.sqlite3"
    shutil.copy(template, timing)
    whole = _timed_run(f"sqlite:///{timing}")
    killed_during_upgrade = 0
    for trial in range(TRIALS):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        path = folder / "studyapp.sqlite3"
        shutil.copy(template, path)
        url = f"sqlite:///{path}"
        _kill_after(url, rng.uniform(0, whole))
        killed_during_upgrade += list(folder.glob("*.bak")) != [] or any(
            folder.glob(".*.partial"))
        store = open_store(url)  # the retry
        try:
            assert current_revision(store.engine) == HEAD, trial
        finally:
            store.close()
        assert _reviews(path) == answers, trial
        backups = list(folder.glob("*.bak"))
        assert [b.name for b in backups] == [f"studyapp.sqlite3.{OLD}.bak"], trial
        assert not list(folder.glob(".*.partial")), trial
        assert _reviews(backups[0]) == answers, trial
        conn = sqlite3.connect(backups[0])
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == OLD
        conn.close()
        shutil.rmtree(folder)
    assert killed_during_upgrade >= TRIALS // 4  # the kills did land inside the upgrade


def test_upgrade_backup_is_made_once(tmp_path: Path) -> None:
    path = tmp_path / "studyapp.sqlite3"
    open_store(f"sqlite:///{path}", migrate_to=OLD).close()
    from studyapp.store.backup import backup_before_migration

    first = backup_before_migration(path, OLD)
    stamp = first.stat().st_mtime_ns
    time.sleep(0.01)
    again = backup_before_migration(path, OLD)
    assert again == first and again.stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.glob("*.bak")] == [first.name]
