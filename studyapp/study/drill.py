"""A drill on one misconception: the cards that set its trap, with fresh numbers.

``studyapp study --misconception NAME`` and the progress screen's key start
it: a short practice sitting (nothing rescheduled unless asked) over the
generated cards whose family declares a slip of that misconception, one card
per family, the least recalled first. Outside a drill, the families that set
the trap of a misconception the learner holds come first among new cards and
in practice (``targeted_families``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from studyapp.questions.diagnosis import matched_slip, slip_candidates, target_of
from studyapp.questions.generators import registered_families
from studyapp.questions.misconceptions import MISCONCEPTIONS, Misconception, misconception
from studyapp.questions.model import Question
from studyapp.srs.queue import SessionQueue

if TYPE_CHECKING:
    from studyapp.progress.misconceptions import MisconceptionEstimate

DRILL_LIMIT = 8
"""Cards in a drill: long enough to meet the trap several times, short enough to do now."""


class UnknownMisconception(LookupError):
    """A misconception name that is not one of the built-in ones."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name
        self.known = tuple(m.key for m in MISCONCEPTIONS)


def trap_families(key: str) -> frozenset[str]:
    """The generator families whose questions set the trap of misconception ``key``."""
    found = misconception(key)
    if found is None:
        raise UnknownMisconception(key)
    return frozenset(name for name, family in registered_families().items()
                     if any(slip.key in found.slips for slip in family.slips))


def drill_queue(queue: SessionQueue, families: frozenset[str], limit: int) -> SessionQueue:
    """The practice queue narrowed to the trap's families, one card per family."""
    seen: set[str] = set()
    main = []
    for item in queue.main:
        if item.template in families and item.template not in seen:
            seen.add(item.template)
            main.append(item)
    return SessionQueue(main[:limit], [], cutoff=queue.cutoff)


def tells(question: Question, slips: Collection[str]) -> bool:
    """Whether the trap's slip, made on ``question``, would be named: on a draw where another
    slip gives the same number (K only on a BF16 cache = values counted as bytes) the
    learner could slip and hear nothing of it, so a drill draws other numbers."""
    mine = [c for c in slip_candidates(question)[0] if c.key in slips]
    if not mine:
        return True
    value = target_of(question).value
    for candidate in mine:
        found = matched_slip(question, value * candidate.ratio)
        if found is not None and found.key in slips:
            return True
    return False


def targeted_families(held: Iterable[MisconceptionEstimate]) -> frozenset[str]:
    """The families whose questions set the trap of a misconception the learner holds now
    (held, not fading): their cards come sooner in the new-card and practice order."""
    return frozenset().union(*(trap_families(m.key) for m in held
                               if m.held and not m.faded and misconception(m.key)))


def drill_misconception(key: str) -> Misconception:
    """The misconception ``key`` names (UnknownMisconception otherwise)."""
    found = misconception(key)
    if found is None:
        raise UnknownMisconception(key)
    return found


__all__ = ["DRILL_LIMIT", "UnknownMisconception", "drill_misconception", "drill_queue",
           "targeted_families", "tells", "trap_families"]
