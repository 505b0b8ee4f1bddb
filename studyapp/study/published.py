"""Decks published into the database (``studyapp deck publish``), loaded for study."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studyapp.store import Store
from studyapp.store import classroom as db

if TYPE_CHECKING:
    from studyapp.decks import Deck


def published_decks(store: Store) -> list[Deck]:
    """The decks published into ``store`` (``deck publish``), loaded from their stored text.

    Each is written to ``published/<id>.yaml`` in the data folder and loaded
    from there, so problems point at a file the instructor can open; a stored
    deck this version of studyapp cannot load is left out.
    """
    from studyapp.decks import DeckError
    from studyapp.locations import data_dir

    found: list[Deck] = []
    stored = db.stored_decks(store)
    folder = data_dir() / "published"
    for row in stored:
        path = folder / f"{row.deck_id}.yaml"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text(encoding="utf-8") != row.content:
                path.write_text(row.content, encoding="utf-8")
            found.append(_checked_once(path))
        except (OSError, DeckError):
            continue
    return found


def _checked_once(path: Path) -> Deck:
    """A published copy's deck, checked once per text on this machine (the deck cache):
    later commands read the checked deck back instead of evaluating its formulas again."""
    from studyapp.decks import DeckError
    from studyapp.decks.cache import check_deck_cached

    deck, problems = check_deck_cached(path, "user")
    if deck is None or problems:
        raise DeckError(problems)
    return deck


def remember_published(deck: Deck, content: str) -> None:
    """Keep ``deck``, just checked from ``content`` at publish, as this machine's cached check
    of its published copy, so the next command here does not check it again."""
    from studyapp.decks.cache import remember_checked
    from studyapp.locations import data_dir

    if not deck.id or deck.id != Path(deck.id).name or deck.id.startswith("."):
        return  # a name the published copies' folder cannot hold as a plain file
    remember_checked(data_dir() / "published" / f"{deck.id}.yaml", "user",
                     content.encode("utf-8"), deck)
