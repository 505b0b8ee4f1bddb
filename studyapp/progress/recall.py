"""FSRS recall of stored cards: forgetting curve, mastery, weakness, study days."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from studyapp.srs.calendar import day_start, elapsed_days, local_zone
from studyapp.srs.scheduler import SchedulerSettings

if TYPE_CHECKING:
    from studyapp.decks import Deck

MASTERY_RETRIEVABILITY = 0.9


def forgetting_curve(parameters: tuple[float, ...] | list[float]) -> tuple[float, float]:
    """(DECAY, FACTOR) of FSRS: R = (1 + FACTOR · t / S) ^ DECAY, R = 0.9 at t = S."""
    decay = -float(parameters[20])
    factor = 0.9 ** (1 / decay) - 1
    return decay, factor


def retrievability(settings: SchedulerSettings, stability: float | None,
                   elapsed_days: float) -> float:
    """Probability of recall after ``elapsed_days`` for a card of ``stability`` days."""
    if not stability or stability <= 0:
        return 0.0
    decay, factor = forgetting_curve(settings.parameters)
    return float((1 + factor * max(0.0, elapsed_days) / stability) ** decay)


def mastery_age(settings: SchedulerSettings, threshold: float = MASTERY_RETRIEVABILITY) -> float:
    """Age, in stabilities, up to which retrievability stays at least ``threshold``."""
    decay, factor = forgetting_curve(settings.parameters)
    return float((threshold ** (1 / decay) - 1) / factor)


def mastery_places(decks: Sequence[Deck]) -> dict[tuple[str, str], tuple[str | None, str]]:
    """Each card of ``decks`` (those a learner studies): the post its mastery counts under,
    as the home screen counts it (None for a course deck's card, even one that names a
    post: it counts under its course), and its deck."""
    return {(deck.id, spec.id): (spec.post if deck.post is not None else None, deck.id)
            for deck in decks for spec in deck.cards}


def count_mastered(mastered: Iterable[tuple[str, str]],
                   places: Mapping[tuple[str, str], tuple[str | None, str]]
                   ) -> tuple[dict[str, int], dict[str, int]]:
    """Mastered cards per post and per deck, among the cards studied now (``places``: a
    card's post, None for a course deck's own, and its deck). A card since removed from
    its deck, or of a deck no longer studied, counts nowhere, as it counts in no total."""
    per_post: dict[str, int] = {}
    per_deck: dict[str, int] = {}
    for key in mastered:
        place = places.get(key)
        if place is None:
            continue
        post, deck = place
        if post is not None:
            per_post[post] = per_post.get(post, 0) + 1
        per_deck[deck] = per_deck.get(deck, 0) + 1
    return per_post, per_deck


def round_or_none(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


WEAKEST_RECALL_CAP = 0.995
"""A card whose recall now rounds to 100% is never among the weakest."""
LAPSE_WEIGHT = 0.8
"""Each lapse multiplies a card's weakness score by this (lower scores are weaker)."""


def weakness(settings: SchedulerSettings, stability: float | None,
             last_review: datetime | None, lapses: int, now: datetime) -> float | None:
    """Recall now times 0.8 per lapse: low when a card is fading or keeps being forgotten.

    ``None`` for a card that is safe (recall rounds to 100%) or never reviewed.
    """
    age = None if last_review is None else elapsed_days(last_review, now,
                                                         settings.day_rollover_hour)
    return weakness_scorer(settings)(stability, age, lapses)


Scorer = Callable[[float | None, float | None, int], float | None]


def weakness_scorer(settings: SchedulerSettings) -> Scorer:
    """``weakness`` by (stability, study days since the last review, lapses), the forgetting
    curve worked out once, for scoring every card (the store gives each card's age)."""
    decay, factor = forgetting_curve(settings.parameters)

    def score(stability: float | None, elapsed_days: float | None,
              lapses: int) -> float | None:
        if elapsed_days is None or not stability:
            return None
        if stability <= 0:
            recall = 0.0
        else:
            recall = float((1 + factor * max(0.0, elapsed_days) / stability) ** decay)
        if recall >= WEAKEST_RECALL_CAP:
            return None
        return float(recall * LAPSE_WEIGHT ** lapses)

    return score


def day_boundaries(first: date, days: int, rollover: int) -> list[datetime]:
    """UTC starts of ``days`` consecutive study days from ``first``, plus the end."""
    zone = local_zone()
    return [day_start(first + timedelta(days=i), rollover, zone) for i in range(days + 1)]


def study_day_shift(now: datetime, rollover: int) -> timedelta:
    """What to add to a UTC time to read its study day as a plain date."""
    offset = now.astimezone(local_zone()).utcoffset() or timedelta(0)
    return offset - timedelta(hours=rollover)

