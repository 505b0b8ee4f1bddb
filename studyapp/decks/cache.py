"""Validated decks kept in the user's cache folder, so a start does not re-check them.

A deck file is checked once; the result (the deck, or its problems) is
pickled under a key made of the file's content hash, its path and source,
the catalog files it may draw from, studyapp's version and Python's. A
changed file, catalog or version gives another key, so the deck is checked
again. Only files this user wrote in this user's own cache folder are ever
unpickled: anything else there (another owner, writable by others, a wrong
header, a result for another file) is ignored and the deck is checked.
Writes go to a temporary file renamed into place, so a reader never sees
half an entry; a cache that cannot be read or written only costs time.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from studyapp import __version__, locations
from studyapp.decks.deck_loader import MAX_DECK_BYTES, check_deck_file, collector_paused
from studyapp.decks.deck_model import Deck, DeckSource
from studyapp.decks.problems import Problem
from studyapp.files import FileRefused, read_regular

CACHE_FORMAT = 6  # 2: problems carry a message key and fields; 3: numeric cards say `signed`;
# 5: decks checked again under bounded formulas and tolerances, and slug deck ids;
# 6: deck text without invisible characters
HEADER = f"studyapp-deck-cache {CACHE_FORMAT} {__version__} {sys.version_info[:3]}\n".encode()
CATALOG_FILES = ("hardware.yaml", "models.yaml")

Checked = tuple[Deck | None, list[Problem]]


def cache_folder() -> Path:
    return locations.cache_dir() / "decks"


def _catalog_stamp() -> str:
    """Size and modification time of the catalog files a deck's draws were checked against."""
    folder = locations.content_dir()
    parts = []
    # the learner's catalog.yaml adds entries draws may pick (studyapp.catalog.loader)
    for name, where in [*((n, folder / n) for n in CATALOG_FILES),
                        ("user", locations.data_dir() / "catalog.yaml")]:
        try:
            info = where.stat()
            parts.append(f"{name}:{info.st_size}:{info.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}:missing")
    return ",".join(parts)


def cache_key(path: Path, source: DeckSource, content: bytes) -> str:
    """The entry name for this file's content, place and source, under this version."""
    digest = hashlib.sha256()
    for part in (HEADER, str(path.resolve()).encode(), source.encode(),
                 _catalog_stamp().encode(), hashlib.sha256(content).digest()):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _ours(info: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else (always true where there are no owners)."""
    if not hasattr(os, "getuid"):
        return True
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _load_without_collecting(fh: BinaryIO) -> Any:
    """Unpickle with the cyclic garbage collector paused: a big deck is tens of thousands
    of new objects, and collections triggered while they appear doubled the time."""
    with collector_paused():
        return pickle.load(fh)


def _read_entry(entry: Path, path: Path) -> Checked | None:
    """The cached result for ``path``, or None when the entry is missing or not to be trusted."""
    try:
        folder_info = entry.parent.stat()
        with entry.open("rb") as fh:
            info = os.fstat(fh.fileno())
            if not (_ours(folder_info) and _ours(info) and stat.S_ISREG(info.st_mode)):
                return None
            if fh.read(len(HEADER)) != HEADER:
                return None
            result = _load_without_collecting(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError,
            TypeError, ValueError, IndexError):
        return None
    if not (isinstance(result, tuple) and len(result) == 3 and result[0] == str(path)):
        return None
    _, deck, problems = result
    if deck is not None and not (isinstance(deck, Deck) and deck.path == path):
        return None
    if not (isinstance(problems, list) and all(isinstance(p, Problem) for p in problems)):
        return None
    return deck, problems


def _write_entry(entry: Path, path: Path, checked: Checked) -> None:
    """Store ``checked`` atomically; a failure to write is not the user's problem."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temp_name = tempfile.mkstemp(dir=entry.parent, prefix=".writing-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(HEADER)
            pickle.dump((str(path), *checked), fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temp_name, entry)
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        pass
    finally:
        if os.path.exists(temp_name):
            os.unlink(temp_name)


def check_deck_cached(path: Path, source: DeckSource = "file") -> Checked:
    """``check_deck_file(path, source)``, answered from the cache when the file is unchanged."""
    try:
        content = read_regular(path, MAX_DECK_BYTES, what="deck")
    except FileRefused:
        return check_deck_file(path, source)  # which says why, as a deck problem
    entry = cache_folder() / f"{cache_key(path, source, content)}.pickle"
    cached = _read_entry(entry, path)
    if cached is not None:
        return cached
    checked = check_deck_file(path, source)
    _write_entry(entry, path, checked)
    return checked


def relocated(deck: Deck, path: Path, source: DeckSource) -> Deck:
    """``deck`` as checking the same text at ``path`` gives it: only where it is changes."""
    return replace(deck, path=path, source=source,
                   cards=tuple(replace(card, path=path) for card in deck.cards))


def remember_checked(path: Path, source: DeckSource, content: bytes, deck: Deck) -> None:
    """Cache ``deck``, checked from ``content`` elsewhere, as the check of ``path`` holding
    that content: a published deck, checked when published, is not checked again."""
    entry = cache_folder() / f"{cache_key(path, source, content)}.pickle"
    _write_entry(entry, path, (relocated(deck, path, source), []))
