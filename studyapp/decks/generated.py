"""The generated cards of decks, as targets of the question audit (``generate --audit``).

Lives with the decks because it reads deck files; the audit itself only knows
families and their options.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from studyapp.decks.deck_loader import load_deck
from studyapp.questions.generators import registered_families
from studyapp.questions.generators.audit import Target


def deck_targets(paths: Iterable[Path]) -> list[Target]:
    """Each generated card of each deck, with its options and its post."""
    table = registered_families()
    found = []
    for path in paths:
        deck = load_deck(path)
        for card in deck.cards:
            if card.generator is None:
                continue
            found.append(Target(f"{deck.id}:{card.id}", table[card.generator],
                                dict(card.options), card.post or deck.post))
    return found
