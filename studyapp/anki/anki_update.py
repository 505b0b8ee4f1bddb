"""A newer package of the same Anki collection, imported over what an earlier one installed.

Anki's own import matches notes by guid and cards by id and updates them in
place. A converted card's id carries its Anki note id (``note-<nid>-1``,
``note-<nid>-c2``), which a collection never reuses, so an installed deck
whose cards share ids with the package's deck of the same name came from the
same collection: its cards are updated (text, answer, tags), the package's
new cards added, and, as Anki does, the cards the newer package no longer
has are kept. A deck of that name from another collection is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from studyapp.anki.anki_cards import Conversion
from studyapp.decks.deck_loader import read_deck_bytes
from studyapp.decks.library import DeckListing, discover_decks
from studyapp.decks.problems import DeckError

_NOTE_CARD = re.compile(r"^note-(\d+)-")


def note_of(card_id: str) -> str | None:
    """The Anki note id a converted card's id carries, or None for any other card."""
    found = _NOTE_CARD.match(card_id)
    return found.group(1) if found else None


@dataclass
class DeckUpdate:
    """What a newer package changes in one installed deck."""

    deck_id: str
    path: Path
    notes_updated: int = 0
    cards_added: int = 0
    kept: list[dict[str, Any]] = field(default_factory=list)
    """Installed cards the newer package lacks: kept, as Anki keeps notes."""
    tags: list[TagChange] = field(default_factory=list)
    """Cards whose tags the newer package changes (Anki's own ``leech`` among them)."""

    @property
    def notes_tagged(self) -> int:
        """How many notes those cards are (a cloze note's cards share its tags)."""
        return len({note_of(change.card_id) or change.card_id for change in self.tags})


@dataclass(frozen=True)
class TagChange:
    """The tags one card gains and loses: a note's tags alone may change (Anki tags a
    leech by itself), and that change is named, not lost among the notes updated."""

    card_id: str
    added: tuple[str, ...]
    removed: tuple[str, ...]

    def shown(self) -> str:
        """``note-1-1 (+leech, -old)``: the card, then what its tags gained and lost."""
        marks = [f"+{tag}" for tag in self.added] + [f"-{tag}" for tag in self.removed]
        return f"{self.card_id} ({', '.join(marks)})"


@dataclass
class ImportPlan:
    """How each deck of a conversion is installed: new, updated, or clashing."""

    updates: dict[str, DeckUpdate] = field(default_factory=dict)
    clashes: list[tuple[str, Path]] = field(default_factory=list)
    """(deck id, installed file) of decks with the same id from another collection."""


def _installed_cards(path: Path) -> list[dict[str, Any]] | None:
    """The cards of an installed deck file as written, or None when it cannot be read."""
    try:
        data = yaml.safe_load(read_deck_bytes(path).decode("utf-8-sig"))
    except (DeckError, UnicodeDecodeError, yaml.YAMLError):
        return None
    cards = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(cards, list):
        return None
    return [c for c in cards if isinstance(c, dict) and isinstance(c.get("id"), str)]


def _as_written(card: Mapping[str, Any]) -> Any:
    """A card as it reads back from YAML, so a new card compares with an installed one."""
    return yaml.safe_load(yaml.safe_dump(dict(card), allow_unicode=True))


def _tags(card: Mapping[str, Any]) -> list[str]:
    tags = card.get("tags")
    return [str(tag) for tag in tags] if isinstance(tags, list) else []


def tag_change(card_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
               ) -> TagChange | None:
    """What the tags of one card gain and lose, or None when they stay."""
    before, after = _tags(old), _tags(new)
    added = tuple(tag for tag in after if tag not in before)
    removed = tuple(tag for tag in before if tag not in after)
    return TagChange(card_id, added, removed) if added or removed else None


def compare(deck_id: str, path: Path, installed: Iterable[Mapping[str, Any]],
            cards: Iterable[Mapping[str, Any]]) -> DeckUpdate | None:
    """The update of an installed deck by the package's deck of the same id; None when no
    card id (so no Anki note) is shared, and the installed deck is another collection's."""
    old = {str(c["id"]): c for c in installed}
    new = {str(c["id"]): c for c in cards}
    shared = [i for i in new if i in old and note_of(i) is not None]
    if not shared:
        return None
    update = DeckUpdate(deck_id, path)
    changed: set[str] = set()
    for card_id, card in new.items():
        if card_id not in old:
            update.cards_added += 1
        elif _as_written(card) != _as_written(old[card_id]):
            changed.add(note_of(card_id) or card_id)
            tags = tag_change(card_id, old[card_id], card)
            if tags is not None:
                update.tags.append(tags)
    update.notes_updated = len(changed)
    update.kept = [dict(c) for i, c in old.items() if i not in new]
    return update


def plan_import(conversion: Conversion,
                listings: Iterable[DeckListing] | None = None) -> ImportPlan:
    """Which decks of the conversion update an installed deck (``listings``: the decks
    here, all of them by default), which clash with one."""
    listings = discover_decks() if listings is None else listings
    installed = {listing.deck.id: listing.path for listing in listings
                 if listing.source == "user" and listing.deck is not None}
    plan = ImportPlan()
    for deck in conversion.decks:
        path = installed.get(str(deck["deck"]))
        if path is None:
            continue
        cards = _installed_cards(path)
        update = compare(str(deck["deck"]), path, cards or [], deck["cards"])
        if update is None:
            plan.clashes.append((str(deck["deck"]), path))
        else:
            plan.updates[update.deck_id] = update
    return plan


def apply_kept(conversion: Conversion, plan: ImportPlan) -> None:
    """Append to each updated deck the installed cards the newer package no longer has."""
    for deck in conversion.decks:
        update = plan.updates.get(str(deck["deck"]))
        if update is not None and update.kept:
            deck["cards"] = [*deck["cards"], *update.kept]
