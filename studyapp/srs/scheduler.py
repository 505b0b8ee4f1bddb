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

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from copy import copy
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, date, datetime, timedelta, tzinfo
from enum import IntEnum
from functools import lru_cache
from typing import Any

import fsrs
from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from studyapp.srs.calendar import (
    day_bounds,
    day_start,
    days_later,
    elapsed_to,
    local_zone,
    study_day,
)
from studyapp.srs.fuzz import (
    f32,
    fuzz_seed,
    fuzzed_interval,
    minimum_after_fuzz,
    round_half_away,
    unit_draw,
)
from studyapp.srs.load_balancer import (
    BALANCED_DAYS,
    MAX_BALANCED_INTERVAL,
    NORMAL_WEEK,
    EasyDay,
    balanced_interval,
)


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
    ignore_reviews_before: str | None = None
    """ISO date: answers before it are left out of fitting and memory states (Anki's
    "Ignore cards reviewed before"; ``studyapp.srs.revlog``)."""
    fuzz: bool = True
    """Review intervals move a little per card, as in Anki, so cards learned together
    come back on different days (``studyapp.srs.fuzz``)."""
    load_balancing: bool = True
    """Within the fuzz, lighter days are likelier (Anki 24.11; needs ``fuzz``)."""
    easy_days: tuple[str, ...] = NORMAL_WEEK
    """Monday to Sunday: normal, reduced or minimum reviews (Anki's easy days)."""

    def __post_init__(self) -> None:
        if len(self.easy_days) != 7 or not set(self.easy_days) <= {d.value for d in EasyDay}:
            raise ValueError("easy_days needs 7 days, each normal, reduced or minimum")
    deck_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, hash=False)
    """Deck id → that deck's own options (``studyapp.srs.deck_options``); others follow these."""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("parameters", "learning_steps_s", "relearning_steps_s", "easy_days"):
            data[key] = list(data[key])
        for key in ("exam_date", "previous_parameters", "new_per_day_before_exam",
                    "ignore_reviews_before"):
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
                    "previous_parameters", "easy_days"):
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
            enable_fuzzing=False,  # fuzz is Anki's, applied by Scheduler (srs/fuzz.py)
        )


DueTimes = Callable[[datetime, datetime], Iterable[datetime]]
"""The due times, in [start, end), of the profile's review cards: the load balancer
weighs each day of a card's fuzz range by how many are due on it."""


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

    def with_due(self, due: datetime) -> Memory:
        """This memory due at ``due``, every other field as it is: ``dataclasses.replace``
        at a fraction of its cost (an exam plan's walk places tens of thousands of
        answers), and a field added later is carried without being named here."""
        moved = object.__new__(Memory)
        moved.__dict__.update(self.__dict__, due=due)
        return moved


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


@lru_cache(maxsize=1 << 14)
def _fuzz_draw(seed: int) -> float:
    """``unit_draw`` kept by seed: a card's buttons, its answer and an exam plan's walk meet
    the same seed again, and each draw is twelve ChaCha rounds in Python."""
    return unit_draw(seed)


@lru_cache(maxsize=64)
def _interval_factors(decay: float, desired_retention: float) -> tuple[float, float]:
    """The float32 factors of fsrs-rs's ``next_interval`` for a decay and a retention."""
    exponent = f32(1 / f32(-decay))
    factor = f32(f32(f32(0.9) ** exponent) - 1)
    retention = f32(f32(f32(desired_retention) ** exponent) - 1)
    return factor, retention


def _utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise ValueError("scheduling needs aware UTC datetimes")
    return moment.astimezone(UTC)


