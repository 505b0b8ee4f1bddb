"""Session planning: today's limits and the queue a session over a post or deck asks.

Learning cards by due time, then reviews (the least likely recalled first) and
new cards within the day's limits, one card per fact and one new card per
generator family. Reads the card index and the database; of its own it caches
only the families the learner's held misconceptions bring forward (``targeted``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from studyapp.srs.calendar import day_bounds, study_day
from studyapp.srs.queue import (
    DEFAULT_NEW_CARD_ORDER,
    QueueItem,
    SessionQueue,
    build_queue,
    gather_new,
    interleave_templates_only,
    new_card_order,
)
from studyapp.srs.scheduler import CardStage
from studyapp.study.changes import Changes, cached_until
from studyapp.study.curriculum import CurriculumCard, sibling_answered
from studyapp.study.drill import targeted_families
from studyapp.study.ladders import waits_for
from studyapp.study.per_deck import PerDeck
from studyapp.study.queue_items import queue_item
from studyapp.study.views import SessionKind, SessionMix

if TYPE_CHECKING:
    from studyapp.store.progress import CardRow, DueReview, QueueRow
    from studyapp.study.ground import StudyGround
    from studyapp.study.index import CardIndex


SPARE_NEW = 8
"""New cards planned past today's limit, to take the place of new cards a sitting puts off
a day (a written card whose answer a drawn question stated): the day still gets its limit."""


def one_per_family(cards: Iterable[CurriculumCard]) -> list[CurriculumCard]:
    """The cards with only the first new card of each generator family: two "send X GB over
    link Y" cards in one sitting teach nothing the first did not; the second waits."""
    seen: set[str] = set()
    kept = []
    for card in cards:
        family = card.spec.generator if card.generated else None
        if family is not None:
            if family in seen:
                continue
            seen.add(family)
        kept.append(card)
    return kept


def _within_limit(left: dict[str, tuple[int, int]], deck_id: str, which: int) -> bool:
    """Whether a deck with a daily limit of its own (``which``: 0 new, 1 reviews) has room
    for one more card today; the room is taken when it has."""
    limits = left.get(deck_id)
    if limits is None:
        return True
    if limits[which] <= 0:
        return False
    left[deck_id] = (limits[0] - 1, limits[1]) if which == 0 else (limits[0], limits[1] - 1)
    return True


BURIES_REVIEWS = frozenset({1, 2, 3})
"""Stages whose answer buries review siblings: not a new card's (Anki gathers reviews before
new cards, ``exclude_earlier_gathered_queues`` in rslib/src/scheduler/bury_and_suspend.rs)."""
BURIES_LEARNING = frozenset({1, 3})
"""Stages whose answer buries interday-learning siblings: a (re)learning card's only."""


