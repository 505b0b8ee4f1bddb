"""Answering: what a sitting records, and how it goes on while a class server is away.

Answers held until rated, recorded (the new state computed inside the write),
taken back; cards buried, put off or brought back; and, while the server of a
class database is away, answers kept on this machine and sent, in order, when
it is back. Every operation that changes stored cards reports
``Changes.SCHEDULE``.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Collection, Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, TypeVar

from studyapp.i18n import t
from studyapp.srs.calendar import day_bounds
from studyapp.srs.scheduler import CardStage, DueTimes, Memory, Rating
from studyapp.study.changes import Changes, cached_until
from studyapp.study.held import memory_of, new_card_id, reviewed_state
from studyapp.study.outage import kept_answers_path
from studyapp.study.per_deck import PerDeck, leech_met

if TYPE_CHECKING:
    from studyapp.store.cards import StoredCard
    from studyapp.store.database import Store
    from studyapp.store.held import KeptAnswers
    from studyapp.store.progress import Answer, CardRow, NewState, StateFor
    from studyapp.study.ground import StudyGround
    from studyapp.study.host import CardKey
    from studyapp.study.index import CardIndex
    from studyapp.study.views import AnsweredCard

T = TypeVar("T")


class Answering:
    """The learner's records as a sitting writes them, for one profile."""

    def __init__(self, ground: StudyGround, index: CardIndex) -> None:
        self._ground = ground
        self._index = index
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
        self._per_deck = PerDeck(ground)
        self._leech_suspended: dict[int, tuple[str, str]] = {}
        """Answer (log id) → the card its deck's leech action suspended: undo resumes it."""

    def _reviewed(self, deck_id: str, card_key: str, rating: Rating, at: datetime,
                  reviewed: list[Memory], leeched: list[bool] | None = None, *,
                  due: DueTimes | None = None, siblings: Iterable[datetime] = ()) -> StateFor:
        """The new state of a card of ``deck_id`` rated ``rating`` at ``at``, with its deck's
        settings, computed inside the write transaction from the card as stored then (kept
        in ``reviewed`` too; ``leeched`` says whether this lapse made it a leech). With
        ``due``, the interval is balanced against the reviews it reads, read now, and kept
        off the days ``siblings`` are due."""
        scheduler = self._per_deck.scheduler(deck_id)
        if due is not None:
            scheduler = scheduler.with_due_reviews(due, at, siblings)
        state_for = reviewed_state(scheduler, rating, at, reviewed,
                                   new_card_id(deck_id, card_key))
        if leeched is None:
            return state_for

        def with_leech(row: CardRow | None) -> NewState:
            state = state_for(row)
            lapsed = state.lapses > (0 if row is None else row.lapses)
            leeched[:] = [lapsed and leech_met(state.lapses, scheduler.settings.leech_lapses)]
            return state

        return with_leech

    def _sibling_dues(self, deck_id: str, card_key: str,
                      read: Callable[[Store, int, Collection[CardKey]], list[datetime]]
                      ) -> list[datetime]:
        """When the card and its siblings in review are due (suspended and buried ones too,
        as Anki's balancer counts them), for a deck that buries review siblings; none
        for another deck, as Anki passes the note to its balancer only then. ``read``:
        the store's ``review_dues``."""
        if not self._per_deck.rules(deck_id).bury_reviews:
            return []
        ground = self._ground
        return read(ground.store, ground.profile.id,
                    {(deck_id, card_key), *self._index.siblings(deck_id, card_key)})

    # -- what a sitting reads ------------------------------------------------------

    def card_flags(self) -> dict[CardKey, int]:
        """The learner's flags (1–4) on the profile's cards; unflagged cards are absent
        (none while the server is away)."""
        from studyapp.store.cards import stored_cards  # SQLAlchemy: on first use

        ground = self._ground
        cards: dict[CardKey, StoredCard] = self.or_while_away(
            lambda: stored_cards(ground.store, ground.profile.id), {})
        return {key: card.flag for key, card in cards.items() if card.flag}

    def last_seed(self, deck_id: str, card_key: str) -> int | None:
        """The draw seed of the card's last recorded showing (None: never answered, or the
        server away)."""
        from studyapp.store.card_reads import last_seed  # SQLAlchemy: on first use

        ground = self._ground
        seed: int | None = self.or_while_away(
            lambda: last_seed(ground.store, ground.profile.id, deck_id, card_key), None)
        return seed

    def intervals(self, deck_id: str, card_key: str) -> dict[Rating, timedelta]:
        """The next interval each rating would give the card now.

        While the server is away, from the card's state as last known here;
        none when it was never read (the faces then show the ratings alone).
        """
        from studyapp.store import ServerAway
        from studyapp.store.progress import (  # SQLAlchemy: on first use
            card_state,
            review_due_times,
            review_dues,
        )

        ground = self._ground
        key = (deck_id, card_key)
        now = ground.now()

        def due_reviews(start: datetime, end: datetime) -> list[datetime]:
            return review_due_times(ground.store, ground.profile.id, start, end,
                                    *self._per_deck.balanced_with(deck_id))

        try:
            row, scheduler = self._reach(lambda _: (
                card_state(ground.store, ground.profile.id, deck_id, card_key),
                self._per_deck.scheduler(deck_id).with_due_reviews(
                    due_reviews, now, self._sibling_dues(deck_id, card_key, review_dues))))
        except ServerAway:
            known = self._offline.get(key) or self._known.get(key)
            return ({} if known is None
                    else self._per_deck.scheduler(deck_id).preview(known, now))
        memory = self._offline.get(key) or memory_of(row, new_card_id(deck_id, card_key))
        self._known[key] = memory
        return scheduler.preview(memory, now)

    def due_times(self, keys: Iterable[CardKey]) -> list[datetime]:
        """The stored due times of these cards (suspended and never answered ones left out)."""
        from studyapp.store.progress import card_state  # SQLAlchemy: on first use

        ground = self._ground

        def read() -> list[datetime]:
            times = []
            for deck_id, card_key in keys:
                row = card_state(ground.store, ground.profile.id, deck_id, card_key)
                if row is not None and not row.suspended:
                    times.append(row.due)
            return times

        keys = list(keys)
        return self.or_while_away(read, [])

    # -- what a sitting records ------------------------------------------------------

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

        ground = self._ground
        uid = uuid.uuid4().hex
        stored = self._stored(replace(answer, held_id=None), uid)
        try:
            held_id = self._reach(lambda _: hold_answer(ground.store, ground.profile.id, stored,
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
        ground = self._ground
        try:
            self._reach(lambda _: release_answer(ground.store, held_id, ground.profile.id))
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
        from studyapp.store.progress import (  # SQLAlchemy: on first use
            record_answer,
            review_due_times,
            review_dues,
        )

        ground = self._ground
        kept_id = -answer.held_id if answer.held_id is not None and answer.held_id < 0 else None
        stored = self._stored(answer)
        if kept_id is not None:
            stored = replace(stored, held_id=None)
        reviewed: list[Memory] = []
        leeched: list[bool] = []

        def due_reviews(start: datetime, end: datetime) -> list[datetime]:
            return review_due_times(ground.store, ground.profile.id, start, end,
                                    *self._per_deck.balanced_with(answer.deck_id))

        def state_for() -> StateFor:  # the due reviews read before the write (balancing)
            return self._reviewed(answer.deck_id, answer.card_key, answer.rating,
                                  answer.reviewed_at, reviewed, leeched, due=due_reviews,
                                  siblings=self._sibling_dues(answer.deck_id, answer.card_key,
                                                              review_dues))

        try:
            self.send_kept_answers()  # what was kept goes first: the answers stay in order
            log_id = self._reach(lambda attempt: record_answer(
                ground.store, ground.profile.id, stored, state_for(),
                maybe_recorded=attempt > 0))
        except ServerAway:
            if kept_id is None or not self._kept.rated(kept_id, stored):
                kept_id = self._keep(stored, answer.reviewed_at)
            return -kept_id, self._offline_review(answer)
        finally:
            ground.changed(Changes.SCHEDULE)
        if kept_id is not None:
            self._kept.drop(kept_id)
        self._known[(answer.deck_id, answer.card_key)] = reviewed[0]
        if leeched and leeched[0] and self._per_deck.rules(answer.deck_id).leech_action \
                == "suspend":  # the deck's leech action (Anki's "suspend card")
            self.set_suspended(answer.deck_id, answer.card_key, True)
            self._leech_suspended[log_id] = (answer.deck_id, answer.card_key)
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
        ground = self._ground
        try:
            undone = self._reach(lambda _: undo_answer(ground.store, ground.profile.id, log_id))
            suspended = self._leech_suspended.pop(log_id, None)
            if undone and suspended is not None:  # the lapse taken back: no leech to suspend
                self.set_suspended(*suspended, False)
            return undone
        except ServerAway:
            return False
        finally:
            ground.changed(Changes.SCHEDULE)

    def bury_for_today(self, keys: set[CardKey]) -> None:
        """Keep these cards out of every queue until the next study day (while the server
        is away, only the sitting's queue leaves them out)."""
        from studyapp.store.progress import bury_cards  # SQLAlchemy: on first use

        ground = self._ground
        _, end = day_bounds(ground.now(), ground.settings.day_rollover_hour)
        self.or_while_away(lambda: bury_cards(ground.store, ground.profile.id, keys, end), None)
        ground.changed(Changes.SCHEDULE)

    def put_off_today(self, keys: set[CardKey]) -> None:
        """Keep these cards out of every queue until the next study day, a new card too
        (marked as ``cards --bury`` marks it: it stays new)."""
        from studyapp.store.cards import Mark, mark_cards  # SQLAlchemy: on first use

        ground = self._ground
        _, end = day_bounds(ground.now(), ground.settings.day_rollover_hour)
        refs = self._index.card_refs(keys)
        self.or_while_away(lambda: mark_cards(ground.store, ground.profile.id, refs, Mark.BURY,
                                              now=ground.now(), buried_until=end), None)
        ground.changed(Changes.SCHEDULE)

    def unbury(self, keys: Iterable[CardKey]) -> None:
        """Bring buried cards back today (cards of no loaded deck are left as they are)."""
        from studyapp.store.cards import Mark, mark_cards  # SQLAlchemy: on first use

        ground = self._ground
        refs = self._index.card_refs(keys)
        self.or_while_away(lambda: mark_cards(ground.store, ground.profile.id, refs,
                                              Mark.UNBURY, now=ground.now()), None)
        ground.changed(Changes.SCHEDULE)

    def set_suspended(self, deck_id: str, card_key: str, suspended: bool) -> bool:
        from studyapp.store.progress import set_suspended  # SQLAlchemy: on first use

        done = set_suspended(self._ground.store, self._ground.profile.id, deck_id, card_key,
                             suspended)
        self._ground.changed(Changes.SCHEDULE)
        return done

    # -- when the server of a class database goes away ---------------------------

    @cached_until(Changes.NONE)
    def _kept(self) -> KeptAnswers:
        """Answers kept on this machine while the server is away (this database, profile)."""
        from studyapp.store.database import display_url
        from studyapp.store.held import KeptAnswers

        config = self._ground.config
        return KeptAnswers(kept_answers_path(config.url, config.profile),
                           display_url(config.url), config.profile)

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
            result = self._ground.store.reach(work)
        except ServerAway:
            if not self._told_away:
                self._told_away = True
                self._notices.append(t("study.server_away", self._ground.config.lang))
            raise
        if self._told_away and not self._kept:  # back, with nothing kept: a later outage
            self._told_away = False           # is said again
        return result

    def or_while_away(self, work: Callable[[], T], meanwhile: T) -> T:
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
        after = self._per_deck.scheduler(answer.deck_id).review(before, answer.rating,
                                                                answer.reviewed_at)
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
        ground = self._ground
        lang = ground.config.lang
        sent: dict[int, int] = {}
        try:
            self._reach(lambda _: self._kept.send(ground.store, ground.profile.id,
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
                ground.changed(Changes.SCHEDULE)

    def send_kept_at_open(self) -> None:
        """Answers an earlier run kept while the server was away: sent when the profile opens."""
        from studyapp.store import ServerAway

        with contextlib.suppress(ServerAway):
            self.send_kept_answers()

    def _state_of(self, answer: Answer) -> StateFor:
        """How a kept answer's card state is computed inside its write."""
        return self._reviewed(answer.deck_id, answer.card_key, Rating(answer.rating),
                              answer.reviewed_at, [])

    def take_notices(self) -> list[str]:
        """The notices not said yet (the server away, kept answers sent), once."""
        notices, self._notices = self._notices, []
        return notices
