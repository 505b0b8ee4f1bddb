"""Reading and writing progress: the only queries the study service needs.

Every function takes the profile id and touches only that profile's rows.
Results are frozen dataclasses, never live ORM objects.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import (
    and_,
    bindparam,
    case,
    delete,
    func,
    insert,
    or_,
    select,
    true,
    tuple_,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from studyapp.store.database import Store
from studyapp.store.models import (
    CardState,
    DeckChoice,
    HeldAnswer,
    PostRead,
    Profile,
    ReviewLog,
    utc_from_text,
)


@dataclass(frozen=True)
class ProfileInfo:
    id: int
    name: str
    settings: Mapping[str, Any]


@dataclass(frozen=True)
class CardRow:
    """A card's stored state (stage 1 learning, 2 review, 3 relearning)."""

    id: int
    deck_id: str
    card_key: str
    post: str
    family: str | None
    stage: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    reps: int
    lapses: int
    suspended: bool
    leech: bool
    buried_until: datetime | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.deck_id, self.card_key)

    def as_json(self) -> dict[str, Any]:
        """The fields undo restores."""
        return {
            "stage": self.stage, "step": self.step, "stability": self.stability,
            "difficulty": self.difficulty, "due": self.due.isoformat(),
            "last_review": self.last_review.isoformat() if self.last_review else None,
            "reps": self.reps, "lapses": self.lapses, "suspended": self.suspended,
            "leech": self.leech,
        }


@dataclass(frozen=True)
class NewState:
    """A card's state after an answer."""

    stage: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime
    reps: int
    lapses: int
    leech: bool


@dataclass(frozen=True)
class Answer:
    """What one answer writes: the card's new state and its review log."""

    deck_id: str
    card_key: str
    post: str
    family: str | None
    state: NewState | None  # None: computed from the stored card inside the write
    reviewed_at: datetime
    rating: int
    correct: bool
    duration_ms: int | None = None
    seed: int | None = None
    params: Mapping[str, Any] | None = None
    prompt: str | None = None
    response: str | None = None
    expected: str | None = None
    lang: str | None = None
    overridden: bool = False  # graded wrong, then "I was right"
    looked_at_post: bool = False  # the post was open while answering
    held_id: int | None = None  # its held copy (store.held), removed in the same transaction
    uid: str | None = None  # the review log's uid: a retried or resent answer is written once


def _row(card: CardState) -> CardRow:
    return CardRow(
        id=card.id, deck_id=card.deck_id, card_key=card.card_key, post=card.post,
        family=card.family, stage=card.state, step=card.step, stability=card.stability,
        difficulty=card.difficulty, due=card.due, last_review=card.last_review, reps=card.reps,
        lapses=card.lapses, suspended=card.suspended, leech=card.leech,
        buried_until=card.buried_until,
    )


def ensure_profile(store: Store, name: str, default_settings: Mapping[str, Any],
                   now: datetime) -> ProfileInfo:
    """The profile named ``name``, created with ``default_settings`` the first time.

    On a read-only database a profile that does not exist yet is not created:
    it has no rows to read, and id 0 matches none.
    """
    if store.read_only:
        with store.sessions() as session:
            found = session.scalar(select(Profile).where(Profile.name == name))
            if found is None:
                return ProfileInfo(0, name, dict(default_settings))
            return ProfileInfo(found.id, found.name, dict(found.settings or {}))
    try:
        with store.transaction() as session:
            profile = session.scalar(select(Profile).where(Profile.name == name))
            if profile is None:
                profile = Profile(name=name, created_at=now, settings=dict(default_settings))
                session.add(profile)
                session.flush()
            return ProfileInfo(profile.id, profile.name, dict(profile.settings or {}))
    except IntegrityError:
        # Another process created it between our read and our insert (two
        # first runs at once): theirs stands, read it.
        with store.sessions() as session:
            found = session.scalar(select(Profile).where(Profile.name == name))
            if found is None:
                raise
            return ProfileInfo(found.id, found.name, dict(found.settings or {}))


def save_profile_settings(store: Store, profile_id: int, settings: Mapping[str, Any]) -> None:
    with store.transaction() as session:
        session.execute(update(Profile).where(Profile.id == profile_id)
                        .values(settings=dict(settings)))


