"""Regrading: a deck's stored answers judged again against its current keys.

When an instructor fixes a card's key, the answers already given are graded
again; a changed verdict is written to the review log (``correct``,
``verdict``, ``slip``) and to the card's sums (``card_stats``, kept by triggers
on insert and delete only, so updated here in the same transaction).
Answers the learner overruled ("I was right") keep their verdict. A changed
verdict is also kept as the answer's notice (``regraded``, revision 0015) until
its student has been told once (``take_notices``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, select, update

from studyapp.store.database import Store
from studyapp.store.tables import CardStat, CardState, ReviewLog
from studyapp.store.verdicts import RIGHT, SLIP_WIDTH, WRONG


@dataclass(frozen=True)
class StoredAnswer:
    """One answer as it was shown and given, with its verdict now."""

    log_id: int
    card_id: int
    card_key: str
    response: str
    seed: int | None
    lang: str | None
    right: bool
    first: bool


@dataclass(frozen=True)
class NewVerdict:
    """An answer whose verdict a regrade changed."""

    answer: StoredAnswer
    right: bool
    slip: str


def answers_of_deck(store: Store, deck_id: str, card_keys: Sequence[str]) -> list[StoredAnswer]:
    """Every answer to the cards ``card_keys`` of ``deck_id``, overruled ones left out."""
    with store.sessions() as session:
        rows = session.execute(
            select(ReviewLog.id, ReviewLog.card_id, CardState.card_key, ReviewLog.response,
                   ReviewLog.seed, ReviewLog.lang, ReviewLog.correct, ReviewLog.state_before)
            .join(CardState, CardState.id == ReviewLog.card_id)
            .where(CardState.deck_id == deck_id, CardState.card_key.in_(list(card_keys)),
                   ReviewLog.response.is_not(None), ReviewLog.overridden.is_(False)))
        return [StoredAnswer(i, c, k, r or "", s, lang, bool(ok), before == 0)
                for i, c, k, r, s, lang, ok, before in rows]


def write_verdicts(store: Store, changes: Sequence[NewVerdict]) -> list[NewVerdict]:
    """Write the changed verdicts and the cards' sums in one transaction: those written.

    On a class database with row security an instructor's login writes only its own
    rows; the others are left as they were (the database's owner regrades them all).
    """
    written: list[NewVerdict] = []
    if not changes:
        return written
    with store.transaction() as session:
        for change in changes:
            step = 1 if change.right else -1
            done = session.execute(
                update(ReviewLog).where(ReviewLog.id == change.answer.log_id)
                .values(correct=change.right, verdict=RIGHT if change.right else WRONG,
                        slip="" if change.right else change.slip[:SLIP_WIDTH],
                        # the student is told once; a change undone before then says nothing
                        regraded=case((ReviewLog.regraded.is_(None),
                                       RIGHT if change.right else WRONG), else_=None)))
            if not done.rowcount:  # type: ignore[attr-defined]
                continue
            session.execute(update(CardStat).where(CardStat.card_id == change.answer.card_id)
                            .values(correct=CardStat.correct + step,
                                    first_correct=CardStat.first_correct
                                    + (step if change.answer.first else 0)))
            written.append(change)
    return written


@dataclass(frozen=True)
class RegradeNotice:
    """A student's answer whose verdict a regrade changed, not yet told to them."""

    deck_id: str
    card_key: str
    response: str
    reviewed_at: datetime
    right: bool
    """The verdict now: right (it was marked wrong), or wrong (it was marked right)."""


def take_notices(store: Store, profile_id: int) -> list[RegradeNotice]:
    """The profile's regrade notices, oldest first, cleared as they are read: each is
    shown once (read through the partial index of notices, revision 0015)."""
    pending = ReviewLog.regraded.is_not(None)
    with store.transaction() as session:
        rows = session.execute(
            select(CardState.deck_id, CardState.card_key, ReviewLog.response,
                   ReviewLog.reviewed_at, ReviewLog.regraded)
            .join(CardState, CardState.id == ReviewLog.card_id)
            .where(ReviewLog.profile_id == profile_id, pending)
            .order_by(ReviewLog.reviewed_at, ReviewLog.id)).all()
        if rows:
            session.execute(update(ReviewLog).where(ReviewLog.profile_id == profile_id, pending)
                            .values(regraded=None))
        return [RegradeNotice(deck, key, response or "", at, verdict == RIGHT)
                for deck, key, response, at, verdict in rows]
