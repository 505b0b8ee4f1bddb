"""Each deck's own options as the study service applies them (``srs.deck_options``).

A card is scheduled with its deck's settings (retention, steps, maximum
interval, parameters, leech threshold); the queue keeps each deck within its
own daily limits as well as the profile's; a deck's bury rules say which
siblings of an answered card wait for the next day; load balancing weighs the
reviews of the decks of the card's preset, as Anki does; a deck whose leech action
is "suspend" suspends a card the lapse it becomes a leech, as Anki does.
Built again whenever the profile's settings change (their identity does).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from studyapp.srs.deck_options import DeckRules, DeckSchedulers, stored_options
from studyapp.srs.scheduler import Scheduler

if TYPE_CHECKING:
    from studyapp.study.ground import StudyGround

Recall = Callable[[float | None, datetime | None], float]


def leech_met(lapses: int, threshold: int) -> bool:
    """Anki's leech rule: at the threshold, and every half threshold (rounded up) after it
    (rslib/src/scheduler/states/review.rs, ``leech_threshold_met``)."""
    if threshold <= 0 or lapses < threshold:
        return False
    half = max(1, -(-threshold // 2))
    return (lapses - threshold) % half == 0


class PerDeck:
    """The schedulers, rules and limits of the decks with options of their own."""

    def __init__(self, ground: StudyGround) -> None:
        self._ground = ground
        self._built: DeckSchedulers | None = None

    @property
    def schedulers(self) -> DeckSchedulers:
        settings = self._ground.settings
        if self._built is None or self._built.settings is not settings:
            self._built = DeckSchedulers(settings, self._ground.scheduler.zone)
        return self._built

    def scheduler(self, deck_id: str) -> Scheduler:
        return self.schedulers(deck_id)

    def rules(self, deck_id: str) -> DeckRules:
        return self.schedulers.rules(deck_id)

    def balanced_with(self, deck_id: str) -> tuple[frozenset[str] | None, frozenset[str]]:
        """The decks whose reviews load balancing weighs for a card of ``deck_id``, as
        (only these, or None for all; not these): Anki weighs the cards of the card's
        preset only. Decks from one Anki preset weigh together, a deck with options set
        here alone, and the decks without options of their own (the profile's) together."""
        own = self.schedulers.own
        options = own.get(deck_id)
        if options is None:
            return None, frozenset(own)
        if options.preset:
            return frozenset(d for d, o in own.items() if o.preset == options.preset), \
                frozenset()
        return frozenset({deck_id}), frozenset()

    def recall_curves(self, now: datetime) -> Callable[[str], Recall]:
        """Each deck's forgetting curve at ``now`` (its own parameters' decay), built once."""
        curves: dict[str, Recall] = {}
        schedulers = self.schedulers

        def curve(deck_id: str) -> Recall:
            found = curves.get(deck_id)
            if found is None:
                found = curves[deck_id] = schedulers(deck_id).recall_curve(now)
            return found

        return curve

    def limits_left(self, start: datetime, end: datetime) -> dict[str, tuple[int, int]]:
        """New cards and reviews each deck with limits of its own still allows today (the
        profile's limits cap the total as well)."""
        from studyapp.store.card_reads import answer_counts_by_deck  # SQLAlchemy: on first use

        settings = self._ground.settings
        own = {deck_id: options for deck_id, options in stored_options(settings).items()
               if options.new_per_day is not None or options.reviews_per_day is not None}
        if not own:
            return {}
        ground = self._ground
        done = answer_counts_by_deck(ground.store, ground.profile.id, start, end)
        left = {}
        for deck_id, options in own.items():
            new_done, reviews_done = done.get(deck_id, (0, 0))
            new = settings.new_per_day if options.new_per_day is None else options.new_per_day
            reviews = (settings.reviews_per_day if options.reviews_per_day is None
                       else options.reviews_per_day)
            left[deck_id] = (max(0, new - new_done), max(0, reviews - reviews_done))
        return left


__all__ = ["PerDeck", "leech_met"]
