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


def _priority(items: Sequence[QueueItem], learning: bool) -> list[QueueItem]:
    if learning:
        return sorted(items, key=lambda i: (i.due or datetime.min, i.order))
    return sorted(items, key=lambda i: (i.retrievability, i.order))


def interleave(items: Sequence[QueueItem], after: QueueItem | None = None) -> list[QueueItem]:
    """Reorder as little as possible so neighbours differ in template, then in post."""
    pending = list(items)
    result: list[QueueItem] = []
    last = after
    while pending:
        choice = 0
        if last is not None:
            prev = last
            found = next((n for n, i in enumerate(pending)
                          if i.template != prev.template and i.post != prev.post), None)
            if found is None:
                found = next((n for n, i in enumerate(pending)
                              if i.template != prev.template), None)
            choice = found or 0
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
    result: list[QueueItem] = []
    while pending:
        choice = 0
        if result:
            found = next((n for n, i in enumerate(pending)
                          if i.template != result[-1].template), None)
            choice = found if found is not None else 0
        result.append(pending.pop(choice))
    return result
