"""The card browser's reads and writes: every stored card with its answer counts,
and the marks a learner or instructor puts on cards (suspend, bury, flag, reset).

A card never answered has no row; marking one creates a row in stage 0 (new),
which every count treats as new. Reset puts a card back to stage 0 and keeps
its review logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import case, func, select

from studyapp.store.card_reads import ROW_COLUMNS, CardRow
from studyapp.store.database import Store
from studyapp.store.tables import CardState, ReviewLog


@dataclass(frozen=True)
class StoredCard(CardRow):
    """A stored card as the browser shows it: its state (stage 0 is new, a marked card never
    answered), its flag and how often it was answered, and right."""

    flag: int = 0
    answers: int = 0
    correct: int = 0


def stored_cards(store: Store, profile_id: int) -> dict[tuple[str, str], StoredCard]:
    """Every stored card of the profile with its answer counts, in two queries."""
    per_card = (select(ReviewLog.card_id, func.count(),
                       func.sum(case((ReviewLog.correct.is_(True), 1), else_=0)))
                .where(ReviewLog.profile_id == profile_id).group_by(ReviewLog.card_id))
    query = select(*ROW_COLUMNS, CardState.flag).where(CardState.profile_id == profile_id)
    with store.sessions() as session:
        counts = {cid: (int(n or 0), int(ok or 0)) for cid, n, ok in session.execute(per_card)}
        result: dict[tuple[str, str], StoredCard] = {}
        for *row, flag in session.execute(query):
            card = CardRow(*row)
            n, ok = counts.get(card.id, (0, 0))
            result[card.key] = StoredCard(**vars(card), flag=int(flag or 0), answers=n,
                                          correct=ok)
        return result


class Mark(StrEnum):
    """What an action does to each chosen card."""

    SUSPEND = "suspend"
    UNSUSPEND = "unsuspend"
    BURY = "bury"
    UNBURY = "unbury"
    FLAG = "flag"
    RESET = "reset"


@dataclass(frozen=True)
class CardRef:
    """A card to mark, with what a new row needs (its post and family)."""

    deck_id: str
    card_key: str
    post: str
    family: str | None = None


def mark_cards(store: Store, profile_id: int, cards: Sequence[CardRef], mark: Mark, *,
               now: datetime, buried_until: datetime | None = None, flag: int = 0) -> int:
    """Apply ``mark`` to ``cards`` in one transaction; return how many actually changed.

    Suspending, burying or flagging a card never answered creates its row in
    stage 0; unsuspending, unburying and resetting leave such cards alone.
    """
    if not cards:
        return 0
    changed = 0
    with store.transaction() as session:
        existing: dict[tuple[str, str], CardState] = {}
        decks = {c.deck_id for c in cards}
        for deck_id in decks:
            keys = [c.card_key for c in cards if c.deck_id == deck_id]
            for start in range(0, len(keys), 500):
                for state in session.scalars(select(CardState).where(
                        CardState.profile_id == profile_id, CardState.deck_id == deck_id,
                        CardState.card_key.in_(keys[start:start + 500]))):
                    existing[(state.deck_id, state.card_key)] = state
        creates = mark in (Mark.SUSPEND, Mark.BURY) or (mark is Mark.FLAG and flag)
        for ref in cards:
            card = existing.get((ref.deck_id, ref.card_key))
            if card is None:
                if not creates:
                    continue
                card = CardState(profile_id=profile_id, deck_id=ref.deck_id,
                                 card_key=ref.card_key, post=ref.post, family=ref.family,
                                 state=0, step=0, due=now, reps=0, lapses=0, suspended=False,
                                 leech=False, created_at=now, flag=0, buried_until=None)
                session.add(card)
                existing[(ref.deck_id, ref.card_key)] = card
            changed += _apply_mark(card, mark, now, buried_until, flag)
    return changed


def _apply_mark(card: CardState, mark: Mark, now: datetime, buried_until: datetime | None,
                flag: int) -> int:
    """1 when the card changed, else 0."""
    if mark is Mark.SUSPEND or mark is Mark.UNSUSPEND:
        wanted = mark is Mark.SUSPEND
        if bool(card.suspended) == wanted:
            return 0
        card.suspended = wanted
        return 1
    if mark is Mark.BURY:
        if card.buried_until is not None and buried_until is not None \
                and card.buried_until >= buried_until:
            return 0
        card.buried_until = buried_until
        return 1
    if mark is Mark.UNBURY:
        if card.buried_until is None or card.buried_until <= now:
            card.buried_until = None
            return 0
        card.buried_until = None
        return 1
    if mark is Mark.FLAG:
        if (card.flag or 0) == flag:
            return 0
        card.flag = flag
        return 1
    # reset: back to new, history kept
    if card.state == 0 and not card.reps and not card.lapses:
        return 0
    card.state = 0
    card.step = 0
    card.stability = None
    card.difficulty = None
    card.due = now
    card.last_review = None
    card.reps = 0
    card.lapses = 0
    card.leech = False
    return 1


__all__ = ["CardRef", "Mark", "StoredCard", "mark_cards", "stored_cards"]
