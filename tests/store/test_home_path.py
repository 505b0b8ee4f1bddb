"""``STUDYAPP_HOME`` is a path, never part of a URL: the database lands inside that folder.

With the URL written as ``f"sqlite:///{path}"``, a ``?`` started a query (the
file became the folder's parent path cut short), a ``#`` a fragment, and
``%41`` was decoded to ``A``: the database went to another folder.
"""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy.engine import URL, make_url

from studyapp import locations
from studyapp.cli import main
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NAMES = ["why?", "a?b=c", "hash#tag", "pct%41", "two words", "all of?#%41 them%2F", "file:x"]


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if stat.S_ISREG(p.lstat().st_mode))


@pytest.mark.parametrize("name", NAMES)
def test_the_default_database_lands_inside_the_home_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STUDYAPP_DB", raising=False)
    home = tmp_path / name
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    store = open_store(locations.default_db_url())
    try:
        ensure_profile(store, "ana", {}, T0)
        assert store.sqlite_path() == home / "data" / "studyapp.sqlite3"
    finally:
        store.close()
    assert (home / "data" / "studyapp.sqlite3").stat().st_size > 0
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_a_relative_home_is_still_a_path(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``file:x`` relative to the working folder is a folder, not an SQLite URI."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STUDYAPP_HOME", "file:x?mode=memory")
    url = locations.default_db_url()
    store = open_store(url)
    store.close()
    assert (tmp_path / "file:x?mode=memory" / "data" / "studyapp.sqlite3").is_file()


@pytest.mark.parametrize("name", ["odd?#%41 home"])
def test_the_command_line_keeps_the_database_in_the_home_folder(tmp_path: Path,
                                                               name: str) -> None:
    home = tmp_path / name
    result = CliRunner().invoke(main, ["--lang", "en", "stats", "--json"],
                                env={"STUDYAPP_HOME": str(home), "STUDYAPP_DB": None})
    assert result.exit_code == 0, result.output
    assert "data/studyapp.sqlite3" in files_under(home)
    assert os.listdir(tmp_path) == [name]


@pytest.mark.parametrize("name", NAMES)
def test_the_url_is_the_one_sqlalchemy_writes_for_the_path(tmp_path: Path, name: str) -> None:
    path = tmp_path / name / "studyapp.sqlite3"
    url = locations.sqlite_url(path)
    assert url == URL.create("sqlite", database=str(path)).render_as_string()
    assert make_url(url).database == str(path)
