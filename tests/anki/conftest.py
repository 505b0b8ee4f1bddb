"""This folder's tests keep their files in memory (``memory_folder``): they write Anki
collections and SQLite databases, whose every commit would wait for the disk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_folder import memory_folder


@pytest.fixture
def tmp_path(tmp_path: Path) -> Iterator[Path]:
    """pytest's ``tmp_path``, in memory where the machine allows."""
    yield from memory_folder(tmp_path)
