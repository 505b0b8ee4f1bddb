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
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studyapp import locations
from studyapp.srs.calendar import day_bounds, study_day
from studyapp.srs.queue import QueueItem, build_queue, interleave_templates_only
from studyapp.srs.scheduler import CardStage, Memory, Rating, Scheduler, SchedulerSettings

if TYPE_CHECKING:
    from studyapp.decks import CardSpec, Deck
    from studyapp.questions.grading import Verdict
    from studyapp.questions.model import Question
    from studyapp.store import Store
    from studyapp.store import StoreError as StoreError
    from studyapp.store.progress import CardRow, ProfileInfo, QueueRow

LEARN_AHEAD = timedelta(minutes=20)
"""A learning card due within this time may come back in the same session."""


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
    DUE = "due"  # everything due, interleaved across posts
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
class Overview:
    """Today's numbers at a glance."""

    posts: tuple[PostProgress, ...]
    due_today: int
    new_left: int
    reviews_done_today: int
    new_done_today: int
    streak: int = 0  # consecutive study days with reviews, up to today


@dataclass(frozen=True)
class Presented:
    """A question as shown: which card, which instance, where in the session."""

    number: int  # 1-based, counts this session's questions
    total: int  # planned questions in the session
    deck_id: str
    card_key: str
    question: Question
    stage: CardStage


@dataclass(frozen=True)
class Outcome:
    """What happened after an answer was submitted."""

    verdict: Verdict
    recorded: bool  # a wrong answer is recorded at once as Again
    needs_rating: bool  # a right answer waits for Hard/Good/Easy
    intervals: dict[Rating, timedelta] = field(default_factory=dict)


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

    def __post_init__(self) -> None:
        self.key = (self.deck.id, self.spec.id)
        self.order = (self.post_order, self.deck_order, self.card_order)
        generator = getattr(self.spec, "generator", None)
        self.template = str(generator) if generator else f"{self.deck.id}/{self.spec.id}"


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
        return self._store

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

    def _limits_left(self) -> tuple[int, int]:
        from studyapp.store.progress import answered_between

        start, end = day_bounds(self.now(), self.settings.day_rollover_hour)
        new_done, reviews_done = answered_between(self.store, self.profile.id, start, end)
        return (max(0, self.settings.new_per_day - new_done),
                max(0, self.settings.reviews_per_day - reviews_done))

    def overview(self, lang: str | None = None, *, with_streak: bool = True) -> Overview:
        """Per-post counts and today's numbers for the home screen."""
        from studyapp.catalog.posts import list_posts
        from studyapp.store.progress import answered_between, card_summaries, posts_read

        lang = lang or self.config.lang
        read = posts_read(self.store, self.profile.id)
        start, end = day_bounds(self.now(), self.settings.day_rollover_hour)
        rows = card_summaries(self.store, self.profile.id, end)
        live = self._cards_by_key
        per_post: dict[str, dict[str, int]] = {}
        for card in self._cards:
            counts = per_post.setdefault(card.spec.post, {"total": 0, "new": 0, "learning": 0,
                                                          "review": 0, "due": 0})
            counts["total"] += 1
            row = rows.get(card.key)
            if row is None or (row.stage == CardStage.NEW and not row.suspended):
                counts["new"] += 1  # stage 0: marked (flagged, buried) or reset, never answered
                continue
            if row.suspended:
                continue
            counts["review" if row.stage == CardStage.REVIEW else "learning"] += 1
            if row.due:
                counts["due"] += 1
        due_today = sum(1 for key, r in rows.items()
                        if key in live and not r.suspended and r.due)
        new_done, reviews_done = answered_between(self.store, self.profile.id, start, end)
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
                        max(0, self.settings.new_per_day - new_done), reviews_done, new_done,
                        streak)

    def read_post(self, slug: str) -> None:
        """Remember that the learner opened a post's summary."""
        from studyapp.store.progress import mark_post_read

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
                         row.due if row else None, retr, card.order)

    def plan(self, kind: SessionKind, *, post: str | None = None, deck: str | None = None,
             limit: int | None = None) -> list[QueueItem]:
        """The cards a session will ask, in order (limits and interleaving applied)."""
        now = self.now()
        _, end = day_bounds(now, self.settings.day_rollover_hour)
        if deck is not None:  # first: a deck given by path joins the cards here
            wanted = self.find_deck(deck).id
            cards = [c for c in self._cards if c.deck.id == wanted]
        else:
            cards = self._cards
        if post is not None:
            from studyapp.catalog.posts import POST_SLUGS

            if post not in POST_SLUGS:
                from studyapp.catalog import UnknownIdError

                raise UnknownIdError("post", post, list(POST_SLUGS))
            cards = [c for c in cards if c.spec.post == post]
        if kind is SessionKind.PRACTICE:
            rows = self.card_states()
            hidden = {key for key, r in rows.items()
                      if r.suspended or (r.buried_until is not None and r.buried_until > now)}
            items = [self._item(c, rows.get(c.key), now) for c in cards if c.key not in hidden]
            items.sort(key=lambda i: (i.stage != CardStage.NEW, i.retrievability, i.order))
            planned = interleave_templates_only(items)
            return planned[:limit] if limit else planned
        from studyapp.store.progress import queue_rows

        seen, due = queue_rows(self.store, self.profile.id, end, now)
        new_left, reviews_left = self._limits_left()
        learning: list[QueueItem] = []
        due_reviews: list[tuple[float, tuple[int, int, int], _Card, QueueRow]] = []
        new_cards: list[_Card] = []
        recall = self.scheduler.recall_probability
        for card in cards:
            row = due.get(card.key)
            if row is None:
                if card.key not in seen:
                    new_cards.append(card)
            elif row.stage == CardStage.REVIEW:
                due_reviews.append((recall(row.stability, row.last_review, now), card.order,
                                    card, row))
            else:
                learning.append(self._item(card, row, now))
        # only today's allowance of reviews, the least likely to be recalled first
        weakest = heapq.nsmallest(reviews_left, due_reviews, key=lambda r: (r[0], r[1]))
        reviews = [self._item(card, row, now) for _, _, card, row in weakest]
        # only the new cards today's limit allows, in curriculum order
        new_cards.sort(key=lambda c: c.order)
        new = [self._item(c, None, now) for c in new_cards[:new_left]]
        planned = build_queue(learning, reviews, new, reviews_left=reviews_left,
                              new_left=new_left, interleave_posts=post is None)
        return planned[:limit] if limit else planned

    def start(self, kind: SessionKind = SessionKind.DUE, *, post: str | None = None,
              deck: str | None = None, limit: int | None = None, seed: int | None = None,
              lang: str | None = None) -> StudySession:
        """A study session over the planned queue."""
        queue = self.plan(kind, post=post, deck=deck, limit=limit)
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
    started: float
    response: str | None = None
    verdict: Verdict | None = None


