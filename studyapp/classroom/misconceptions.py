"""The class's misconceptions: how many students hold each, from their named slips.

A student *holds* a misconception when its slips showed at least
``HELD_FROM_SLIPS`` times in the last ``HORIZON_DAYS`` on at least two
different cards (one slip on one card may be a typo; the same idea twice on
two questions is a pattern). The slips are counted in one SQL query grouped
by student and slip (``store.trap_answers.class_slips``), so the report
stays fast for a large class.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from studyapp.progress.misconceptions import HELD_FROM_SLIPS, HORIZON_DAYS
from studyapp.questions.misconceptions import Misconception, misconception_of
from studyapp.store import Store
from studyapp.store.trap_answers import class_slips

HELD_ON_CARDS = 2
"""Different cards the slips must be on for the misconception to count as held."""


@dataclass(frozen=True)
class ClassMisconception:
    """One misconception in the class: the students who hold it, the slips that showed it."""

    key: str
    students: int
    slips: int
    """Slips in the window by every student, holders or not."""

    def name(self, lang: str) -> str:
        return Misconception(self.key, ()).name(lang)

    def as_json(self, lang: str) -> dict[str, object]:
        return {"misconception": self.key, "name": self.name(lang),
                "students": self.students, "slips": self.slips}


def class_misconceptions(store: Store, now: datetime,
                         profile_ids: Collection[int] | None = None
                         ) -> tuple[ClassMisconception, ...]:
    """Every misconception some student showed, most holders first, then most slips."""
    since = now - timedelta(days=HORIZON_DAYS)
    slips: dict[tuple[int, str], int] = defaultdict(int)
    cards: dict[tuple[int, str], set[int]] = defaultdict(set)
    spread: set[tuple[int, str]] = set()
    for row in class_slips(store, since, profile_ids):
        # a scenario's slip is "step: key"; the key names the misconception
        key = misconception_of(row.slip.rpartition(": ")[2]).key
        slips[row.profile_id, key] += row.slips
        # several slips may name one misconception: a slip on one card gives its card's id
        # (the same card under two slips counts once); a slip on enough cards settles it
        cards[row.profile_id, key].add(row.card_id)
        if row.cards >= HELD_ON_CARDS:
            spread.add((row.profile_id, key))
    holders: dict[str, int] = defaultdict(int)
    shown: dict[str, int] = defaultdict(int)
    for (pid, key), n in slips.items():
        shown[key] += n
        if n >= HELD_FROM_SLIPS and ((pid, key) in spread
                                     or len(cards[pid, key]) >= HELD_ON_CARDS):
            holders[key] += 1
    found = [ClassMisconception(key, holders.get(key, 0), n) for key, n in shown.items()]
    found.sort(key=lambda m: (-m.students, -m.slips, m.key))
    return tuple(found)