class SessionPlanner:
    """Today's limits, and what a session of each kind would ask now."""

    def __init__(self, ground: StudyGround, index: CardIndex) -> None:
        self._ground = ground
        self._index = index
        self.per_deck = PerDeck(ground)
        """Each deck's own scheduler, rules and limits (``srs.deck_options``)."""

    # -- the study day and its limits -------------------------------------------

    @property
    def learn_ahead(self) -> timedelta:
        return timedelta(minutes=self._ground.settings.learn_ahead_min)

    def today(self) -> str:
        """The current study day as an ISO date (the day rolls over at the profile's hour)."""
        return study_day(self._ground.now(), self._ground.settings.day_rollover_hour).isoformat()

    def new_limit_today(self) -> int:
        """Today's new-card limit, raised by "study more" for today only."""
        settings = self._ground.settings
        extra = settings.extra_new if settings.extra_new_day == self.today() else 0
        return settings.new_per_day + extra

    def study_more_new(self, count: int) -> int:
        """Anki's custom study: raise today's new-card limit by ``count``; the new limit."""
        day = self.today()
        settings = self._ground.settings
        extra = settings.extra_new if settings.extra_new_day == day else 0
        self._ground.update_settings(extra_new_day=day, extra_new=extra + max(0, count))
        return self.new_limit_today()

    def limits_left(self) -> tuple[int, int]:
        """New cards and reviews today's limits still allow."""
        from studyapp.store.progress import answered_between  # SQLAlchemy: on first use

        ground = self._ground
        start, end = day_bounds(ground.now(), ground.settings.day_rollover_hour)
        new_done, reviews_done = answered_between(ground.store, ground.profile.id, start, end)
        return (max(0, self.new_limit_today() - new_done),
                max(0, ground.settings.reviews_per_day - reviews_done))

    def facts_answered(self, start: datetime, end: datetime,
                       stages: Collection[int] | None = None) -> dict[str, set[tuple[str, str]]]:
        """Facts of the cards answered in [start, end), with those cards: their siblings
        are buried (a card is not its own sibling: reset, it may come back new).
        ``stages``: answers given in one of these stages only (``BURIES_REVIEWS``...)."""
        from studyapp.store.progress import answered_keys_between  # SQLAlchemy: on first use

        cards = self._index.by_key
        facts: dict[str, set[tuple[str, str]]] = {}
        for key in answered_keys_between(self._ground.store, self._ground.profile.id,
                                         start, end, stages):
            card = cards.get(key)
            if card is not None and card.fact:
                facts.setdefault(card.fact, set()).add(key)
        return facts

    # -- queues ---------------------------------------------------------------

    def _item(self, card: CurriculumCard, row: CardRow | QueueRow | None, now: datetime,
              retrievability: float | None = None) -> QueueItem:
        if row is not None and retrievability is None:
            retrievability = self.per_deck.scheduler(card.deck.id).recall_probability(
                row.stability, row.last_review, now)
        return queue_item(card, row, retrievability or 0.0)

    def plan(self, kind: SessionKind, *, post: str | None = None, deck: str | None = None,
             limit: int | None = None) -> list[QueueItem]:
        """The cards a session will ask: learning cards (by due time), then the main queue."""
        queue = self.session_queue(kind, post=post, deck=deck, limit=limit)
        return [*queue.learning, *queue.main]

    def session_queue(self, kind: SessionKind, *, post: str | None = None,
                      deck: str | None = None, limit: int | None = None) -> SessionQueue:
        """Today's learning cards, and the reviews and new cards within the daily limits.

        One card per fact: a sibling of a card answered today, or of one
        already in the queue, waits for another day (Anki buries siblings).
        """
        from studyapp.decks.deck_loader import collector_paused

        # thousands of short-lived row tuples, none in a cycle (reference counting
        # frees them): the collector's passes over them took a fifth of the time
        with collector_paused():
            return self._session_queue(kind, post, deck, limit)

    def practice_queue(self, families: frozenset[str], *, post: str | None = None,
                       deck: str | None = None) -> SessionQueue:
        """The practice queue over the cards of ``families`` only (a drill): the cards are
        narrowed before they are ranked, in the order the whole practice queue gives them."""
        now = self._ground.now()
        _, end = day_bounds(now, self._ground.settings.day_rollover_hour)
        cards = [c for c in self._index.session_cards(deck, post).cards
                 if c.template in families]
        return self._practice(cards, now, end, None)

    def _practice(self, cards: Iterable[CurriculumCard], now: datetime, end: datetime,
                  limit: int | None) -> SessionQueue:
        """Every card not suspended or buried, new cards first (those a held misconception
        targets leading), then the least likely recalled; nothing is rescheduled."""
        from studyapp.store.progress import card_states  # SQLAlchemy: on first use

        ground = self._ground
        rows = card_states(ground.store, ground.profile.id)
        hidden = {key for key, r in rows.items()
                  if r.suspended or (r.buried_until is not None and r.buried_until > now)}
        items = [self._item(c, rows.get(c.key), now) for c in cards if c.key not in hidden]
        targeted = self.targeted()
        items.sort(key=lambda i: (i.stage != CardStage.NEW, i.template not in targeted,
                                  i.retrievability, i.order))
        planned = interleave_templates_only(items)
        return SessionQueue(planned[:limit] if limit else planned, [], cutoff=end)

    def _session_queue(self, kind: SessionKind, post: str | None, deck: str | None,
                       limit: int | None) -> SessionQueue:
        ground = self._ground
        now = ground.now()
        start, end = day_bounds(now, ground.settings.day_rollover_hour)
        selection = self._index.session_cards(deck, post)
        if kind is SessionKind.PRACTICE:
            return self._practice(selection.cards, now, end, limit)
        from studyapp.store.progress import QueueRow, due_cards, not_new_keys, stored_time

        new_left, reviews_left = self.limits_left()
        if kind is SessionKind.REVIEW:
            new_left = 0
        due = due_cards(ground.store, ground.profile.id, end, now, with_reviews=reviews_left > 0)
        answered = self.facts_answered(start, end)
        # Anki buries only the siblings of queues gathered after the answered card's: a new
        # card's answer buries new siblings, a review's reviews too, a learning card's all
        buries_reviews = self.facts_answered(start, end, BURIES_REVIEWS) if answered else {}
        buries_learning = self.facts_answered(start, end, BURIES_LEARNING) if answered else {}
        by_key = selection.by_key
        recall = self.per_deck.recall_curves(now)  # each deck's own parameters
        rules = self.per_deck.rules
        deck_left = dict(self.per_deck.limits_left(start, end))
        learning = [self._item(card, row, now, recall(key[0])(row.stability, row.last_review))
                    for key, row in due.learning.items()
                    if (card := by_key.get(key)) is not None
                    and not (buries_learning and rules(key[0]).bury_interday
                             and row.last_review and row.last_review < start
                             and sibling_answered(card, buries_learning))]
        # (recall, curriculum order, card, row, last review): the order is unique, so ties
        # end there
        due_reviews: list[tuple[float, tuple[int, int, int], CurriculumCard, DueReview,
                                datetime | None]] = []
        if reviews_left > 0:
            for row in due.reviews:
                card = by_key.get((row.deck_id, row.card_key))
                if card is None or (buries_reviews and rules(row.deck_id).bury_reviews
                                    and sibling_answered(card, buries_reviews)):
                    continue
                last = None if row.last_review is None else stored_time(row.last_review)
                due_reviews.append((recall(row.deck_id)(row.stability, last), card.order, card,
                                    row, last))
        taken = {i.fact for i in learning if i.fact}  # facts already in this queue
        # only today's allowance of reviews, the least likely to be recalled first
        reviews: list[QueueItem] = []
        ranked = (sorted(due_reviews) if deck_left  # a deck at its own limit passes its turn
                  else heapq.nsmallest(reviews_left, due_reviews))
        for retrievability, _, card, row, last in ranked:
            if len(reviews) >= reviews_left:
                break
            if card.fact and card.fact in taken and rules(row.deck_id).bury_reviews:
                continue
            if not _within_limit(deck_left, row.deck_id, 1):
                continue
            if card.fact:
                taken.add(card.fact)
            stored = QueueRow(CardStage.REVIEW, False, row.stability, stored_time(row.due), last)
            reviews.append(self._item(card, stored, now, retrievability))
        # only the new cards today's limit allows, in curriculum order
        new: list[QueueItem] = []
        seen = not_new_keys(ground.store, ground.profile.id, now) if new_left > 0 else set()
        unseen = selection.keys.difference(seen) if new_left > 0 else frozenset()
        waiting = [card for card in selection.in_order(unseen)
                   if not rules(card.deck.id).bury_new
                   or not ((card.fact and card.fact in taken) or sibling_answered(card, answered))]
        if waiting:
            waiting = list(filter(self.ready(seen), waiting))
        targeted = self.targeted() if waiting else frozenset()
        gathered = self.gathered(one_per_family(waiting))
        gathered.sort(key=lambda c: c.template not in targeted)  # stable: order kept within
        for card in gathered:
            if len(new) >= new_left + SPARE_NEW:
                break
            if rules(card.deck.id).bury_new and (
                    (card.fact and card.fact in taken) or sibling_answered(card, answered)):
                continue
            if not _within_limit(deck_left, card.deck.id, 0):
                continue
            if card.fact:
                taken.add(card.fact)
            new.append(self._item(card, None, now))
        new, spare = new[:new_left], new[new_left:]
        main = build_queue([], reviews, new, reviews_left=reviews_left, new_left=new_left,
                           interleave_posts=post is None, new_gathered=True)
        # past the limits: what takes the place of a card put off a day in the sitting
        reserve = (main[limit:] if limit else []) + spare
        return SessionQueue(main[:limit] if limit else main, learning, cutoff=end,
                            reserve=reserve)

    def targeted(self) -> frozenset[str]:
        """The families that set the trap of a misconception the learner holds now: read
        once a study day, and again when an answer is recorded or taken back."""
        day = self.today()
        by_day = self._targeted_by_day
        found = by_day.get(day)
        if found is None:
            by_day.clear()  # one day is kept: a new day may fade what was held
            found = by_day[day] = self._read_targeted()
        return found

    @cached_until(Changes.SCHEDULE | Changes.CONFIG)
    def _targeted_by_day(self) -> dict[str, frozenset[str]]:
        """The targeted families by study day; dropped when answers are recorded or taken
        back (``SCHEDULE``) or the day's rollover hour changes (``CONFIG``)."""
        return {}

    def _read_targeted(self) -> frozenset[str]:
        from studyapp.progress.misconceptions import (  # SQLAlchemy: on first use
            learner_misconceptions,
        )

        ground = self._ground
        rollover = ground.settings.day_rollover_hour
        return targeted_families(learner_misconceptions(
            ground.store, ground.profile.id, ground.now(), lambda at: study_day(at, rollover)))

    def ready(self, seen: set[tuple[str, str]]) -> Callable[[CurriculumCard], bool]:
        """Whether a new card may be asked: a scenario waits until the learner has seen a
        card of each family it chains that their decks hold (``ladders.waits_for``)."""
        cards = self._index.active_cards
        present = {c.template for c in cards if c.generated}
        by_key = self._index.by_key
        seen_families = {card.template for key in seen if (card := by_key.get(key))}
        return lambda card: not (card.generated
                                 and waits_for(card.template, present, seen_families))

    def next_session_mix(self, post: str) -> SessionMix:
        """What a post's next session holds: new and due cards, generated and authored."""
        new = [0, 0]
        due = [0, 0]
        for item in self.plan(SessionKind.POST, post=post):
            (new if item.stage is CardStage.NEW else due)[0 if item.generated else 1] += 1
        return SessionMix(new_generated=new[0], new_authored=new[1],
                          due_generated=due[0], due_authored=due[1])

    @property
    def new_card_order(self) -> str:
        """The profile's new-card order (``NEW_CARD_ORDERS``; mixed if unreadable)."""
        try:
            return new_card_order(self._ground.settings.new_card_order)
        except ValueError:
            return DEFAULT_NEW_CARD_ORDER

    def gathered(self, cards: Iterable[CurriculumCard]) -> list[CurriculumCard]:
        """New cards (given in curriculum order) in the order the profile gathers them."""
        return gather_new(list(cards), self.new_card_order,
                          generated=lambda c: c.generated, group=lambda c: c.post_order,
                          fact=lambda c: c.fact, key=lambda c: f"{c.deck.id}/{c.spec.id}",
                          salt=self._ground.profile.name)

    def continue_choice(self, last: str | None,
                        posts: list[str]) -> tuple[str, str] | None:
        """What "continue" opens: ("post", slug) or ("review", ""); ("wait", ISO time) when
        only learning steps due later today wait; None when nothing does.

        A card counts as waiting when a session would ask it now: a review due
        today, a learning card due within the learn-ahead limit, a new card within
        today's limit. Cards due later today wait, so the header's count and the
        session never disagree about an empty session.
        """
        soon = self._ground.now() + self.learn_ahead

        def due(item: QueueItem) -> bool:
            return item.stage is CardStage.REVIEW or (
                item.stage is not CardStage.NEW and (item.due is None or item.due <= soon))

        if last and any(due(i) for i in self.plan(SessionKind.POST, post=last)):
            return ("post", last)
        if any(due(i) for i in self.plan(SessionKind.REVIEW)):
            return ("review", "")
        for slug in ([last] if last else []) + [p for p in posts if p != last]:
            if any(i.stage is CardStage.NEW for i in self.plan(SessionKind.POST, post=slug)):
                return ("post", slug)
        later = [i.due for i in self.plan(SessionKind.REVIEW) if i.due is not None]
        if later:  # learning steps due later today: say when, not that nothing is left
            return ("wait", min(later).isoformat())
        return None
