"""Which entries of a card's review log count for FSRS, as Anki decides it.

Anki keeps every entry of its review log (revlog) but its FSRS memory states
and its optimizer read only some: ``rslib/src/scheduler/fsrs/params.rs``,
``reviews_for_fsrs``, and ``memory_state.rs``, ``fsrs_item_for_memory_state``
(Anki 25.x/26.x). This module follows them step for step:

- a cram answer (a filtered deck that does not reschedule: kind 3 with ease
  factor 0) is skipped; an early review in a rescheduling filtered deck (kind 3
  with a factor) counts as a review;
- a manual entry (kind 4: "Set due date", ease factor kept) and a rescheduled
  one (kind 5: parameters changed with "Reschedule cards on change") carry no
  answer and are left out;
- a reset ("Forget", kind 4 with ease factor 0) cuts the history: only what
  came after it counts;
- the history starts at the last group of learning answers; a card without
  one (its older log was deleted, or "ignore reviews before" cut it) starts
  from the first answer a day or more apart, with a memory state worked out
  from that answer's SM-2 ease and interval (``memory_state_from_sm2``);
- for training, a card whose learning began before "ignore reviews before" is
  left out, as is a card with no learning answers at all.

Time between answers is counted in study days (the day rolls over at the
profile's hour), as Anki counts days from its next day start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from enum import IntEnum
from itertools import pairwise

import fsrs_rs_python as fsrs_rs

from studyapp.srs.calendar import study_day
from studyapp.srs.scheduler import CardStage, Memory, Rating, Scheduler

SM2_RETENTION = 0.9
"""Anki's default "historical retention" (deck options), the recall the SM-2 intervals of
an incomplete history are taken to have aimed at."""

DEFAULT_EASE = 2500
"""The ease factor (permille) Anki assumes for an entry that has none (``factor == 0``)."""


def ignore_before_moment(day: date) -> datetime:
    """Anki's "Ignore cards reviewed before" date as the instant it cuts at: midnight UTC
    (``ignore_revlogs_before_date_to_ms`` in params.rs), whatever the learner's zone."""
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def ignore_before_setting(saved: object) -> datetime | None:
    """A profile's "ignore reviews before" date (ISO text) as the instant Anki cuts at;
    None when unset, or not a date (a hand-edited setting: nothing is ignored)."""
    if not isinstance(saved, str) or not saved:
        return None
    try:
        return ignore_before_moment(date.fromisoformat(saved))
    except ValueError:
        return None


class EntryKind(IntEnum):
    """Anki's revlog ``type`` (``RevlogReviewKind``)."""

    LEARNING = 0
    REVIEW = 1
    RELEARNING = 2
    FILTERED = 3
    MANUAL = 4
    RESCHEDULED = 5


KIND_OF_STAGE = {0: EntryKind.LEARNING, 1: EntryKind.LEARNING, 2: EntryKind.REVIEW,
                 3: EntryKind.RELEARNING}
"""The kind of a studyapp answer, from the stage the card was in (``state_before``)."""


@dataclass(frozen=True)
class Entry:
    """One entry of a card's log: an answer, or a change of schedule without one."""

    at: datetime
    rating: int  # 1 Again .. 4 Easy; 0 for an entry with no answer (manual, rescheduled)
    kind: EntryKind
    factor: int = 0  # Anki's ease factor in permille; 0 marks a reset or a cram answer
    interval: int = 1  # days after the entry (Anki's ivl); negative: seconds (a step)

    @property
    def is_reset(self) -> bool:
        return self.kind is EntryKind.MANUAL and self.factor == 0

    @property
    def is_cramming(self) -> bool:
        return self.kind is EntryKind.FILTERED and self.factor == 0

    @property
    def has_rating(self) -> bool:
        return self.rating > 0

    @property
    def affects_scheduling(self) -> bool:
        return self.has_rating and not self.is_cramming


@dataclass(frozen=True)
class FsrsHistory:
    """The answers FSRS reads, and how each FSRS item ends."""

    entries: tuple[Entry, ...]  # answers that count, oldest first
    deltas: tuple[int, ...]  # study days since the previous one (0 for the first)
    complete: bool  # starts at a learning answer; else it starts from an SM-2 state

    def reviews(self, upto: int | None = None) -> list[tuple[int, int]]:
        """(rating, days since the previous answer) of the first ``upto`` answers."""
        return list(zip((e.rating for e in self.entries[:upto]), self.deltas[:upto],
                        strict=True))

    def training_items(self) -> list[tuple[datetime, list[tuple[int, int]]]]:
        """One item per answer a day or more after an earlier one: the answers up to it."""
        return [(entry.at, self.reviews(index + 1))
                for index, (entry, delta) in enumerate(zip(self.entries, self.deltas,
                                                           strict=True))
                if index >= 1 and delta > 0]


