"""Where an installed deck came from: the file ``deck add`` copied, and the copy's bytes then.

``deck add`` records, per deck id, the source file and a digest of what it
installed (``deck-sources.json`` in the data folder). An edit then knows which
file the instructor writes (the source), and the next ``deck add`` knows when
the installed copy was changed since (edited by hand or by a tool that did not
know its source), so it says so instead of overwriting that edit silently.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from studyapp import locations
from studyapp.files import FileRefused, read_regular

RECORD_NAME = "deck-sources.json"


@dataclass(frozen=True)
class InstalledFrom:
    """The source file of an installed deck and the digest of the copy made from it."""

    deck: str
    source: Path
    sha256: str


def file_digest(path: Path) -> str:
    """SHA-256 of a deck file's bytes ("" when it cannot be read as a deck is read)."""
    from studyapp.decks.deck_loader import MAX_DECK_BYTES

    try:
        return hashlib.sha256(read_regular(path, MAX_DECK_BYTES, what="deck")).hexdigest()
    except FileRefused:
        return ""


def _record_path() -> Path:
    return locations.data_dir() / RECORD_NAME


def _read_records() -> dict[str, dict[str, str]]:
    try:
        data = json.loads(_record_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: value for key, value in data.items()
            if isinstance(value, dict) and isinstance(value.get("source"), str)
            and isinstance(value.get("sha256"), str)}


def _write_records(records: dict[str, dict[str, str]]) -> None:
    path = _record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".sources-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(records, out, indent=1, sort_keys=True)
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def installed_from(deck_id: str) -> InstalledFrom | None:
    """The recorded source of the installed deck ``deck_id``, if ``deck add`` recorded one."""
    entry = _read_records().get(deck_id)
    if entry is None:
        return None
    return InstalledFrom(deck_id, Path(entry["source"]), entry["sha256"])


def record_install(deck_id: str, source: Path, installed: Path) -> None:
    """Remember that ``installed`` is the copy of ``source`` as it is now."""
    records = _read_records()
    records[deck_id] = {"source": str(source.resolve()), "sha256": file_digest(installed)}
    _write_records(records)


def edited_since_install(deck_id: str, installed: Path) -> InstalledFrom | None:
    """The record, when the installed copy no longer holds the bytes ``deck add`` wrote."""
    record = installed_from(deck_id)
    if record is None or not installed.is_file():
        return None
    return record if file_digest(installed) != record.sha256 else None


def keep_replaced_copy(deck_id: str, installed: Path) -> Path:
    """Save an edited installed copy before ``deck add --replace`` overwrites it."""
    folder = locations.data_dir() / "replaced-decks"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    kept = folder / f"{deck_id}-{stamp}.yaml"
    shutil.copyfile(installed, kept)
    return kept


@dataclass(frozen=True)
class Added:
    """A deck ``deck add`` installed, and where an edit it replaced was kept."""

    target: Path
    kept_edit: Path | None = None


def add_deck(path: Path | str, *, replace: bool = False) -> Added:
    """``install_deck`` that records the source, and never drops an edit of the copy silently.

    An installed copy changed since ``deck add`` wrote it (and different from
    the new source) is refused without ``replace``; with it, the edited copy
    is saved in the data folder first (``Added.kept_edit``).
    """
    from studyapp.decks.deck_loader import check_deck_file
    from studyapp.decks.library import install_deck
    from studyapp.decks.problems import DeckError, Problem, problem_message

    source = Path(path)
    deck, problems = check_deck_file(source)
    if deck is None:
        raise DeckError(problems)
    installed = locations.user_decks_dir() / f"{deck.id}.yaml"
    edited = edited_since_install(deck.id, installed)
    if edited is not None and file_digest(installed) == file_digest(source):
        edited = None  # the source already holds the edit
    kept: Path | None = None
    if edited is not None and not replace:
        message = problem_message("installed_edited", path=str(installed),
                                  source=str(edited.source))
        raise DeckError([Problem.at(source, 1, 1, message)])
    if edited is not None:
        kept = keep_replaced_copy(deck.id, installed)
    target = install_deck(source, replace=replace)
    record_install(deck.id, source, target)
    return Added(target, kept)


__all__ = ["Added", "InstalledFrom", "add_deck", "edited_since_install", "file_digest",
           "installed_from", "keep_replaced_copy", "record_install"]
