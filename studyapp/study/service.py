"""The study service: one profile in one database, as every face sees it.

A narrow facade over its parts, each in its own module: the card index
(``index``), the overview (``overview``), session planning (``planning``) and
answering (``answering``). The service owns what they share (the database, the
profile, its settings, the clock); an operation reports what it changed
(``changes.Changes``) and every part drops the caches that change makes stale.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import sys
import weakref
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from studyapp.deck_ids import shown_deck_id as shown_id
from studyapp.i18n import t
from studyapp.srs.queue import QueueItem, SessionQueue
from studyapp.srs.scheduler import Memory, Rating, Scheduler, SchedulerSettings
from studyapp.study import exam_log
from studyapp.study.answering import Answering
from studyapp.study.changes import Changes, cached_until, forget
from studyapp.study.draws import ShownDraws
from studyapp.study.drill import DRILL_LIMIT, drill_misconception, drill_queue, trap_families
from studyapp.study.exam import ExamResult, ExamSheet, draw_paper
from studyapp.study.held import record_abandoned
from studyapp.study.index import CardIndex
from studyapp.study.ladders import Ladders, credit_steps
from studyapp.study.overview import StudyOverview
from studyapp.study.planning import SessionPlanner
from studyapp.study.session import StudySession
from studyapp.study.views import (
    ComingBack,
    CourseView,
    DeckChoiceInfo,
    DeckRow,
    Overview,
    PostCards,
    PostOffer,
    ProgressView,
    SessionKind,
    SessionMix,
    StudyConfig,
)
from studyapp.text import visible

if TYPE_CHECKING:
    from studyapp.decks import CardSpec, Deck
    from studyapp.decks.media import CardImages
    from studyapp.store import Store
    from studyapp.store.progress import CardRow, ProfileInfo
    from studyapp.study.curriculum import CardSelection, CurriculumCard
    from studyapp.study.host import CardKey
    from studyapp.study.views import AnsweredCard


class StudyService:
    """Everything a learner does, for one profile in one database."""

    def __init__(self, config: StudyConfig) -> None:
        self.config = config
        self._store: Store | None = None
        self._sessions: weakref.WeakSet[StudySession] = weakref.WeakSet()
        self._failed_cards: set[tuple[str, str]] = set()
        self.recovered: list[str] = []
        """Prompts of right answers a stopped app left unrated, recorded when the profile
        opened (as Enter would have); the faces say so once."""
        self.index = CardIndex(self)
        self.answering = Answering(self, self.index)
        self.ladders = Ladders(self, self.index, self.answering)
        self.planner = SessionPlanner(self, self.index)
        self.overviews = StudyOverview(self, self.index, self.planner, self.answering,
                                       streak=self._streak)

    def changed(self, changes: Changes) -> None:
        """An operation changed these: the service and every part it holds drop the caches
        they make stale (a part added later is found the same way)."""
        for owner in (self, *vars(self).values()):
            forget(owner, changes)

    # -- resources, opened on first use ---------------------------------

    @property
    def store(self) -> Store:
        if self._store is None:
            from studyapp.store import open_store  # SQLAlchemy: on first use

            self._store = open_store(self.config.url)
            self._store.on_lock_wait(self._say_waiting)
        return self._store

    def _say_waiting(self) -> None:
        """Another process holds the write lock: say so (the write keeps waiting)."""
        print(f"studyapp: {t('store.waiting', self.config.lang)}", file=sys.stderr, flush=True)

    @property
    def read_only(self) -> str | None:
        """Why answers cannot be recorded (a read-only database), or None when they can."""
        return self.store.read_only

    @cached_until(Changes.CONFIG)
    def _profile_row(self) -> ProfileInfo:
        """The profile as stored (created on first use), read again when settings change."""
        from studyapp.store.progress import ensure_profile  # SQLAlchemy: on first use

        try:
            return ensure_profile(self.store, self.config.profile,
                                  SchedulerSettings().to_dict(), self.now())
        except Exception as exc:
            from studyapp.study.roles import profile_refusal

            refused = profile_refusal(self.store, exc, self.config.profile)
            if refused is None:
                raise
            raise refused from None

    @property
    def profile(self) -> ProfileInfo:
        if "_profile_row" not in self.__dict__:
            profile = self._profile_row
            from studyapp.study.roles import foreign_profile

            reason = foreign_profile(self.store, self.config.profile, self.config.lang)
            if reason is not None:  # an instructor looking at a student: reads, never writes
                self.store.read_only = reason
            if not self.read_only:
                self.answering.send_kept_at_open()  # before abandoned held copies of them
                self._record_abandoned_answers(profile.id)
        return self._profile_row

    def _record_abandoned_answers(self, profile_id: int) -> None:
        """Answers an app held and never recorded (it was killed): recorded as it would have."""
        self.recovered += record_abandoned(self.store, profile_id, self.scheduler, self.now())

    def record_abandoned(self) -> None:
        """Before progress is read: answers held by an app killed since the profile opened
        are recorded now, so what was answered is counted at once."""
        opened = "_profile_row" in self.__dict__
        profile = self.profile  # opening the profile records them
        if opened and not self.read_only:
            self._record_abandoned_answers(profile.id)

    def take_recovered(self) -> list[str]:
        """The prompts of ``recovered`` answers, once: a second call returns none."""
        recovered, self.recovered = self.recovered, []
        return recovered

    @cached_until(Changes.CONFIG)
    def settings(self) -> SchedulerSettings:
        return SchedulerSettings.from_dict(self.profile.settings)

    def update_settings(self, **changes: Any) -> SchedulerSettings:
        """Change and save scheduler settings (retention, limits…)."""
        from studyapp.store.progress import save_profile_settings  # SQLAlchemy: on first use

        new = self.settings.with_changes(**changes)
        save_profile_settings(self.store, self.profile.id, new.to_dict())
        self.changed(Changes.CONFIG)
        return new

    @cached_until(Changes.CONFIG)
    def scheduler(self) -> Scheduler:
        return Scheduler(self.settings)

    def now(self) -> datetime:
        return self.config.clock()

    @property
    def _draws_owner(self) -> str:
        """Whose showings ``ShownDraws`` reads: the profile in this database (URL hashed)."""
        url = hashlib.sha256(str(self.config.url).encode()).hexdigest()[:12]
        return f"{self.config.profile}@{url}"

    def close(self) -> None:
        """Close the store; a right answer still waiting for its rating is recorded first."""
        for session in list(self._sessions):
            with contextlib.suppress(Exception):  # closing must not fail on a failed write
                session.settle()
        if self._store is not None and "_profile_row" in self.__dict__:
            with contextlib.suppress(Exception):
                self.answering.send_kept_answers()
        if self._store is not None:
            self._store.close()
            self._store = None

    def card_failed(self, deck_id: str, card_key: str, failure: Exception) -> None:
        """A card whose question cannot be drawn (a formula failing at study time, in a
        published deck nobody checked here): the sitting skips it, and says so once."""
        if (deck_id, card_key) in self._failed_cards:
            return
        self._failed_cards.add((deck_id, card_key))
        problems = getattr(failure, "problems", None)
        reason = (problems[0].render(self.config.lang) if problems
                  else f"{type(failure).__name__}: {failure}")
        from studyapp.study.published import say_on_stderr

        say_on_stderr(t("study.card_skipped", self.config.lang, card=shown_id(card_key),
                        deck=shown_id(deck_id), reason=visible(reason[:300])))

    # -- decks and cards (``index``) ----------------------------------------------

    @property
    def decks(self) -> list[Deck]:
        """Every deck that loads (built-in, the user's, and --deck files)."""
        return self.index.decks

    @decks.setter
    def decks(self, decks: list[Deck]) -> None:
        self.index.decks[:] = decks
        self.changed(Changes.DECKS)

    def find_deck(self, ref: str) -> Deck:
        """A deck by id, or by path to a YAML file."""
        return self.index.find_deck(ref)

    def deck_title_of(self, deck_id: str, lang: str) -> str:
        """A deck's title in ``lang`` (its id when no deck of that id loads)."""
        return self.index.deck_title_of(deck_id, lang)

    def replace_deck(self, deck: Deck) -> None:
        """Swap in a deck edited while the app runs; its cards keep their progress."""
        self.index.replace_deck(deck)

    def deck_titles(self, lang: str | None = None) -> list[tuple[str, str]]:
        """(deck id, title) of every deck that loads, in the language asked for."""
        return self.index.deck_titles(lang or self.config.lang)

    def deck_enabled(self, deck: Deck) -> bool:
        return self.index.deck_enabled(deck)

    def deck_list(self, lang: str | None = None) -> list[DeckChoiceInfo]:
        return self.index.deck_list(lang or self.config.lang)

    def set_deck_enabled(self, deck_id: str, enabled: bool) -> DeckChoiceInfo:
        """Switch a deck on or off for this profile (``UnknownIdError`` if none has that id)."""
        return self.index.set_deck_enabled(deck_id, enabled)

    def mastery_places(self) -> dict[tuple[str, str], tuple[str | None, str]]:
        """Each card of the decks studied: the post its mastery counts under, and its deck."""
        return self.index.mastery_places()

    def studied_keys(self) -> frozenset[tuple[str, str]]:
        """(deck, card) of every card in the decks this learner has switched on."""
        return frozenset(self.index.active_keys)

    def card(self, deck_id: str, card_key: str) -> CardSpec:
        return self.index.card(deck_id, card_key)

    def siblings(self, deck_id: str, card_key: str) -> set[tuple[str, str]]:
        """Other cards sharing this card's fact."""
        return self.index.siblings(deck_id, card_key)

    def given_away(self, deck_id: str, texts: Iterable[str], lang: str) -> set[tuple[str, str]]:
        """Written cards of the deck whose expected answer these texts state."""
        return self.index.given_away(deck_id, texts, lang)

    def card_images(self, deck_id: str, card_key: str, texts: Iterable[str]) -> CardImages:
        """The image files that ``texts`` name (``[image: NAME]``) in the card's deck folder,
        read and checked: only raster images are shown, whatever reached the folder."""
        from studyapp.decks.media import card_images

        return card_images(self.card(deck_id, card_key).path, list(texts))

    @property
    def _cards(self) -> list[CurriculumCard]:
        return self.index.cards

    @property
    def _cards_by_key(self) -> dict[tuple[str, str], CurriculumCard]:
        return self.index.by_key

    def _session_cards(self, deck: str | None, post: str | None) -> CardSelection:
        return self.index.session_cards(deck, post)

    # -- overview -------------------------------------------------------------------

    def _streak(self) -> int:
        from studyapp.progress import streak_days  # loads the store: only when asked

        return streak_days(self)

    def overview(self, lang: str | None = None, *, with_streak: bool = True) -> Overview:
        """Per-post counts and today's numbers for the home screen."""
        return self.overviews.overview(lang or self.config.lang, with_streak=with_streak)

    def overview_and_recovered(self, lang: str | None = None
                               ) -> tuple[Overview, list[str]]:
        """Home's counts, and the prompts of answers recovered when the profile opened
        (given once: the next call returns none)."""
        overview = self.overview(lang)  # opens the profile, which records them
        return overview, self.take_recovered()

    def card_states(self) -> dict[tuple[str, str], CardRow]:
        """Every stored card of the profile by (deck id, card id)."""
        return self.overviews.card_states()

    def coming_back(self) -> ComingBack:
        """Learning cards due within the hour, and the soonest (stored due times)."""
        return self.overviews.coming_back()

    def post_offer(self, slug: str) -> PostOffer:
        """What the post screen offers once today's new cards are done."""
        return self.overviews.post_offer(slug)

    def new_limit_blocks(self, deck_id: str) -> bool:
        """Whether the deck has nothing to ask only because today's new cards are done."""
        return self.overviews.new_limit_blocks(deck_id)

    def deck_rows(self, lang: str | None = None) -> list[DeckRow]:
        """Every deck file found, loaded or broken, with this profile's switch on each."""
        return self.overviews.deck_rows(lang or self.config.lang)

    def post_cards(self, slug: str) -> PostCards:
        """The post's cards in every deck that loads, with their stored state."""
        return self.overviews.post_cards(slug)

    def course_view(self, deck_id: str, lang: str | None = None) -> CourseView:
        """A deck's title, course and summary in ``lang`` (``UnknownIdError`` for an unknown
        deck); a deck without a summary has an empty one."""
        return self.overviews.course_view(deck_id, lang or self.config.lang)

    def summary_first(self, deck_id: str) -> bool:
        """Whether a deck's summary is to be read before its first session."""
        return self.overviews.summary_first(deck_id)

    def read_course(self, deck_id: str) -> None:
        """Remember that the learner read a deck's summary."""
        from studyapp.decks.deck_model import summary_key

        self.read_post(summary_key(deck_id))

    def read_post(self, slug: str) -> None:
        """Remember that the learner opened a post's summary."""
        self.overviews.read_post(slug)

    def has_read(self, slug: str) -> bool:
        return self.overviews.has_read(slug)

    def progress_view(self) -> ProgressView:
        """The learner's stats, plus the suspended flag their card lines lack."""
        from studyapp.progress import learner_stats  # loads the store: only when asked

        stats = learner_stats(self)
        suspended = frozenset((c.deck_id, c.card_key) for c in (*stats.weakest, *stats.leeches)
                              if c.suspended)
        return ProgressView(stats, suspended)

    # -- sessions (``planning``) ------------------------------------------------------

    @property
    def learn_ahead(self) -> timedelta:
        return self.planner.learn_ahead

    def today(self) -> str:
        """The current study day as an ISO date (the day rolls over at the profile's hour)."""
        return self.planner.today()

    def new_limit_today(self) -> int:
        """Today's new-card limit, raised by "study more" for today only."""
        return self.planner.new_limit_today()

    def study_more_new(self, count: int) -> int:
        """Anki's custom study: raise today's new-card limit by ``count``; the new limit."""
        return self.planner.study_more_new(count)

    def continue_choice(self, last: str | None,
                        posts: list[str]) -> tuple[str, str] | None:
        """What "continue" opens (``SessionPlanner.continue_choice``)."""
        return self.planner.continue_choice(last, posts)

    def plan(self, kind: SessionKind, *, post: str | None = None, deck: str | None = None,
             limit: int | None = None) -> list[QueueItem]:
        """The cards a session will ask: learning cards (by due time), then the main queue."""
        return self.planner.plan(kind, post=post, deck=deck, limit=limit)

    def session_queue(self, kind: SessionKind, *, post: str | None = None,
                      deck: str | None = None, limit: int | None = None) -> SessionQueue:
        """Today's learning cards, and the reviews and new cards within the daily limits."""
        return self.planner.session_queue(kind, post=post, deck=deck, limit=limit)

    def next_session_mix(self, post: str) -> SessionMix:
        """What a post's next session holds: new and due cards, generated and authored."""
        return self.planner.next_session_mix(post)

    @property
    def new_card_order(self) -> str:
        """The profile's new-card order (``NEW_CARD_ORDERS``; mixed if unreadable)."""
        return self.planner.new_card_order

    def gathered(self, cards: Iterable[CurriculumCard]) -> list[CurriculumCard]:
        """New cards (given in curriculum order) in the order the profile gathers them."""
        return self.planner.gathered(cards)

    def start(self, kind: SessionKind = SessionKind.DUE, *, post: str | None = None,
              deck: str | None = None, limit: int | None = None, seed: int | None = None,
              lang: str | None = None) -> StudySession:
        """A study session over the planned queue (practice when nothing can be recorded)."""
        if self.read_only:
            kind = SessionKind.PRACTICE
        queue = self.session_queue(kind, post=post, deck=deck, limit=limit)
        session = StudySession(self, kind, queue, limit=limit, seed=seed,
                               lang=lang or self.config.lang, stopwatch=self.config.stopwatch)
        session.drawn = ShownDraws.lately(self._draws_owner, self.now())
        self._sessions.add(session)
        return session

    def drill(self, misconception: str, *, limit: int = DRILL_LIMIT, seed: int | None = None,
              practice: bool = True, lang: str | None = None) -> StudySession:
        """A short sitting on the cards that set ``misconception``'s trap, one per family,
        the least recalled first; practice (nothing rescheduled) unless ``practice`` is False.
        UnknownMisconception for a name that is not a misconception."""
        kind = SessionKind.PRACTICE if practice or self.read_only else SessionKind.DECK
        families = trap_families(misconception)
        queue = drill_queue(self.planner.practice_queue(families), families, limit)
        session = StudySession(self, kind, queue, limit=limit, seed=seed,
                               lang=lang or self.config.lang, stopwatch=self.config.stopwatch)
        session.drill_slips = frozenset(drill_misconception(misconception).slips)
        self._sessions.add(session)
        return session

    def exam(self, posts: Sequence[str], *, count: int, minutes: float,
             seed: int | None = None, lang: str | None = None) -> ExamSheet:
        """A timed mock exam over ``posts``, graded at the end (kept by ``record_exam``)."""
        draw = seed if seed is not None else random.getrandbits(63)
        return ExamSheet(draw_paper(self._cards, posts, count=count, seed=draw,
                                    lang=lang or self.config.lang), self.now(), minutes)

    def record_exam(self, result: ExamResult, *, count_as_reviews: bool = False) -> bool:
        """Keep a handed-in paper for progress (a file per profile, no table: ``exam_log``)."""
        if count_as_reviews:  # each answer also a review of its card (``Ladders``)
            self.ladders.count_exam(result)
        return exam_log.record(self.config.profile, self.config.url, result)

    def exams(self) -> list[dict[str, Any]]:
        """The papers handed in, newest first (``ExamResult.as_json`` without the questions)."""
        return exam_log.exams(self.config.profile, self.config.url)

    # -- what a session records (``SessionHost``, by ``answering``) ----------------------
    credit_steps = credit_steps  # a finished scenario's steps, counted (``Ladders``)

    def card_flags(self) -> dict[CardKey, int]:
        """The learner's flags (1–4) on the profile's cards; unflagged cards are absent."""
        return self.answering.card_flags()

    def intervals(self, deck_id: str, card_key: str) -> dict[Rating, timedelta]:
        """The next interval each rating would give the card now."""
        return self.answering.intervals(deck_id, card_key)

    def last_seed(self, deck_id: str, card_key: str) -> int | None:
        """The draw seed of the card's last recorded showing (None: never answered, server away)."""
        return self.answering.last_seed(deck_id, card_key)

    def due_times(self, keys: Iterable[CardKey]) -> list[datetime]:
        """The stored due times of these cards (suspended and never answered ones left out)."""
        return self.answering.due_times(keys)

    def hold_answer(self, answer: AnsweredCard) -> int:
        """Keep a right answer until it is rated (no way out loses it); the held copy's id."""
        return self.answering.hold_answer(answer)

    def release_answer(self, held_id: int) -> None:
        """Forget a held answer that will not be recorded (a skipped card)."""
        self.answering.release_answer(held_id)

    def record_answer(self, answer: AnsweredCard) -> tuple[int, Memory]:
        """Schedule and record one answer in one transaction: its log id and the new state."""
        return self.answering.record_answer(answer)

    def undo_answer(self, log_id: int) -> bool:
        """Take back a recorded answer: its log is removed and the card restored."""
        return self.answering.undo_answer(log_id)

    def bury_for_today(self, keys: set[CardKey]) -> None:
        """Keep these cards out of every queue until the next study day."""
        self.answering.bury_for_today(keys)

    def put_off_today(self, keys: set[CardKey]) -> None:
        """Keep these cards, a new card too, out of every queue until the next study day."""
        self.answering.put_off_today(keys)

    def unbury(self, keys: Iterable[CardKey]) -> None:
        """Bring buried cards back today (cards of no loaded deck are left as they are)."""
        self.answering.unbury(keys)

    def set_suspended(self, deck_id: str, card_key: str, suspended: bool) -> bool:
        return self.answering.set_suspended(deck_id, card_key, suspended)

    def send_kept_answers(self, *, finishing: bool = False) -> None:
        """Answers kept on this machine while the server was away, sent if it is back."""
        self.answering.send_kept_answers(finishing=finishing)

    def take_notices(self) -> list[str]:
        """The notices not said yet (the server away, kept answers sent), once."""
        return self.answering.take_notices()
