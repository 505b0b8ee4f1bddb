"""The class's answers per card, counted in SQL from the verdicts stored with them.

Each review log carries its verdict, named slip and carried-forward steps
(revision 0012, ``store.verdicts``), so item analysis groups rows instead of
grading answers again: one pass over the log per card and student, one per
distinct answer. Only answers stored before slips were noted are read one by
one (``unnamed_wrong``), to name their slip.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, case, func, literal_column, select, true

from studyapp.store.database import Store
from studyapp.store.tables import CardState, DeckChoice, ReviewLog
from studyapp.store.verdicts import WRONG, stored_steps


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


def response_counts(store: Store, profile_ids: Collection[int] | None = None
                    ) -> list[ResponseCount]:
    """Every distinct wrong answer given to each card, and every answer with a
    carried-forward step, with its verdict, slip and count. Right answers are counted per
    card (``item_figures.item_sums``).

    The wrong answers are read from their covering index (revision 0019) alone, counted
    per card row in the index's order as they are read, and only those counts (a few per
    student and card) are matched to their decks and cards and counted again.
    """
    log = ReviewLog
    marks = (log.card_id, log.verdict, log.slip, log.lang, log.response, log.answer,
             log.carried)
    wrong = and_(log.correct == False,  # noqa: E712 -- the partial index's predicate
                 log.response.is_not(None), _within(log.profile_id, profile_ids))
    counted = (select(*marks, func.count().label("n")).where(wrong).group_by(*marks)
               .subquery("counted"))
    c = counted.c
    typed = case((CardState.family.is_(None), c.response), else_=None)
    keys = (CardState.deck_id, CardState.card_key, typed, c.lang, c.verdict, c.slip,
            c.carried > 0, c.answer)
    statements = [select(*keys, func.sum(c.n)).join(CardState, CardState.id == c.card_id)
                  .group_by(*keys)]
    typed = case((CardState.family.is_(None), log.response), else_=None)
    flagged = (CardState.deck_id, CardState.card_key, typed, log.lang, log.verdict, log.slip,
               log.carried > 0, log.answer)
    statements.append(select(*flagged, func.count()).join(CardState, CardState.id == log.card_id)
                      .where(log.carried > 0, log.correct.is_(True),
                             _within(log.profile_id, profile_ids)).group_by(*flagged))
    found = []
    with store.sessions() as session:
        for statement in statements:
            found += [ResponseCount(deck, key, response, lang, verdict, slip,
                                    bool(was_carried), picked, _n(n))
                      for deck, key, response, lang, verdict, slip, was_carried, picked, n
                      in session.execute(statement)]
    return found


def deck_choices_by_profile(store: Store) -> dict[int, dict[str, bool]]:
    """Every learner's own on/off per deck id, in one query (``profiles.deck_choices`` for
    one learner)."""
    found: dict[int, dict[str, bool]] = {}
    with store.sessions() as session:
        for pid, deck, enabled in session.execute(
                select(DeckChoice.profile_id, DeckChoice.deck_id, DeckChoice.enabled)):
            found.setdefault(pid, {})[deck] = bool(enabled)
    return found


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
        return [StepsAnswer(deck, key, stored_steps(text), _n(n)) for deck, key, text, n in rows
                if (deck, key) in cards]



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
            # the partial index's own terms, 'wrong' written in (revision 0015)
            .where(_within(ReviewLog.profile_id, profile_ids),
                   ReviewLog.verdict == literal_column(f"'{WRONG}'"),
                   ReviewLog.slip.is_(None), ReviewLog.response.is_not(None)))
        return [UnnamedWrong(d, k, r or "", s, lang, p) for d, k, r, s, lang, p in rows]
