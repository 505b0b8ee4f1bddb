"""The study service: one profile in one database, as every face sees it."""

from __future__ import annotations

import contextlib
import gc
import heapq
import sys
import uuid
import weakref
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from studyapp.catalog import UnknownIdError
from studyapp.catalog.posts import POST_SLUGS, list_posts
from studyapp.decks import CardSpec, Deck, deck_title, discover_decks, load_deck
from studyapp.decks.cues import expected_answers, gives_away
from studyapp.decks.loader import collector_paused
from studyapp.decks.model import summary_key
from studyapp.decks.text import markdown_line
from studyapp.i18n import t
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
from studyapp.srs.scheduler import CardStage, Memory, Rating, Scheduler, SchedulerSettings
from studyapp.study.cards import (
    CardSelection,
    CurriculumCard,
    deck_kind,
    deck_on_by_default,
    sibling_answered,
)
from studyapp.study.held import memory_of, record_abandoned, reviewed_state
from studyapp.study.model import (
    SOON,
    ComingBack,
    CourseProgress,
    CourseView,
    DeckChoiceInfo,
    DeckRow,
    NoSuchItem,
    Overview,
    PostCard,
    PostCards,
    PostOffer,
    PostProgress,
    ProgressView,
    SessionKind,
    SessionMix,
    StudyConfig,
)
from studyapp.study.outage import kept_answers_path
from studyapp.study.queue import queue_item
from studyapp.study.session import StudySession

if TYPE_CHECKING:
    from studyapp.decks.media import CardImages
    from studyapp.store import Store
    from studyapp.store.cards import CardRef, StoredCard
    from studyapp.store.held import KeptAnswers
    from studyapp.store.progress import (
        Answer,
        CardRow,
        DueReview,
        ProfileInfo,
        QueueRow,
        StateFor,
    )
    from studyapp.study.host import CardKey
    from studyapp.study.model import AnsweredCard

T = TypeVar("T")


def deck_files(lang: str) -> list[DeckRow]:
    """Every deck file found, loaded or broken (it reads YAML: run it off the event loop)."""
    from studyapp import locations
    from studyapp.decks.report import draw_problem_lines

    builtin = locations.builtin_decks_dir()
    rows: list[DeckRow] = []
    for listing in discover_decks():
        path = listing.path
        shown = (f"{builtin.name}/{path.relative_to(builtin)}" if path.is_relative_to(builtin)
                 else str(path))
        deck = listing.deck
        problems = tuple(problem.render(lang) for problem in listing.problems)
        if deck is not None:
            rows.append(DeckRow(deck.id, deck_title(deck, lang), len(deck.cards),
                                listing.source, shown, deck.post or "", problems,
                                skipped=tuple(draw_problem_lines(deck.id, lang))))
        else:
            rows.append(DeckRow(listing.id, path.name, 0, listing.source, shown, "",
                                problems or ("?",)))
    return rows


SPARE_NEW = 8
"""New cards planned past today's limit, to take the place of new cards a sitting puts off
a day (a written card whose answer a drawn question stated): the day still gets its limit."""


