"""studyapp's fuzz, load balancing and easy days against Anki's, on answers Anki scheduled.

``data/anki_fuzz_replay.json`` was recorded with the ``anki`` package (26.x,
FSRS, fuzz and load balancing on, Saturday's easy day reduced) by
``make_anki_fuzz_replay.py``: five months of daily sittings, cards learned in
batches, varied ratings and hours. Each answer is replayed through
``Scheduler`` at the same instant, with the same card id (Anki seeds fuzz from
it) and the reviews due as the replay has scheduled them, plus the one review
the recorder set due on day 60; the due day must be Anki's.

Measured on the 2,139 answers stored (1,480 sending a card to review): from
Anki's due days before each answer, 1,474 land on Anki's day (99.6%), and
5,183 of 5,200 buttons in days or months read as Anki's; from the replay's
own, 1,432 (96.8%). The days apart come from the interval itself:
studyapp's FSRS stability (the ``fsrs`` package) agrees with Anki's within
about 0.1% (test_anki_replay.py), not to the last float32 bit, and three of
the six are answers whose fuzz range ends within 0.02 day of a rounding edge.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from anki_recording import record_again, stored

from studyapp.srs import CardStage, Memory, Rating, Scheduler, SchedulerSettings
from studyapp.srs import format_interval as shown_as
from studyapp.srs.calendar import day_start, study_day

DATA = json.loads((Path(__file__).parent / "data" / "anki_fuzz_replay.json").read_text())
ZONE = ZoneInfo(DATA["zone"])
START = datetime.fromisoformat(DATA["start"])
ROLLOVER = DATA["rollover_hour"]


def _settings() -> SchedulerSettings:
    return SchedulerSettings(
        parameters=tuple(DATA["parameters"]), desired_retention=DATA["desired_retention"],
        learning_steps_s=tuple(DATA["learning_steps_s"]),
        relearning_steps_s=tuple(DATA["relearning_steps_s"]),
        day_rollover_hour=ROLLOVER, easy_days=tuple(DATA["easy_days"]))


class Replay:
    """The recorded answers replayed, the reviews due kept as a store would keep them.

    ``as_anki``: each card's due day after an answer is Anki's (the same due-count
    state as Anki's for every answer, so one day apart never spreads to the next
    answers); else the replay's own.
    """

    def __init__(self, as_anki: bool = True) -> None:
        self.as_anki = as_anki
        self.memories: dict[int, Memory] = {}
        first_day = study_day(START + timedelta(hours=12), ROLLOVER, ZONE)  # START is 00:00
        anchor_day = first_day + timedelta(days=DATA["anchor"]["due_day"])
        self.anchor_due = day_start(anchor_day, ROLLOVER, ZONE) + timedelta(hours=8)
        self.scheduler = Scheduler(_settings(), zone=ZONE, due_times=self.due_times)

    def due_times(self, start: datetime, end: datetime) -> list[datetime]:
        dues = [m.due for m in self.memories.values()
                if m.stage is CardStage.REVIEW and m.due is not None]
        return [d for d in [*dues, self.anchor_due] if start <= d < end]

    def __iter__(self) -> Iterator[tuple[list[object], Memory, dict[Rating, timedelta],
                                         datetime]]:
        for answer in DATA["answers"]:
            index, minutes, rating = answer[0], answer[1], answer[2]
            assert isinstance(index, int) and isinstance(minutes, int)
            assert isinstance(rating, int)
            now = START + timedelta(minutes=minutes)
            card_id = DATA["card_ids"][index]
            memory = self.memories.get(card_id, Memory(card_id=card_id))
            shown = self.scheduler.preview(memory, now)
            after = self.scheduler.review(memory, Rating(rating), now)
            yield answer, after, shown, now
            due = answer[3]
            if self.as_anki and isinstance(due, int) and after.due is not None:
                after = replace(after, due=after.due + timedelta(days=due - _days(after.due,
                                                                                  now)))
            self.memories[card_id] = after


@cache
def _replayed(as_anki: bool) -> list[tuple[list[object], Memory, dict[Rating, timedelta],
                                          datetime]]:
    return list(Replay(as_anki))


def _days(due: datetime, now: datetime) -> int:
    return (study_day(due, ROLLOVER, ZONE) - study_day(now, ROLLOVER, ZONE)).days


def test_the_fixture_covers_what_anki_users_meet() -> None:
    answers = DATA["answers"]
    assert len(answers) >= 2000
    reviews = [a for a in answers if a[3] is not None]
    assert len({a[3] for a in reviews}) > 40  # intervals from a day to months
    assert max(a[1] for a in answers) > 140 * 24 * 60  # five months
    hours = {(START + timedelta(minutes=a[1])).astimezone(ZONE).hour for a in answers}
    assert {0, 2} & hours and {21, 23} & hours
    assert {1, 2, 3, 4} == {a[2] for a in answers}
    assert DATA["easy_days"].count("reduced") == 1


@pytest.mark.parametrize("as_anki", [True, False], ids=["anki-state", "own-state"])
def test_due_days_are_ankis(as_anki: bool) -> None:
    """Every answer that sends a card to review lands on the day Anki gave it: from
    Anki's due days before each answer, and (a looser bound, one day apart changes
    the load every later answer sees) from the replay's own."""
    total = agree = 0
    differences = []
    for answer, after, _shown, now in _replayed(as_anki):
        if answer[3] is None:
            assert after.stage is not CardStage.REVIEW
            continue
        assert after.due is not None
        total += 1
        got = _days(after.due, now)
        if got == answer[3]:
            agree += 1
        else:
            differences.append((answer, got))
    print(f"due day as Anki's ({'anki' if as_anki else 'own'} state): {agree}/{total}")
    assert total >= 1300
    assert agree / total >= (0.99 if as_anki else 0.95), differences[:10]


def test_buttons_show_what_anki_shows() -> None:
    """Buttons in days, months or years read as Anki's (load balancing and fuzz included)."""
    total = agree = 0
    for answer, _after, shown, _now in _replayed(True):
        labels = answer[4]
        assert isinstance(labels, list)
        for rating, label in zip(Rating, labels, strict=True):
            if label[-1] in "dy" or label.endswith("mo"):
                total += 1
                agree += shown_as(shown[rating]) == label
    print(f"buttons as Anki's: {agree}/{total}")
    assert agree / total >= 0.99


def test_fuzz_spreads_cards_learned_together() -> None:
    """The first batch, learned at one sitting with the same answers, comes back on
    several days (without fuzz most would share one)."""
    first_intervals: dict[tuple[int, ...], set[int]] = {}
    ratings: dict[int, list[int]] = {}
    for answer in DATA["answers"]:
        index, rating, due = answer[0], answer[2], answer[3]
        assert isinstance(index, int) and isinstance(rating, int)
        if index in ratings and ratings[index][-1] < 0:
            continue
        ratings.setdefault(index, []).append(rating)
        if isinstance(due, int):
            first_intervals.setdefault(tuple(ratings[index]), set()).add(due)
            ratings[index].append(-1)
    assert max(len(days) for days in first_intervals.values()) >= 3


@pytest.mark.slow
def test_the_fixture_is_what_anki_records(tmp_path: Path) -> None:
    """The stored answers are Anki's own: recorded again with the installed ``anki``
    package under faketime, every due day and button comes out the same."""
    recorded = record_again("make_anki_fuzz_replay.py", tmp_path, DATA["zone"])
    assert recorded == stored(DATA)
