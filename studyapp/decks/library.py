"""Where decks live: the shipped ones, the installed ones, and installing more.

Listing never raises: a broken deck is listed with its problems so that the
UIs can show it as broken instead of failing to start.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from studyapp import locations
from studyapp.decks.cache import check_deck_cached
from studyapp.decks.deck_loader import check_deck_file, deck_files, read_deck_bytes
from studyapp.decks.deck_model import Deck, DeckSource
from studyapp.decks.problems import DeckError, Problem, problem_message
from studyapp.files import replacing


@dataclass(frozen=True)
class DeckListing:
    """One deck file found on disk: the deck when it loads, else its problems."""

    path: Path
    source: DeckSource
    deck: Deck | None
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return self.deck is not None and not self.problems

    @property
    def id(self) -> str:
        """The deck id, or the file name when the deck does not load."""
        return self.deck.id if self.deck is not None else self.path.stem


def _listings(folder: Path, source: DeckSource) -> list[DeckListing]:
    if not folder.is_dir():
        return []
    found: list[DeckListing] = []
    for path in deck_files([folder]):
        deck, problems = check_deck_cached(path, source)  # unchanged files: from the cache
        found.append(DeckListing(path, source, deck, tuple(problems)))
    return found


def discover_decks() -> list[DeckListing]:
    """Built-in decks (posts/ and examples/), then the user's installed decks.

    A user file named ``<id>.yaml`` with a built-in deck's id is an edited copy
    and replaces the built-in deck; any other deck whose id is already taken
    is listed as broken.
    """
    listings = _listings(locations.builtin_decks_dir(), "builtin")
    listings += _listings(locations.user_decks_dir(), "user")
    first: dict[str, DeckListing] = {}
    result: list[DeckListing] = []
    for listing in listings:
        taken = first.get(listing.deck.id) if listing.deck is not None else None
        if (listing.deck is not None and taken is not None and taken.source == "builtin"
                and listing.source == "user" and listing.path.stem == listing.deck.id):
            # <id>.yaml in the user's folder is an edited copy: it overrides the built-in
            result = [x for x in result if x is not taken]
            first[listing.deck.id] = listing
        elif listing.deck is not None and listing.deck.id in first:
            other = first[listing.deck.id].path
            message = problem_message("deck_id_used", id=listing.deck.id, other=str(other))
            problem = Problem.at(listing.path, 1, 1, message)
            listing = DeckListing(listing.path, listing.source, None, (problem,))
        elif listing.deck is not None:
            first[listing.deck.id] = listing
        result.append(listing)
    return result


def find_deck(id_or_path: str) -> Deck:
    """A deck by file path, or by id among discovered decks; ``DeckError`` if neither."""
    path = Path(id_or_path)
    if path.suffix.lower() in (".yaml", ".yml") or path.exists():
        from studyapp.decks.deck_loader import load_deck

        return load_deck(path)
    for listing in discover_decks():
        if listing.id == id_or_path:
            if listing.deck is None:
                raise DeckError(list(listing.problems))
            return listing.deck
    raise DeckError([Problem.at(path, 1, 1, problem_message("no_deck", id=id_or_path))])


def install_deck(path: Path | str, *, replace: bool = False) -> Path:
    """Validate ``path`` and copy it into the user's deck folder as ``<deck id>.yaml``.

    A different deck already installed with the same id is replaced only with
    ``replace`` (progress is kept: cards match by deck and card id); the same
    file again is a no-op. ``DeckError`` if the deck has problems, its id
    belongs to a built-in deck, or another installed file holds the id.
    """
    source = Path(path)
    deck, problems = check_deck_file(source)
    if deck is None:
        raise DeckError(problems)
    for listing in _listings(locations.builtin_decks_dir(), "builtin"):
        if listing.id == deck.id:
            message = problem_message("deck_id_builtin", id=deck.id, other=str(listing.path))
            raise DeckError([Problem.at(source, 1, 1, message)])
    images = _checked_media(source)  # every image checked before anything is installed
    folder = locations.user_decks_dir()
    target = folder / f"{deck.id}.yaml"
    content = read_deck_bytes(source)  # what is installed is read once, within the deck limit
    for listing in _listings(folder, "user"):
        if listing.deck is None or listing.deck.id != deck.id:
            continue
        same = _same_bytes(listing.path, content)
        if not same and not replace:
            message = problem_message("deck_id_installed", id=deck.id, other=str(listing.path))
            raise DeckError([Problem.at(source, 1, 1, message)])
        if listing.path != target and (replace or same):
            listing.path.unlink(missing_ok=True)  # one file per id: the new one is <id>.yaml
    folder.mkdir(parents=True, exist_ok=True)
    # copy then rename, so an interrupted install never leaves half a deck
    fd, temp_name = tempfile.mkstemp(dir=folder, prefix=".installing-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content)
        os.replace(temp_name, target)
    finally:
        if os.path.exists(temp_name):
            os.unlink(temp_name)
    _install_media(source, target, images)
    return target


def _checked_media(source: Path) -> list[Path]:
    """The deck's images (``<name>.media/`` beside it), each a raster image by its bytes.

    ``DeckError`` names every other file (an SVG, an HTML page, a PNG-named
    text file...) and why: a browser would run its script. Dot files and
    symlinks are left behind, as they always were.
    """
    from studyapp.decks.media import MediaRefused, media_folder, read_image

    images = media_folder(source)
    if not images.is_dir():
        return []
    checked: list[Path] = []
    refused: list[Problem] = []
    for item in sorted(images.iterdir()):
        if item.name.startswith(".") or item.is_symlink() or item.is_dir():
            continue
        try:
            read_image(item)  # one image in memory at a time: a deck may have hundreds
            checked.append(item)
        except MediaRefused as refusal:
            refused.append(Problem.at(item, 1, 1, problem_message("media_refused",
                                                                 why=refusal.reason)))
    if refused:
        raise DeckError(refused)
    return checked


def _install_media(source: Path, target: Path, images: list[Path]) -> None:
    """The deck's checked images go along, as ``<id>.media/``: each read and checked again
    as it is copied (what is written is what was checked), never through a symlink."""
    from studyapp.decks.media import MediaRefused, media_folder, read_image

    if not images or media_folder(source).resolve() == media_folder(target).resolve():
        return
    destination = media_folder(target)
    destination.mkdir(exist_ok=True)
    for path in images:
        try:
            image = read_image(path)
        except MediaRefused:
            continue  # changed since the check a moment ago: left out
        with replacing(destination / path.name, binary=True) as handle:
            handle.write(image.data)


def _same_bytes(installed: Path, content: bytes) -> bool:
    try:
        return read_deck_bytes(installed) == content
    except DeckError:
        return False