_ROW_COLUMNS = (
    CardState.id, CardState.deck_id, CardState.card_key, CardState.post, CardState.family,
    CardState.state, CardState.step, CardState.stability, CardState.difficulty, CardState.due,
    CardState.last_review, CardState.reps, CardState.lapses, CardState.suspended,
    CardState.leech, CardState.buried_until,
)


def card_states(store: Store, profile_id: int) -> dict[tuple[str, str], CardRow]:
    """Every stored card of the profile, by (deck id, card id).

    Plain column tuples, not ORM objects: this runs for every queue and
    overview, over thousands of cards.
    """
    with store.sessions() as session:
        rows = session.execute(select(*_ROW_COLUMNS).where(CardState.profile_id == profile_id))
        return {(r[1], r[2]): CardRow(*tuple(r)) for r in rows}


class CardSummary(NamedTuple):
    """What counting needs of a stored card: its stage, whether suspended or due.

    A named tuple: one is built for every stored card at every count.
    """

    stage: int
    suspended: bool
    due: bool


def _not_buried(now: datetime | None) -> Any:
    """Cards not buried at ``now`` (every card when ``now`` is None)."""
    if now is None:
        return true()
    return or_(CardState.buried_until.is_(None), CardState.buried_until <= now)


def card_summaries(store: Store, profile_id: int, due_before: datetime,
                   now: datetime | None = None) -> dict[tuple[str, str], CardSummary]:
    """Every stored card as (stage, suspended, due before ``due_before``).

    A card buried at ``now`` is not due. The comparison runs in SQL, so no
    datetime is converted per row.
    """
    # stage 0 rows (marked or reset, never answered since) are new, never due
    is_due = and_(CardState.due < due_before, CardState.state != 0, _not_buried(now))
    # one number per card (stage, suspended, due packed by the database), and one shared
    # summary per distinct number: no tuple is built for every card
    code = (CardState.state * 4 + case((CardState.suspended, 2), else_=0)
            + case((is_due, 1), else_=0))
    query = select(CardState.deck_id, CardState.card_key, code).where(
        CardState.profile_id == profile_id)
    with store.engine.connect() as conn:  # the driver's tuples: no row objects per card
        rows = conn.execute(query).cursor.fetchall()
    shared: dict[int, CardSummary] = {}
    for code_n in {row[2] for row in rows}:
        shared[code_n] = CardSummary(code_n >> 2, bool(code_n & 2), bool(code_n & 1))
    return {(d, k): shared[c] for d, k, c in rows}


class QueueRow(NamedTuple):
    """A stored card as the queue sees it; times only for cards that are due.

    A named tuple: thousands are built for every queue, and a tuple is built
    several times faster than a frozen dataclass.
    """

    stage: int
    suspended: bool
    stability: float | None
    due: datetime | None  # None when not due before the cut-off
    last_review: datetime | None


def stored_time(value: Any) -> datetime:
    """A time read from a raw driver row: SQLite's naive UTC text or PostgreSQL's datetime."""
    if isinstance(value, str):
        return utc_from_text(value)
    moment: datetime = value
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


REVIEW_STAGE = 2


class DueReview(NamedTuple):
    """A due review as the driver returned it: the due time still unparsed.

    The queue ranks thousands of these by recall and keeps a day's
    allowance, so only ``last_review`` is parsed for each; ``due`` is parsed
    (with ``stored_time``) for the few reviews a queue takes.
    """

    deck_id: str
    card_key: str
    stability: float | None
    due: Any
    last_review: Any


class DueCards(NamedTuple):
    """The stored cards due before a cut-off, split as the queue uses them."""

    learning: dict[tuple[str, str], QueueRow]
    reviews: list[DueReview]


def not_new_keys(store: Store, profile_id: int, now: datetime | None = None
                 ) -> set[tuple[str, str]]:
    """The keys of stored cards that are not new (the queue takes new cards from the rest).

    A card buried at ``now`` is not new; a stage 0 row (flagged or reset,
    never answered since) is. Read as the driver's plain tuples: this runs
    over every stored card of the profile at every queue.
    """
    is_new = and_(CardState.state == 0, CardState.suspended.is_(False), _not_buried(now))
    keys = select(CardState.deck_id, CardState.card_key).where(
        CardState.profile_id == profile_id, ~is_new)
    with store.engine.connect() as conn:
        return set(map(tuple, conn.execute(keys).cursor.fetchall()))


