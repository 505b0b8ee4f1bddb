"""Shared test set-up: every test gets its own user folder.

Benchmarks in tests/perf run only when asked for (``python -m pytest tests/perf``).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from backends import PG_URL, fresh_pg_schema
from compiled_modules import keep_compiled_modules
from deck_cache import seed_new_caches
from hypothesis import settings
from zones import local_time_zone

# Property tests draw the same examples on every run, so a red run is the code's doing
# and can be repeated; no deadline, as a loaded machine is not a slow function.
# ``HYPOTHESIS_PROFILE=explore`` draws new and more examples when looking for bugs.
settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.register_profile("explore", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

PERF = Path(__file__).parent / "perf"
STORE_TESTS = Path(__file__).parent / "store"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Two test processes a core for ``-n auto``: the terminal, browser and server tests
    spend much of their time waiting on a child process or a redraw, and a second process
    uses that time. On two cores, in ``.ci/run``, the suite took 356-365 s with four
    processes and 378 s with three (twice); 423 s with two.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still sets the number."""
    return 2 * len(os.sched_getaffinity(0))


MEMORY = Path("/dev/shm")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Test folders in memory, and compiled modules kept between processes."""
    _folders_in_memory(config)
    keep_compiled_modules(config)


def _folders_in_memory(config: pytest.Config) -> None:
    """Every test's folders under ``/dev/shm`` where the machine has it.

    Tests write SQLite databases and Anki collections, and each commit waits for the
    disk to sync: on a busy disk one Anki health check waited 24 s while computing for
    one. In memory the same files are written and read back the same way. The run's
    own folder (workers of a parallel run get theirs inside it) is removed at the end;
    ``--basetemp`` still chooses another place.
    """
    if config.option.basetemp or hasattr(config, "workerinput") or not MEMORY.is_dir() \
            or not os.access(MEMORY, os.W_OK | os.X_OK):
        return
    config.option.basetemp = tempfile.mkdtemp(dir=MEMORY, prefix="studyapp-pytest-")
    config.add_cleanup(lambda: shutil.rmtree(config.option.basetemp, ignore_errors=True))


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip tests/perf unless a command-line argument points into it."""
    if collection_path == PERF or PERF in collection_path.parents:
        asked = [Path(a.split("::")[0]).resolve() for a in config.args]
        if not any(a == PERF or PERF in a.parents for a in asked):
            return True
    return None


@pytest.fixture(scope="session")
def _checked_builtin_decks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A deck cache holding the built-in decks, checked once per test process.

    Checking the shipped decks takes seconds, and every test has a fresh user
    folder, so each test that lists decks would check them all again. A cache
    entry is keyed by the file's bytes, its path and the catalog files, and
    holds exactly what checking gives, so a test reading it sees the same decks.
    """
    from studyapp.decks.library import discover_decks

    home = tmp_path_factory.mktemp("warm-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STUDYAPP_HOME", str(home))
        discover_decks()
    return home / "cache"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                   request: pytest.FixtureRequest) -> Path:
    """STUDYAPP_HOME in a temporary folder; no stray STUDYAPP_DB or profile.

    Its deck cache starts with the built-in decks already checked, unless the
    test is marked ``cold_deck_cache`` (tests of the cache itself).
    """
    home = tmp_path_factory.mktemp("home")
    if not request.node.get_closest_marker("cold_deck_cache"):
        shutil.copytree(request.getfixturevalue("_checked_builtin_decks"), home / "cache")
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    monkeypatch.delenv("STUDYAPP_DB", raising=False)
    monkeypatch.delenv("STUDYAPP_PROFILE", raising=False)
    return home


@pytest.fixture(autouse=True)
def _checked_decks_in_every_home(_isolated_home: Path, request: pytest.FixtureRequest,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A user folder a test switches to in-process starts with the checked built-in
    decks, as the test's own folder does (tests/deck_cache.py); not for tests of the
    cache itself."""
    if not request.node.get_closest_marker("cold_deck_cache"):
        seed_new_caches(monkeypatch)


