"""The one service the UIs talk to: study, review and progress.

The TUI and the plain-text loop both drive a ``StudySession`` from here, so
scheduling, grading and storage behave the same everywhere. Nothing here
imports Textual; storage goes through ``studyapp.store``.
"""

from __future__ import annotations

import gc
import heapq
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studyapp import locations
from studyapp.srs.calendar import day_bounds, study_day
from studyapp.srs.queue import QueueItem, SessionQueue, build_queue, interleave_templates_only
from studyapp.srs.scheduler import CardStage, Memory, Rating, Scheduler, SchedulerSettings

if TYPE_CHECKING:
    from studyapp.decks import CardSpec, Deck
    from studyapp.questions.grading import Verdict
    from studyapp.questions.model import Question
    from studyapp.store import Store
    from studyapp.store import StoreError as StoreError
    from studyapp.store.progress import CardRow, ProfileInfo, QueueRow

LEARNING_STAGES = (CardStage.LEARNING, CardStage.RELEARNING)
SOON = timedelta(hours=1)
""""Comes back soon": learning cards due within this time are counted by name."""


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class StudyConfig:
    """Where progress lives, whose it is, and the language to study in."""

    db_url: str | None = None
    profile: str = "default"
    lang: str = "en"
    clock: Callable[[], datetime] = utc_now
    extra_decks: tuple[Path, ...] = ()

    @property
    def url(self) -> str:
        return self.db_url or locations.default_db_url()


class SessionKind(StrEnum):
    POST = "post"  # one post's new and due cards
    DUE = "due"  # everything due and today's new cards, interleaved across posts
    REVIEW = "review"  # due reviews and learning cards only: new cards wait for a study session
    DECK = "deck"  # one deck
    PRACTICE = "practice"  # cram: nothing is rescheduled


@dataclass(frozen=True)
class PostProgress:
    """One post's line on the home screen."""

    slug: str
    title: str
    section: str
    order: int
    tagline: str
    total: int
    new: int
    learning: int
    review: int
    due: int
    read: bool

    @property
    def seen(self) -> int:
        return self.total - self.new


@dataclass(frozen=True)
class ComingBack:
    """Learning cards waiting, from their stored due times (every screen says the same)."""

    within_hour: int
    next_due: datetime | None
    now: datetime

    @property
    def next_in(self) -> timedelta | None:
        if self.next_due is None:
            return None
        return max(timedelta(0), self.next_due - self.now)


@dataclass(frozen=True)
class Overview:
    """Today's numbers at a glance."""

    posts: tuple[PostProgress, ...]
    due_today: int
    new_left: int
    reviews_done_today: int
    """Every answer given today (the figure "reviewed today" on every screen)."""
    new_done_today: int
    streak: int = 0  # consecutive study days with reviews, up to today
    new_waiting: int = 0
    """Unseen cards of the enabled decks (limits aside)."""
    coming_back: ComingBack | None = None

    @property
    def new_limit_reached(self) -> bool:
        """Today's new cards are done while more wait: offer more, or practice."""
        return self.new_left == 0 and self.new_waiting > 0


@dataclass(frozen=True)
class DeckChoiceInfo:
    """One deck as a learner switches it on or off."""

    deck_id: str
    title: str
    kind: str  # post | example | installed | file
    cards: int
    enabled: bool


@dataclass(frozen=True)
class Presented:
    """A question as shown: which card, which instance, where in the session."""

    number: int  # 1-based: how many of the planned cards were reached
    total: int  # distinct cards planned for the session; never grows
    deck_id: str
    card_key: str
    question: Question
    stage: CardStage
    returning: bool = False  # a learning card asked again, not one of the planned
    learning: int = 0
    """Returning learning cards due within the learn-ahead limit, this one included."""
    early_by: timedelta | None = None
    """A learning card shown before its due time (learn-ahead): how long until it was due."""
    flag: int = 0
    """The learner's flag on the card (0 none, 1–4)."""


@dataclass(frozen=True)
class Outcome:
    """What happened after an answer was submitted."""

    verdict: Verdict
    recorded: bool  # a wrong answer is recorded at once as Again
    needs_rating: bool  # a right answer waits for Hard/Good/Easy
    intervals: dict[Rating, timedelta] = field(default_factory=dict)
    max_rating: Rating = Rating.EASY
    """The best rating offered: Hard once the post was opened during the question."""
    can_overrule: bool = False
    """A wrong verdict the learner may overrule ("I was right")."""


SHOWN_CHOICES = "shown_choices"
"""Key in a review log's params: the choices in the order the learner saw them."""


class NoSuchItem(LookupError):
    """An unknown post, deck or card asked for by the user."""


@dataclass
class _Card:
    """A deck card with its place in the curriculum (keys computed once: queues are hot)."""

    deck: Deck
    spec: CardSpec
    post_order: int
    deck_order: int
    card_order: int
    key: tuple[str, str] = field(init=False)
    template: str = field(init=False)
    order: tuple[int, int, int] = field(init=False)
    fact: str | None = field(init=False)

    def __post_init__(self) -> None:
        self.key = (self.deck.id, self.spec.id)
        self.order = (self.post_order, self.deck_order, self.card_order)
        generator = getattr(self.spec, "generator", None)
        self.template = str(generator) if generator else f"{self.deck.id}/{self.spec.id}"
        fact = getattr(self.spec, "fact", None)
        if fact:
            self.fact = _family_fact(str(fact)) or str(fact)
        else:
            self.fact = _family_fact(str(generator)) if generator else None