def due_cards(store: Store, profile_id: int, due_before: datetime, now: datetime | None = None,
              *, with_reviews: bool = True) -> DueCards:
    """The stored cards due before ``due_before``: learning ones, and reviews if asked.

    Building the queue must stay fast over tens of thousands of cards: one
    narrow query read as the driver's plain tuples, with times parsed only
    for learning cards (reviews keep theirs raw, see ``DueReview``). When
    the day's reviews are used up the queue asks for none, and none are
    read. Suspended cards and cards buried at ``now`` are not due.
    """
    wanted = CardState.state != 0 if with_reviews else CardState.state.in_((1, 3))
    due_query = select(
        CardState.deck_id, CardState.card_key, CardState.state, CardState.stability,
        CardState.due, CardState.last_review,
    ).where(CardState.profile_id == profile_id, CardState.due < due_before,
            CardState.suspended.is_(False), wanted, _not_buried(now))
    with store.engine.connect() as conn:  # the driver's tuples: no row objects per card
        due_rows = conn.execute(due_query).cursor.fetchall()
    learning: dict[tuple[str, str], QueueRow] = {}
    reviews: list[DueReview] = []
    for d, k, stage, stab, when, last in due_rows:
        if stage == REVIEW_STAGE:
            reviews.append(DueReview(d, k, stab, when, last))
        else:
            learning[(d, k)] = QueueRow(stage, False, stab, stored_time(when),
                                        None if last is None else stored_time(last))
    return DueCards(learning, reviews)


def card_state(store: Store, profile_id: int, deck_id: str, card_key: str) -> CardRow | None:
    with store.sessions() as session:
        card = session.scalar(select(CardState).where(
            CardState.profile_id == profile_id, CardState.deck_id == deck_id,
            CardState.card_key == card_key))
        return _row(card) if card else None


def last_seed(store: Store, profile_id: int, deck_id: str, card_key: str) -> int | None:
    """The draw seed of the card's last recorded showing (None when never answered)."""
    with store.sessions() as session:
        seed = session.scalar(
            select(ReviewLog.seed).join(CardState, ReviewLog.card_id == CardState.id)
            .where(CardState.profile_id == profile_id, CardState.deck_id == deck_id,
                   CardState.card_key == card_key)
            .order_by(ReviewLog.reviewed_at.desc(), ReviewLog.id.desc()).limit(1))
        return None if seed is None else int(seed)


StateFor = Callable[[CardRow | None], NewState]
"""The card's new state from its stored state (None for a card never answered)."""


def record_answer(store: Store, profile_id: int, answer: Answer,
                  state_for: StateFor | None = None, *, maybe_recorded: bool = False) -> int:
    """Write the card state and its review log in one transaction; return the log id.

    With ``state_for``, the new state is computed from the card as read inside
    this write transaction (SQLite's BEGIN IMMEDIATE, a row lock on
    PostgreSQL), so two processes answering the same card never both build on
    the same old state. ``maybe_recorded``: an earlier try of this answer (its
    ``uid``) may have been committed before the connection was lost; then the
    log already written is its id and nothing is written twice.
    """
    try:
        return _record(store, profile_id, answer, state_for, maybe_recorded)
    except IntegrityError:
        # another process stored this card's first answer at the same moment
        return _record(store, profile_id, answer, state_for, maybe_recorded)


_ANSWERED_CARD = select(*_ROW_COLUMNS).where(
    CardState.profile_id == bindparam("profile"), CardState.deck_id == bindparam("deck"),
    CardState.card_key == bindparam("card")).with_for_update()
_NEW_CARD = insert(CardState)
_CHANGED_CARD = update(CardState).where(CardState.id == bindparam("card_id"))
_NEW_LOG = insert(ReviewLog)
_RELEASED = delete(HeldAnswer).where(HeldAnswer.id == bindparam("held"),
                                     HeldAnswer.profile_id == bindparam("profile"))
_LOGGED = select(ReviewLog.id).where(ReviewLog.profile_id == bindparam("profile"),
                                     ReviewLog.uid == bindparam("uid"))


