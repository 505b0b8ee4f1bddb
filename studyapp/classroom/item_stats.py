"""Moodle's quiz statistics for one card across a class, and the flags they raise.

The formulas are Moodle's (https://docs.moodle.org/dev/Quiz_statistics_calculations),
with every mark on a 0..1 scale (a card's mark is 1 right, 0 wrong; over several
attempts, the share right):

- facility index F = mean mark (Moodle's 100 (x̄ − x_min) / (x_max − x_min) with
  x_min 0 and x_max 1);
- standard deviation SD = sqrt(Σ (x − x̄)² / (S − 1));
- discrimination coefficient r = C(x, X) / sqrt(V(x) V(X)), where X is the student's
  mark on the rest of the deck (the share right on the other cards: students here
  answer different cards, so a share, not a sum);
- discriminative efficiency DE = C(x, X) / C_max(x, X), C_max pairing both sorted;

and the classical discrimination index of item-analysis texts, D = p(upper) − p(lower)
between the top and bottom 27% of the class by overall mark (Kelley's groups;
Lopez, Rasch Measurement Transactions 12:1 p. 626, https://www.rasch.org/rmt/rmt121r.htm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from studyapp.store.item_figures import GROUP_SHARE, MarkSums

LOW_FACILITY = 0.5
"""Below this first-attempt facility a card is hard for the class (reteach or check the key)."""

LOW_DISCRIMINATION = 0.2
"""A discrimination index below this is "poor" (Ebel and Frisbie, Essentials of Educational
Measurement, 1991: below 0.20, revise the item); near zero or negative with a low facility,
the strong students fail it as often as the weak: the key is the first suspect."""

TOO_EASY = 0.9
"""At or above this first-attempt facility a card tells nothing about who knows more."""

MANY_OVERRIDES = 0.2
"""Overrides ("I was right") from this share of the students who answered (and at least
``MIN_OVERRIDES``) put the key in doubt whatever the other figures say."""

MIN_OVERRIDES = 2

CHECK_KEY, RETEACH, EASY = "check the key", "reteach", "too easy"
FLAGS = (CHECK_KEY, RETEACH, EASY)
"""Flag order: the most urgent first."""


@dataclass(frozen=True)
class ItemStats:
    """One card's statistics on one set of attempts (first, or all)."""

    students: int
    facility: float | None
    sd: float | None
    discrimination_index: float | None
    discrimination_r: float | None
    discriminative_efficiency: float | None

    def as_json(self) -> dict[str, Any]:
        return {"students": self.students, "facility": _round(self.facility),
                "sd": _round(self.sd), "discrimination_index": _round(self.discrimination_index),
                "discrimination_coefficient": _round(self.discrimination_r),
                "discriminative_efficiency": _round(self.discriminative_efficiency)}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def stats_from_sums(sums: MarkSums | None) -> ItemStats:
    """Moodle's figures for one card from the sums the database computed
    (``store.item_figures.mark_sums``; see the module's docstring)."""
    if sums is None or not sums.students:
        return ItemStats(0, None, None, None, None, None)
    count = sums.students
    sd = math.sqrt(sums.squares / (count - 1)) if count > 1 else None
    d = (sums.upper_sum / sums.upper_n - sums.lower_sum / sums.lower_n
         if sums.upper_n and sums.lower_n else None)
    r, efficiency = _correlation(sums)
    return ItemStats(count, sums.mean, sd, d, r, efficiency)


def _correlation(sums: MarkSums) -> tuple[float | None, float | None]:
    """Moodle's discrimination coefficient and discriminative efficiency of the card's
    marks against the rest-of-deck marks (None where a variance is zero)."""
    n = sums.rest_n
    if n < 2 or sums.cross is None or sums.x_squares is None or sums.r_squares is None:
        return None, None
    cov = sums.cross / (n - 1)
    vx = sums.x_squares / (n - 1)
    vr = sums.r_squares / (n - 1)
    r = cov / math.sqrt(vx * vr) if vx > 0 and vr > 0 else None
    cmax = (sums.sorted_cross or 0.0) / (n - 1)
    return r, (cov / cmax if cmax > 0 else None)


def flags(first: ItemStats, overrides: int) -> tuple[str, ...]:
    """What the instructor should do about a card, from its first-attempt figures."""
    found = []
    facility, d = first.facility, first.discrimination_index
    if not first.sd:  # every student alike (all wrong, say): it cannot tell strong from weak
        d = None
    many = overrides >= MIN_OVERRIDES and overrides >= MANY_OVERRIDES * max(first.students, 1)
    # the card's marks against the rest of the deck: below zero, the students who do well
    # elsewhere fail it more often. D ranks the class by totals the card itself is part of,
    # so on a short deck a mis-keyed card can still show a positive D
    against = first.discrimination_r is not None and first.discrimination_r < 0
    if facility is not None and facility < LOW_FACILITY:
        if many or against or (d is not None and d < LOW_DISCRIMINATION):
            found.append(CHECK_KEY)
        else:
            found.append(RETEACH)
    elif many:
        found.append(CHECK_KEY)
    if facility is not None and facility >= TOO_EASY:
        found.append(EASY)
    return tuple(found)


THRESHOLDS = {
    "group_share": GROUP_SHARE, "low_facility": LOW_FACILITY,
    "low_discrimination": LOW_DISCRIMINATION, "too_easy": TOO_EASY,
    "many_overrides": MANY_OVERRIDES, "min_overrides": MIN_OVERRIDES,
}
"""The thresholds as the report states them (``class report --json``: ``thresholds``)."""
