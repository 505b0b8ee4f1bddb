"""Decks published into the database (``studyapp deck publish``), loaded for study."""

from __future__ import annotations

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
    from studyapp.decks import DeckError, load_deck
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
            found.append(load_deck(path, source="user"))
        except (OSError, DeckError):
            continue
    return found
