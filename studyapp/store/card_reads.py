"""Reading a profile's stored cards and answers, as the queue and the overview use them.

Plain column tuples, never live ORM objects: these run for every queue and
overview, over thousands of cards. Every function takes the profile id and
touches only that profile's rows.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import and_, case, func, or_, select, true

from studyapp.store.database import Store
from studyapp.store.tables import CardState, ReviewLog, utc_from_text


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


def _row(card: CardState) -> CardRow:
    return CardRow(
        id=card.id, deck_id=card.deck_id, card_key=card.card_key, post=card.post,
        family=card.family, stage=card.state, step=card.step, stability=card.stability,
        difficulty=card.difficulty, due=card.due, last_review=card.last_review, reps=card.reps,
        lapses=card.lapses, suspended=card.suspended, leech=card.leech,
        buried_until=card.buried_until,
    )


ROW_COLUMNS = (
    CardState.id, CardState.deck_id, CardState.card_key, CardState.post, CardState.family,
    CardState.state, CardState.step, CardState.stability, CardState.difficulty, CardState.due,
    CardState.last_review, CardState.reps, CardState.lapses, CardState.suspended,
    CardState.leech, CardState.buried_until,
)
"""The columns of a ``CardRow``, in its fields' order."""


def card_states(store: Store, profile_id: int) -> dict[tuple[str, str], CardRow]:
    """Every stored card of the profile, by (deck id, card id).

    Plain column tuples, not ORM objects: this runs for every queue and
    overview, over thousands of cards.
    """
    with store.sessions() as session:
        rows = session.execute(select(*ROW_COLUMNS).where(CardState.profile_id == profile_id))
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
    """One stored card, read as its columns (no ORM object: read before every answer)."""
    with store.engine.connect() as conn:
        row = conn.execute(select(*ROW_COLUMNS).where(
            CardState.profile_id == profile_id, CardState.deck_id == deck_id,
            CardState.card_key == card_key)).first()
    return None if row is None else CardRow(*tuple(row))


def review_dues(store: Store, profile_id: int,
                keys: Collection[tuple[str, str]]) -> list[datetime]:
    """When those of these cards that are in review are due (suspended and buried ones
    too), in one query: a card's siblings are read before each of its answers."""
    if not keys:
        return []
    wanted = set(keys)
    with store.engine.connect() as conn:
        rows = conn.execute(select(CardState.deck_id, CardState.card_key, CardState.due).where(
            CardState.profile_id == profile_id, CardState.state == REVIEW_STAGE,
            CardState.card_key.in_(sorted({key for _, key in wanted})))).all()
    return [due for deck_id, card_key, due in rows if (deck_id, card_key) in wanted]


def last_seed(store: Store, profile_id: int, deck_id: str, card_key: str) -> int | None:
    """The draw seed of the card's last recorded showing (None when never answered)."""
    with store.sessions() as session:
        seed = session.scalar(
            select(ReviewLog.seed).join(CardState, ReviewLog.card_id == CardState.id)
            .where(CardState.profile_id == profile_id, CardState.deck_id == deck_id,
                   CardState.card_key == card_key)
            .order_by(ReviewLog.reviewed_at.desc(), ReviewLog.id.desc()).limit(1))
        return None if seed is None else int(seed)


def answered_between(store: Store, profile_id: int, start: datetime,
                     end: datetime) -> tuple[int, int]:
    """(new cards introduced, reviews of already-seen cards) in [start, end)."""
    new, reviews, _ = answer_counts(store, profile_id, start, end)
    return new, reviews


def answer_counts(store: Store, profile_id: int, start: datetime,
                  end: datetime) -> tuple[int, int, int]:
    """(new cards introduced, reviews of review cards, all answers) in [start, end).

    "Reviewed today" on every screen is the last figure: every answer counts (a review a
    scenario's step gave another card, ``implicit``, is no answer).
    """
    with store.sessions() as session:
        in_range = and_(ReviewLog.profile_id == profile_id, ReviewLog.reviewed_at >= start,
                        ReviewLog.reviewed_at < end, ReviewLog.implicit.is_(False))
        new, reviews, total = session.execute(select(
            func.count(case((ReviewLog.state_before == 0, 1))),
            func.count(case((ReviewLog.state_before == 2, 1))),
            func.count()).where(in_range)).one()
        return int(new or 0), int(reviews or 0), int(total or 0)


def answer_counts_by_deck(store: Store, profile_id: int, start: datetime,
                          end: datetime) -> dict[str, tuple[int, int]]:
    """Per deck id: (new cards introduced, reviews of review cards) in [start, end), for the
    decks whose own daily limits are counted apart."""
    with store.sessions() as session:
        rows = session.execute(
            select(CardState.deck_id, func.count(case((ReviewLog.state_before == 0, 1))),
                   func.count(case((ReviewLog.state_before == 2, 1))))
            .join(ReviewLog, ReviewLog.card_id == CardState.id)
            .where(ReviewLog.profile_id == profile_id, ReviewLog.reviewed_at >= start,
                   ReviewLog.reviewed_at < end)
            .group_by(CardState.deck_id))
        return {deck: (int(new or 0), int(reviews or 0)) for deck, new, reviews in rows}


def answered_keys_between(store: Store, profile_id: int, start: datetime, end: datetime,
                          stages: Collection[int] | None = None) -> set[tuple[str, str]]:
    """(deck id, card id) of every card answered in [start, end) (not counted for by a
    scenario's step: ``implicit``); ``stages``: answered in one of these stages only."""
    query = (select(CardState.deck_id, CardState.card_key).distinct()
             .join(ReviewLog, ReviewLog.card_id == CardState.id)
             .where(ReviewLog.profile_id == profile_id, ReviewLog.reviewed_at >= start,
                    ReviewLog.reviewed_at < end, ReviewLog.implicit.is_(False)))
    if stages is not None:
        query = query.where(ReviewLog.state_before.in_(sorted(stages)))
    with store.sessions() as session:
        return {(d, k) for d, k in session.execute(query)}


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


def review_due_times(store: Store, profile_id: int, start: datetime, end: datetime,
                     decks: Collection[str] | None = None,
                     without: Collection[str] = ()) -> list[datetime]:
    """Due times in [start, end) of the profile's review cards: the load that load
    balancing weighs. Suspended and buried cards count too, as Anki counts every
    card due on a day. ``decks``: of those decks only; ``without``: not of these (Anki
    weighs the cards of one preset)."""
    query = select(CardState.due).where(
        CardState.profile_id == profile_id, CardState.state == REVIEW_STAGE,
        CardState.due >= start, CardState.due < end)
    if decks is not None:
        query = query.where(CardState.deck_id.in_(sorted(decks)))
    if without:
        query = query.where(CardState.deck_id.not_in(sorted(without)))
    with store.engine.connect() as conn:
        rows = conn.execute(query).cursor.fetchall()
    return [stored_time(due) for (due,) in rows]


def review_count(store: Store, profile_id: int) -> int:
    with store.sessions() as session:
        return int(session.scalar(select(func.count()).where(
            ReviewLog.profile_id == profile_id)) or 0)
