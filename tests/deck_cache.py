"""Another user folder given the checked built-in decks the test's own folder starts with.

Every test's STUDYAPP_HOME starts with the shipped decks already checked in its deck
cache (``_isolated_home`` in tests/conftest.py). A test that runs ``studyapp`` with a
user folder of its own (a child process, a second machine) would check them all again,
0.4 s of CPU each time; these copy the cache in first. A cache entry is keyed by the deck
file's bytes, its path and the catalog files, and holds exactly what checking gives, so
the command sees the same decks.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


def with_checked_decks(home: Path, warm: Path | None = None) -> Path:
    """``home``, its deck cache holding the checked built-in decks (unless it has a cache):
    a copy of ``warm``, by default the test's own folder's cache."""
    warm = warm or Path(os.environ["STUDYAPP_HOME"]) / "cache"
    if warm.is_dir() and warm != home / "cache" and not (home / "cache").exists():
        shutil.copytree(warm, home / "cache")
    return home


def seed_new_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every user folder a test switches to in this process (``STUDYAPP_HOME`` set for
    one command) gets the checked built-in decks in its deck cache the first time a deck
    is looked up there, as the test's own folder has them."""
    from studyapp.decks import cache

    warm = Path(os.environ["STUDYAPP_HOME"]) / "cache"
    folder_of = cache.cache_folder
    seeded: set[Path] = set()

    def cache_folder() -> Path:
        folder = folder_of()
        if folder not in seeded:
            seeded.add(folder)
            if folder.is_absolute() and folder.parent.name == "cache" and not folder.exists():
                with_checked_decks(folder.parent.parent, warm)
        return folder

    monkeypatch.setattr(cache, "cache_folder", cache_folder)