def _record(store: Store, profile_id: int, answer: Answer, state_for: StateFor | None,
            maybe_recorded: bool = False) -> int:
    """One answer in three statements (read the card, write it, add the log).

    Core statements built once, not ORM objects and flushes: an answer's
    commit sits between the learner's key and the next question.
    """
    with store.transaction() as session:
        conn = session.connection()
        if maybe_recorded and answer.uid:
            logged_before = conn.execute(_LOGGED, {"profile": profile_id,
                                                   "uid": answer.uid}).scalar()
            if logged_before is not None:
                if answer.held_id is not None:
                    conn.execute(_RELEASED, {"held": answer.held_id, "profile": profile_id})
                return int(logged_before)
        found = conn.execute(_ANSWERED_CARD, {"profile": profile_id, "deck": answer.deck_id,
                                              "card": answer.card_key}).first()
        card = CardRow(*tuple(found)) if found is not None else None
        state = state_for(card) if state_for else answer.state
        if state is None:
            raise ValueError("an answer needs its new state or a way to compute it")
        values = {"post": answer.post, "family": answer.family, "state": state.stage,
                  "step": state.step, "stability": state.stability,
                  "difficulty": state.difficulty, "due": state.due,
                  "last_review": state.last_review, "reps": state.reps,
                  "lapses": state.lapses, "leech": state.leech}
        if card is None:
            inserted = conn.execute(_NEW_CARD, {
                **values, "profile_id": profile_id, "deck_id": answer.deck_id,
                "card_key": answer.card_key, "suspended": False,
                "created_at": answer.reviewed_at})
            assert inserted.inserted_primary_key is not None
            card_id = inserted.inserted_primary_key[0]
        else:
            conn.execute(_CHANGED_CARD, {**values, "card_id": card.id})
            card_id = card.id
        logged = conn.execute(_NEW_LOG, {
            "profile_id": profile_id, "card_id": card_id, "reviewed_at": answer.reviewed_at,
            "rating": answer.rating, "correct": answer.correct,
            "duration_ms": answer.duration_ms, "state_before": card.stage if card else 0,
            "previous": card.as_json() if card else None, "seed": answer.seed,
            "params": dict(answer.params) if answer.params is not None else None,
            "prompt": answer.prompt, "response": answer.response,
            "expected": answer.expected, "lang": answer.lang,
            "uid": answer.uid or uuid.uuid4().hex,
            "overridden": answer.overridden, "looked_at_post": answer.looked_at_post})
        assert logged.inserted_primary_key is not None
        log_id: int = logged.inserted_primary_key[0]
        if answer.held_id is not None:
            conn.execute(_RELEASED, {"held": answer.held_id, "profile": profile_id})
        return log_id


def undo_answer(store: Store, profile_id: int, log_id: int) -> bool:
    """Remove one review log and restore its card to the state before it."""
    with store.transaction() as session:
        log = session.get(ReviewLog, log_id)
        if log is None or log.profile_id != profile_id:
            return False
        card = session.get(CardState, log.card_id)
        previous = log.previous
        session.delete(log)
        session.flush()
        if card is not None:
            if previous is None:
                session.delete(card)
            else:
                card.state = int(previous["stage"])  # type: ignore[call-overload]
                card.step = previous["step"]  # type: ignore[assignment]
                card.stability = previous["stability"]  # type: ignore[assignment]
                card.difficulty = previous["difficulty"]  # type: ignore[assignment]
                card.due = datetime.fromisoformat(str(previous["due"]))
                last = previous["last_review"]
                card.last_review = datetime.fromisoformat(str(last)) if last else None
                card.reps = int(previous["reps"])  # type: ignore[call-overload]
                card.lapses = int(previous["lapses"])  # type: ignore[call-overload]
                card.suspended = bool(previous["suspended"])
                card.leech = bool(previous["leech"])
        return True


def set_suspended(store: Store, profile_id: int, deck_id: str, card_key: str,
                  suspended: bool) -> bool:
    with store.transaction() as session:
        result = session.execute(update(CardState).where(
            CardState.profile_id == profile_id, CardState.deck_id == deck_id,
            CardState.card_key == card_key).values(suspended=suspended))
        return bool(result.rowcount)  # type: ignore[attr-defined]


def answered_between(store: Store, profile_id: int, start: datetime,
                     end: datetime) -> tuple[int, int]:
    """(new cards introduced, reviews of already-seen cards) in [start, end)."""
    new, reviews, _ = answer_counts(store, profile_id, start, end)
    return new, reviews