class StudySession:
    """One sitting: ask, grade, rate, record; every answer committed at once."""

    def __init__(self, service: StudyService, kind: SessionKind, queue: Sequence[QueueItem], *,
                 limit: int | None, seed: int | None, lang: str) -> None:
        self.service = service
        self.kind = kind
        self.queue: list[QueueItem] = list(queue)
        self.limit = limit
        self.lang = lang
        self.rng = random.Random(seed)
        self.answered = 0
        self.correct = 0
        self.shown = 0
        self.started_at = service.now()
        self._pending: _Pending | None = None
        self._last_log: int | None = None
        self._history: list[tuple[QueueItem, int | None, bool]] = []

    @property
    def practice(self) -> bool:
        return self.kind is SessionKind.PRACTICE

    @property
    def planned(self) -> int:
        total = self.shown + len(self.queue) - (1 if self._pending else 0)
        return min(total, self.limit) if self.limit else total

    @property
    def remaining(self) -> int:
        return max(0, self.planned - self.answered)

    def next(self) -> Presented | None:
        """The next question, or None when the session is over."""
        if self._pending is not None:
            return self._pending.presented
        if self.limit is not None and self.answered >= self.limit:
            return None
        while self.queue:
            item = self.queue.pop(0)
            seed = self.rng.randrange(2**31)
            try:
                spec = self.service.card(item.deck_id, item.card_key)
            except NoSuchItem:
                continue
            question = spec.instantiate(seed, self.lang)
            self.shown += 1
            total = max(self.planned, self.shown)
            presented = Presented(self.shown, total, item.deck_id, item.card_key, question,
                                  item.stage)
            self._pending = _Pending(presented, time.monotonic())
            return presented
        return None

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
        if self.practice:  # cramming: counted for the session, never scheduled
            self._record(Rating.GOOD if verdict.correct else Rating.AGAIN)
            return Outcome(verdict, recorded=False, needs_rating=False)
        if not verdict.correct:
            self._record(Rating.AGAIN)
            return Outcome(verdict, recorded=True, needs_rating=False)
        return Outcome(verdict, recorded=False, needs_rating=True,
                       intervals=self.intervals())

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
        self._record(rating)

    def skip(self) -> None:
        """Put the pending question back at the end of the queue, unrecorded."""
        pending = self._pending
        if pending is None:
            return
        self._pending = None
        self.shown -= 1
        p = pending.presented
        self.queue.append(QueueItem(p.deck_id, p.card_key, p.question.post,
                                    p.question.family or p.card_key, p.stage))

    def _row(self, presented: Presented) -> CardRow | None:
        from studyapp.store.progress import card_state

        return card_state(self.service.store, self.service.profile.id, presented.deck_id,
                          presented.card_key)

    def _record(self, rating: Rating) -> None:
        from studyapp.store.progress import Answer, NewState, record_answer

        pending = self._pending
        assert pending is not None and pending.verdict is not None
        presented = pending.presented
        correct = bool(pending.verdict.correct)
        self.answered += 1
        self.correct += int(correct)
        self._pending = None
        if self.practice:
            self._history.append((QueueItem(presented.deck_id, presented.card_key,
                                            presented.question.post, "", presented.stage),
                                  None, correct))
            return
        service = self.service
        now = service.now()
        row = self._row(presented)
        scheduler = service.scheduler
        after = scheduler.review(service._memory(row), rating, now)
        question = presented.question
        answer = Answer(
            deck_id=presented.deck_id, card_key=presented.card_key, post=question.post,
            family=question.family,
            state=NewState(int(after.stage), after.step, after.stability, after.difficulty,
                           after.due or now, after.last_review or now, after.reps,
                           after.lapses, scheduler.is_leech(after)),
            reviewed_at=now, rating=int(rating), correct=correct,
            duration_ms=int((time.monotonic() - pending.started) * 1000),
            seed=question.seed, params=_jsonable(question.params), prompt=question.prompt,
            response=pending.response, expected=pending.verdict.expected, lang=self.lang,
        )
        self._last_log = record_answer(service.store, service.profile.id, answer)
        self._history.append((QueueItem(presented.deck_id, presented.card_key, question.post,
                                        question.family or presented.card_key,
                                        presented.stage), self._last_log, correct))
        if after.due is not None and after.due - now <= LEARN_AHEAD:
            item = QueueItem(presented.deck_id, presented.card_key, question.post,
                             question.family or presented.card_key, after.stage, after.due)
            position = min(len(self.queue), 3)
            self.queue.insert(position, item)

    @property
    def can_undo(self) -> bool:
        return bool(self._history) and (self._pending is None
                                        or self._pending.verdict is None)

    def undo(self) -> bool:
        """Take back the last recorded answer: its card state and log are restored."""
        from studyapp.store.progress import undo_answer

        if not self._history:
            return False
        item, log_id, correct = self._history.pop()
        if log_id is not None and not undo_answer(self.service.store,
                                                  self.service.profile.id, log_id):
            return False
        self.answered -= 1
        self.correct -= int(correct)
        self.queue = [q for q in self.queue if q.key != item.key]
        if self._pending is not None:
            self.skip()
            self.queue.insert(0, self.queue.pop())
        self.queue.insert(0, item)
        self.shown = max(0, self.shown - 1)
        return True

    @property
    def elapsed(self) -> timedelta:
        return self.service.now() - self.started_at


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


def today(service: StudyService) -> str:
    """The current study day as an ISO date (04:00 rollover)."""
    return study_day(service.now(), service.settings.day_rollover_hour).isoformat()


def __getattr__(name: str) -> Any:
    """``StoreError`` for the faces, loaded with the store only when asked (PEP 562)."""
    if name == "StoreError":
        from studyapp.store import StoreError

        return StoreError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
