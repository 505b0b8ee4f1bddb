"""Today's queue: what to ask next, in the order a good tutor would.

Learning and relearning cards that are due come first (they are fragile),
then due reviews with the lowest retrievability first, then new cards as
the profile's new-card order gathers them (``gather_new``: by default each
post's generated numeric questions interleaved with its authored cards,
generated first). Variants of the same
template, or cards of the same post, are never back to back when anything
else is waiting.
"""

from __future__ import annotations

import bisect
import zlib
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple, TypeVar

from studyapp.srs.scheduler import CardStage


class QueueItem(NamedTuple):
    """One card waiting to be asked.

    A named tuple: a queue builds one per learning, review and new card, and a
    tuple is built several times faster than a frozen dataclass.
    """

    deck_id: str
    card_key: str
    post: str
    template: str  # family or template id: variants share it
    stage: CardStage
    due: datetime | None = None
    retrievability: float = 0.0
    order: tuple[int, int, int] = (0, 0, 0)  # post order, deck order, card order
    fact: str | None = None  # siblings share a fact: one answered buries the others today
    generated: bool = False  # drawn by a generator family (numbers change at every showing)

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
                interleave_posts: bool = True, new_gathered: bool = False) -> list[QueueItem]:
    """The day's queue within the daily limits (learning cards are never limited).

    New cards are taken in curriculum order, or as given when ``new_gathered``
    (already in the profile's new-card order, see ``gather_new``).
    """
    fresh = list(new) if new_gathered else sorted(new, key=lambda i: i.order)
    ordered = (_priority(learning, learning=True)
               + _priority(reviews, learning=False)[: max(0, reviews_left)]
               + fresh[: max(0, new_left)])
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


NEW_CARD_ORDERS = ("mixed", "authored-first", "generated-first", "random")
"""How new cards are gathered, as Anki's new-card gather and sort order:

- ``mixed`` (default): post by post, generated and authored cards taken in
  turn, a generated one first; an authored card whose fact a generated card
  of the post also tests waits until that generated card has been taken, so
  the generated sibling is the one shown and the authored card comes another
  day;
- ``authored-first``: post by post, the authored cards, then the generated;
- ``generated-first``: post by post, the generated cards, then the authored;
- ``random``: every new card in an order fixed per profile (a hash of the
  profile and the card), across posts.
"""
DEFAULT_NEW_CARD_ORDER = "mixed"

T = TypeVar("T")


def new_card_order(value: str) -> str:
    """``value`` as one of ``NEW_CARD_ORDERS`` ("authored first" is ``authored-first``).

    Raises ``ValueError`` for anything else.
    """
    name = "-".join(value.strip().lower().replace("_", " ").split())
    if name not in NEW_CARD_ORDERS:
        raise ValueError(value)
    return name


def gather_new(items: Sequence[T], order: str, *, generated: Callable[[T], bool],
               group: Callable[[T], Hashable], fact: Callable[[T], str | None],
               key: Callable[[T], str], salt: str = "") -> list[T]:
    """New cards, given in curriculum order, in the order ``order`` takes them.

    ``group`` is a card's post (cards of one post stay together, in the order
    of their first card); ``key`` names a card for ``random`` (with ``salt``,
    the profile, so each learner has an order of their own that stays put).
    """
    if order == "random":
        return sorted(items, key=lambda i: zlib.crc32(f"{salt}/{key(i)}".encode()))
    groups: dict[Hashable, tuple[list[T], list[T]]] = {}
    for item in items:
        made, authored = groups.setdefault(group(item), ([], []))
        (made if generated(item) else authored).append(item)
    result: list[T] = []
    for made, authored in groups.values():
        if order == "authored-first":
            result += authored + made
        elif order == "generated-first":
            result += made + authored
        else:
            result += _alternate(made, authored, fact)
    return result


