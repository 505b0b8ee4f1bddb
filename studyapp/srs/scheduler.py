"""FSRS scheduling through the ``fsrs`` package, with settings pinned per profile.

The library's defaults may change between versions; a profile stores the
parameters it started with, so an upgrade never silently reschedules anyone.
Every datetime is aware UTC, and every fsrs.Card gets an explicit card id.

Time between reviews is counted in study days, as Anki counts it: the day
rolls over at ``day_rollover_hour`` in the learner's time zone, so a review
at 21:13 and the next at 08:00 are a day apart, as are 21:13 and 21:30 the
next evening. fsrs counts 24-hour periods; it is handed a last review that
many whole days before the answer, so its memory update and its forgetting
curve see study days. A review interval of N days is due N study days on,
at the same local time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta, tzinfo
from enum import IntEnum
from typing import Any

import fsrs
from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from studyapp.srs.calendar import day_bounds, days_later, elapsed_to, local_zone, study_day


class Rating(IntEnum):
    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4


class CardStage(IntEnum):
    """fsrs.State plus NEW for cards never answered."""

    NEW = 0
    LEARNING = 1
    REVIEW = 2
    RELEARNING = 3


_DEFAULT = fsrs.Scheduler()

DEFAULT_PARAMETERS: tuple[float, ...] = tuple(_DEFAULT.parameters)
"""FSRS-6 defaults of the pinned ``fsrs`` version (21 numbers)."""


def clamp_parameters(values: Sequence[float]) -> tuple[float, ...]:
    """Parameters inside the bounds ``fsrs`` accepts, rounded as Anki shows them.

    Fitted parameters come from float32 arithmetic and may sit a hair outside
    the bounds; ``fsrs.Scheduler`` would refuse them.
    """

    if len(values) != len(DEFAULT_PARAMETERS):
        raise ValueError(f"expected {len(DEFAULT_PARAMETERS)} FSRS parameters, "
                         f"got {len(values)}")
    return tuple(round(min(high, max(low, float(v))), 4) for v, low, high
                 in zip(values, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True))


@dataclass(frozen=True)
class SchedulerSettings:
    """What a profile's scheduling depends on (stored as JSON in the profile)."""

    parameters: tuple[float, ...] = DEFAULT_PARAMETERS
    desired_retention: float = 0.9
    learning_steps_s: tuple[int, ...] = (60, 600)
    relearning_steps_s: tuple[int, ...] = (600,)
    maximum_interval_days: int = 36500
    new_per_day: int = 20
    reviews_per_day: int = 200
    leech_lapses: int = 8
    day_rollover_hour: int = 4
    exam_date: str | None = None  # ISO date set by `plan --apply`; the home screen counts down
    new_per_day_before_exam: int | None = None
    """The new-card limit `plan --apply` replaced; `plan --clear` puts it back."""
    learn_ahead_min: int = 20
    """A learning card may come back this much early, only when nothing else waits (Anki)."""
    previous_parameters: tuple[float, ...] | None = None
    """The parameters before the last optimize saved new ones (restored by undo)."""
    extra_new_day: str = ""
    extra_new: int = 0
    """Custom study: ``extra_new`` more new cards on study day ``extra_new_day`` (ISO)."""
    new_card_order: str = "mixed"
    """How new cards are gathered: mixed, authored-first, generated-first, random
    (``studyapp.srs.queue.NEW_CARD_ORDERS``)."""
    deck_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, hash=False)
    """Deck id → that deck's own options (``studyapp.srs.deck_options``); others follow these."""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("parameters", "learning_steps_s", "relearning_steps_s"):
            data[key] = list(data[key])
        for key in ("exam_date", "previous_parameters", "new_per_day_before_exam"):
            if data[key] is None:  # absent until set: older exports stay the same
                del data[key]
        if not data["deck_options"]:
            del data["deck_options"]
        if "previous_parameters" in data:
            data["previous_parameters"] = list(data["previous_parameters"])
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SchedulerSettings:
        known = {f for f in cls.__dataclass_fields__}
        values: dict[str, Any] = {k: v for k, v in data.items() if k in known}
        for key in ("parameters", "learning_steps_s", "relearning_steps_s",
                    "previous_parameters"):
            if values.get(key) is not None:
                values[key] = tuple(values[key])
        return cls(**values)

    def with_changes(self, **changes: Any) -> SchedulerSettings:
        return replace(self, **changes)

    def fsrs_scheduler(self) -> fsrs.Scheduler:
        return fsrs.Scheduler(
            parameters=self.parameters,
            desired_retention=self.desired_retention,
            learning_steps=tuple(timedelta(seconds=s) for s in self.learning_steps_s),
            relearning_steps=tuple(timedelta(seconds=s) for s in self.relearning_steps_s),
            maximum_interval=self.maximum_interval_days,
            enable_fuzzing=False,  # the interval shown on a button is the one applied
        )