@pytest.fixture(scope="session")
def _migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Any], None]:
    """Lay out a new SQLite database as Alembic leaves it at the newest schema.

    Alembic runs once per test process, on a template; its schema (the SQL
    SQLite kept for every table, index and trigger) and its rows are then
    written into each empty database a test opens, in one transaction, a
    fraction of the time of running every migration again.
    """
    from studyapp.store import database

    template = tmp_path_factory.mktemp("schema") / "template.sqlite3"
    with pytest.MonkeyPatch.context() as patch:  # the real migrations, not this shortcut
        patch.setattr(database, "migrate", getattr(database.migrate, "__wrapped__",
                                                   database.migrate))
        database.open_store(f"sqlite:///{template}").close()
    with sqlite3.connect(template) as con:
        kinds = "CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END"
        found = con.execute(f"SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                            f"AND name NOT LIKE 'sqlite_%' ORDER BY {kinds}, rowid").fetchall()
        schema = [sql for _, _, sql in found]
        rows = {name: con.execute(f'SELECT * FROM "{name}"').fetchall()
                for kind, name, _ in found if kind == "table"}
    con.close()

    def lay_out(engine: Any) -> None:
        with engine.begin() as conn:
            for sql in schema:
                conn.exec_driver_sql(sql)
            for name, values in rows.items():
                if values:
                    marks = ", ".join("?" * len(values[0]))
                    conn.exec_driver_sql(f'INSERT INTO "{name}" VALUES ({marks})', values)

    return lay_out


@pytest.fixture(autouse=True)
def _migrations_from_template(request: pytest.FixtureRequest,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """New SQLite databases get the newest schema from a template, outside tests/store.

    The store's tests (tests/store) run the real migrations every time: they
    test upgrades, races and failures part-way. Everywhere else a database is
    only where a test keeps its progress; an empty SQLite one is laid out as
    the migrations would leave it. Older targets, PostgreSQL and databases
    that already hold tables still go through Alembic.
    """
    if STORE_TESTS in request.path.parents:
        return
    from studyapp.store import database
    from studyapp.store.schema_version import HEAD

    migrate = database.migrate

    def from_template(engine: Any, target: str = HEAD) -> None:
        if engine.dialect.name == "sqlite" and target == HEAD:
            with engine.connect() as conn:
                empty = conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar() == 0
            if empty:
                request.getfixturevalue("_migrated_sqlite")(engine)
                return
        migrate(engine, target)

    from_template.__wrapped__ = migrate  # type: ignore[attr-defined]
    monkeypatch.setattr(database, "migrate", from_template)


@pytest.fixture(autouse=True)
def _midday_zone(request: pytest.FixtureRequest) -> Iterator[None]:
    """A local time zone in which the test starts near noon.

    A study day rolls over at 04:00 local time, so a learning step taken a
    few minutes before it lands on the next day and is not shown again today,
    as in Anki. Tests of one day's flow must not depend on the hour CI runs
    them. A test whose clock is fixed in UTC and whose study days are read
    in UTC says so with ``@pytest.mark.utc_days``; tests of other zones set
    their own. ``STUDYAPP_TEST_UTC_HOUR`` picks the zone as if the suite ran
    at that UTC hour, to try the whole suite in zones east and west of UTC.
    """
    if request.node.get_closest_marker("utc_days"):
        zone = "UTC"
    else:
        hour = int(os.environ.get("STUDYAPP_TEST_UTC_HOUR", datetime.now(UTC).hour))
        offset = (12 - hour) % 24  # hours east of UTC, 0..23
        if offset > 12:
            offset -= 24
        zone = f"MID{-offset:+d}"  # POSIX counts hours west of UTC
    with local_time_zone(zone):
        yield


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A URL to an empty PostgreSQL schema of its own (skipped without a server)."""
    if not PG_URL:
        pytest.skip("STUDYAPP_TEST_PG is not set")
    with fresh_pg_schema() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'progress.sqlite3'}"
        return
    yield request.getfixturevalue("pg_url")
