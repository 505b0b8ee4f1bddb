"""Recording progress: an answer written with the card's new state, taken back, buried.

Every function takes the profile id and touches only that profile's rows.
Results are frozen dataclasses, never live ORM objects. What the queue and
the overview read is in ``card_reads``, a profile's own rows in ``profiles``;
their names are importable from here too.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, tuple_, update
from sqlalchemy.exc import IntegrityError

from studyapp.store.card_reads import (
    REVIEW_STAGE,
    ROW_COLUMNS,
    CardRow,
    CardSummary,
    DueCards,
    DueReview,
    QueueRow,
    _row,
    answer_counts,
    answered_between,
    answered_keys_between,
    card_state,
    card_states,
    card_summaries,
    due_cards,
    learning_due_times,
    not_new_keys,
    review_count,
    review_due_times,
    review_dues,
    stored_time,
)
from studyapp.store.database import Store
from studyapp.store.profiles import (
    ProfileInfo,
    deck_choices,
    delete_profile_data,
    ensure_profile,
    mark_post_read,
    posts_read,
    save_profile_settings,
    set_deck_choice,
)
from studyapp.store.tables import CardState, HeldAnswer, ReviewLog
from studyapp.store.verdicts import answer_marks

__all__ = [
    "REVIEW_STAGE", "Answer", "CardRow", "CardSummary", "DueCards", "DueReview", "NewState",
    "ProfileInfo", "QueueRow", "StateFor", "_row", "answer_counts", "answered_between",
    "answered_keys_between", "bury_cards", "card_state", "card_states", "card_summaries",
    "deck_choices", "delete_profile_data", "due_cards", "ensure_profile",
    "learning_due_times", "mark_post_read", "not_new_keys", "posts_read", "record_answer",
    "review_count", "review_due_times", "review_dues", "save_profile_settings",
    "set_deck_choice", "set_suspended", "stored_time", "undo_answer",
]


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
    implicit: bool = False
    """A review a scenario's step gave this card (``study.ladders``): no stage of its own in
    the log (``state_before`` NULL), not counted as an answer to it (revision 0017)."""


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


_ANSWERED_CARD = select(*ROW_COLUMNS).where(
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
            "duration_ms": answer.duration_ms,
            "state_before": None if answer.implicit else card.stage if card else 0,
            "implicit": answer.implicit,
            "stability_before": card.stability if card else None,
            "previous": card.as_json() if card else None, "seed": answer.seed,
            "params": dict(answer.params) if answer.params is not None else None,
            "prompt": answer.prompt, "response": answer.response,
            "expected": answer.expected, "lang": answer.lang,
            "uid": answer.uid or uuid.uuid4().hex,
            "overridden": answer.overridden, "looked_at_post": answer.looked_at_post,
            **answer_marks(answer.correct, answer.params)})
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
