"""Mastery, one definition for every screen and report: a review card recalled now at 90%
or more whose memory is mature (stability of 21 days or more)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Integer, and_, cast, extract, func, literal, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from studyapp.store.database import Store
from studyapp.store.tables import CardState, UTCDateTime

REVIEW = 2
"""A card state in review (the scheduler's stage 2)."""


def _dialect(session: Session | Connection) -> str:
    if isinstance(session, Connection):
        return session.dialect.name
    return session.get_bind().dialect.name


def _now(moment: datetime) -> ColumnElement[Any]:
    return literal(moment, UTCDateTime())


def age_days(session: Session | Connection, column: Any, now: datetime) -> ColumnElement[Any]:
    """Days from ``column`` to ``now``, as a float, in the session's SQL dialect."""
    if _dialect(session) == "sqlite":
        return func.julianday(_now(now)) - func.julianday(column)
    return extract("epoch", _now(now) - column) / 86400.0


def study_days_to(session: Session | Connection, column: Any,
                  day_end: datetime) -> ColumnElement[Any]:
    """Whole study days from ``column`` to ``day_end`` (the current study day's end),
    as Anki counts the time since a review: 0 on the same study day."""
    age = age_days(session, column, day_end)
    if _dialect(session) == "sqlite":
        return cast(age, Integer)  # truncates; the age is never negative here
    return func.floor(age)


MATURE_DAYS = 21.0
"""A card whose stability is at least this many days counts as mature (as in Anki): true
retention splits young from mature cards by it, and mastery asks for it."""


def mastered_card(bind: Session | Connection, now: datetime, mastery_age: float = 1.0,
                  day_end: datetime | None = None) -> ColumnElement[bool]:
    """A card state is mastered: a review card (not suspended) that would still be recalled
    with probability 0.9 or more now (its age, days since its last review, whole study days
    with ``day_end``, is at most ``mastery_age`` times its stability) and whose memory is
    mature (stability of ``MATURE_DAYS`` or more). Recall alone would call a card answered
    yesterday with a stability of a day mastered."""
    age = (age_days(bind, CardState.last_review, now) if day_end is None
           else study_days_to(bind, CardState.last_review, day_end))
    return and_(CardState.state == REVIEW, CardState.suspended.is_(False),
                CardState.stability.is_not(None), CardState.last_review.is_not(None),
                CardState.stability >= MATURE_DAYS, age <= CardState.stability * mastery_age)


def mastered_keys(store: Store, profile_ids: Collection[int], now: datetime,
                  mastery_age: float = 1.0, *, day_end: datetime | None = None,
                  deck_ids: Collection[str] | None = None) -> dict[int, set[tuple[str, str]]]:
    """The (deck, card) of every mastered card of each profile (of ``deck_ids`` only,
    when given: the decks studied).

    A review card is mastered while its age (days since its last review) is
    at most ``mastery_age`` times its stability; the caller derives that
    factor from the FSRS forgetting curve (1.0 is retrievability 0.9). With
    ``day_end`` the age is in whole study days, as the scheduler counts it.
    Keys, not counts: a card since removed from its deck must not count, and
    only the caller knows the decks.
    """
    found: dict[int, set[tuple[str, str]]] = {pid: set() for pid in profile_ids}
    if not found or (deck_ids is not None and not deck_ids):
        return found
    with store.engine.connect() as conn:
        query = (select(CardState.profile_id, CardState.deck_id, CardState.card_key)
                 .where(CardState.profile_id.in_(sorted(found)),
                        mastered_card(conn, now, mastery_age, day_end)))
        if deck_ids is not None:
            query = query.where(CardState.deck_id.in_(sorted(deck_ids)))
        # the driver's tuples: thousands of keys, read beside other work (no row objects)
        for pid, deck_id, card_key in conn.execute(query).cursor.fetchall():
            found[pid].add((deck_id, card_key))
    return found
