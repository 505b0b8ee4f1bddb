"""An Anki note with several cards (Basic and reversed, a note type with two templates)
written back as one note.

``deck from-anki`` makes one studyapp card of each card of such a note
(``note-<id>-1``, ``note-<id>-2``...). Written as one note each, they would
share the note's guid, and Anki keeps one note per guid: the other cards and
their history would be lost. They go back as one note of the type
``studyapp cards``, one card template per slot, each card in the slot of its
Anki ordinal, so Anki finds the note and its cards where they were.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import genanki

if TYPE_CHECKING:
    from studyapp.decks import CardSpec

SLOT_FIELDS = ("Prompt", "Choices", "Answer", "Accepted", "Explanation")
"""Fields of each card of a note with several cards, and of each draw of a generated card."""

MAX_SLOTS = 10
"""Card templates of ``studyapp cards``; a card of a higher ordinal gets a note of its own."""

CARDS_NOTE_TYPE = "studyapp cards"

_ORDINAL = re.compile(r"^note-\d+-(\d+)$")
_CLOZE_ORDINAL = re.compile(r"^note-\d+-c(\d+)$")


def anki_ordinal(card_id: str) -> int | None:
    """The Anki card ordinal of a card ``deck from-anki`` made (``note-<id>-<n>``)."""
    match = _ORDINAL.match(card_id)
    return int(match.group(1)) - 1 if match else None


def cloze_cards(text: str) -> list[genanki.Card]:
    """A cloze note's cards, one per deletion number, a nested deletion's too (genanki
    finds only the outer one of ``{{c1::NVLink {{c2::4}}}}``; Anki makes both)."""
    numbers = {int(n) for n in re.findall(r"\{\{c(\d+)::", text) if int(n) > 0}
    return [genanki.Card(n - 1) for n in sorted(numbers or {1})]


def cloze_ordinal(card_id: str) -> int:
    """The Anki card ordinal of a cloze deletion's card (``note-<id>-c<n>``; 0 if renamed)."""
    match = _CLOZE_ORDINAL.match(card_id)
    return max(0, int(match.group(1)) - 1) if match else 0


def shared_guids(cards: Iterable[CardSpec], lang: str) -> set[str]:
    """Guids of the Anki notes (not cloze) whose cards must go back as one note: more than
    one of them here, or one that was not the note's first card."""
    counts: Counter[str] = Counter()
    later: set[str] = set()
    for card in cards:
        if card.anki_guid is None or card.anki_cloze is not None or card.language != lang \
                or card.is_template:
            continue
        counts[card.anki_guid] += 1
        ordinal = anki_ordinal(card.id)
        if ordinal:
            later.add(card.anki_guid)
    return {guid for guid, n in counts.items() if n > 1} | later


def slot_templates(slots: int, name: str) -> list[dict[str, str]]:
    """One card template per slot of ``SLOT_FIELDS`` (``Prompt 1``...): a slot whose
    prompt is empty makes no card, as Anki skips a template whose front is empty."""
    templates = []
    for n in range(1, slots + 1):
        front = (f'{{{{#Prompt {n}}}}}<div class="prompt">{{{{Prompt {n}}}}}</div>'
                 f'{{{{#Choices {n}}}}}<div class="choices">{{{{Choices {n}}}}}</div>'
                 f'{{{{/Choices {n}}}}}{{{{/Prompt {n}}}}}')
        back = (f'{{{{FrontSide}}}}<hr id="answer"><div class="answer">{{{{Answer {n}}}}}</div>'
                f'{{{{#Accepted {n}}}}}<div class="accepted">{{{{Accepted {n}}}}}</div>'
                f'{{{{/Accepted {n}}}}}<div class="explanation">{{{{Explanation {n}}}}}</div>'
                '<div class="source">{{Source}}</div>')
        templates.append({"name": f"{name} {n}", "qfmt": front, "afmt": back})
    return templates


def cards_model(css: str) -> genanki.Model:
    """The note type of a note with several cards: one set of fields and one template per
    slot; a template whose prompt is empty makes no card."""
    fields = ["Key", *(f"{name} {n}" for n in range(1, MAX_SLOTS + 1) for name in SLOT_FIELDS),
              "Source"]
    templates = slot_templates(MAX_SLOTS, "Card")
    model_id = (1 << 30) + zlib.crc32("\x1f".join(["studyapp-cards", *fields]).encode()) % (
        1 << 30)
    return genanki.Model(model_id, CARDS_NOTE_TYPE, fields=[{"name": n} for n in fields],
                         templates=templates, css=css, sort_field_index=1)


@dataclass
class _Note:
    key: str
    tags: list[str]
    slots: dict[int, tuple[list[str], str, str]] = field(default_factory=dict)


@dataclass
class SharedNotes:
    """The cards of notes with several cards, gathered over one deck, then written."""

    model: genanki.Model
    notes: dict[str, _Note] = field(default_factory=dict)

    def add(self, guid: str, ordinal: int, deck_id: str, card_id: str, key: str,
            slot: Sequence[str], tags: list[str]) -> None:
        note = self.notes.setdefault(guid, _Note(key, tags))
        note.slots[ordinal] = (list(slot), deck_id, card_id)
        note.tags = list(dict.fromkeys([*note.tags, *tags]))

    def write(self, deck: genanki.Deck, placed: dict[str, list[tuple[int, str, str]]]) -> int:
        """Add the gathered notes to ``deck``; ``placed`` learns their cards. Notes written."""
        for guid, note in self.notes.items():
            values = [note.key]
            for ordinal in range(MAX_SLOTS):
                slot = note.slots.get(ordinal)
                values += slot[0] if slot else [""] * len(SLOT_FIELDS)
            values.append("")
            deck.add_note(genanki.Note(model=self.model, fields=values, tags=note.tags,
                                       guid=guid))
            placed[guid] = [(o, d, c) for o, (_, d, c) in sorted(note.slots.items())]
        written = len(self.notes)
        self.notes.clear()
        return written


__all__ = ["CARDS_NOTE_TYPE", "MAX_SLOTS", "SLOT_FIELDS", "SharedNotes", "anki_ordinal",
           "cards_model", "cloze_cards", "cloze_ordinal", "shared_guids"]
