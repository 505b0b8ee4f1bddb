"""The class's answers per card, counted in SQL from the verdicts stored with them.

Each review log carries its verdict, named slip and carried-forward steps
(revision 0012, ``store.verdicts``), so item analysis groups rows instead of
grading answers again: one pass over the log per card and student, one per
distinct answer. Only answers stored before slips were noted are read one by
one (``unnamed_wrong``), to name their slip.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, func, select, true

from studyapp.store.database import Store
from studyapp.store.tables import CardState, ReviewLog
from studyapp.store.verdicts import RIGHT, WRONG


@dataclass(frozen=True)
class CardAnswers:
    """One student's answers to one card, summed."""

    profile_id: int
    deck_id: str
    card_key: str
    post: str
    answers: int
    right: int
    first: int
    """Answers given while the card was new (the first attempt: one, unless imported twice)."""
    first_right: int
    overridden: int
    """Answers graded wrong that the student overruled ("I was right")."""
    carried: int
    """Answers with a step right from the student's own wrong earlier step."""
    duration_ms: int
    timed: int
    """Answers with a recorded time (``duration_ms`` is their sum)."""


@dataclass(frozen=True)
class ResponseCount:
    """How many times one answer was given to one card, with its verdict and slip."""

    deck_id: str
    card_key: str
    response: str | None
    """As typed; None for a generated card, whose numbers change at every draw."""
    lang: str | None
    verdict: str
    slip: str | None
    carried: bool
    picked: str | None
    count: int


def _n(value: Any) -> int:
    return int(value or 0)


def _within(column: Any, profile_ids: Collection[int] | None) -> Any:
    return true() if profile_ids is None else column.in_(list(profile_ids))


def _if(condition: Any) -> Any:
    return case((condition, 1), else_=0)


def answers_by_card(store: Store, profile_ids: Collection[int] | None = None
                    ) -> list[CardAnswers]:
    """Every (student, card) with answers: counts by verdict, first attempts, time."""
    right = ReviewLog.verdict == RIGHT
    first = ReviewLog.state_before == 0
    sums = (select(ReviewLog.card_id.label("card_id"), func.count().label("n"),
                   func.sum(_if(right)).label("ok"), func.sum(_if(first)).label("first"),
                   func.sum(_if(first & right)).label("first_ok"),
                   func.sum(_if(ReviewLog.overridden)).label("overridden"),
                   func.sum(_if(ReviewLog.carried > 0)).label("carried"),
                   func.sum(ReviewLog.duration_ms).label("ms"),
                   func.count(ReviewLog.duration_ms).label("timed"))
            .where(_within(ReviewLog.profile_id, profile_ids))
            .group_by(ReviewLog.card_id).subquery())
    with store.sessions() as session:
        rows = session.execute(
            select(CardState.profile_id, CardState.deck_id, CardState.card_key, CardState.post,
                   sums.c.n, sums.c.ok, sums.c.first, sums.c.first_ok, sums.c.overridden,
                   sums.c.carried, sums.c.ms, sums.c.timed)
            .join(sums, sums.c.card_id == CardState.id))
        return [CardAnswers(pid, deck, key, post, *(_n(v) for v in rest))
                for pid, deck, key, post, *rest in rows]


def response_counts(store: Store, profile_ids: Collection[int] | None = None
                    ) -> list[ResponseCount]:
    """Every distinct answer given to each card, with its verdict, slip and count."""
    typed = case((CardState.family.is_(None), ReviewLog.response), else_=None)
    carried = ReviewLog.carried > 0
    keys = (CardState.deck_id, CardState.card_key, typed, ReviewLog.lang, ReviewLog.verdict,
            ReviewLog.slip, carried, ReviewLog.answer)
    with store.sessions() as session:
        rows = session.execute(
            select(*keys, func.count()).join(CardState, CardState.id == ReviewLog.card_id)
            .where(_within(ReviewLog.profile_id, profile_ids), ReviewLog.response.is_not(None))
            .group_by(*keys))
        return [ResponseCount(deck, key, response, lang, verdict, slip, bool(was_carried),
                              picked, _n(n))
                for deck, key, response, lang, verdict, slip, was_carried, picked, n in rows]


@dataclass(frozen=True)
class StepsAnswer:
    """A scenario's steps as one answer kept them, and how many times they were given."""

    deck_id: str
    card_key: str
    steps: tuple[Mapping[str, Any], ...]
    count: int


def scenario_steps(store: Store, cards: Collection[tuple[str, str]],
                   profile_ids: Collection[int] | None = None) -> list[StepsAnswer]:
    """The steps of the scenario answers to ``cards`` that went wrong or carried a step."""
    if not cards:
        return []
    parts = ReviewLog.params["parts"].as_string()
    keys = sorted({key for _, key in cards})
    with store.sessions() as session:
        rows = session.execute(
            select(CardState.deck_id, CardState.card_key, parts, func.count())
            .join(CardState, CardState.id == ReviewLog.card_id)
            .where(_within(ReviewLog.profile_id, profile_ids), CardState.card_key.in_(keys),
                   (ReviewLog.verdict == WRONG) | (ReviewLog.carried > 0))
            .group_by(CardState.deck_id, CardState.card_key, parts))
        return [StepsAnswer(deck, key, _steps(text), _n(n)) for deck, key, text, n in rows
                if (deck, key) in cards]


def _steps(stored: str | None) -> tuple[Mapping[str, Any], ...]:
    if not stored:
        return ()
    try:
        steps = json.loads(stored)
    except ValueError:
        return ()
    return tuple(s for s in steps if isinstance(s, dict)) if isinstance(steps, list) else ()


@dataclass(frozen=True)
class UnnamedWrong:
    """A wrong answer stored before slips were noted: graded again to name its slip."""

    deck_id: str
    card_key: str
    response: str
    seed: int | None
    lang: str | None
    picked: str | None


def unnamed_wrong(store: Store, profile_ids: Collection[int] | None = None
                  ) -> list[UnnamedWrong]:
    """The wrong answers whose slip is not yet named (``slip`` NULL: older answers)."""
    with store.sessions() as session:
        rows = session.execute(
            select(CardState.deck_id, CardState.card_key, ReviewLog.response, ReviewLog.seed,
                   ReviewLog.lang, ReviewLog.answer)
            .join(CardState, CardState.id == ReviewLog.card_id)
            .where(_within(ReviewLog.profile_id, profile_ids), ReviewLog.verdict == WRONG,
                   ReviewLog.slip.is_(None), ReviewLog.response.is_not(None)))
        return [UnnamedWrong(d, k, r or "", s, lang, p) for d, k, r, s, lang, p in rows]