class StudyService:
    """Everything a learner does, for one profile in one database."""

    def __init__(self, config: StudyConfig) -> None:
        self.config = config
        self._store: Store | None = None
        self._profile: ProfileInfo | None = None
        self._settings: SchedulerSettings | None = None
        self._scheduler: Scheduler | None = None
        self._sessions: weakref.WeakSet[StudySession] = weakref.WeakSet()
        self._failed_cards: set[tuple[str, str]] = set()
        self.recovered: list[str] = []
        """Prompts of right answers a stopped app left unrated, recorded when the profile
        opened (as Enter would have); the faces say so once."""
        self._notices: list[str] = []
        """One-line notices for the faces (the server away, kept answers sent), said once."""
        self._told_away = False
        self._held_uids: dict[int, str] = {}
        """Held answer id → the uid its recorded answer will carry (written once)."""
        self._sent_as: dict[int, int] = {}
        """Kept answer (local id) → its review log once sent: undo still finds it."""
        self._known: dict[tuple[str, str], Memory] = {}
        """Cards' states as last read or written, for the ratings' intervals while away."""
        self._offline: dict[tuple[str, str], Memory] = {}
        """Cards answered while the server was away: their state until the answers are sent."""

    # -- resources, opened on first use ---------------------------------

    @property
    def store(self) -> Store:
        if self._store is None:
            from studyapp.store import open_store  # SQLAlchemy: on first use

            self._store = open_store(self.config.url)
            self._store.on_lock_wait(self._say_waiting)
        return self._store

    def card_failed(self, deck_id: str, card_key: str, failure: Exception) -> None:
        """A card whose question cannot be drawn (a formula failing at study time, in a
        published deck nobody checked here): the sitting skips it, and says so once."""
        if (deck_id, card_key) in self._failed_cards:
            return
        self._failed_cards.add((deck_id, card_key))
        problems = getattr(failure, "problems", None)
        reason = (problems[0].render(self.config.lang) if problems
                  else f"{type(failure).__name__}: {failure}")
        from studyapp.deck_ids import shown_deck_id as shown_id
        from studyapp.study.published import say_on_stderr
        from studyapp.text import visible

        say_on_stderr(t("study.card_skipped", self.config.lang, card=shown_id(card_key),
                        deck=shown_id(deck_id), reason=visible(reason[:300])))

    def _say_waiting(self) -> None:
        """Another process holds the write lock: say so (the write keeps waiting)."""
        print(f"studyapp: {t('store.waiting', self.config.lang)}", file=sys.stderr, flush=True)

    @property
    def read_only(self) -> str | None:
        """Why answers cannot be recorded (a read-only database), or None when they can."""
        return self.store.read_only

    @property
    def profile(self) -> ProfileInfo:
        if self._profile is None:
            from studyapp.store.progress import ensure_profile  # SQLAlchemy: on first use

            try:
                self._profile = ensure_profile(self.store, self.config.profile,
                                               SchedulerSettings().to_dict(), self.now())
            except Exception as exc:
                from studyapp.study.roles import profile_refusal

                refused = profile_refusal(self.store, exc, self.config.profile)
                if refused is None:
                    raise
                raise refused from None
            from studyapp.study.roles import foreign_profile

            reason = foreign_profile(self.store, self.config.profile, self.config.lang)
            if reason is not None:  # an instructor looking at a student: reads, never writes
                self.store.read_only = reason
            if not self.read_only:
                self._send_kept_at_open()  # before abandoned held copies of the same answers
                self._record_abandoned_answers(self._profile.id)
        return self._profile

    def _record_abandoned_answers(self, profile_id: int) -> None:
        """Answers an app held and never recorded (it was killed): recorded as it would have."""
        self.recovered += record_abandoned(self.store, profile_id, self.scheduler, self.now())

    def record_abandoned(self) -> None:
        """Before progress is read: answers held by an app killed since the profile opened
        are recorded now, so what was answered is counted at once."""
        opened = self._profile is not None
        profile = self.profile  # opening the profile records them
        if opened and not self.read_only:
            self._record_abandoned_answers(profile.id)

    def take_recovered(self) -> list[str]:
        """The prompts of ``recovered`` answers, once: a second call returns none."""
        recovered, self.recovered = self.recovered, []
        return recovered

    def _reviewed(self, rating: Rating, at: datetime, reviewed: list[Memory]) -> StateFor:
        """The new state of a card rated ``rating`` at ``at``, computed inside the write
        transaction from the card as stored then (kept in ``reviewed`` too)."""
        return reviewed_state(self.scheduler, rating, at, reviewed)

    @property
    def settings(self) -> SchedulerSettings:
        if self._settings is None:
            self._settings = SchedulerSettings.from_dict(self.profile.settings)
        return self._settings

    def update_settings(self, **changes: Any) -> SchedulerSettings:
        """Change and save scheduler settings (retention, limits…)."""
        from studyapp.store.progress import save_profile_settings  # SQLAlchemy: on first use

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
        """Close the store; a right answer still waiting for its rating is recorded first
        (kept on this machine when the server is away, and sent when it is back)."""
        for session in list(self._sessions):
            with contextlib.suppress(Exception):  # closing must not fail on a failed write
                session.settle()
        if self._store is not None and self._profile is not None:
            with contextlib.suppress(Exception):
                self.send_kept_answers()
        if self._store is not None:
            self._store.close()
            self._store = None

    @cached_property
    def decks(self) -> list[Deck]:
        """Every deck that loads (built-in, the user's, and --deck files)."""
        with collector_paused():  # tens of thousands of objects, all kept: see _cards
            found = [listing.deck for listing in discover_decks() if listing.deck is not None]
            # decks published into the database replace files of the same id
            from studyapp.study.published import published_decks

            for deck in published_decks(self.store, self.config.lang):
                found = [d for d in found if d.id != deck.id] + [deck]
            for path in self.config.extra_decks:
                deck = load_deck(path)
                found = [d for d in found if d.id != deck.id] + [deck]
        return found

    @cached_property
    def _cards(self) -> list[CurriculumCard]:
        order = {slug: n for n, slug in enumerate(POST_SLUGS)}
        cards: list[CurriculumCard] = []
        # Decks, catalog and posts live as long as the process: no collection while
        # they are read and indexed (with an 8,000-card deck, passes over the deck
        # just read tripled the time to index it), and then out of the collector's
        # reach, whose full passes over them cost tens of ms in the middle of a queue.
        with collector_paused():
            for deck_order, deck in enumerate(self.decks):
                for card_order, spec in enumerate(deck.cards):
                    cards.append(CurriculumCard(deck, spec, order.get(spec.post, 99),
                                                deck_order, card_order))
        gc.freeze()
        return cards

    def find_deck(self, ref: str) -> Deck:
        """A deck by id, or by path to a YAML file."""
        for deck in self.decks:
            if deck.id == ref:
                return deck
        path = Path(ref)
        if path.suffix in (".yaml", ".yml") and path.exists():
            deck = load_deck(path)
            # the file replaces a loaded deck of its id, as --deck does: never two of one id
            self.decks[:] = [d for d in self.decks if d.id != deck.id] + [deck]
            self._forget_cards()
            return deck
        raise UnknownIdError("deck", ref, [d.id for d in self.decks])

    def deck_title_of(self, deck_id: str, lang: str) -> str:
        """A deck's title in ``lang`` (its id when no deck of that id loads)."""
        from studyapp.decks import deck_title

        for deck in self.decks:
            if deck.id == deck_id:
                return deck_title(deck, lang)
        return deck_id

    def replace_deck(self, deck: Deck) -> None:
        """Swap in a deck edited while the app runs; its cards keep their progress."""
        self.decks[:] = [d for d in self.decks if d.id != deck.id] + [deck]
        self._forget_cards()

    def _forget_cards(self, names: tuple[str, ...] = ("_cards", "_cards_by_key", "_cards_by_fact",
                                                      "_active_cards", "_active_keys",
                                                      "_selections", "_written_answers")
                      ) -> None:
        """The decks changed (or which of them are studied): index the cards again."""
        for name in names:
            self.__dict__.pop(name, None)

    # -- overview ---------------------------------------------------------

    def card_states(self) -> dict[tuple[str, str], CardRow]:
        """Every stored card of the profile by (deck id, card id)."""
        from studyapp.store.progress import card_states  # SQLAlchemy: on first use

        return card_states(self.store, self.profile.id)

    @property
    def learn_ahead(self) -> timedelta:
        return timedelta(minutes=self.settings.learn_ahead_min)

    def today(self) -> str:
        """The current study day as an ISO date (the day rolls over at the profile's hour)."""
        return study_day(self.now(), self.settings.day_rollover_hour).isoformat()

    def new_limit_today(self) -> int:
        """Today's new-card limit, raised by "study more" for today only."""
        settings = self.settings
        extra = settings.extra_new if settings.extra_new_day == self.today() else 0
        return settings.new_per_day + extra

    def study_more_new(self, count: int) -> int:
        """Anki's custom study: raise today's new-card limit by ``count``; the new limit."""
        day = self.today()
        settings = self.settings
        extra = settings.extra_new if settings.extra_new_day == day else 0
        self.update_settings(extra_new_day=day, extra_new=extra + max(0, count))
        return self.new_limit_today()

    def _limits_left(self) -> tuple[int, int]:
        from studyapp.store.progress import answered_between  # SQLAlchemy: on first use

        start, end = day_bounds(self.now(), self.settings.day_rollover_hour)
        new_done, reviews_done = answered_between(self.store, self.profile.id, start, end)
        return (max(0, self.new_limit_today() - new_done),
                max(0, self.settings.reviews_per_day - reviews_done))

    def coming_back(self) -> ComingBack:
        """Learning cards due within the hour, and the soonest (stored due times)."""
        from studyapp.store.progress import learning_due_times  # SQLAlchemy: on first use

        now = self.now()

        def read() -> list[datetime]:
            live = self._active_keys  # the decks studied: read from the database once
            return [due for key, due in learning_due_times(self.store, self.profile.id, now)
                    if key in live]

        times: list[datetime] = self._or_while_away(read, [])
        soon = sum(1 for due in times if due <= now + SOON)
        return ComingBack(soon, times[0] if times else None, now)

    def _facts_answered(self, start: datetime, end: datetime) -> dict[str, set[tuple[str, str]]]:
        """Facts of the cards answered in [start, end), with those cards: their siblings
        are buried (a card is not its own sibling: reset, it may come back new)."""
        from studyapp.store.progress import answered_keys_between  # SQLAlchemy: on first use

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
        return self._cards_by_fact[card.fact] - {card.key}

    def given_away(self, deck_id: str, texts: Iterable[str], lang: str) -> set[tuple[str, str]]:
        """Written cards of the deck whose expected answer these texts state.

        A drawn question states its chip's figures ("141 GB of HBM3e"): a written card
        asking that figure would be answered by it, so the session puts it off a day.
        """
        shown = [text for text in texts if text]
        answers = self._written_answers.get((deck_id, lang))
        if answers is None:  # worked out once per deck and language
            answers = [(card.key, found) for card in self._cards
                       if card.deck.id == deck_id and not card.generated
                       and (found := expected_answers(card.spec, lang))]
            self._written_answers[(deck_id, lang)] = answers
        return {key for key, found in answers
                if any(gives_away(text, a) for text in shown for a in found)}

    @cached_property
    def _written_answers(self) -> dict[tuple[str, str], list[tuple[tuple[str, str], list[str]]]]:
        """(deck, language) → each written card's key and expected answers."""
        return {}

    @cached_property
    def _cards_by_fact(self) -> dict[str, set[tuple[str, str]]]:
        facts: dict[str, set[tuple[str, str]]] = {}
        for card in self._cards:
            if card.fact:
                facts.setdefault(card.fact, set()).add(card.key)
        return facts

    # -- decks switched on and off per profile ---------------------------

    @cached_property
    def _deck_choices(self) -> dict[str, bool]:
        from studyapp.store.progress import deck_choices  # SQLAlchemy: on first use

        return deck_choices(self.store, self.profile.id)

    def deck_enabled(self, deck: Deck) -> bool:
        if deck_kind(deck) == "file":  # given on the command line: studied
            return True
        return self._deck_choices.get(deck.id, deck_on_by_default(deck))

    def deck_list(self, lang: str | None = None) -> list[DeckChoiceInfo]:
        lang = lang or self.config.lang
        return [DeckChoiceInfo(d.id, deck_title(d, lang), deck_kind(d), len(d.cards),
                               self.deck_enabled(d)) for d in self.decks]

    def set_deck_enabled(self, deck_id: str, enabled: bool) -> DeckChoiceInfo:
        """Switch a deck on or off for this profile (``UnknownIdError`` if none has that id)."""
        from studyapp.store.progress import set_deck_choice  # SQLAlchemy: on first use

        deck = next((d for d in self.decks if d.id == deck_id), None)
        if deck is None:
            raise UnknownIdError("deck", deck_id, [d.id for d in self.decks])
        set_deck_choice(self.store, self.profile.id, deck.id, enabled, self.now())
        self._forget_cards(("_deck_choices", "_active_cards", "_active_keys", "_selections"))
        return next(info for info in self.deck_list() if info.deck_id == deck_id)

    @cached_property
    def _active_cards(self) -> list[CurriculumCard]:
        """Cards of the decks this learner studies (what home, review and posts count)."""
        enabled = {d.id for d in self.decks if self.deck_enabled(d)}
        return [c for c in self._cards if c.deck.id in enabled]

    @cached_property
    def _active_keys(self) -> set[tuple[str, str]]:
        return {c.key for c in self._active_cards}

    def mastery_places(self) -> dict[tuple[str, str], tuple[str | None, str]]:
        """Each card of the decks studied: the post its mastery counts under and its deck
        (``progress.mastery_places``, which the class report uses for every student)."""
        from studyapp.progress import mastery_places

        return mastery_places([d for d in self.decks if self.deck_enabled(d)])

    def studied_keys(self) -> frozenset[tuple[str, str]]:
        """(deck, card) of every card in the decks this learner has switched on."""
        return frozenset(self._active_keys)

    def overview(self, lang: str | None = None, *, with_streak: bool = True) -> Overview:
        """Per-post counts and today's numbers for the home screen."""
        from studyapp.store.progress import (  # SQLAlchemy: on first use
            answer_counts,
            card_summaries,
            posts_read,
        )

        lang = lang or self.config.lang
        read = posts_read(self.store, self.profile.id)
        now = self.now()
        start, end = day_bounds(now, self.settings.day_rollover_hour)
        rows = card_summaries(self.store, self.profile.id, end, now)
        live = self._active_keys
        buried_facts = self._facts_answered(start, end)
        new_waiting = 0
        per_post: dict[str, dict[str, int]] = {}
        per_deck: dict[str, int] = {}
        for card in self._active_cards:
            per_deck[card.deck.id] = per_deck.get(card.deck.id, 0) + 1
            place = card.spec.post if card.deck.post is not None else f"deck:{card.deck.id}"
            counts = per_post.setdefault(place, {"total": 0, "new": 0, "learning": 0,
                                                 "review": 0, "due": 0, "held": 0})
            counts["total"] += 1
            row = rows.get(card.key)
            if row is None or (row.stage == CardStage.NEW and not row.suspended):
                counts["new"] += 1  # stage 0: marked (flagged, buried) or reset, never answered
                if not sibling_answered(card, buried_facts):
                    new_waiting += 1
                else:
                    counts["held"] += 1
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
                                         "due": 0, "held": 0})
            posts.append(PostProgress(post.slug, post.title, post.section, post.order,
                                      post.tagline, read=post.slug in read, **c))
        courses = []
        for deck in self.decks:
            found = per_post.get(summary_key(deck.id))
            if deck.post is not None or found is None:
                continue
            c = found
            view = self.course_view(deck.id, lang)
            tagline = markdown_line(view.summary)
            courses.append(CourseProgress(deck.id, view.title, view.course, tagline,
                                          read=summary_key(deck.id) in read, **c))
        streak = 0
        if with_streak:
            from studyapp.progress import streak_days  # loads the store: only when asked

            streak = streak_days(self)
        return Overview(tuple(posts), due_today,
                        max(0, self.new_limit_today() - new_done), answers, new_done,
                        streak, new_waiting, self.coming_back(),
                        tuple(sorted(courses, key=lambda c: (c.course.casefold(),
                                                             c.title.casefold()))),
                        tuple((d.id, deck_title(d, lang), per_deck[d.id], deck_kind(d))
                              for d in self.decks if d.id in per_deck))

    def course_view(self, deck_id: str, lang: str | None = None) -> CourseView:
        """A deck's title, course and summary in ``lang`` (``UnknownIdError`` for an unknown
        deck); a deck without a summary has an empty one."""
        from studyapp.decks.model import pick_language

        lang = lang or self.config.lang
        deck = self.find_deck(deck_id)
        title = deck_title(deck, lang)
        course = pick_language(deck.course, lang, deck.language) if deck.course else title
        summary = pick_language(deck.summary, lang, deck.language) if deck.summary else ""
        return CourseView(deck.id, title, course, summary)

    def summary_first(self, deck_id: str) -> bool:
        """Whether a deck's summary is to be read before its first session (it has one,
        and this learner has not read it yet)."""
        deck = self.find_deck(deck_id)
        return bool(deck.summary) and not self.has_read(summary_key(deck.id))

    def read_course(self, deck_id: str) -> None:
        """Remember that the learner read a deck's summary."""
        self.read_post(summary_key(deck_id))

    def read_post(self, slug: str) -> None:
        """Remember that the learner opened a post's summary."""
        from studyapp.store.progress import mark_post_read  # SQLAlchemy: on first use

        if self.read_only:
            return
        mark_post_read(self.store, self.profile.id, slug, self.now())

    def has_read(self, slug: str) -> bool:
        from studyapp.store.progress import posts_read  # SQLAlchemy: on first use

        return slug in posts_read(self.store, self.profile.id)

    # -- sessions ---------------------------------------------------------

    def _memory(self, row: CardRow | None, card_id: int = 0) -> Memory:
        """The scheduler's view of a stored card (a new card when there is none)."""
        return memory_of(row, card_id)

    def _item(self, card: CurriculumCard, row: CardRow | QueueRow | None, now: datetime,
              retrievability: float | None = None) -> QueueItem:
        if row is not None and retrievability is None:
            retrievability = self.scheduler.recall_probability(row.stability, row.last_review,
                                                               now)
        return queue_item(card, row, retrievability or 0.0)

    @cached_property
    def _selections(self) -> dict[tuple[str | None, str | None], CardSelection]:
        """Session card sets by (deck id, post), kept until the decks change."""
        return {}

    def _session_cards(self, deck: str | None, post: str | None) -> CardSelection:
        """A deck asked for by name is studied whether or not it is switched on."""
        wanted = self.find_deck(deck).id if deck is not None else None  # may load a deck file
        if post is not None and post not in POST_SLUGS:
            raise UnknownIdError("post", post, list(POST_SLUGS))
        selection = self._selections.get((wanted, post))
        if selection is None:
            cards: list[CurriculumCard] = (self._active_cards if wanted is None else
                                           [c for c in self._cards if c.deck.id == wanted])
            if post is not None:
                cards = [c for c in cards if c.spec.post == post]
            selection = self._selections[(wanted, post)] = CardSelection.of(cards)
        return selection

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
        # thousands of short-lived row tuples, none in a cycle (reference counting
        # frees them): the collector's passes over them took a fifth of the time
        with collector_paused():
            return self._session_queue(kind, post, deck, limit)

    def _session_queue(self, kind: SessionKind, post: str | None, deck: str | None,
                       limit: int | None) -> SessionQueue:
        now = self.now()
        start, end = day_bounds(now, self.settings.day_rollover_hour)
        selection = self._session_cards(deck, post)
        if kind is SessionKind.PRACTICE:
            rows = self.card_states()
            hidden = {key for key, r in rows.items()
                      if r.suspended or (r.buried_until is not None and r.buried_until > now)}
            items = [self._item(c, rows.get(c.key), now) for c in selection.cards
                     if c.key not in hidden]
            items.sort(key=lambda i: (i.stage != CardStage.NEW, i.retrievability, i.order))
            planned = interleave_templates_only(items)
            return SessionQueue(planned[:limit] if limit else planned, [], cutoff=end)
        from studyapp.store.progress import QueueRow, due_cards, not_new_keys, stored_time

        new_left, reviews_left = self._limits_left()
        if kind is SessionKind.REVIEW:
            new_left = 0
        due = due_cards(self.store, self.profile.id, end, now, with_reviews=reviews_left > 0)
        answered = self._facts_answered(start, end)
        by_key = selection.by_key
        recall = self.scheduler.recall_curve(now)
        learning = [self._item(card, row, now, recall(row.stability, row.last_review))
                    for key, row in due.learning.items()
                    if (card := by_key.get(key)) is not None]
        # (recall, curriculum order, card, row, last review): the order is unique, so ties
        # end there
        due_reviews: list[tuple[float, tuple[int, int, int], CurriculumCard, DueReview,
                                datetime | None]] = []
        if reviews_left > 0:
            for row in due.reviews:
                card = by_key.get((row.deck_id, row.card_key))
                if card is None or (answered and sibling_answered(card, answered)):
                    continue
                last = None if row.last_review is None else stored_time(row.last_review)
                due_reviews.append((recall(row.stability, last), card.order, card, row, last))
        taken = {i.fact for i in learning if i.fact}  # facts already in this queue
        # only today's allowance of reviews, the least likely to be recalled first
        reviews = []
        for retrievability, _, card, row, last in heapq.nsmallest(reviews_left, due_reviews):
            if card.fact and card.fact in taken:
                continue
            if card.fact:
                taken.add(card.fact)
            stored = QueueRow(CardStage.REVIEW, False, row.stability, stored_time(row.due), last)
            reviews.append(self._item(card, stored, now, retrievability))
        # only the new cards today's limit allows, in curriculum order
        new: list[QueueItem] = []
        unseen = (selection.keys.difference(not_new_keys(self.store, self.profile.id, now))
                  if new_left > 0 else frozenset())
        for card in self.gathered(selection.in_order(unseen)):
            if len(new) >= new_left + SPARE_NEW:
                break
            if (card.fact and card.fact in taken) or sibling_answered(card, answered):
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
            return new_card_order(self.settings.new_card_order)
        except ValueError:
            return DEFAULT_NEW_CARD_ORDER

    def gathered(self, cards: Iterable[CurriculumCard]) -> list[CurriculumCard]:
        """New cards (given in curriculum order) in the order the profile gathers them."""
        return gather_new(list(cards), self.new_card_order,
                          generated=lambda c: c.generated, group=lambda c: c.post_order,
                          fact=lambda c: c.fact, key=lambda c: f"{c.deck.id}/{c.spec.id}",
                          salt=self.profile.name)

    def start(self, kind: SessionKind = SessionKind.DUE, *, post: str | None = None,
              deck: str | None = None, limit: int | None = None, seed: int | None = None,
              lang: str | None = None) -> StudySession:
        """A study session over the planned queue (practice when nothing can be recorded)."""
        if self.read_only:
            kind = SessionKind.PRACTICE
        queue = self.session_queue(kind, post=post, deck=deck, limit=limit)
        session = StudySession(self, kind, queue, limit=limit, seed=seed,
                               lang=lang or self.config.lang)
        self._sessions.add(session)
        return session

    @cached_property
    def _cards_by_key(self) -> dict[tuple[str, str], CurriculumCard]:
        return {card.key: card for card in self._cards}

    def card(self, deck_id: str, card_key: str) -> CardSpec:
        card = self._cards_by_key.get((deck_id, card_key))
        if card is None:
            raise NoSuchItem(f"{deck_id}/{card_key}")
        return card.spec

    def set_suspended(self, deck_id: str, card_key: str, suspended: bool) -> bool:
        from studyapp.store.progress import set_suspended  # SQLAlchemy: on first use

        return set_suspended(self.store, self.profile.id, deck_id, card_key, suspended)

    # -- what a session records (``SessionHost``) -------------------------------

    def card_flags(self) -> dict[CardKey, int]:
        """The learner's flags (1–4) on the profile's cards; unflagged cards are absent
        (none while the server is away)."""
        from studyapp.store.cards import stored_cards  # SQLAlchemy: on first use

        cards: dict[CardKey, StoredCard] = self._or_while_away(
            lambda: stored_cards(self.store, self.profile.id), {})
        return {key: card.flag for key, card in cards.items() if card.flag}

    def intervals(self, deck_id: str, card_key: str) -> dict[Rating, timedelta]:
        """The next interval each rating would give the card now.

        While the server is away, from the card's state as last known here;
        none when it was never read (the faces then show the ratings alone).
        """
        from studyapp.store import ServerAway
        from studyapp.store.progress import card_state  # SQLAlchemy: on first use

        key = (deck_id, card_key)
        try:
            row = self._reach(lambda _: card_state(self.store, self.profile.id, deck_id,
                                                   card_key))
        except ServerAway:
            known = self._offline.get(key) or self._known.get(key)
            return {} if known is None else self.scheduler.preview(known, self.now())
        memory = self._offline.get(key) or self._memory(row)
        self._known[key] = memory
        return self.scheduler.preview(memory, self.now())

    def _stored(self, answer: AnsweredCard, uid: str | None = None) -> Answer:
        """The store's record of ``answer`` (its new state computed when it is written)."""
        from studyapp.store.progress import Answer  # SQLAlchemy: on first use

        question = answer.question
        return Answer(
            deck_id=answer.deck_id, card_key=answer.card_key, post=question.post,
            family=question.family, state=None, reviewed_at=answer.reviewed_at,
            rating=int(answer.rating), correct=answer.correct, duration_ms=answer.duration_ms,
            seed=question.seed, params=answer.params, prompt=question.prompt,
            response=answer.response, expected=answer.expected, lang=answer.lang,
            overridden=answer.overridden, looked_at_post=answer.looked_at_post,
            held_id=answer.held_id, uid=uid or self._held_uids.pop(answer.held_id or 0, None)
            or uuid.uuid4().hex,
        )

    def hold_answer(self, answer: AnsweredCard) -> int:
        """Keep a right answer until it is rated (no way out loses it); the held copy's id.

        While the server is away it is kept on this machine (a negative id).
        """
        from studyapp.store import ServerAway
        from studyapp.store.held import hold_answer  # SQLAlchemy: on first use

        uid = uuid.uuid4().hex
        stored = self._stored(replace(answer, held_id=None), uid)
        try:
            held_id = self._reach(lambda _: hold_answer(self.store, self.profile.id, stored,
                                                        answer.reviewed_at))
        except ServerAway:
            held_id = -self._keep(stored, answer.reviewed_at, waiting=True)
        self._held_uids[held_id] = uid
        return held_id

    def release_answer(self, held_id: int) -> None:
        """Forget a held answer that will not be recorded (a skipped card)."""
        from studyapp.store import ServerAway
        from studyapp.store.held import release_answer  # SQLAlchemy: on first use

        self._held_uids.pop(held_id, None)
        if held_id < 0:
            self._kept.drop(-held_id)
            return
        try:
            self._reach(lambda _: release_answer(self.store, held_id, self.profile.id))
        except ServerAway:
            self._kept.release_later(held_id)

    def record_answer(self, answer: AnsweredCard) -> tuple[int, Memory]:
        """Schedule and record one answer in one transaction: its log id and the new state.

        The state is computed from the card as read inside the write, so two
        processes answering the same card never both build on the same state.
        A lost connection is retried; while the server stays away the answer is
        kept on this machine (a negative log id) and sent, after any kept
        before it, when it is back.
        """
        from studyapp.store import ServerAway
        from studyapp.store.progress import record_answer  # SQLAlchemy: on first use

        kept_id = -answer.held_id if answer.held_id is not None and answer.held_id < 0 else None
        stored = self._stored(answer)
        if kept_id is not None:
            stored = replace(stored, held_id=None)
        reviewed: list[Memory] = []
        state_for = self._reviewed(answer.rating, answer.reviewed_at, reviewed)
        try:
            self.send_kept_answers()  # what was kept goes first: the answers stay in order
            log_id = self._reach(lambda attempt: record_answer(
                self.store, self.profile.id, stored, state_for, maybe_recorded=attempt > 0))
        except ServerAway:
            if kept_id is None or not self._kept.rated(kept_id, stored):
                kept_id = self._keep(stored, answer.reviewed_at)
            return -kept_id, self._offline_review(answer)
        if kept_id is not None:
            self._kept.drop(kept_id)
        self._known[(answer.deck_id, answer.card_key)] = reviewed[0]
        return log_id, reviewed[0]

    def undo_answer(self, log_id: int) -> bool:
        """Take back a recorded answer: its log is removed and the card restored.

        A kept answer not sent yet is dropped from this machine; an answer in the
        database cannot be taken back while the server is away (False).
        """
        from studyapp.store import ServerAway
        from studyapp.store.progress import undo_answer  # SQLAlchemy: on first use

        if log_id < 0:
            sent = self._sent_as.get(-log_id)
            if sent is None:
                return self._kept.drop(-log_id)
            log_id = sent
        try:
            return self._reach(lambda _: undo_answer(self.store, self.profile.id, log_id))
        except ServerAway:
            return False

    def bury_for_today(self, keys: set[CardKey]) -> None:
        """Keep these cards out of every queue until the next study day (while the server
        is away, only the sitting's queue leaves them out)."""
        from studyapp.store.progress import bury_cards  # SQLAlchemy: on first use

        _, end = day_bounds(self.now(), self.settings.day_rollover_hour)
        self._or_while_away(lambda: bury_cards(self.store, self.profile.id, keys, end), None)

    def put_off_today(self, keys: set[CardKey]) -> None:
        """Keep these cards out of every queue until the next study day, a new card too
        (marked as ``cards --bury`` marks it: it stays new)."""
        from studyapp.store.cards import Mark, mark_cards  # SQLAlchemy: on first use

        _, end = day_bounds(self.now(), self.settings.day_rollover_hour)
        refs = self._card_refs(keys)
        self._or_while_away(lambda: mark_cards(self.store, self.profile.id, refs, Mark.BURY,
                                               now=self.now(), buried_until=end), None)

    def unbury(self, keys: Iterable[CardKey]) -> None:
        """Bring buried cards back today (cards of no loaded deck are left as they are)."""
        from studyapp.store.cards import Mark, mark_cards  # SQLAlchemy: on first use

        refs = self._card_refs(keys)
        self._or_while_away(lambda: mark_cards(self.store, self.profile.id, refs,
                                               Mark.UNBURY, now=self.now()), None)

    # -- when the server of a class database goes away ---------------------------

    @cached_property
    def _kept(self) -> KeptAnswers:
        """Answers kept on this machine while the server is away (this database, profile)."""
        from studyapp.store.database import display_url
        from studyapp.store.held import KeptAnswers

        return KeptAnswers(kept_answers_path(self.config.url, self.config.profile),
                           display_url(self.config.url), self.config.profile)

    def _keep(self, stored: Answer, at: datetime, *, waiting: bool = False) -> int:
        """Keep an answer on this machine; its local id (an emptied file starts ids again,
        so an id sent before no longer names that answer here)."""
        kept_id = self._kept.keep(stored, at, waiting=waiting)
        self._sent_as.pop(kept_id, None)
        return kept_id

    def _reach(self, work: Callable[[int], T]) -> T:
        """``work(attempt)``, retried while the server's connection is lost; ``ServerAway``
        (said once per outage) when it stays lost."""
        from studyapp.store import ServerAway

        try:
            result = self.store.reach(work)
        except ServerAway:
            if not self._told_away:
                self._told_away = True
                self._notices.append(t("study.server_away", self.config.lang))
            raise
        if self._told_away and not self._kept:  # back, with nothing kept: a later outage
            self._told_away = False           # is said again
        return result

    def _or_while_away(self, work: Callable[[], T], meanwhile: T) -> T:
        """``work()``, or ``meanwhile`` when the server is away."""
        from studyapp.store import ServerAway

        try:
            return self._reach(lambda _: work())
        except ServerAway:
            return meanwhile

    def _offline_review(self, answer: AnsweredCard) -> Memory:
        """The card's state after an answer kept while away, for this sitting's queue.

        From the state last known here; a card never read comes back in the
        sitting after Again and leaves it otherwise. The stored state is
        computed when the answer is sent, from the card as stored then.
        """
        key = (answer.deck_id, answer.card_key)
        before = self._offline.get(key) or self._known.get(key)
        if before is None:
            if answer.rating is not Rating.AGAIN:
                return Memory(card_id=1, stage=CardStage.REVIEW)
            before = Memory(card_id=1)
        after = self.scheduler.review(before, answer.rating, answer.reviewed_at)
        self._offline[key] = after
        return after

    def send_kept_answers(self, *, finishing: bool = False) -> None:
        """Answers kept on this machine while the server was away are written now, oldest
        first, when it is back; a notice says how many. ``ServerAway`` while it is not
        (``finishing``: a notice says how many are still kept, and nothing is raised)."""
        from studyapp.store import ServerAway
        from studyapp.store.held import KeptFileError

        if not self._kept:  # nothing was kept: no file
            return
        lang = self.config.lang
        sent: dict[int, int] = {}
        try:
            self._reach(lambda _: self._kept.send(self.store, self.profile.id,
                                                  self._state_of, sent))
        except KeptFileError as exc:
            self._notices.append(t("study.kept_unreadable", lang, problem=str(exc)))
        except ServerAway:
            if not finishing:
                raise
            left = self._kept.ready()
            if left:
                self._notices.append(t("study.kept_left_one" if left == 1 else "study.kept_left",
                                       lang, count=left))
        finally:
            if sent:
                self._sent_as.update(sent)
                self._offline.clear()
                self._told_away = False
                self._notices.append(t("study.kept_sent_one" if len(sent) == 1
                                       else "study.kept_sent", lang, count=len(sent)))

    def _send_kept_at_open(self) -> None:
        """Answers an earlier run kept while the server was away: sent when the profile opens."""
        from studyapp.store import ServerAway

        with contextlib.suppress(ServerAway):
            self.send_kept_answers()

    def _state_of(self, answer: Answer) -> StateFor:
        """How a kept answer's card state is computed inside its write."""
        return self._reviewed(Rating(answer.rating), answer.reviewed_at, [])

    def take_notices(self) -> list[str]:
        """The notices not said yet (the server away, kept answers sent), once."""
        notices, self._notices = self._notices, []
        return notices

    def _card_refs(self, keys: Iterable[CardKey]) -> list[CardRef]:
        """The store's references to these cards (cards of no loaded deck left out)."""
        from studyapp.store.cards import CardRef  # SQLAlchemy: on first use

        refs = []
        for deck_id, card_key in keys:
            card = self._cards_by_key.get((deck_id, card_key))
            if card is not None:
                refs.append(CardRef(deck_id, card_key, card.spec.post,
                                    getattr(card.spec, "generator", None)))
        return refs

    def last_seed(self, deck_id: str, card_key: str) -> int | None:
        """The draw seed of the card's last recorded showing (None: never answered, or the
        server away)."""
        from studyapp.store.progress import last_seed  # SQLAlchemy: on first use

        return self._or_while_away(
            lambda: last_seed(self.store, self.profile.id, deck_id, card_key), None)

    def due_times(self, keys: Iterable[CardKey]) -> list[datetime]:
        """The stored due times of these cards (suspended and never answered ones left out)."""
        from studyapp.store.progress import card_state  # SQLAlchemy: on first use

        def read() -> list[datetime]:
            times = []
            for deck_id, card_key in keys:
                row = card_state(self.store, self.profile.id, deck_id, card_key)
                if row is not None and not row.suspended:
                    times.append(row.due)
            return times

        keys = list(keys)
        return self._or_while_away(read, [])

    # -- what the faces ask for, one call per screen event ----------------------

    def overview_and_recovered(self, lang: str | None = None
                               ) -> tuple[Overview, list[str]]:
        """Home's counts, and the prompts of answers recovered when the profile opened
        (given once: the next call returns none)."""
        overview = self.overview(lang)  # opens the profile, which records them
        return overview, self.take_recovered()

    def continue_choice(self, last: str | None,
                        posts: list[str]) -> tuple[str, str] | None:
        """What "continue" opens: ("post", slug) or ("review", ""); ("wait", ISO time) when
        only learning steps due later today wait; None when nothing does.

        A card counts as waiting when a session would ask it now: a review due
        today, a learning card due within the learn-ahead limit, a new card within
        today's limit. Cards due later today wait, so the header's count and the
        session never disagree about an empty session.
        """
        soon = self.now() + self.learn_ahead

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

    def post_offer(self, slug: str) -> PostOffer:
        """What the post screen offers: more new cards when today's are done while the
        post has some, the new cards held for a sibling answered today, the next mix."""
        overview = self.overview(with_streak=False)
        post = next((p for p in overview.posts if p.slug == slug), None)
        if post is None:
            return PostOffer(False, 0, None)
        return PostOffer(overview.new_left == 0 and post.new - post.held > 0, post.held,
                         self.next_session_mix(slug))

    def deck_titles(self, lang: str | None = None) -> list[tuple[str, str]]:
        """(deck id, title) of every deck that loads, in the language asked for."""
        lang = lang or self.config.lang
        return [(deck.id, deck_title(deck, lang)) for deck in self.decks]

    def deck_rows(self, lang: str | None = None) -> list[DeckRow]:
        """Every deck file found, loaded or broken, with this profile's switch on each."""
        lang = lang or self.config.lang
        choices = {info.deck_id: info for info in self.deck_list(lang)}
        return [replace(row, enabled=choices[row.deck_id].enabled,
                        kind=choices[row.deck_id].kind)
                if row.ok and row.deck_id in choices else row for row in deck_files(lang)]

    def new_limit_blocks(self, deck_id: str) -> bool:
        """Whether the deck has nothing to ask only because today's new cards are done.

        Then a face offers what home and the post screen offer: more new cards
        today, or practice.
        """
        queue = self.session_queue(SessionKind.DECK, deck=deck_id)
        if queue.main or queue.learning:
            return False
        if self.overview(with_streak=False).new_left > 0:
            return False
        deck = next((d for d in self.decks if d.id == deck_id), None)
        if deck is None:
            return False
        rows = self.card_states()
        return any((row := rows.get((deck_id, spec.id))) is None
                   or (row.stage == CardStage.NEW and not row.suspended) for spec in deck.cards)

    def post_cards(self, slug: str) -> PostCards:
        """The post's cards in every deck that loads, with their stored state."""
        rows = self.card_states()
        cards = []
        for deck in self.decks:
            for spec in deck.cards:
                if spec.post != slug:
                    continue
                row = rows.get((deck.id, spec.id))
                if row is None:
                    cards.append(PostCard(deck.id, spec.id, str(spec.type), 0, None, None, 0, 0,
                                          False, False))
                else:
                    cards.append(PostCard(deck.id, spec.id, str(spec.type), row.stage, row.due,
                                          row.stability, row.lapses, row.reps, row.suspended,
                                          row.leech))
        return PostCards(self.now(), tuple(cards))

    def progress_view(self) -> ProgressView:
        """The learner's stats, plus the suspended flag their card lines lack."""
        from studyapp.progress import learner_stats  # loads the store: only when asked

        stats = learner_stats(self)
        suspended = frozenset((c.deck_id, c.card_key) for c in (*stats.weakest, *stats.leeches)
                              if c.suspended)
        return ProgressView(stats, suspended)

    def card_images(self, deck_id: str, card_key: str, texts: Iterable[str]) -> CardImages:
        """The image files that ``texts`` name (``[image: NAME]``) in the card's deck folder,
        read and checked: only raster images are shown, whatever reached the folder."""
        from studyapp.decks.media import card_images

        return card_images(self.card(deck_id, card_key).path, list(texts))