class Scheduler:
    """Review a card: new memory state from (memory, rating, time), nothing hidden."""

    def __init__(self, settings: SchedulerSettings | None = None,
                 zone: tzinfo | None = None, due_times: DueTimes | None = None) -> None:
        self.settings = settings or SchedulerSettings()
        self.zone = zone or local_zone()
        """The learner's time zone: where the study day rolls over."""
        self.due_times = due_times
        """Where load balancing reads the profile's due reviews (None: fuzz alone)."""
        self.sibling_dues: tuple[datetime, ...] = ()
        """When the answered card and its siblings are due, as stored before the answer:
        set (``with_due_reviews``) when the card's deck buries review siblings."""
        self._fsrs = self.settings.fsrs_scheduler()

    def balanced_by(self, due_times: DueTimes | None) -> Scheduler:
        """This scheduler with load balancing reading ``due_times`` (None: fuzz alone)."""
        other = copy(self)
        other.due_times = due_times
        return other

    def with_due_reviews(self, read: DueTimes, now: datetime,
                         siblings: Iterable[datetime] = ()) -> Scheduler:
        """This scheduler balancing against the reviews ``read`` gives, read once, now,
        for every day a balanced interval can reach (itself when balancing is off).

        Read before an answer's write transaction and before its buttons are
        shown, so both weigh the same load and the button shows the day applied.
        ``siblings``: when the card and its siblings are due, for a deck that buries
        review siblings (Anki's balancer then keeps them off each other's days).
        """
        if not (self.settings.fuzz and self.settings.load_balancing):
            return self
        start = day_bounds(now, self.settings.day_rollover_hour, self.zone)[0]
        due = list(read(start, days_later(start, MAX_BALANCED_INTERVAL + 12, self.zone)))
        other = self.balanced_by(lambda first, last: [t for t in due if first <= t < last])
        other.sibling_dues = tuple(siblings)
        return other

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
        return self._passing(memory, now, upto=rating, every=False)[rating]

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

    def raw_interval(self, stability: float) -> float:
        """Days until recall falls to the desired retention, unrounded, in float32 as
        fsrs-rs gives Anki (``next_interval``): what fuzz and rounding start from."""
        factor, retention = _interval_factors(self.settings.parameters[20],
                                              self.settings.desired_retention)
        return f32(f32(f32(stability) / factor) * retention)

    def _placer(self, memory: Memory, now: datetime) -> Callable[[float, int], int]:
        """Anki's ``with_review_fuzz`` for this answer: an interval and a floor in, the days
        applied out (balanced by load, else fuzzed, else rounded; never past the maximum)."""
        settings = self.settings
        longest = max(settings.maximum_interval_days, 1)
        seed = fuzz_seed(memory.card_id, memory.reps) if settings.fuzz else None
        balancing = seed is not None and settings.load_balancing and self.due_times is not None
        if balancing:  # the day, the week and the load only matter to the balancer
            today = study_day(now, settings.day_rollover_hour, self.zone)
            week = tuple(EasyDay(d) for d in settings.easy_days)
        load: dict[date, int] | None = None

        def place(interval: float, floor: int) -> int:
            nonlocal load
            floor = min(max(floor, 1), longest)
            if balancing:
                assert seed is not None
                if load is None:
                    load = self._load(today, today + timedelta(days=MAX_BALANCED_INTERVAL + 10))
                # Anki's balancer holds only presets with a card due in its window: with
                # none, fuzz alone places the card (``days_by_preset.get(..)?``)
                if any(0 <= (day - today).days < BALANCED_DAYS for day in load):
                    siblings = {study_day(due, settings.day_rollover_hour, self.zone)
                                for due in self.sibling_dues}
                    balanced = balanced_interval(interval, floor, longest, today, load, week,
                                                 seed, siblings)
                    if balanced is not None:
                        return balanced
            return fuzzed_interval(None if seed is None else _fuzz_draw(seed), interval, floor,
                                   longest)

        return place

    def _load(self, first: date, last: date) -> dict[date, int]:
        """Review cards due on each study day from ``first`` to ``last``."""
        assert self.due_times is not None
        rollover = self.settings.day_rollover_hour
        start = day_start(first, rollover, self.zone)
        end = day_start(last + timedelta(days=1), rollover, self.zone)
        return dict(Counter(study_day(due, rollover, self.zone)
                            for due in self.due_times(start, end)))

    def _passing(self, memory: Memory, now: datetime, upto: Rating = Rating.EASY,
                 every: bool = True) -> dict[Rating, Memory]:
        """Hard, then Good, then Easy, up to ``upto``, on the days Anki gives them
        (``every=False``: ``upto``'s at least, the others only where it depends on them).

        Anki (rslib/src/scheduler/states/review.rs, ``passing_fsrs_review_intervals``)
        fuzzes each review interval with a floor: at least the previous interval
        when the new one barely changed, one day more when it grew
        (``fuzz.minimum_after_fuzz``), Good at least Hard + 1 day and Easy at
        least Good + 1. A card leaving (re)learning is fuzzed from its rounded
        interval, and on Easy lands at least a day beyond where Good's interval
        would (``learning.rs``, ``answer_easy``). Learning steps in minutes are left
        as fsrs gives them. The memory state stays fsrs's; only the due time moves.
        Measured against Anki 26 in tests/srs/test_anki_replay.py (fuzz off) and
        tests/srs/test_anki_fuzz.py (fuzz, load balancing and easy days on).
        """
        place = self._placer(memory, now)
        longest = max(self.settings.maximum_interval_days, 1)
        answers: dict[Rating, Memory] = {}
        previous = None
        if memory.stage is CardStage.REVIEW and memory.due is not None \
                and memory.last_review is not None:
            previous = self.interval_days(memory, memory.last_review)
        before = 0  # days of the previous rating
        for passing in (Rating.HARD, Rating.GOOD, Rating.EASY):
            if not every and passing is Rating.HARD and previous is None and upto > passing:
                continue  # Good and Easy start from their own intervals here, not Hard's days
            after = self._answer(memory, passing, now)
            if after.stage is CardStage.REVIEW and after.stability is not None:
                interval = self.raw_interval(after.stability)
                if previous is not None:
                    floor = max(minimum_after_fuzz(interval, previous, longest),
                                before + 1 if passing is not Rating.HARD else 1)
                    days = place(interval, floor)
                else:
                    floor = 1
                    if passing is Rating.EASY:
                        good = answers.get(Rating.GOOD) or self._answer(memory, Rating.GOOD, now)
                        assert good.stability is not None
                        floor = place(self.raw_interval(good.stability), 1) + 1
                    days = place(float(max(round_half_away(interval), 1)), floor)
                after = after.with_due(days_later(now, days, self.zone))
                before = days
            answers[passing] = after
            if passing is upto:
                break
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
