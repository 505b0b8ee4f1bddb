"""A learner's misconceptions, estimated from their answers over time.

Every answer to a card that sets a trap is evidence: a slip named on it
strengthens the misconception behind that slip; a right answer to a card
that set the same trap weakens it. Evidence halves every ``HALF_LIFE_DAYS``,
so an old slip counts less than last week's (evidence orders the list and
gives its trend). A misconception is *held* from ``HELD_FROM_SLIPS`` slips in
the last ``HORIZON_DAYS``, and *fades* once its traps are answered right on
``FADES_AFTER_CARDS`` different cards over at least ``FADES_AFTER_DAYS``
study days since its last slip; a faded one's trend is ``falling``.

``estimate`` is pure: the answers come in as :class:`TrapAnswer` rows and the
study day of an instant from the caller (the profile's rollover hour and time
zone); ``learner_misconceptions`` reads them from the store.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from studyapp.questions.misconceptions import misconception_of
from studyapp.store.database import Store
from studyapp.store.trap_answers import trap_rows

#: Evidence halves every two weeks: a slip a month ago counts a quarter of today's.
HALF_LIFE_DAYS = 14.0
#: A right answer to a trap weighs half a slip: one slip needs two right answers to undo.
RIGHT_WEIGHT = 0.5
#: Held from two slips in the last two months.
HELD_FROM_SLIPS = 2
HORIZON_DAYS = 60
#: Fades after right answers to its traps on three cards over two study days.
FADES_AFTER_CARDS = 3
FADES_AFTER_DAYS = 2
#: Trend: evidence now against evidence a week ago.
TREND_DAYS = 7
TREND_STEP = 0.25


@dataclass(frozen=True)
class TrapAnswer:
    """One answer to a card that set the trap of ``misconception``: slipped into it or not."""

    at: datetime
    card: str
    misconception: str
    slipped: bool


@dataclass(frozen=True)
class MisconceptionEstimate:
    """Where a learner stands on one misconception."""

    key: str
    evidence: float
    slips: int
    """Slips in the last ``HORIZON_DAYS``."""
    slip_cards: int
    """Different cards those slips were on."""
    right_since: int
    """Different cards whose trap was answered right since the last slip."""
    last_seen: datetime | None
    """The last slip."""
    trend: str
    """``rising``, ``falling`` or ``steady`` over the last week; ``falling`` once faded."""
    held: bool
    faded: bool

    def as_json(self) -> dict[str, object]:
        return {"misconception": self.key, "evidence": round(self.evidence, 3),
                "slips": self.slips, "slip_cards": self.slip_cards,
                "right_since": self.right_since,
                "last_seen": self.last_seen.isoformat() if self.last_seen else None,
                "trend": self.trend, "held": self.held, "faded": self.faded}


def _weight(age: timedelta) -> float:
    return float(0.5 ** (max(age.total_seconds(), 0.0) / 86400 / HALF_LIFE_DAYS))


def _evidence(answers: list[TrapAnswer], at: datetime) -> float:
    total = 0.0
    for answer in answers:
        if answer.at > at:
            continue
        w = _weight(at - answer.at)
        total += w if answer.slipped else -RIGHT_WEIGHT * w
        total = max(total, 0.0)  # right answers undo slips, never build credit ahead
    return total


def estimate(answers: Iterable[TrapAnswer], now: datetime,
             study_day: Callable[[datetime], date]) -> list[MisconceptionEstimate]:
    """Every misconception with any evidence, most evidence first."""
    by_key: dict[str, list[TrapAnswer]] = defaultdict(list)
    for answer in answers:
        if answer.at <= now:
            by_key[answer.misconception].append(answer)
    out = []
    for key, rows in by_key.items():
        rows.sort(key=lambda a: a.at)
        slips = [a for a in rows if a.slipped]
        if not slips:
            continue
        recent = [a for a in slips if now - a.at <= timedelta(days=HORIZON_DAYS)]
        last = slips[-1].at
        rights = [a for a in rows if not a.slipped and a.at > last]
        right_cards = {a.card for a in rights}
        right_days = {study_day(a.at) for a in rights}
        faded = len(right_cards) >= FADES_AFTER_CARDS and len(right_days) >= FADES_AFTER_DAYS
        evidence = _evidence(rows, now)
        before = _evidence(rows, now - timedelta(days=TREND_DAYS))
        # faded: only right answers since the last slip, so it is going away, whatever last
        # week's slips still weigh against the week before them
        trend = ("falling" if faded else "rising" if evidence > before + TREND_STEP
                 else "falling" if evidence < before - TREND_STEP else "steady")
        held = not faded and len(recent) >= HELD_FROM_SLIPS
        out.append(MisconceptionEstimate(
            key, evidence, len(recent), len({a.card for a in recent}), len(right_cards),
            last, trend, held, faded))
    out.sort(key=lambda e: (-e.held, -e.evidence, e.key))
    return out


@dataclass(frozen=True)
class DaySlips:
    """One misconception's slips in one session or day: for "you counted K only twice today"."""

    key: str
    slips: int
    cards: int


def slips_between(answers: Iterable[TrapAnswer], start: datetime,
                  end: datetime) -> list[DaySlips]:
    """Slips per misconception from ``start`` to ``end``, most first."""
    slips: dict[str, list[str]] = defaultdict(list)
    for answer in answers:
        if answer.slipped and start <= answer.at < end:
            slips[answer.misconception].append(answer.card)
    rows = [DaySlips(key, len(cards), len(set(cards))) for key, cards in slips.items()]
    rows.sort(key=lambda r: (-r.slips, r.key))
    return rows


EVIDENCE_DAYS = 180
"""Answers read for the estimate: older evidence weighs under a 2^-12 share of a fresh one."""


def learner_misconceptions(store: Store, profile_id: int, now: datetime,
                           study_day: Callable[[datetime], date]
                           ) -> tuple[MisconceptionEstimate, ...]:
    """A profile's misconceptions from its stored answers (a scenario's slip is
    ``step: slip``; traps are comma-joined slip keys)."""
    answers: list[TrapAnswer] = []
    for row in trap_rows(store, profile_id, now - timedelta(days=EVIDENCE_DAYS)):
        card = str(row.card_id)
        if row.slip:
            key = misconception_of(row.slip.rpartition(": ")[2]).key
            answers.append(TrapAnswer(row.reviewed_at, card, key, True))
        for trap in dict.fromkeys(misconception_of(t).key
                                  for t in (row.traps or "").split(",") if t):
            answers.append(TrapAnswer(row.reviewed_at, card, trap, False))
    return tuple(estimate(answers, now, study_day))


__all__ = [
    "EVIDENCE_DAYS",
    "FADES_AFTER_CARDS",
    "FADES_AFTER_DAYS",
    "HALF_LIFE_DAYS",
    "HELD_FROM_SLIPS",
    "HORIZON_DAYS",
    "RIGHT_WEIGHT",
    "DaySlips",
    "MisconceptionEstimate",
    "TrapAnswer",
    "estimate",
    "learner_misconceptions",
    "slips_between",
]
