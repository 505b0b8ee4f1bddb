"""FSRS through our Scheduler: ratings, previews, clock safety, intervals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from itertools import pairwise

import fsrs
import pytest

from studyapp.srs import CardStage, Memory, Rating, Scheduler, SchedulerSettings, format_interval

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def test_new_card_good_enters_learning_steps() -> None:
    after = Scheduler().review(Memory(card_id=7), Rating.GOOD, NOW)
    assert after.stage is CardStage.LEARNING
    # default learning steps 1 min and 10 min: Good on a new card goes to the 10 min step
    assert after.due == NOW + timedelta(minutes=10)
    assert after.reps == 1 and after.lapses == 0


@pytest.mark.utc_days
def test_same_result_as_py_fsrs() -> None:
    """Our wrapper must schedule exactly as the library does (fuzzing off).

    Each review is a whole number of days after the last at 10:00 UTC, so study days
    and py-fsrs's 24-hour periods agree, unless the day rolls over at 10:00 exactly
    (a run at 18:00 UTC puts the suite in UTC-6): study days are read in UTC."""
    ours = Scheduler()
    theirs = fsrs.Scheduler(enable_fuzzing=False)
    card = fsrs.Card(card_id=1, due=NOW)
    memory = Memory(card_id=1)
    moment = NOW
    for rating in (Rating.GOOD, Rating.GOOD, Rating.EASY, Rating.AGAIN, Rating.GOOD):
        card, _ = theirs.review_card(card, fsrs.Rating(int(rating)), moment)
        memory = ours.review(memory, rating, moment)
        assert memory.due == card.due
        assert memory.stability == pytest.approx(card.stability)
        moment = card.due
    assert memory.lapses == 1  # Again while in review


def test_preview_matches_review() -> None:
    scheduler = Scheduler()
    memory = scheduler.review(Memory(card_id=3), Rating.GOOD, NOW)
    memory = scheduler.review(memory, Rating.GOOD, NOW + timedelta(minutes=10))
    later = NOW + timedelta(days=3)
    preview = scheduler.preview(memory, later)
    for rating, delta in preview.items():
        assert scheduler.review(memory, rating, later).due == later + delta
    assert preview[Rating.AGAIN] < preview[Rating.HARD] < preview[Rating.GOOD] < preview[
        Rating.EASY]


def test_clock_going_backwards_does_not_corrupt_a_card() -> None:
    scheduler = Scheduler()
    memory = scheduler.review(Memory(card_id=1), Rating.GOOD, NOW)
    memory = scheduler.review(memory, Rating.GOOD, NOW + timedelta(minutes=10))
    earlier = NOW - timedelta(days=2)
    after = scheduler.review(memory, Rating.GOOD, earlier)
    assert after.stability is not None and after.stability > 0
    assert after.last_review is not None and after.last_review >= memory.last_review  # type: ignore[operator]
    assert after.due is not None and after.due > after.last_review


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError, match="UTC"):
        Scheduler().review(Memory(card_id=1), Rating.GOOD, datetime(2026, 1, 1))


def test_other_time_zones_are_converted_to_utc() -> None:
    madrid = timezone(timedelta(hours=1))
    after = Scheduler().review(Memory(card_id=1), Rating.GOOD, NOW.astimezone(madrid))
    assert after.due is not None and after.due.tzinfo == UTC


def test_settings_round_trip_and_pinning() -> None:
    settings = SchedulerSettings(desired_retention=0.85, new_per_day=5)
    again = SchedulerSettings.from_dict(settings.to_dict())
    assert again == settings
    # parameters are stored explicitly, so a library default change cannot move them
    assert len(settings.to_dict()["parameters"]) == len(fsrs.Scheduler().parameters)


def test_higher_retention_gives_shorter_intervals() -> None:
    def interval(retention: float) -> timedelta:
        s = Scheduler(SchedulerSettings(desired_retention=retention))
        m = s.review(Memory(card_id=1), Rating.GOOD, NOW)
        m = s.review(m, Rating.GOOD, NOW + timedelta(minutes=10))
        assert m.due is not None
        return m.due - NOW

    assert interval(0.95) < interval(0.9) < interval(0.8)


def test_leech_after_eight_lapses() -> None:
    scheduler = Scheduler()
    assert not scheduler.is_leech(Memory(card_id=1, lapses=7))
    assert scheduler.is_leech(Memory(card_id=1, lapses=8))


@pytest.mark.parametrize(
    ("delta", "en", "es"),
    [
        (timedelta(seconds=30), "30s", "30s"),
        (timedelta(minutes=10), "10m", "10m"),
        (timedelta(hours=5), "5h", "5h"),
        (timedelta(days=3), "3d", "3d"),
        (timedelta(days=64), "2.1mo", "2,1mo"),
        (timedelta(days=548), "1.5y", "1,5a"),
    ],
)
def test_format_interval(delta: timedelta, en: str, es: str) -> None:
    assert format_interval(delta, "en") == en
    assert format_interval(delta, "es") == es


@pytest.mark.utc_days
def test_recall_probability_matches_py_fsrs() -> None:
    ours = Scheduler()
    theirs = fsrs.Scheduler(enable_fuzzing=False)
    card, _ = theirs.review_card(fsrs.Card(card_id=1, due=NOW), fsrs.Rating.Good, NOW)
    card, _ = theirs.review_card(card, fsrs.Rating.Good, card.due)
    for days in (0, 1, 3, 10, 100):
        later = card.last_review + timedelta(days=days, hours=5)
        assert ours.recall_probability(card.stability, card.last_review, later) == pytest.approx(
            theirs.get_card_retrievability(card, later))


def _weak(stage: CardStage, stability: float) -> Memory:
    """A card that lapsed or barely holds: fsrs rounds its intervals to the same day."""
    last = NOW - (timedelta(minutes=10) if stage is CardStage.RELEARNING else timedelta(days=1))
    return Memory(card_id=7, stage=stage, step=0 if stage is CardStage.RELEARNING else None,
                  stability=stability, difficulty=9.5, due=NOW, last_review=last, reps=6,
                  lapses=2)


def test_easy_on_a_relearning_card_is_a_day_longer_than_good() -> None:
    """Seen in plain mode: Good and Easy both read "1d" on a relearning card.

    Anki offers Easy at least a day beyond Good, and Good at least a day beyond
    Hard (rslib/src/scheduler/states/review.rs, ``passing_fsrs_review_intervals``)."""
    scheduler = Scheduler()
    memory = _weak(CardStage.RELEARNING, 0.5)
    fsrs_alone = fsrs.Scheduler(enable_fuzzing=False, relearning_steps=(timedelta(minutes=10),))
    card = fsrs.Card(card_id=7, state=fsrs.State.Relearning, step=0, stability=0.5,
                     difficulty=9.5, due=NOW, last_review=memory.last_review)
    good = fsrs_alone.review_card(card, fsrs.Rating.Good, NOW)[0].due - NOW
    easy = fsrs_alone.review_card(card, fsrs.Rating.Easy, NOW)[0].due - NOW
    assert good == easy == timedelta(days=1)  # the library on its own
    preview = scheduler.preview(memory, NOW)
    assert preview[Rating.GOOD] == timedelta(days=1)
    assert preview[Rating.EASY] == timedelta(days=2)


@pytest.mark.parametrize("stage", [CardStage.REVIEW, CardStage.RELEARNING])
@pytest.mark.parametrize("stability", [0.1, 0.3, 0.5, 1.0, 2.0, 5.0, 30.0])
def test_passing_intervals_keep_ankis_order_and_are_what_gets_scheduled(
        stage: CardStage, stability: float) -> None:
    scheduler = Scheduler()
    memory = _weak(stage, stability)
    preview = scheduler.preview(memory, NOW)
    for rating, delta in preview.items():  # the buttons show what is applied
        assert scheduler.review(memory, rating, NOW).due == NOW + delta
    days = [preview[r] for r in (Rating.HARD, Rating.GOOD, Rating.EASY)
            if preview[r] >= timedelta(days=1)]
    assert all(later - sooner >= timedelta(days=1) for sooner, later in pairwise(days))
    assert preview[Rating.AGAIN] < preview[Rating.HARD] < preview[Rating.GOOD] < preview[
        Rating.EASY]


def test_the_order_never_passes_the_maximum_interval() -> None:
    """As in Anki, the maximum holds even where it makes two intervals equal."""
    scheduler = Scheduler(SchedulerSettings(maximum_interval_days=1))
    preview = scheduler.preview(_weak(CardStage.REVIEW, 0.3), NOW)
    assert preview[Rating.HARD] == preview[Rating.GOOD] == preview[Rating.EASY] == timedelta(
        days=1)


def test_recall_counts_study_days_as_the_scheduler_does() -> None:
    """Retrievability (queue order, stats, the exam plan) takes time since the last review
    in study days: 21:13 to 08:00 the next morning is a whole day, as is 21:13 to 21:30;
    03:00 the next night is still the same study day (rollover 04:00)."""
    from zoneinfo import ZoneInfo

    zone = ZoneInfo("Europe/Madrid")
    scheduler = Scheduler(zone=zone)
    last = datetime(2026, 4, 6, 21, 13, tzinfo=zone)
    stability = 2.0
    # FSRS-6: R(t, S) = (1 + F·t/S)^-w20 with F = 0.9^(-1/w20) - 1, so R(S, S) = 0.9
    # (https://github.com/open-spaced-repetition/fsrs4anki/wiki/The-Algorithm)
    w20 = scheduler.settings.parameters[20]
    one_day = (1 + (0.9 ** (-1 / w20) - 1) * 1 / stability) ** -w20
    for hour, minute, expected in ((3, 0, 1.0), (8, 0, one_day), (21, 30, one_day)):
        when = datetime(2026, 4, 7, hour, minute, tzinfo=zone)
        assert scheduler.recall_probability(stability, last, when) == pytest.approx(expected)
