"""Load balancing and easy days as Anki 24.11+ does them: inside the fuzz range, lighter
days are likelier, and a learner's easy weekdays get fewer reviews.

After Anki's ``rslib/src/scheduler/states/load_balancer.rs``
(github.com/ankitects/anki, AGPL-3.0; the facts and the algorithm, not the
code). Only intervals up to 90 days are balanced. Each day of the fuzz range
weighs (1/cards due)^2.15 · (1/interval)^3, or 1 when nothing is due; an easy
day multiplies it by 0.0001 (minimum) or, when it already holds more than half
the load of the other days (reduced), the same; the card's fuzz draw picks a
day by weight (``fuzz.weighted_pick``), so preview and answer agree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from enum import StrEnum

from studyapp.srs.fuzz import f32, fuzz_bounds, weighted_pick

MAX_BALANCED_INTERVAL = 90
"""Anki balances only intervals up to this many days: further out, the need is low."""


class EasyDay(StrEnum):
    """A weekday's share of reviews (Anki stores 1.0, 0.5, 0.0)."""

    NORMAL = "normal"
    REDUCED = "reduced"
    MINIMUM = "minimum"

    @property
    def load(self) -> float:
        """The weight Anki gives the day (minimum is not zero, so all-minimum still works)."""
        return {"normal": 1.0, "reduced": 0.5, "minimum": 0.0001}[self.value]


NORMAL_WEEK: tuple[str, ...] = ("normal",) * 7
"""Easy days off: Monday to Sunday all normal (Anki's default)."""


def easy_day_modifiers(week: Sequence[EasyDay], weekdays: Sequence[int],
                       counts: Sequence[int]) -> list[float]:
    """Each day's easy-day factor: 1, or 0.0001 for a minimum day and for a reduced day
    already carrying more than its half share of what the other days carry."""
    total_count = sum(counts)
    total_share = 0.0
    for weekday in weekdays:
        total_share = f32(total_share + f32(week[weekday].load))
    factors = []
    for weekday, count in zip(weekdays, counts, strict=True):
        day = week[weekday]
        if day is EasyDay.REDUCED:
            others = f32(float(total_count - count))
            share = f32(total_share - 0.5)
            # float division as Rust does it: x/0 is infinite (0/0 is NaN), so a
            # reduced day alone in the range stays normal
            threshold = f32(others / share) if share else math.inf
            day = EasyDay.MINIMUM if f32(count / 0.5) > threshold else EasyDay.NORMAL
        factors.append(f32(day.load))
    return factors


def day_weights(first: int, counts: Sequence[int], easy: Sequence[float]) -> list[float]:
    """Anki's weight of each day of the range (``first`` days from today onwards)."""
    weights = []
    for offset, (count, factor) in enumerate(zip(counts, easy, strict=True)):
        if count == 0:
            weights.append(1.0)
            continue
        by_count = f32(f32(1.0 / count) ** f32(2.15))
        inverse = f32(1.0 / (first + offset))
        by_interval = f32(f32(inverse * inverse) * inverse)
        weights.append(f32(f32(by_count * by_interval) * factor))
    return weights


def balanced_interval(interval: float, minimum: int, maximum: int, today: date,
                      due_per_day: Mapping[date, int], week: Sequence[EasyDay],
                      seed: int) -> int | None:
    """The day Anki's load balancer picks for ``interval`` (None: past 90 days, fuzz
    alone decides). ``due_per_day``: review cards due on each study day."""
    if int(interval) > MAX_BALANCED_INTERVAL or minimum > MAX_BALANCED_INTERVAL:
        return None
    lower, upper = fuzz_bounds(interval, minimum, maximum)
    days = [today + timedelta(days=n) for n in range(lower, upper + 1)]
    counts = [due_per_day.get(day, 0) for day in days]
    easy = easy_day_modifiers(week, [day.weekday() for day in days], counts)
    picked = weighted_pick(day_weights(lower, counts, easy), seed)
    return None if picked is None else lower + picked