def _sibling_answered(card: _Card, answered: dict[str, set[tuple[str, str]]]) -> bool:
    """Another card of this one's fact was answered today: this one is buried."""
    return bool(card.fact) and bool(answered.get(card.fact or "", set()) - {card.key})


def _family_fact(name: str) -> str | None:
    """The fact a generator family's cards share (both directions of a conversion).

    A deck card whose ``fact:`` names such a family (``fact: bits-vs-bytes``)
    shares that fact, so an authored NDR-to-GB/s card and a generated
    bits-vs-bytes card are siblings.
    """
    from studyapp.questions.generators import families

    family = families().get(name)
    return family.fact if family is not None else None


def deck_kind(deck: Deck) -> str:
    """post (built in, one per post), example (decks/examples), installed, or file."""
    if deck.source == "builtin":
        examples = locations.builtin_decks_dir() / "examples"
        return "example" if deck.path.is_relative_to(examples) else "post"
    return "installed" if deck.source == "user" else "file"


def deck_on_by_default(deck: Deck) -> bool:
    """Post decks and installed decks are studied; the examples wait to be switched on."""
    return deck_kind(deck) != "example"


class StudyService:
    """Everything a learner does, for one profile in one database."""

    def __init__(self, config: StudyConfig) -> None:
        self.config = config
        self._store: Store | None = None
        self._profile: ProfileInfo | None = None
        self._settings: SchedulerSettings | None = None
        self._scheduler: Scheduler | None = None

    # -- resources, opened on first use ---------------------------------

    @property
    def store(self) -> Store:
        if self._store is None:
            from studyapp.store import open_store

            self._store = open_store(self.config.url)
            self._store.on_lock_wait(self._say_waiting)
        return self._store

    def _say_waiting(self) -> None:
        """Another process holds the write lock: say so (the write keeps waiting)."""
        import sys

        from studyapp.i18n import t

        print(f"studyapp: {t('store.waiting', self.config.lang)}", file=sys.stderr, flush=True)

    @property
    def read_only(self) -> str | None:
        """Why answers cannot be recorded (a read-only database), or None when they can."""
        return self.store.read_only

    @property
    def profile(self) -> ProfileInfo:
        if self._profile is None:
            from studyapp.store.progress import ensure_profile

            self._profile = ensure_profile(self.store, self.config.profile,
                                           SchedulerSettings().to_dict(), self.now())
        return self._profile

    @property
    def settings(self) -> SchedulerSettings:
        if self._settings is None:
            self._settings = SchedulerSettings.from_dict(self.profile.settings)
        return self._settings

    def update_settings(self, **changes: Any) -> SchedulerSettings:
        """Change and save scheduler settings (retention, limits…)."""
        from studyapp.store.progress import save_profile_settings

        new = self.settings.with_changes(**changes)
        save_profile_settings(self.store, self.profile.id, new.to_dict())
        self._profile = None
        self._settings = None
        self._scheduler = None
        return new

    @property
    def scheduler(self) -> Scheduler:
        if self._scheduler is None:
            self._scheduler = Scheduler(self.settings)
        return self._scheduler

    def now(self) -> datetime:
        return self.config.clock()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    @cached_property
    def decks(self) -> list[Deck]:
        """Every deck that loads (built-in, the user's, and --deck files)."""
        from studyapp.decks import discover_decks, load_deck

        found = [listing.deck for listing in discover_decks() if listing.deck is not None]
        for path in self.config.extra_decks:
            deck = load_deck(path)
            found = [d for d in found if d.id != deck.id] + [deck]
        return found

    @cached_property
    def _cards(self) -> list[_Card]:
        from studyapp.catalog.posts import POST_SLUGS

        order = {slug: n for n, slug in enumerate(POST_SLUGS)}
        cards: list[_Card] = []
        for deck_order, deck in enumerate(self.decks):
            for card_order, spec in enumerate(deck.cards):
                cards.append(_Card(deck, spec, order.get(spec.post, 99), deck_order, card_order))
        # Decks, catalog and posts live as long as the process: keep them out of
        # the cyclic collector, whose full passes over them cost tens of ms
        # in the middle of building a queue.
        gc.freeze()
        return cards

    def find_deck(self, ref: str) -> Deck:
        """A deck by id, or by path to a YAML file."""
        for deck in self.decks:
            if deck.id == ref:
                return deck
        path = Path(ref)
        if path.suffix in (".yaml", ".yml") and path.exists():
            from studyapp.decks import load_deck

            deck = load_deck(path)
            self.__dict__.pop("_cards", None)
            self.__dict__.pop("_cards_by_key", None)
            self.decks.append(deck)
            return deck
        from studyapp.catalog import UnknownIdError

        raise UnknownIdError("deck", ref, [d.id for d in self.decks])

    def replace_deck(self, deck: Deck) -> None:
        """Swap in a deck edited while the app runs; its cards keep their progress."""
        self.decks[:] = [d for d in self.decks if d.id != deck.id] + [deck]
        self.__dict__.pop("_cards", None)
        self.__dict__.pop("_cards_by_key", None)

    # -- overview ---------------------------------------------------------

    def card_states(self) -> dict[tuple[str, str], CardRow]:
        """Every stored card of the profile by (deck id, card id)."""
        from studyapp.store.progress import card_states

        return card_states(self.store, self.profile.id)

    @property
    def learn_ahead(self) -> timedelta:
        return timedelta(minutes=self.settings.learn_ahead_min)

    def new_limit_today(self) -> int:
        """Today's new-card limit, raised by "study more" for today only."""
        settings = self.settings
        extra = settings.extra_new if settings.extra_new_day == today(self) else 0
        return settings.new_per_day + extra

    def study_more_new(self, count: int) -> int:
        """Anki's custom study: raise today's new-card limit by ``count``; the new limit."""
        day = today(self)
        settings = self.settings
        extra = settings.extra_new if settings.extra_new_day == day else 0
        self.update_settings(extra_new_day=day, extra_new=extra + max(0, count))
        return self.new_limit_today()

    def _limits_left(self) -> tuple[int, int]:
        from studyapp.store.progress import answered_between

        start, end = day_bounds(self.now(), self.settings.day_rollover_hour)
        new_done, reviews_done = answered_between(self.store, self.profile.id, start, end)
        return (max(0, self.new_limit_today() - new_done),
                max(0, self.settings.reviews_per_day - reviews_done))

    def coming_back(self) -> ComingBack:
        """Learning cards due within the hour, and the soonest (stored due times)."""
        from studyapp.store.progress import learning_due_times

        now = self.now()
        live = self._active_keys
        times = [due for key, due in learning_due_times(self.store, self.profile.id, now)
                 if key in live]
        soon = sum(1 for due in times if due <= now + SOON)
        return ComingBack(soon, times[0] if times else None, now)

    def _facts_answered(self, start: datetime, end: datetime) -> dict[str, set[tuple[str, str]]]:
        """Facts of the cards answered in [start, end), with those cards: their siblings
        are buried (a card is not its own sibling: reset, it may come back new)."""
        from studyapp.store.progress import answered_keys_between

        cards = self._cards_by_key
        facts: dict[str, set[tuple[str, str]]] = {}
        for key in answered_keys_between(self.store, self.profile.id, start, end):
            card = cards.get(key)
            if card is not None and card.fact:
                facts.setdefault(card.fact, set()).add(key)
        return facts

    def siblings(self, deck_id: str, card_key: str) -> set[tuple[str, str]]:
        """Other cards sharing this card's fact."""
        card = self._cards_by_key.get((deck_id, card_key))
        if card is None or not card.fact:
            return set()
        return {c.key for c in self._cards if c.fact == card.fact and c.key != card.key}

    # -- decks switched on and off per profile ---------------------------

    @cached_property
    def _deck_choices(self) -> dict[str, bool]:
        from studyapp.store.progress import deck_choices

        return deck_choices(self.store, self.profile.id)

    def deck_enabled(self, deck: Deck) -> bool:
        if deck_kind(deck) == "file":  # given on the command line: studied
            return True
        return self._deck_choices.get(deck.id, deck_on_by_default(deck))

    def deck_list(self, lang: str | None = None) -> list[DeckChoiceInfo]:
        from studyapp.decks import deck_title

        lang = lang or self.config.lang
        return [DeckChoiceInfo(d.id, deck_title(d, lang), deck_kind(d), len(d.cards),
                               self.deck_enabled(d)) for d in self.decks]

    def set_deck_enabled(self, deck_id: str, enabled: bool) -> DeckChoiceInfo:
        """Switch a deck on or off for this profile (``UnknownIdError`` if none has that id)."""
        from studyapp.store.progress import set_deck_choice

        deck = next((d for d in self.decks if d.id == deck_id), None)
        if deck is None:
            from studyapp.catalog import UnknownIdError

            raise UnknownIdError("deck", deck_id, [d.id for d in self.decks])
        set_deck_choice(self.store, self.profile.id, deck.id, enabled, self.now())
        self.__dict__.pop("_deck_choices", None)
        self.__dict__.pop("_active_cards", None)
        self.__dict__.pop("_active_keys", None)
        return next(info for info in self.deck_list() if info.deck_id == deck_id)

    @cached_property
    def _active_cards(self) -> list[_Card]:
        """Cards of the decks this learner studies (what home, review and posts count)."""
        enabled = {d.id for d in self.decks if self.deck_enabled(d)}
        return [c for c in self._cards if c.deck.id in enabled]

    @cached_property
    def _active_keys(self) -> set[tuple[str, str]]:
        return {c.key for c in self._active_cards}

    def studied_keys(self) -> frozenset[tuple[str, str]]:
        """(deck, card) of every card in the decks this learner has switched on."""
        return frozenset(self._active_keys)

    def overview(self, lang: str | None = None, *, with_streak: bool = True) -> Overview:
        """Per-post counts and today's numbers for the home screen."""
        from studyapp.catalog.posts import list_posts
        from studyapp.store.progress import answer_counts, card_summaries, posts_read

        lang = lang or self.config.lang
        read = posts_read(self.store, self.profile.id)
        now = self.now()
        start, end = day_bounds(now, self.settings.day_rollover_hour)
        rows = card_summaries(self.store, self.profile.id, end, now)
        live = self._active_keys
        buried_facts = self._facts_answered(start, end)
        new_waiting = 0
        per_post: dict[str, dict[str, int]] = {}
        for card in self._active_cards:
            counts = per_post.setdefault(card.spec.post, {"total": 0, "new": 0, "learning": 0,
                                                          "review": 0, "due": 0})
            counts["total"] += 1
            row = rows.get(card.key)
            if row is None or (row.stage == CardStage.NEW and not row.suspended):
                counts["new"] += 1  # stage 0: marked (flagged, buried) or reset, never answered
                if not _sibling_answered(card, buried_facts):
                    new_waiting += 1
                continue
            if row.suspended:
                continue
            counts["review" if row.stage == CardStage.REVIEW else "learning"] += 1
            if row.due:
                counts["due"] += 1
        due_today = sum(1 for key, r in rows.items()
                        if key in live and not r.suspended and r.due)
        new_done, _, answers = answer_counts(self.store, self.profile.id, start, end)
        posts = []
        for post in list_posts(lang):
            c = per_post.get(post.slug, {"total": 0, "new": 0, "learning": 0, "review": 0,
                                         "due": 0})
            posts.append(PostProgress(post.slug, post.title, post.section, post.order,
                                      post.tagline, c["total"], c["new"], c["learning"],
                                      c["review"], c["due"], post.slug in read))
        streak = 0
        if with_streak:
            from studyapp.progress import streak_days  # loads the store: only when asked

            streak = streak_days(self)
        return Overview(tuple(posts), due_today,
                        max(0, self.new_limit_today() - new_done), answers, new_done,
                        streak, new_waiting, self.coming_back())

    def read_post(self, slug: str) -> None:
        """Remember that the learner opened a post's summary."""
        from studyapp.store.progress import mark_post_read

        if self.read_only:
            return
        mark_post_read(self.store, self.profile.id, slug, self.now())

    def has_read(self, slug: str) -> bool:
        from studyapp.store.progress import posts_read

        return slug in posts_read(self.store, self.profile.id)

    # -- sessions ---------------------------------------------------------

    def _memory(self, row: CardRow | None, card_id: int = 0) -> Memory:
        """The scheduler's view of a stored card (a new card when there is none)."""
        if row is None:
            return Memory(card_id=card_id or 1)
        return Memory(card_id=row.id, stage=CardStage(row.stage), step=row.step,
                      stability=row.stability, difficulty=row.difficulty, due=row.due,
                      last_review=row.last_review, reps=row.reps, lapses=row.lapses)

    def _item(self, card: _Card, row: CardRow | QueueRow | None, now: datetime) -> QueueItem:
        stage = CardStage(row.stage) if row else CardStage.NEW
        retr = (self.scheduler.recall_probability(row.stability, row.last_review, now)
                if row else 0.0)
        return QueueItem(card.deck.id, card.spec.id, card.spec.post, card.template, stage,
                         row.due if row else None, retr, card.order, card.fact)

    def _session_cards(self, deck: str | None, post: str | None) -> list[_Card]:
        """A deck asked for by name is studied whether or not it is switched on."""
        if deck is not None:  # first: a deck given by path joins the cards here
            wanted = self.find_deck(deck).id
            cards = [c for c in self._cards if c.deck.id == wanted]
        else:
            cards = self._active_cards
        if post is not None:
            from studyapp.catalog.posts import POST_SLUGS

            if post not in POST_SLUGS:
                from studyapp.catalog import UnknownIdError

                raise UnknownIdError("post", post, list(POST_SLUGS))
            cards = [c for c in cards if c.spec.post == post]
        return cards

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
        now = self.now()
        start, end = day_bounds(now, self.settings.day_rollover_hour)
        cards = self._session_cards(deck, post)
        if kind is SessionKind.PRACTICE:
            rows = self.card_states()
            hidden = {key for key, r in rows.items()
                      if r.suspended or (r.buried_until is not None and r.buried_until > now)}
            items = [self._item(c, rows.get(c.key), now) for c in cards if c.key not in hidden]
            items.sort(key=lambda i: (i.stage != CardStage.NEW, i.retrievability, i.order))
            planned = interleave_templates_only(items)
            return SessionQueue(planned[:limit] if limit else planned, [], cutoff=end)
        from studyapp.store.progress import queue_rows

        seen, due = queue_rows(self.store, self.profile.id, end, now)
        new_left, reviews_left = self._limits_left()
        if kind is SessionKind.REVIEW:
            new_left = 0
        answered = self._facts_answered(start, end)
        taken: set[str] = set()  # facts already in this queue
        learning: list[QueueItem] = []
        due_reviews: list[tuple[float, tuple[int, int, int], _Card, QueueRow]] = []
        new_cards: list[_Card] = []
        recall = self.scheduler.recall_probability
        for card in cards:
            row = due.get(card.key)
            if row is None:
                if card.key not in seen and not _sibling_answered(card, answered):
                    new_cards.append(card)
            elif row.stage == CardStage.REVIEW:
                if not _sibling_answered(card, answered):
                    due_reviews.append((recall(row.stability, row.last_review, now),
                                        card.order, card, row))
            else:
                learning.append(self._item(card, row, now))
        taken |= {i.fact for i in learning if i.fact}
        # only today's allowance of reviews, the least likely to be recalled first
        weakest = heapq.nsmallest(reviews_left, due_reviews, key=lambda r: (r[0], r[1]))
        reviews = []
        for _, _, card, row in weakest:
            if card.fact and card.fact in taken:
                continue
            if card.fact:
                taken.add(card.fact)
            reviews.append(self._item(card, row, now))
        # only the new cards today's limit allows, in curriculum order
        new_cards.sort(key=lambda c: c.order)
        new: list[QueueItem] = []
        for card in new_cards:
            if len(new) >= new_left:
                break
            if card.fact and card.fact in taken:
                continue
            if card.fact:
                taken.add(card.fact)
            new.append(self._item(card, None, now))
        main = build_queue([], reviews, new, reviews_left=reviews_left, new_left=new_left,
                           interleave_posts=post is None)
        return SessionQueue(main[:limit] if limit else main, learning, cutoff=end)

    def start(self, kind: SessionKind = SessionKind.DUE, *, post: str | None = None,
              deck: str | None = None, limit: int | None = None, seed: int | None = None,
              lang: str | None = None) -> StudySession:
        """A study session over the planned queue (practice when nothing can be recorded)."""
        if self.read_only:
            kind = SessionKind.PRACTICE
        queue = self.session_queue(kind, post=post, deck=deck, limit=limit)
        return StudySession(self, kind, queue, limit=limit, seed=seed,
                            lang=lang or self.config.lang)

    @cached_property
    def _cards_by_key(self) -> dict[tuple[str, str], _Card]:
        return {card.key: card for card in self._cards}

    def card(self, deck_id: str, card_key: str) -> CardSpec:
        card = self._cards_by_key.get((deck_id, card_key))
        if card is None:
            raise NoSuchItem(f"{deck_id}/{card_key}")
        return card.spec

    def set_suspended(self, deck_id: str, card_key: str, suspended: bool) -> bool:
        from studyapp.store.progress import set_suspended

        return set_suspended(self.store, self.profile.id, deck_id, card_key, suspended)


