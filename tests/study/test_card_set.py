"""The studied card set is indexed once and indexed again whenever the decks change.

The queue keeps its card sets between queues (they cost more to build than
the queue itself); a deck edited while the app runs must still show at once
on the home screen, in the queue and among a card's siblings.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from test_service import Clock, service

from studyapp.study import SessionKind


def test_an_edited_deck_shows_at_once_in_the_counts_and_the_queue(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    before = {p.slug: p.total for p in svc.overview(with_streak=False).posts}
    planned = {i.card_key for i in svc.plan(SessionKind.POST, post="h200")}
    deck = svc.find_deck("post-h200")
    kept = deck.cards[0]
    assert len(deck.cards) > 1 and kept.id in planned

    svc.replace_deck(replace(deck, cards=(kept,)))

    after = {p.slug: p.total for p in svc.overview(with_streak=False).posts}
    assert after["h200"] == before["h200"] - (len(deck.cards) - 1)
    replanned = {(i.deck_id, i.card_key) for i in svc.plan(SessionKind.POST, post="h200")}
    assert {key for key in replanned if key[0] == deck.id} == {(deck.id, kept.id)}


def test_siblings_come_from_the_fact_index(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    siblings = svc.siblings("post-h200", "h200-capacity")
    assert ("post-h200", "h200-stacks") in siblings
    assert ("post-h200", "h200-capacity") not in siblings
    siblings.clear()  # the caller's copy: the index keeps its own
    assert ("post-h200", "h200-stacks") in svc.siblings("post-h200", "h200-capacity")
