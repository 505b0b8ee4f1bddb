"""Fuzz, load balancing and easy days: Anki's ranges, one day per card, lighter days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from studyapp.srs import CardStage, Memory, Rating, Scheduler, SchedulerSettings
from studyapp.srs.calendar import study_day
from studyapp.srs.fuzz import f32, fuzz_bounds, fuzzed_interval, minimum_after_fuzz, unit_draw
from studyapp.srs.load_balancer import EasyDay, balanced_interval

ZONE = ZoneInfo("Europe/Madrid")
NOW = datetime(2026, 5, 4, 10, tzinfo=ZONE)  # a Monday


@pytest.mark.parametrize("interval, minimum, maximum, lower, middle, upper", [
    # Anki's own cases (rslib/src/scheduler/states/fuzz.rs, test ``with_review_fuzz``)
    (1.0, 1, 1000, 1, 1, 1), (2.49, 1, 1000, 2, 2, 2), (2.5, 1, 1000, 2, 3, 4),
    (7.0, 1, 1000, 5, 7, 9), (17.0, 1, 1000, 14, 17, 20), (37.0, 1, 1000, 33, 37, 41),
    (2.0, 3, 1000, 3, 4, 4), (19.9, 3, 1000, 17, 20, 23),
    (100.0, 101, 1000, 101, 105, 108), (100.0, 1, 99, 92, 96, 99),
    (100.0, 97, 103, 97, 100, 103)])
def test_fuzz_ranges_are_ankis(interval: float, minimum: int, maximum: int, lower: int,
                               middle: int, upper: int) -> None:
    got = [fuzzed_interval(f32(f), f32(interval), minimum, maximum) for f in (0, 0.5, 0.99)]
    assert got == [lower, middle, upper]


def test_the_floor_keeps_the_previous_interval_only_within_the_range() -> None:
    # Anki's test minimum_review_fuzz_interval_preserves_previous_only_within_range
    assert minimum_after_fuzz(f32(2.7269483), 4, 36500) == 4
    assert minimum_after_fuzz(f32(2.7269483), 5, 36500) == 0
    assert minimum_after_fuzz(f32(4.591988), 4, 36500) == 5


def test_draws_are_uniform_in_zero_one() -> None:
    draws = [unit_draw(seed) for seed in range(2000)]
    assert all(0 <= d < 1 for d in draws)
    assert 0.45 < sum(draws) / len(draws) < 0.55
    assert len(set(draws)) > 1990


def _review_card(card_id: int, stability: float = 30.0) -> Memory:
    last = NOW - timedelta(days=20)
    return Memory(card_id=card_id, stage=CardStage.REVIEW, step=None, stability=stability,
                  difficulty=5.0, due=NOW, last_review=last, reps=6)


def _days(scheduler: Scheduler, memory: Memory) -> int:
    assert memory.due is not None
    return (study_day(memory.due, 4, ZONE) - study_day(NOW, 4, ZONE)).days


def test_fuzz_is_one_day_per_card_inside_ankis_range() -> None:
    fuzzed = Scheduler(SchedulerSettings(load_balancing=False), zone=ZONE)
    plain = Scheduler(SchedulerSettings(fuzz=False), zone=ZONE)
    days = set()
    for card_id in range(1, 60):
        card = _review_card(card_id)
        first = fuzzed.review(card, Rating.GOOD, NOW)
        assert fuzzed.review(card, Rating.GOOD, NOW) == first  # same card, same day
        shown = fuzzed.preview(card, NOW)[Rating.GOOD]
        assert first.due is not None and first.due - NOW == shown
        base = plain.review(card, Rating.GOOD, NOW)
        assert first.stability == base.stability
        assert first.stability is not None
        lower, upper = fuzz_bounds(fuzzed.raw_interval(first.stability), 21, 36500)
        assert lower <= _days(fuzzed, first) <= upper
        days.add(_days(fuzzed, first))
    assert len(days) >= 5  # cards learned together spread out
    assert {_days(plain, plain.review(_review_card(n), Rating.GOOD, NOW))
            for n in range(1, 10)} == {_days(plain, base)}


def _scheduler_with_load(due: dict[int, int], easy: tuple[str, ...] | None = None) -> Scheduler:
    today = study_day(NOW, 4, ZONE)
    times = [datetime.combine(today + timedelta(days=day), datetime.min.time(), ZONE)
             + timedelta(hours=12) for day, count in due.items() for _ in range(count)]
    settings = SchedulerSettings() if easy is None else SchedulerSettings(easy_days=easy)
    return Scheduler(settings, zone=ZONE,
                     due_times=lambda start, end: [t for t in times if start <= t < end])


def test_load_balancing_picks_the_lighter_day() -> None:
    """Every day of the range heavy but one: most cards go to the light day."""
    plain = Scheduler(SchedulerSettings(fuzz=False), zone=ZONE)
    light = _days(plain, plain.review(_review_card(1, 8.0), Rating.GOOD, NOW)) - 1
    days_picked = []
    for card_id in range(1, 41):
        scheduler = _scheduler_with_load({d: (1 if d == light else 40) for d in range(1, 80)})
        days_picked.append(_days(scheduler, scheduler.review(_review_card(card_id, 8.0),
                                                             Rating.GOOD, NOW)))
    assert days_picked.count(light) >= 35


def test_weights_follow_anki_for_a_plain_case() -> None:
    """Days 9..13 with 10, 1, 10, 10, 10 cards due: day 10 weighs ~140x its neighbours."""
    today = date(2026, 5, 4)
    load = {today + timedelta(days=d): n for d, n in ((9, 10), (10, 1), (11, 10),
                                                        (12, 10), (13, 10))}
    picks = [balanced_interval(f32(11.0), 1, 36500, today, load, [EasyDay.NORMAL] * 7, s)
             for s in range(200)]
    assert picks.count(10) > 190


def test_easy_days_avoid_a_minimum_weekday() -> None:
    """Sunday minimum: with reviews due every day, next to no card lands on a Sunday."""
    week = ("normal",) * 6 + ("minimum",)
    sundays = 0
    for card_id in range(1, 81):
        scheduler = _scheduler_with_load({d: 5 for d in range(1, 80)}, easy=week)
        after = scheduler.review(_review_card(card_id, 8.0), Rating.GOOD, NOW)
        assert after.due is not None
        sundays += study_day(after.due, 4, ZONE).weekday() == 6
    normal = _scheduler_with_load({d: 5 for d in range(1, 80)})
    normal_sundays = sum(
        study_day(d, 4, ZONE).weekday() == 6 for d in (
            normal.review(_review_card(n, 8.0), Rating.GOOD, NOW).due for n in range(1, 81))
        if d is not None)
    assert sundays == 0 and normal_sundays >= 5


def test_settings_json_is_backward_compatible() -> None:
    old = SchedulerSettings(fuzz=False).to_dict()
    for key in ("fuzz", "load_balancing", "easy_days"):
        old.pop(key)
    restored = SchedulerSettings.from_dict(old)
    assert restored.fuzz and restored.load_balancing
    assert restored.easy_days == ("normal",) * 7
    week = ("normal",) * 5 + ("reduced", "minimum")
    assert SchedulerSettings.from_dict(
        SchedulerSettings(easy_days=week).to_dict()).easy_days == week
    with pytest.raises(ValueError):
        SchedulerSettings(easy_days=("normal",) * 6)
    with pytest.raises(ValueError):
        SchedulerSettings(easy_days=("normal",) * 6 + ("sometimes",))
    assert datetime.now(UTC)  # aware clock for the module's other tests


def test_due_reviews_are_read_once_from_the_start_of_today() -> None:
    calls: list[tuple[datetime, datetime]] = []

    def read(start: datetime, end: datetime) -> list[datetime]:
        calls.append((start, end))
        return [NOW + timedelta(days=d) for d in (-1, 3, 120)]

    scheduler = Scheduler(SchedulerSettings(), zone=ZONE).with_due_reviews(read, NOW)
    assert len(calls) == 1
    start, end = calls[0]
    assert start.astimezone(ZONE) == datetime(2026, 5, 4, 4, tzinfo=ZONE)  # the rollover
    assert (end - start).days >= 100  # past the 90 days balanced, and their fuzz
    scheduler.review(_review_card(1, 8.0), Rating.GOOD, NOW)
    preview = scheduler.preview(_review_card(1, 8.0), NOW)
    assert len(calls) == 1 and preview
    off = Scheduler(SchedulerSettings(load_balancing=False), zone=ZONE)
    assert off.with_due_reviews(read, NOW) is off and len(calls) == 1