@dataclass(frozen=True)
class Memory:
    """A card's scheduling state, free of any storage or library type."""

    card_id: int
    stage: CardStage = CardStage.NEW
    step: int | None = 0
    stability: float | None = None
    difficulty: float | None = None
    due: datetime | None = None
    last_review: datetime | None = None
    reps: int = 0
    lapses: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)


def _as_fsrs(memory: Memory, now: datetime, elapsed: int) -> fsrs.Card:
    """The card as fsrs sees it, its last review ``elapsed`` whole days before ``now``."""
    stage = memory.stage
    if stage is CardStage.NEW:
        return fsrs.Card(card_id=memory.card_id, state=fsrs.State.Learning, step=0, due=now)
    return fsrs.Card(
        card_id=memory.card_id,
        state=fsrs.State(int(stage)),
        step=memory.step,
        stability=memory.stability,
        difficulty=memory.difficulty,
        due=memory.due or now,
        last_review=None if memory.last_review is None else now - timedelta(days=elapsed),
    )


def _utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise ValueError("scheduling needs aware UTC datetimes")
    return moment.astimezone(UTC)


class Scheduler:
    """Review a card: new memory state from (memory, rating, time), nothing hidden."""

    def __init__(self, settings: SchedulerSettings | None = None,
                 zone: tzinfo | None = None) -> None:
        self.settings = settings or SchedulerSettings()
        self.zone = zone or local_zone()
        """The learner's time zone: where the study day rolls over."""
        self._fsrs = self.settings.fsrs_scheduler()

    def day_end(self, now: datetime) -> datetime:
        """When the study day containing ``now`` ends (UTC)."""
        return day_bounds(now, self.settings.day_rollover_hour, self.zone)[1]

    def elapsed_days(self, last_review: datetime | None, now: datetime) -> int:
        """Study days from ``last_review`` to ``now`` (0 on the same study day)."""
        if last_review is None:
            return 0
        return elapsed_to(last_review, self.day_end(now))

    def review(self, memory: Memory, rating: Rating, now: datetime) -> Memory:
        """The state after answering at ``now`` with ``rating``.

        A clock that went backwards (``now`` before the last review) is treated
        as a review at the last review time, so stability never goes negative.
        Passing ratings keep Anki's order of intervals (``_passing``).
        """
        now = _utc(now)
        if memory.last_review is not None and now < memory.last_review:
            now = memory.last_review
        if rating is Rating.AGAIN:
            return self._answer(memory, rating, now)
        return self._passing(memory, now, upto=rating)[rating]

    def _answer(self, memory: Memory, rating: Rating, now: datetime) -> Memory:
        """The state fsrs gives for ``rating`` at ``now``, elapsed time in study days."""
        elapsed = self.elapsed_days(memory.last_review, now)
        card, _log = self._fsrs.review_card(_as_fsrs(memory, now, elapsed),
                                            fsrs.Rating(int(rating)), now)
        lapse = rating is Rating.AGAIN and memory.stage is CardStage.REVIEW
        due = _utc(card.due)
        if card.state is fsrs.State.Review:
            due = days_later(now, (due - now).days, self.zone)
        return Memory(
            card_id=memory.card_id,
            stage=CardStage(int(card.state)),
            step=card.step,
            stability=card.stability,
            difficulty=card.difficulty,
            due=due,
            last_review=now,
            reps=memory.reps + 1,
            lapses=memory.lapses + (1 if lapse else 0),
        )

    def interval_for(self, stability: float) -> int:
        """Whole days until recall falls to the desired retention (1 to the maximum)."""
        decay = -self.settings.parameters[20]
        factor = 0.9 ** (1 / decay) - 1
        days = stability / factor * (self.settings.desired_retention ** (1 / decay) - 1)
        return int(min(max(round(days), 1), self.settings.maximum_interval_days))

    def interval_days(self, memory: Memory, now: datetime) -> int | None:
        """Study days from ``now`` to a review card's due day (None for a learning step)."""
        if memory.stage is not CardStage.REVIEW or memory.due is None:
            return None
        rollover = self.settings.day_rollover_hour

        return (study_day(memory.due, rollover, self.zone)
                - study_day(now, rollover, self.zone)).days

    def _passing(self, memory: Memory, now: datetime,
                 upto: Rating = Rating.EASY) -> dict[Rating, Memory]:
        """Hard, then Good, then Easy, up to ``upto``, with the day intervals Anki gives.

        Anki (rslib/src/scheduler/states/review.rs, ``passing_fsrs_review_intervals``)
        gives Good at least Hard + 1 day and Easy at least Good + 1 day, within the
        maximum interval; a card reviewed before its due day keeps at least the
        interval it had on Hard (measured against Anki 26 in
        tests/srs/test_anki_replay.py). From (re)learning, Easy is at least a day
        beyond the interval Good's stability would give, even while Good stays
        in the steps (``learning.rs``, ``answer_easy``). fsrs rounds each on its
        own, so a weak card could show Good and Easy both at 1 day. Learning
        steps in minutes are left as they are. The memory state stays fsrs's;
        only the due time moves.
        """
        longest = self.settings.maximum_interval_days
        answers: dict[Rating, Memory] = {}
        before: int | None = None  # days of the previous rating, when it goes to review
        scheduled = None
        if memory.stage is CardStage.REVIEW and memory.due is not None \
                and memory.last_review is not None:
            scheduled = self.interval_days(memory, memory.last_review)
            if scheduled is not None and self.elapsed_days(memory.last_review, now) >= scheduled:
                scheduled = None  # on time or late: no floor
        for passing in (Rating.HARD, Rating.GOOD, Rating.EASY):
            after = self._answer(memory, passing, now)
            days = self.interval_days(after, now)
            if days is not None:
                floor = 1
                if before is not None:
                    floor = before + 1
                elif passing is Rating.HARD and scheduled is not None:
                    floor = scheduled
                if passing is Rating.EASY and memory.stage is not CardStage.REVIEW:
                    good = answers.get(Rating.GOOD)
                    if good is not None and good.stability is not None:
                        floor = max(floor, self.interval_for(good.stability) + 1)
                floor = min(floor, longest)
                if days < floor:
                    days = floor
                    after = replace(after, due=days_later(now, days, self.zone))
            answers[passing] = after
            if passing is upto:
                break
            before = days
        return answers

    def preview(self, memory: Memory, now: datetime) -> dict[Rating, timedelta]:
        """The interval each rating would give (shown on the rating buttons): the very
        intervals ``review`` applies."""
        now = _utc(now)
        when = now
        if memory.last_review is not None and when < memory.last_review:
            when = memory.last_review
        answers = {Rating.AGAIN: self._answer(memory, Rating.AGAIN, when),
                   **self._passing(memory, when)}
        return {r: answers[r].due - now for r in Rating}  # type: ignore[operator]

    def retrievability(self, memory: Memory, now: datetime) -> float:
        """Probability of recall now (0 for cards never reviewed)."""
        return self.recall_probability(memory.stability, memory.last_review, now)

    def recall_probability(self, stability: float | None, last_review: datetime | None,
                           now: datetime) -> float:
        """FSRS forgetting curve R = (1 + F·t/S)^D, t in study days, without a Card."""
        return self.recall_curve(now)(stability, last_review)

    def recall_curve(self, now: datetime) -> Callable[[float | None, datetime | None], float]:
        """``recall_probability`` at ``now`` as one function, its constants worked out once.

        The queue evaluates it for every due card, so it builds no objects.
        """
        decay = -self.settings.parameters[20]
        factor = 0.9 ** (1 / decay) - 1
        day_end = self.day_end(now)

        def recall(stability: float | None, last_review: datetime | None) -> float:
            if stability is None or last_review is None:
                return 0.0
            seconds = (day_end - last_review).total_seconds()
            elapsed_days = seconds // 86400 if seconds > 0 else 0
            return float((1 + factor * elapsed_days / stability) ** decay)

        return recall

    def is_leech(self, memory: Memory) -> bool:
        return memory.lapses >= self.settings.leech_lapses


def format_interval(delta: timedelta, lang: str = "en") -> str:
    """Short human interval for buttons: 45s, 10m, 3h, 3d, 30d, 1mo, 2.1mo, 1.5y (as Anki)."""
    seconds = max(0.0, delta.total_seconds())
    day = 86400.0
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m"
    if seconds < day:
        return f"{seconds / 3600:.0f}h"
    days = seconds / day
    month = 365 / 12  # as Anki writes spans (rslib/src/scheduler/timespan.rs)
    if days < month:
        return f"{days:.0f}d"
    if days < 365:
        number, unit = days / month, "mo"
    else:
        number, unit = days / 365, ("a" if lang == "es" else "y")
    text = f"{number:.1f}".removesuffix(".0")
    return (text.replace(".", ",") if lang == "es" else text) + unit