def reviews_for_fsrs(entries: Sequence[Entry], *, training: bool,
                     ignore_before: datetime | None = None, rollover_hour: int = 4,
                     zone: tzinfo | None = None) -> FsrsHistory | None:
    """The part of one card's log FSRS reads (Anki's ``reviews_for_fsrs``); None when
    nothing is left. ``entries`` in time order."""
    def within(entry: Entry) -> bool:
        return ignore_before is None or entry.at > ignore_before

    first_learning = first_graded = None
    complete = False
    for index in range(len(entries) - 1, -1, -1):  # from the newest back
        entry = entries[index]
        if entry.is_cramming:
            continue
        interday = entry.interval >= 1 or entry.interval <= -86400
        if entry.has_rating and within(entry) and interday:
            first_graded = index
        if entry.has_rating and entry.kind is EntryKind.LEARNING:
            first_learning = index
            complete = True
        elif entry.is_reset:
            if first_learning is not None:  # learning after the reset: it starts there
                complete = True
                break
            if first_graded is not None:  # answered since, no learning: incomplete
                complete = False
                break
            return None  # never answered since it was reset
        elif first_learning is not None:  # older versions logged no reset
            break
    before_cutoff = first_learning is not None and ignore_before is not None \
        and entries[first_learning].at < ignore_before
    if training:
        if before_cutoff:
            return None
    elif before_cutoff and first_learning is not None and first_learning < len(entries) - 1:
        complete = False
        first_learning = None
    if first_learning is not None:
        start = first_learning
    elif training or first_graded is None:
        return None
    else:
        start = first_graded
    kept = tuple(e for e in entries[start:] if e.affects_scheduling)
    if not kept:
        return None
    days = [study_day(e.at, rollover_hour, zone) for e in kept]
    deltas = (0, *(max(0, (b - a).days) for a, b in pairwise(days)))
    history = FsrsHistory(kept, deltas, complete)
    if training and not history.training_items():
        return None
    return history


def sm2_starting_state(first: Entry, parameters: Sequence[float],
                       retention: float = SM2_RETENTION) -> tuple[float, float]:
    """(stability, difficulty) Anki starts an incomplete history from: its first answer's
    SM-2 ease and interval, through fsrs-rs ``memory_state_from_sm2``."""
    ease = (first.factor if first.factor > 0 else DEFAULT_EASE) / 1000
    state = fsrs_rs.FSRS(list(parameters)).memory_state_from_sm2(
        ease, float(max(first.interval, 1)), retention)
    difficulty = state.difficulty
    if ease <= 1.1:  # an entry FSRS wrote: its "ease" encodes the difficulty
        difficulty = (ease - 0.1) * 9 + 1
    return float(state.stability), min(10.0, max(1.0, float(difficulty)))


def replay(scheduler: Scheduler, card_id: int, entries: Sequence[Entry], *,
           ignore_before: datetime | None = None,
           retention: float = SM2_RETENTION) -> Memory | None:
    """The card's memory after the answers FSRS reads, through ``scheduler`` (None when
    none count). An incomplete history starts from its first answer's SM-2 state."""
    settings = scheduler.settings
    history = reviews_for_fsrs(entries, training=False, ignore_before=ignore_before,
                               rollover_hour=settings.day_rollover_hour, zone=scheduler.zone)
    if history is None:
        return None
    answers = list(history.entries)
    memory = Memory(card_id=card_id)
    if not history.complete:
        first = answers.pop(0)
        stability, difficulty = sm2_starting_state(first, settings.parameters, retention)
        memory = Memory(card_id=card_id, stage=CardStage.REVIEW, step=None,
                        stability=stability, difficulty=difficulty, last_review=first.at,
                        due=first.at + timedelta(days=max(first.interval, 1)), reps=1)
    for entry in answers:
        memory = scheduler.review(memory, Rating(entry.rating), entry.at)
    return memory


def last_answer(entries: Sequence[Entry]) -> datetime | None:
    """When the card was last answered in a way that schedules it (Anki's
    ``get_last_revlog_info``: a reset forgets it)."""
    last = None
    for entry in entries:
        if entry.affects_scheduling:
            last = entry.at
        elif entry.is_reset:
            last = None
    return last
