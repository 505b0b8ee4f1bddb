"""Today's queue: what to ask next, in the order a good tutor would.

Learning and relearning cards that are due come first (they are fragile),
then due reviews with the lowest retrievability first, then new cards in
curriculum order (post order, then deck order). Variants of the same
template, or cards of the same post, are never back to back when anything
else is waiting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from studyapp.srs.scheduler import CardStage


@dataclass(frozen=True)
class QueueItem:
    """One card waiting to be asked."""

    deck_id: str
    card_key: str
    post: str
    template: str  # family or template id: variants share it
    stage: CardStage
    due: datetime | None = None
    retrievability: float = 0.0
    order: tuple[int, int, int] = (0, 0, 0)  # post order, deck order, card order

    @property
    def key(self) -> tuple[str, str]:
        return (self.deck_id, self.card_key)


def _due_key(item: QueueItem) -> tuple[float, tuple[int, int, int]]:
    return (item.due.timestamp() if item.due is not None else 0.0, item.order)


def _priority(items: Sequence[QueueItem], learning: bool) -> list[QueueItem]:
    if learning:
        return sorted(items, key=_due_key)
    return sorted(items, key=lambda i: (i.retrievability, i.order))


LOOKAHEAD = 64
"""How far ahead interleaving looks for a different card (keeps it linear)."""


def interleave(items: Sequence[QueueItem], after: QueueItem | None = None) -> list[QueueItem]:
    """Reorder as little as possible so neighbours differ in template, then in post."""
    pending = list(items)
    pending.reverse()  # pop from the end: O(1) for the usual case
    result: list[QueueItem] = []
    last = after
    while pending:
        choice = len(pending) - 1
        if last is not None:
            prev = last
            window = range(len(pending) - 1, max(-1, len(pending) - 1 - LOOKAHEAD), -1)
            found = next((n for n in window if pending[n].template != prev.template
                          and pending[n].post != prev.post), None)
            if found is None:
                found = next((n for n in window if pending[n].template != prev.template), None)
            if found is not None:
                choice = found
        last = pending.pop(choice)
        result.append(last)
    return result


def build_queue(learning: Sequence[QueueItem], reviews: Sequence[QueueItem],
                new: Sequence[QueueItem], *, reviews_left: int, new_left: int,
                interleave_posts: bool = True) -> list[QueueItem]:
    """The day's queue within the daily limits (learning cards are never limited)."""
    ordered = (_priority(learning, learning=True)
               + _priority(reviews, learning=False)[: max(0, reviews_left)]
               + sorted(new, key=lambda i: i.order)[: max(0, new_left)])
    if not interleave_posts:
        return interleave_templates_only(ordered)
    return interleave(ordered)


def interleave_templates_only(items: Sequence[QueueItem]) -> list[QueueItem]:
    """For one post's session: keep curriculum order, only split template twins."""
    pending = list(items)
    pending.reverse()
    result: list[QueueItem] = []
    while pending:
        choice = len(pending) - 1
        if result:
            prev = result[-1].template
            window = range(len(pending) - 1, max(-1, len(pending) - 1 - LOOKAHEAD), -1)
            found = next((n for n in window if pending[n].template != prev), None)
            if found is not None:
                choice = found
        result.append(pending.pop(choice))
    return result
