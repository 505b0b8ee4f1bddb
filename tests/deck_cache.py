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


def with_checked_decks(home: Path) -> Path:
    """``home``, its deck cache holding the checked built-in decks (unless it has a cache)."""
    warm = Path(os.environ["STUDYAPP_HOME"]) / "cache"
    if warm.is_dir() and warm != home / "cache" and not (home / "cache").exists():
        shutil.copytree(warm, home / "cache")
    return home
