"""Card by card: an Anki collection against the one an apkg gives back after studyapp.

Cards are matched by note guid and card ordinal (Anki gives a note's cards new
ids when the note is new to the collection). For each card: the note id,
fields, tags, deck path, card ordinal, review history (each review's time
and button), memory state against what Anki computes from that history, and
the due day.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

STUDYAPP_DECK = "studyapp::"
"""The root every exported deck goes under in Anki (README: moving from Anki)."""


@dataclass
class CardView:
    note_id: int
    guid: str
    ordinal: int
    fields: dict[str, str]
    tags: list[str]
    deck: str
    reviews: list[tuple[int, int]]  # (revlog id = time in ms, button)
    memory: tuple[float, float] | None
    due_day: str | None
    queue: int


def _due_day(col: Any, card: Any) -> str | None:
    stats = col.card_stats_data(card.id)
    if not stats.HasField("due_date"):
        return None
    return str(col.db.scalar("SELECT date(?, 'unixepoch', 'localtime')", stats.due_date))


def card_views(col: Any, *, computed: bool = False) -> dict[tuple[str, int], CardView]:
    """Every card of ``col`` by (guid, ordinal); ``computed``: the memory state Anki works out
    from the card's review log with its preset, not the one stored on the card."""
    views = {}
    for card_id in col.find_cards(""):
        card = col.get_card(card_id)
        note = card.note()
        memory = None
        if computed:
            state = col.compute_memory_state(card_id)
            if state.stability:
                memory = (state.stability, state.difficulty)
        elif card.memory_state:
            memory = (card.memory_state.stability, card.memory_state.difficulty)
        reviews = [(int(r[0]), int(r[1])) for r in col.db.all(
            "SELECT id, ease FROM revlog WHERE cid = ? AND ease > 0 ORDER BY id", card_id)]
        views[note.guid, card.ord] = CardView(
            note.id, note.guid, card.ord, dict(note.items()), sorted(note.tags),
            col.decks.name(card.did), reviews, memory,
            _due_day(col, card) if card.type else None, card.queue)
    return views


@dataclass
class Comparison:
    compared: int = 0
    identical: int = 0
    differences: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)

    def note(self, aspect: str, example: str) -> None:
        self.differences[aspect] += 1
        self.examples.setdefault(aspect, example)


def _close(a: tuple[float, float] | None, b: tuple[float, float] | None,
           rel: float = 0.01) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return all(abs(x / y - 1) <= rel for x, y in zip(a, b, strict=True) if y)


def _text(values: Iterable[str], invisible: bool = True) -> str:
    """Fields as text: tags out, entities read, spaces collapsed; without ``invisible``,
    no Unicode format characters (zero-width space, left-to-right mark)."""
    text = html.unescape(re.sub(r"<[^>]*>", " ", " ".join(values)))
    if not invisible:
        text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.split())


def fields_kept(old: CardView, new: CardView, invisible: bool = True) -> bool:
    """Every field of the Anki note is in the note that came back (as text)."""
    back = _text((v for k, v in new.fields.items() if k != "Key"), invisible)
    return all(_text([value], invisible) in back for value in old.fields.values())


def compare(before: dict[tuple[str, int], CardView],
            before_computed: dict[tuple[str, int], CardView],
            after: dict[tuple[str, int], CardView],
            after_computed: dict[tuple[str, int], CardView], *,
            studied_here: dict[tuple[str, int], int] | None = None) -> Comparison:
    """``before``: the Anki collection the package came from (``before_computed``: with the
    memory states Anki computes from each card's log); ``after``: the package studyapp
    exported, imported into a fresh collection. ``studied_here``: answers studyapp added per
    card, expected after Anki's.

    A card's memory state must be the one Anki holds for it (or, for a card Anki
    scheduled with SM-2, the one it computes when FSRS is turned on); Anki must compute
    the same from the exported log as from the original one; a card studied here must
    hold what Anki computes from its whole log.
    """
    result = Comparison()
    for key, old in before.items():
        result.compared += 1
        new = after.get(key)
        where = f"{old.guid} #{old.ordinal}"
        if new is None:
            result.note("card missing", where)
            continue
        differs = set()
        if new.note_id != old.note_id:
            differs.add("note id")
        if [t for t in new.tags if not t.startswith(STUDYAPP_DECK)] != old.tags:
            differs.add("tags")
        if new.deck.removeprefix(STUDYAPP_DECK) != old.deck:
            differs.add("deck")
        if not fields_kept(old, new):
            differs.add("fields" if not fields_kept(old, new, invisible=False)
                        else "fields: invisible format characters left out")
        extra = (studied_here or {}).get(key, 0)
        if new.reviews[:len(old.reviews)] != old.reviews or \
                len(new.reviews) != len(old.reviews) + extra:
            differs.add("review history")
        expected = old.memory or before_computed[key].memory
        if extra:
            if not _close(new.memory, after_computed[key].memory):
                differs.add("memory state after studying vs Anki's from the log")
        else:
            if not _close(new.memory, expected):
                differs.add("memory state")
            if not _close(after_computed[key].memory, before_computed[key].memory):
                differs.add("memory state Anki computes from the log")
            if new.due_day != old.due_day:
                differs.add("due day")
        if old.memory and not _close(old.memory, before_computed[key].memory):
            result.note("Anki's own stored state differs from its recomputation", where)
        for aspect in sorted(differs):
            result.note(aspect, where)
        result.identical += not differs
    return result