@dataclass
class _Pending:
    presented: Presented
    item: QueueItem
    first: bool  # the first showing of a planned card (counted in n)
    started: float
    response: str | None = None
    verdict: Verdict | None = None
    looked_at_post: bool = False
    duration_ms: int | None = None


@dataclass
class _Overrulable:
    """The last wrong answer, kept so the learner can say "I was right"."""

    pending: _Pending
    log_id: int | None


class StudySession:
    """One sitting: ask, grade, rate, record; every answer committed at once.

    After each answer the next card is chosen as Anki does (``SessionQueue``):
    a learning card comes back when it is due, never earlier, unless nothing
    else waits and it is due within the learn-ahead limit. ``[n/N]``: N is the
    number of distinct cards planned when the session started and never
    grows; returning learning cards are counted apart.
    """

    def __init__(self, service: StudyService, kind: SessionKind,
                 queue: SessionQueue | Sequence[QueueItem], *, limit: int | None,
                 seed: int | None, lang: str) -> None:
        self.service = service
        self.kind = kind
        if not isinstance(queue, SessionQueue):
            items = list(queue)
            waiting = [i for i in items if i.stage in LEARNING_STAGES and i.due is not None]
            queue = SessionQueue([i for i in items if i not in waiting], waiting)
        self.queue = queue
        self.limit = limit
        self.lang = lang
        self.rng = random.Random(seed)
        self.answered = 0
        self.correct = 0
        self.started_at = service.now()
        horizon = self.started_at + service.learn_ahead
        startable = [*queue.main, *(i for i in queue.learning
                                    if i.due is not None and i.due <= horizon)]
        self._planned_keys = {i.key for i in startable}
        count = len(self._planned_keys)
        self.total = min(count, limit) if limit else count
        self.reached = 0  # planned cards shown at least once (n)
        self._shown: set[tuple[str, str]] = set()
        self._last: tuple[str, str] | None = None
        self._pending: _Pending | None = None
        self._last_log: int | None = None
        self._history: list[tuple[QueueItem, int | None, bool, bool, int]] = []
        self.time_studied_ms = 0
        self._buried_by: dict[int, tuple[set[tuple[str, str]], list[QueueItem]]] = {}
        """Per answer (its log id): the siblings it buried, and those it took out of the queue."""
        """Time spent answering, question shown to answer given, summed over this
        session's answers: the measure progress and ``stats`` call time studied."""
        self._overrulable: _Overrulable | None = None

    @property
    def practice(self) -> bool:
        return self.kind is SessionKind.PRACTICE

    @cached_property
    def _flags(self) -> dict[tuple[str, str], int]:
        """The learner's flags on this profile's cards, read once, when the first card shows."""
        from studyapp.store.cards import stored_cards

        cards = stored_cards(self.service.store, self.service.profile.id)
        return {key: card.flag for key, card in cards.items() if card.flag}

    @property
    def planned(self) -> int:
        """N: distinct cards planned for the session (does not grow)."""
        return self.total

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.reached)

    def _is_return(self, item: QueueItem) -> bool:
        return item.key in self._shown or item.key not in self._planned_keys

    @property
    def learning_left(self) -> int:
        """Returning learning cards that may still be asked now: due within the learn-ahead
        limit (later ones wait for another sitting and are not counted)."""
        horizon = self.service.now() + self.service.learn_ahead
        return sum(1 for item in self.queue.learning
                   if self._is_return(item) and item.due is not None and item.due <= horizon)

    @property
    def shown(self) -> int:
        return self.reached

    def next(self) -> Presented | None:
        """The next question, or None when the session is over."""
        if self._pending is not None:
            return self._pending.presented
        if self.limit is not None and self.answered >= self.limit:
            return None
        now = self.service.now()
        while True:
            item = self.queue.pop(now, self.service.learn_ahead, self._last)
            if item is None:
                return None
            seed = self.rng.randrange(2**31)
            try:
                spec = self.service.card(item.deck_id, item.card_key)
            except NoSuchItem:
                continue
            question = shuffle_choices(spec.instantiate(seed, self.lang), seed)
            first = not self._is_return(item)
            if first:
                self.reached += 1
            self._shown.add(item.key)
            learning = self.learning_left + (0 if first else 1)
            early = (item.due - now if item.stage in LEARNING_STAGES and item.due is not None
                     and item.due > now else None)
            presented = Presented(self.reached, self.total, item.deck_id, item.card_key,
                                  question, item.stage, returning=not first, learning=learning,
                                  early_by=early, flag=self._flags.get(item.key, 0))
            self._pending = _Pending(presented, item, first, time.monotonic())
            return presented

    def submit(self, response: str) -> Outcome:
        """Grade a response. Wrong → recorded as Again now; right → wait for a rating."""
        from studyapp.questions.grading import grade

        pending = self._pending
        if pending is None:
            raise RuntimeError("no question is waiting for an answer")
        verdict = grade(pending.presented.question, response)
        if verdict.correct is None:
            return Outcome(verdict, recorded=False, needs_rating=False)
        pending.response = response
        pending.verdict = verdict
        pending.duration_ms = int((time.monotonic() - pending.started) * 1000)
        self._overrulable = None
        if not verdict.correct:
            self._overrulable = _Overrulable(pending, None)
        if self.practice:  # cramming: counted for the session, never scheduled
            self._record(Rating.GOOD if verdict.correct else Rating.AGAIN)
            return Outcome(verdict, recorded=False, needs_rating=False,
                           can_overrule=not verdict.correct)
        if not verdict.correct:
            self._record(Rating.AGAIN)
            self._overrulable = _Overrulable(pending, self._last_log)
            return Outcome(verdict, recorded=True, needs_rating=False, can_overrule=True)
        return Outcome(verdict, recorded=False, needs_rating=True,
                       intervals=self.intervals(), max_rating=self.max_rating)

    @property
    def max_rating(self) -> Rating:
        """Hard once the learner opened the post while the question was asked."""
        pending = self._pending
        return Rating.HARD if pending is not None and pending.looked_at_post else Rating.EASY

    def look_at_post(self) -> bool:
        """The learner opened the post before answering: this answer is rated Hard at best.

        Looking is allowed (the post is there to learn from); it only caps the
        rating, so the schedule does not trust a recall the post supplied.
        Returns True when the cap applies (an unanswered question is waiting).
        """
        pending = self._pending
        if pending is None or pending.verdict is not None:
            return False
        pending.looked_at_post = True
        return True

    @property
    def can_overrule(self) -> bool:
        return self._overrulable is not None

    def overrule(self) -> bool:
        """"I was right": the last wrong answer becomes a right one rated Hard, marked overridden.

        As on a self-graded Anki card, the learner has the last word; the log
        keeps the flag, so reports can tell a graded answer from an overruled
        one. Only the answer just graded can be overruled: on its feedback, or
        (plain mode) at the next question's prompt, before that one is answered.
        """
        held = self._overrulable
        if held is None or held.pending.verdict is None:
            return False
        current = self._pending if self._pending is not held.pending else None
        if current is not None and current.verdict is not None:
            return False
        from studyapp.store.progress import undo_answer

        if held.log_id is not None and not undo_answer(self.service.store,
                                                       self.service.profile.id, held.log_id):
            return False
        self._overrulable = None
        if self._history:
            self._history.pop()
        self.answered -= 1
        self.time_studied_ms -= held.pending.duration_ms or 0
        key = (held.pending.presented.deck_id, held.pending.presented.card_key)
        self.queue.drop({key})
        verdict = held.pending.verdict
        held.pending.verdict = replace(verdict, correct=True)
        self._pending = held.pending
        buried = self._buried_by.pop(held.log_id, None) if held.log_id is not None else None
        self._record(Rating.GOOD if self.practice else Rating.HARD, overridden=True)
        if buried is not None and self._last_log is not None:  # the new answer buried them
            siblings, dropped = self._buried_by.get(self._last_log, (set(), []))
            self._buried_by[self._last_log] = (siblings | buried[0], dropped + buried[1])
        self._pending = current  # the question on screen stays asked
        return True

    def intervals(self) -> dict[Rating, timedelta]:
        """Next interval for each rating of the pending question."""
        pending = self._pending
        if pending is None:
            return {}
        row = self._row(pending.presented)
        memory = self.service._memory(row)
        return self.service.scheduler.preview(memory, self.service.now())

    def rate(self, rating: Rating = Rating.GOOD) -> None:
        """Record the learner's rating of a right answer (Again if they guessed)."""
        pending = self._pending
        if pending is None or pending.verdict is None or not pending.verdict.correct:
            raise RuntimeError("no right answer is waiting for a rating")
        self._record(min(rating, self.max_rating))

    def _unshow(self, item: QueueItem, first: bool) -> None:
        if first:
            self.reached -= 1
            self._shown.discard(item.key)

    def skip(self) -> None:
        """Put the pending question back at the end of the queue, unrecorded."""
        pending = self._pending
        if pending is None:
            return
        self._pending = None
        self._unshow(pending.item, pending.first)
        self.queue.main.append(pending.item)

    def _row(self, presented: Presented) -> CardRow | None:
        from studyapp.store.progress import card_state

        return card_state(self.service.store, self.service.profile.id, presented.deck_id,
                          presented.card_key)

    def _record(self, rating: Rating, *, overridden: bool = False) -> None:
        from studyapp.store.progress import Answer, NewState, record_answer

        pending = self._pending
        assert pending is not None and pending.verdict is not None
        presented = pending.presented
        correct = bool(pending.verdict.correct)
        self.answered += 1
        self.correct += int(correct)
        spent = pending.duration_ms or 0
        self.time_studied_ms += spent
        self._pending = None
        self._last = pending.item.key
        if self.practice:
            self._history.append((pending.item, None, correct, pending.first, spent))
            return
        service = self.service
        now = service.now()
        scheduler = service.scheduler
        reviewed: list[Memory] = []

        def state_for(row: CardRow | None) -> NewState:  # runs inside the write transaction
            after = scheduler.review(service._memory(row), rating, now)
            reviewed[:] = [after]
            return NewState(int(after.stage), after.step, after.stability, after.difficulty,
                            after.due or now, after.last_review or now, after.reps,
                            after.lapses, scheduler.is_leech(after))

        question = presented.question
        answer = Answer(
            deck_id=presented.deck_id, card_key=presented.card_key, post=question.post,
            family=question.family, state=None,
            reviewed_at=now, rating=int(rating), correct=correct,
            duration_ms=pending.duration_ms,
            seed=question.seed, params=_logged_params(question), prompt=question.prompt,
            response=pending.response, expected=pending.verdict.expected, lang=self.lang,
            overridden=overridden, looked_at_post=pending.looked_at_post,
        )
        self._last_log = record_answer(service.store, service.profile.id, answer, state_for)
        after = reviewed[0]
        self._history.append((pending.item, self._last_log, correct, pending.first, spent))
        if after.stage in LEARNING_STAGES and after.due is not None:
            self.queue.requeue(replace(pending.item, stage=after.stage), after.due)
        else:
            self.queue.drop({pending.item.key})
        self._bury_siblings(pending.item, self._last_log)

    def _bury_siblings(self, item: QueueItem, log_id: int) -> None:
        """Cards sharing this one's fact wait until the next study day (not those in learning)."""
        from studyapp.store.progress import bury_cards

        service = self.service
        siblings = service.siblings(item.deck_id, item.card_key)
        siblings -= {i.key for i in self.queue.learning}
        if not siblings:
            return
        _, end = day_bounds(service.now(), service.settings.day_rollover_hour)
        bury_cards(service.store, service.profile.id, siblings, end)
        dropped = [i for i in self.queue.main if i.key in siblings]
        self.queue.drop(siblings)
        self._buried_by[log_id] = (siblings, dropped)

    def _unbury_siblings(self, log_id: int) -> None:
        """Undo of an answer: the siblings it buried are back today, and in this session."""
        from studyapp.store.cards import CardRef, Mark, mark_cards

        siblings, dropped = self._buried_by.pop(log_id, (set(), []))
        if not siblings:
            return
        service = self.service
        refs = []
        for deck_id, card_key in sorted(siblings):
            card = service._cards_by_key.get((deck_id, card_key))
            if card is not None:
                refs.append(CardRef(deck_id, card_key, card.spec.post,
                                    getattr(card.spec, "generator", None)))
        mark_cards(service.store, service.profile.id, refs, Mark.UNBURY, now=service.now())
        waiting = {i.key for i in self.queue}
        self.queue.main.extend(i for i in dropped if i.key not in waiting)

    @property
    def can_undo(self) -> bool:
        return bool(self._history) and (self._pending is None
                                        or self._pending.verdict is None)

    def undo(self) -> bool:
        """Take back the last recorded answer: its card state and log are restored."""
        from studyapp.store.progress import undo_answer

        if not self._history:
            return False
        self._overrulable = None
        item, log_id, correct, first, spent = self._history.pop()
        if log_id is not None and not undo_answer(self.service.store,
                                                  self.service.profile.id, log_id):
            return False
        if log_id is not None:
            self._unbury_siblings(log_id)
        self.answered -= 1
        self.time_studied_ms -= spent
        self.correct -= int(correct)
        self.queue.drop({item.key})
        if self._pending is not None:
            pending = self._pending
            self._pending = None
            self._unshow(pending.item, pending.first)
            self.queue.main.insert(0, pending.item)
        self._unshow(item, first)
        if item.stage in LEARNING_STAGES and not first:
            self.queue.learning.insert(0, item)  # due again now: asked next
        else:
            self.queue.main.insert(0, item)
        self._last = None
        return True

    @property
    def elapsed(self) -> timedelta:
        return self.service.now() - self.started_at

    def comes_back(self) -> tuple[timedelta, ...]:
        """How long until each card answered in this session is due (stored due times)."""
        from studyapp.store.progress import card_state

        service = self.service
        now = service.now()
        keys = dict.fromkeys(entry[0].key for entry in self._history if entry[1])
        waits = []
        for deck_id, card_key in keys:
            row = card_state(service.store, service.profile.id, deck_id, card_key)
            if row is not None and not row.suspended:
                waits.append(max(timedelta(0), row.due - now))
        return tuple(sorted(waits))


