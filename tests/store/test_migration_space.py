"""An upgrade checks for room first, and a disk that fills during it leaves the database
as it was, with no temporary table, and a message that says so.

SQLite's ALTER TABLE copies a table into ``_alembic_tmp_<name>`` and swaps it in;
with the copy kept before the upgrade and the write-ahead log, an upgrade needs
several times the database's size. When the disk filled, SQLite rolled the
transaction back and the user read "no such table: _alembic_tmp_review_logs".
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import store_answers

from studyapp.locations import sqlite_url
from studyapp.store import HEAD, StoreError, database, open_store
from studyapp.store.database import MIGRATION_SPACE_FACTOR, current_revision

OLD = store_answers.FIRST_SCHEMA


def old_database(path: Path, reviews: int) -> None:
    """A database at the first schema revision with ``reviews`` long answers."""
    store_answers.old_database(path, reviews, prompt_words=12)


def contents(path: Path) -> tuple[object, ...]:
    """Schema revision, every table's name, the answers and the check SQLite makes."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return (conn.execute("SELECT version_num FROM alembic_version").fetchall(),
                sorted(r[0] for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")),
                conn.execute("SELECT count(*), sum(length(prompt)), max(uid) FROM review_logs"
                             ).fetchall(),
                conn.execute("PRAGMA integrity_check").fetchall())
    finally:
        conn.close()


def tables(path: Path) -> list[str]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    finally:
        conn.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[int], Path]]:
    """Mounts a tmpfs of the given bytes for the test; returns its folder."""
    mounted: list[Path] = []

    def mount(size: int) -> Path:
        folder = tmp_path / f"disk{len(mounted)}"
        folder.mkdir()
        if os.geteuid() != 0:
            pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
        if shutil.which("mount") is None:
            pytest.skip("no mount command here")
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                               str(folder)], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(folder)
        return folder

    yield mount
    for folder in mounted:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_disk_that_fills_during_the_upgrade_leaves_the_database_as_it_was(
        tmp_path: Path, small_disk: Callable[[int], Path], monkeypatch: pytest.MonkeyPatch) -> None:
    template = tmp_path / "template.sqlite3"
    old_database(template, 30_000)
    size = template.stat().st_size
    disk = small_disk(int(size * 2.6) // 4096 * 4096)
    path = disk / "studyapp.sqlite3"
    shutil.copy(template, path)
    before = contents(path)
    # the check before the upgrade is passed: the disk fills up during it (another
    # program writing there, or a sparse file growing)
    monkeypatch.setattr(database, "free_bytes", lambda folder: 10**15)
    with pytest.raises(StoreError) as failed:
        open_store(sqlite_url(path))
    message = str(failed.value)
    assert "_alembic_tmp" not in message and "no such table" not in message
    assert message.startswith(f"the upgrade of {path} stopped: the disk filled up; it needs "
                              f"about ")
    assert f"MB free in {disk}; the database was left as it was (schema {OLD}); the copy " \
           f"taken before the upgrade is {path}.{OLD}.bak." in message
    assert contents(path) == before
    assert not any(name.startswith("_alembic_tmp") for name in tables(path))
    assert contents(Path(f"{path}.{OLD}.bak")) == before
    # on a disk with room, the same file upgrades
    roomy = tmp_path / "roomy.sqlite3"
    shutil.copy(path, roomy)
    monkeypatch.undo()
    store = open_store(sqlite_url(roomy))
    try:
        assert current_revision(store.engine) == HEAD
    finally:
        store.close()


def test_a_disk_too_small_for_the_copy_before_the_upgrade_is_said_so(
        tmp_path: Path, small_disk: Callable[[int], Path], monkeypatch: pytest.MonkeyPatch) -> None:
    template = tmp_path / "template.sqlite3"
    old_database(template, 30_000)
    size = template.stat().st_size
    disk = small_disk(int(size * 1.5) // 4096 * 4096)
    path = disk / "studyapp.sqlite3"
    shutil.copy(template, path)
    before = contents(path)
    monkeypatch.setattr(database, "free_bytes", lambda folder: 10**15)
    with pytest.raises(StoreError, match=rf"cannot copy {path} before its upgrade from schema "
                                         rf"{OLD}: the disk is full \(the upgrade needs about "
                                         rf"\d+ MB free in {disk}\); it was left untouched"):
        open_store(sqlite_url(path))
    assert contents(path) == before
    left = {p.name for p in disk.iterdir()} - {"studyapp.sqlite3-wal", "studyapp.sqlite3-shm"}
    assert left == {"studyapp.sqlite3", "studyapp.sqlite3.lock"}  # no half copy, no journal


def test_the_free_space_is_checked_before_anything_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "studyapp.sqlite3"
    old_database(path, 2_000)
    needed = int(path.stat().st_size * MIGRATION_SPACE_FACTOR) + 1
    raw = path.read_bytes()
    asked: list[Path] = []

    def free(folder: Path) -> int:
        asked.append(folder)
        return needed - 2

    monkeypatch.setattr(database, "free_bytes", free)
    with pytest.raises(StoreError) as refused:
        open_store(sqlite_url(path))
    assert asked == [tmp_path]
    assert str(refused.value) == (
        f"the database {path} needs an upgrade from schema {OLD}, which needs "
        f"{-(-needed // 10**6)} MB free in {tmp_path} (about 4.7 times its size); "
        f"{(needed - 2) // 10**6} MB are free. It was left untouched: free some space, or "
        f"move it to a larger disk, and open it again.")
    assert path.read_bytes() == raw
    assert sorted(p.name for p in tmp_path.iterdir()) == ["studyapp.sqlite3",
                                                          "studyapp.sqlite3.lock"]
    monkeypatch.setattr(database, "free_bytes", lambda folder: needed)
    open_store(sqlite_url(path)).close()
    assert contents(path)[0] == [(HEAD,)]


def test_a_copy_kept_from_an_earlier_try_counts_as_room_already_taken(tmp_path: Path) -> None:
    path = tmp_path / "studyapp.sqlite3"
    old_database(path, 2_000)
    alone = database.migration_space(path, OLD)
    assert alone == -(-path.stat().st_size * 47 // 10)
    shutil.copy(path, tmp_path / f"studyapp.sqlite3.{OLD}.bak")
    assert database.migration_space(path, OLD) == alone - path.stat().st_size


def test_temporary_tables_left_by_an_older_upgrade_are_removed(tmp_path: Path) -> None:
    path = tmp_path / "studyapp.sqlite3"
    old_database(path, 100)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE _alembic_tmp_review_logs (id INTEGER)")
    conn.close()
    open_store(sqlite_url(path)).close()
    assert not [t for t in tables(path) if t.startswith("_alembic_tmp")]
    assert contents(path)[0] == [(HEAD,)]


def test_an_upgrade_that_fails_for_another_reason_says_which_and_where_things_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "studyapp.sqlite3"
    old_database(path, 100)
    before = contents(path)
    real = database.migrate

    def half_then_fail(engine: object, target: str = HEAD) -> None:
        real(engine, "0003_session_queue")  # type: ignore[arg-type]
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(database, "migrate", half_then_fail)
    with pytest.raises(StoreError) as failed:
        open_store(sqlite_url(path))
    assert str(failed.value) == (
        f"the upgrade of {path} stopped: disk I/O error; the database is at schema "
        f"0003_session_queue; the copy taken before the upgrade is {path}.{OLD}.bak. Open it "
        f"again once this is fixed.")
    assert contents(Path(f"{path}.{OLD}.bak")) == before