def answer_counts(store: Store, profile_id: int, start: datetime,
                  end: datetime) -> tuple[int, int, int]:
    """(new cards introduced, reviews of review cards, all answers) in [start, end).

    "Reviewed today" on every screen is the last figure: every answer counts.
    """
    with store.sessions() as session:
        in_range = and_(ReviewLog.profile_id == profile_id, ReviewLog.reviewed_at >= start,
                        ReviewLog.reviewed_at < end)
        new, reviews, total = session.execute(select(
            func.count(case((ReviewLog.state_before == 0, 1))),
            func.count(case((ReviewLog.state_before == 2, 1))),
            func.count()).where(in_range)).one()
        return int(new or 0), int(reviews or 0), int(total or 0)


def answered_keys_between(store: Store, profile_id: int, start: datetime,
                          end: datetime) -> set[tuple[str, str]]:
    """(deck id, card id) of every card answered in [start, end)."""
    with store.sessions() as session:
        rows = session.execute(
            select(CardState.deck_id, CardState.card_key).distinct()
            .join(ReviewLog, ReviewLog.card_id == CardState.id)
            .where(ReviewLog.profile_id == profile_id, ReviewLog.reviewed_at >= start,
                   ReviewLog.reviewed_at < end))
        return {(d, k) for d, k in rows}


def bury_cards(store: Store, profile_id: int, keys: set[tuple[str, str]],
               until: datetime) -> int:
    """Keep stored cards out of every queue until ``until``; the number buried."""
    if not keys:
        return 0
    with store.transaction() as session:
        result = session.execute(update(CardState).where(
            CardState.profile_id == profile_id,
            tuple_(CardState.deck_id, CardState.card_key).in_(sorted(keys)))
            .values(buried_until=until))
        return int(result.rowcount)  # type: ignore[attr-defined]


def learning_due_times(store: Store, profile_id: int,
                       now: datetime) -> list[tuple[tuple[str, str], datetime]]:
    """When each learning or relearning card comes back, soonest first.

    Suspended and buried cards are left out.
    """
    query = (select(CardState.deck_id, CardState.card_key, CardState.due)
             .where(CardState.profile_id == profile_id, CardState.state.in_((1, 3)),
                    CardState.suspended.is_(False), _not_buried(now))
             .order_by(CardState.due))
    with store.engine.connect() as conn:  # the driver's tuples, times parsed here
        rows = conn.execute(query).cursor.fetchall()
    return [((d, k), stored_time(due)) for d, k, due in rows]


def deck_choices(store: Store, profile_id: int) -> dict[str, bool]:
    """The learner's own on/off per deck id (decks not listed keep their default)."""
    with store.sessions() as session:
        return {d: bool(e) for d, e in session.execute(select(
            DeckChoice.deck_id, DeckChoice.enabled).where(DeckChoice.profile_id == profile_id))}


def set_deck_choice(store: Store, profile_id: int, deck_id: str, enabled: bool,
                    now: datetime) -> None:
    with store.transaction() as session:
        choice = session.scalar(select(DeckChoice).where(
            DeckChoice.profile_id == profile_id, DeckChoice.deck_id == deck_id))
        if choice is None:
            session.add(DeckChoice(profile_id=profile_id, deck_id=deck_id, enabled=enabled,
                                   changed_at=now))
        else:
            choice.enabled = enabled
            choice.changed_at = now


def mark_post_read(store: Store, profile_id: int, post: str, now: datetime) -> None:
    with store.transaction() as session:
        read = session.scalar(select(PostRead).where(PostRead.profile_id == profile_id,
                                                     PostRead.post == post))
        if read is None:
            session.add(PostRead(profile_id=profile_id, post=post, first_read_at=now,
                                 last_read_at=now, times=1))
        else:
            read.last_read_at = now
            read.times += 1


def posts_read(store: Store, profile_id: int) -> set[str]:
    with store.sessions() as session:
        return set(session.scalars(select(PostRead.post).where(
            PostRead.profile_id == profile_id)))


def review_count(store: Store, profile_id: int) -> int:
    with store.sessions() as session:
        return int(session.scalar(select(func.count()).where(
            ReviewLog.profile_id == profile_id)) or 0)


def delete_profile_data(session: Session, profile_id: int) -> None:
    """Used by tests and imports that replace a profile wholesale."""
    session.execute(delete(ReviewLog).where(ReviewLog.profile_id == profile_id))
    session.execute(delete(CardState).where(CardState.profile_id == profile_id))
    session.execute(delete(DeckChoice).where(DeckChoice.profile_id == profile_id))