def shuffle_choices(question: Question, seed: int | None) -> Question:
    """The choices in a fresh order for this showing, so the position is never the memory.

    The answer is kept by its text, so grading is unchanged; the order shown
    is stored with the answer (``SHOWN_CHOICES``) and replayed from there.
    """
    from studyapp.questions.model import Kind

    if question.kind is not Kind.CHOICE or len(question.choices) < 2:
        return question
    choices = list(question.choices)
    random.Random(f"choices/{seed}").shuffle(choices)
    return replace(question, choices=tuple(choices))


def _logged_params(question: Question) -> Any:
    """Params as stored with an answer, plus the choices in the order shown."""
    from studyapp.questions.model import Kind

    params = _jsonable(question.params)
    if question.kind is Kind.CHOICE:
        params = {**params, SHOWN_CHOICES: list(question.choices)}
    return params


def _jsonable(value: Any) -> Any:
    """Params as plain JSON (catalog entries by id, numbers as numbers)."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    entry_id = getattr(value, "id", None)
    return str(entry_id) if entry_id is not None else str(value)


def numbered_choice(question: Question, shown: str, limit: int | None = None) -> str:
    """A choice as every face numbers it ("2) HBM3e"), cut to ``limit`` characters.

    Grading names a choice by letter ("b) HBM3e"); the options are listed by
    number, so the answer shown beside them uses the same number. Other
    answers come back unchanged.
    """
    from studyapp.questions.model import Kind

    if question.kind is not Kind.CHOICE:
        return shown
    for n, choice in enumerate(question.choices):
        if shown in (f"{chr(ord('a') + n)}) {choice}", choice):
            text = choice
            if limit is not None and len(text) > limit:
                text = text[: max(1, limit - 1)].rstrip() + "…"
            return f"{n + 1}) {text}"
    return shown


def wait_text(delta: timedelta, lang: str) -> str:
    """How long until a card is back: "now", "9 min", "3h", "2d"."""
    from studyapp.i18n import t
    from studyapp.srs.scheduler import format_interval

    minutes = delta.total_seconds() / 60
    if minutes < 1:
        return t("study.wait.now", lang)
    if minutes < 60:
        return t("study.wait.minutes", lang, minutes=round(minutes))
    return format_interval(delta, lang)


def coming_back_text(coming: ComingBack | None, lang: str) -> str | None:
    """ "3 cards within the hour, next in 9 min" (None when no learning card waits)."""
    from studyapp.i18n import t

    if coming is None or coming.next_in is None:
        return None
    wait = wait_text(coming.next_in, lang)
    if coming.within_hour == 0:
        return t("study.comes_back.later", lang, wait=wait)
    key = "study.comes_back.one" if coming.within_hour == 1 else "study.comes_back.many"
    return t(key, lang, count=coming.within_hour, wait=wait)


def today(service: StudyService) -> str:
    """The current study day as an ISO date (04:00 rollover)."""
    return study_day(service.now(), service.settings.day_rollover_hour).isoformat()


def describe_failure(exc: BaseException) -> str | None:
    """One line for a database failure met after opening (corrupt page, lost server), or None."""
    from studyapp.store import describe_database_error

    return describe_database_error(exc)


def __getattr__(name: str) -> Any:
    """``StoreError`` for the faces, loaded with the store only when asked (PEP 562)."""
    if name == "StoreError":
        from studyapp.store import StoreError

        return StoreError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
