"""Set-up shared by this folder's tests (beside tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from deck_cache import seed_new_caches


@pytest.fixture(autouse=True)
def _checked_decks_in_every_home(_isolated_home: Path, request: pytest.FixtureRequest,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A user folder a test switches to starts with the checked built-in decks, as the
    test's own folder does (tests/deck_cache.py); not for tests of the cache itself."""
    if not request.node.get_closest_marker("cold_deck_cache"):
        seed_new_caches(monkeypatch)