def _alternate(made: list[T], authored: list[T], fact: Callable[[T], str | None]) -> list[T]:
    """Generated and authored in turn, generated first.

    A card whose fact an earlier card already tests goes to the end (its day
    comes later: siblings are buried), and so does an authored card whose fact
    a generated card tests, so the two kinds stay interleaved in a day's plan.
    """
    made_facts = {f for f in map(fact, made) if f}
    later_made: list[T] = []
    later: list[T] = []
    first: deque[T] = deque()
    for item in authored:
        f = fact(item)
        (later if f and f in made_facts else first).append(item)
    queues = (deque(made), first)
    shown: set[str] = set()

    result: list[T] = []

    def take(queue: deque[T]) -> bool:
        """Move the next card of ``queue`` whose fact is not yet shown to the result."""
        while queue:
            item = queue.popleft()
            f = fact(item)
            if f and f in shown:
                (later_made if queue is queues[0] else later).append(item)
                continue
            if f:
                shown.add(f)
            result.append(item)
            return True
        return False

    turn = 0
    while queues[0] or queues[1]:
        if not take(queues[turn]):
            take(queues[1 - turn])
        turn = 1 - turn
    return result + later_made + later


LEARN_AHEAD = timedelta(minutes=20)
"""Anki's default learn-ahead limit ("collapseTime", 1200 s)."""


@dataclass
class SessionQueue:
    """What a sitting asks next, as Anki's v3 scheduler picks it.

    Anki (rslib/src/scheduler/queue/mod.rs, ``get_queued_card``): a learning
    card that is due now first; else the next card of the main queue
    (reviews and new cards); else, only when the main queue is empty, a
    learning card due within the learn-ahead limit. A learning card is never
    shown before its due time while anything else waits, so the interval
    printed on a rating button is the truth.
    """

    main: list[QueueItem]
    learning: list[QueueItem] = field(default_factory=list)
    """Cards in (re)learning waiting in this session, soonest due first."""
    cutoff: datetime | None = None
    """Learning cards due after this (the study day's end) wait for another day."""
    reserve: list[QueueItem] = field(default_factory=list)
    """Cards planned past the sitting's limit: each takes the place of a card put off a day,
    so a limited sitting still has new cards to ask instead of asking a card again early."""

    def __post_init__(self) -> None:
        self.learning.sort(key=_due_key)

    def pop(self, now: datetime, learn_ahead: timedelta = LEARN_AHEAD,
            last: tuple[str, str] | None = None) -> QueueItem | None:
        """The next card to ask at ``now``, removed from the queue; None when nothing may be.

        ``last`` is the card just answered: when the queue has collapsed to
        learning cards only, another learning card goes before it, as Anki
        does, so one card is not asked twice in a row while others wait.
        """
        if self.learning and self._due(self.learning[0]) <= now:
            return self.learning.pop(0)
        if self.main:
            return self.main.pop(0)
        ahead = [n for n, item in enumerate(self.learning)
                 if self._due(item) <= now + learn_ahead]
        if not ahead:
            return None
        index = ahead[0]
        if last is not None and self.learning[index].key == last and len(ahead) > 1:
            index = ahead[1]
        return self.learning.pop(index)

    def requeue(self, item: QueueItem, due: datetime) -> bool:
        """Bring a card answered in this session back at ``due`` (today only)."""
        self.drop({item.key})
        if self.cutoff is not None and due >= self.cutoff:
            return False
        entry = item._replace(due=due)
        index = bisect.bisect_right(self.learning, _due_key(entry), key=_due_key)
        self.learning.insert(index, entry)
        return True

    def drop(self, keys: set[tuple[str, str]]) -> None:
        """Take cards out of the session (buried siblings, an undone card)."""
        before = len(self.main)
        self.main = [i for i in self.main if i.key not in keys]
        self.learning = [i for i in self.learning if i.key not in keys]
        self.reserve = [i for i in self.reserve if i.key not in keys]
        while len(self.main) < before and self.reserve:
            self.main.append(self.reserve.pop(0))

    def next_due(self) -> datetime | None:
        """When the soonest waiting learning card is due."""
        return self._due(self.learning[0]) if self.learning else None

    @staticmethod
    def _due(item: QueueItem) -> datetime:
        assert item.due is not None, "a learning card in the session has a due time"
        return item.due

    def __len__(self) -> int:
        return len(self.main) + len(self.learning)

    def __iter__(self) -> Iterator[QueueItem]:
        """Every card still waiting in the session: the main queue, then learning."""
        yield from self.main
        yield from self.learning
