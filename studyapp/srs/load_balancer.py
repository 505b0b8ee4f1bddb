"""Load balancing and easy days as Anki 24.11+ does them: inside the fuzz range, lighter
days are likelier, and a learner's easy weekdays get fewer reviews.

After Anki's ``rslib/src/scheduler/states/load_balancer.rs``
(github.com/ankitects/anki, AGPL-3.0; the facts and the algorithm, not the
code). Only intervals up to 90 days are balanced. Each day of the fuzz range
weighs (1/cards due)^2.15 · (1/interval)^3, or 1 when nothing is due; an easy
day multiplies it by 0.0001 (minimum) or, when it already holds more than half
the load of the other days (reduced), the same; the card's fuzz draw picks a
day by weight (``fuzz.weighted_pick``), so preview and answer agree. When the
card's deck buries review siblings, a day a sibling is due, and the five days either
side of it, weigh less (``SIBLING_MODIFIERS``), so one note's cards come apart.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from datetime import date, timedelta
from enum import StrEnum

from studyapp.srs.fuzz import f32, fuzz_bounds, weighted_pick

MAX_BALANCED_INTERVAL = 90
"""Anki balances only intervals up to this many days: further out, the need is low."""

BALANCED_DAYS = 99
"""Days from today whose due cards Anki's balancer holds (``LOAD_BALANCE_DAYS``: 90 and a
tenth): a sibling due further out is not seen."""

SIBLING_MODIFIERS = (1.0, 0.8, 0.6, 0.4, 0.2, 0.000001, 0.2, 0.4, 0.6, 0.8, 1.0)
"""What a sibling due on a day multiplies the weight of that day (0.000001) and of the five
days on either side by (``SIBLING_MODIFIER_RANGE``): with review siblings buried, Anki keeps
the cards of one note off each other's days."""


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


def sibling_modifiers(first: int, last: int, sibling_days: Collection[int]) -> list[float]:
    """Each day's sibling factor over the range ``first``..``last`` days from today: the
    product of ``SIBLING_MODIFIERS`` centred on every day (from today) a sibling is due."""
    modifiers = [1.0] * (last - first + 1)
    for day in sibling_days:
        for step, value in enumerate(SIBLING_MODIFIERS, start=-5):
            target = day + step - first
            if 0 <= target < len(modifiers):
                modifiers[target] = f32(modifiers[target] * f32(value))
    return modifiers


def day_weights(first: int, counts: Sequence[int], easy: Sequence[float],
                siblings: Sequence[float] | None = None) -> list[float]:
    """Anki's weight of each day of the range (``first`` days from today onwards); a day
    with nothing due weighs 1 whatever its siblings and easy-day factor
    (``select_weighted_interval``)."""
    weights = []
    for offset, (count, factor) in enumerate(zip(counts, easy, strict=True)):
        if count == 0:
            weights.append(1.0)
            continue
        by_count = f32(f32(1.0 / count) ** f32(2.15))
        inverse = f32(1.0 / (first + offset))
        by_interval = f32(f32(inverse * inverse) * inverse)
        sibling = 1.0 if siblings is None else siblings[offset]
        weights.append(f32(f32(f32(by_count * by_interval) * sibling) * factor))
    return weights


def balanced_interval(interval: float, minimum: int, maximum: int, today: date,
                      due_per_day: Mapping[date, int], week: Sequence[EasyDay],
                      seed: int, siblings: Collection[date] = ()) -> int | None:
    """The day Anki's load balancer picks for ``interval`` (None: past 90 days, fuzz
    alone decides). ``due_per_day``: review cards due on each study day; ``siblings``:
    the days the card's siblings (the card itself among them) are due, when its deck
    buries review siblings (Anki passes the note only then)."""
    if int(interval) > MAX_BALANCED_INTERVAL or minimum > MAX_BALANCED_INTERVAL:
        return None
    lower, upper = fuzz_bounds(interval, minimum, maximum)
    days = [today + timedelta(days=n) for n in range(lower, upper + 1)]
    counts = [due_per_day.get(day, 0) for day in days]
    easy = easy_day_modifiers(week, [day.weekday() for day in days], counts)
    offsets = {(day - today).days for day in siblings}
    near = sibling_modifiers(lower, upper, {d for d in offsets if 0 <= d < BALANCED_DAYS})
    picked = weighted_pick(day_weights(lower, counts, easy, near), seed)
    return None if picked is None else lower + picked
