"""Anki's load balancer keeps the cards of one note off each other's days; so does studyapp's.

``data/anki_sibling_replay.json`` was recorded with the ``anki`` package (26.x,
FSRS, fuzz and load balancing on, review siblings buried) by
``make_anki_sibling_replay.py``: three months of daily sittings over reversed
notes, both cards of a note learned together. Anki then weighs a day on which a
sibling is due, and the five days either side, down
(rslib/src/scheduler/states/load_balancer.rs, ``calculate_sibling_modifiers``).
Each answer is replayed through ``Scheduler`` at the same instant, with the
same card id, the reviews due as Anki left them and the days the card and its
sibling are due; the due day must be Anki's.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from anki_recording import record_again, stored

from studyapp.srs import CardStage, Memory, Rating, Scheduler, SchedulerSettings
from studyapp.srs.calendar import day_start, study_day

DATA = json.loads((Path(__file__).parent / "data" / "anki_sibling_replay.json").read_text())
ZONE = ZoneInfo(DATA["zone"])
START = datetime.fromisoformat(DATA["start"])
ROLLOVER = DATA["rollover_hour"]


def _days(due: datetime, now: datetime) -> int:
    return (study_day(due, ROLLOVER, ZONE) - study_day(now, ROLLOVER, ZONE)).days


@cache
def _agreement(with_siblings: bool) -> tuple[int, int, int]:
    """(answers sent to review, on Anki's day, whose sibling was in review then), each
    answer from Anki's due days before it."""
    settings = SchedulerSettings(
        parameters=tuple(DATA["parameters"]), desired_retention=DATA["desired_retention"],
        learning_steps_s=tuple(DATA["learning_steps_s"]),
        relearning_steps_s=tuple(DATA["relearning_steps_s"]), day_rollover_hour=ROLLOVER)
    memories: dict[int, Memory] = {}
    first_day = study_day(START + timedelta(hours=12), ROLLOVER, ZONE)
    anchor = day_start(first_day + timedelta(days=DATA["anchor"]["due_day"]), ROLLOVER,
                       ZONE) + timedelta(hours=8)

    def due_times(start: datetime, end: datetime) -> list[datetime]:
        dues = [m.due for m in memories.values()
                if m.stage is CardStage.REVIEW and m.due is not None]
        return [d for d in [*dues, anchor] if start <= d < end]

    scheduler = Scheduler(settings, zone=ZONE)
    ids = DATA["card_ids"]
    total = agree = with_sibling = 0
    for index, minutes, rating, due, _shown in DATA["answers"]:
        now = START + timedelta(minutes=minutes)
        pair = [memories.get(ids[i]) for i in (index, index ^ 1)]  # note k: cards 2k, 2k+1
        siblings = [m.due for m in pair if m is not None and m.stage is CardStage.REVIEW
                    and m.due is not None] if with_siblings else []
        memory = memories.get(ids[index], Memory(card_id=ids[index]))
        after = scheduler.with_due_reviews(due_times, now, siblings).review(
            memory, Rating(rating), now)
        if due is not None:
            assert after.due is not None
            total += 1
            agree += _days(after.due, now) == due
            other = pair[1]
            with_sibling += other is not None and other.stage is CardStage.REVIEW
            after = replace(after, due=after.due + timedelta(days=due - _days(after.due, now)))
        memories[ids[index]] = after
    return total, agree, with_sibling


def test_due_days_are_ankis_with_siblings_kept_apart() -> None:
    total, agree, with_sibling = _agreement(True)
    print(f"due day as Anki's: {agree}/{total} ({with_sibling} with a sibling in review)")
    assert total >= 800 and with_sibling >= 500
    assert agree / total >= 0.99


def test_without_the_sibling_rule_many_days_are_not_ankis() -> None:
    """The fixture can tell: balancing the load alone, as for a note of one card, misses
    Anki's day on many answers whose sibling is in review."""
    total, agree, _ = _agreement(False)
    print(f"without siblings: {agree}/{total}")
    assert total - agree >= 50


@pytest.mark.slow
def test_the_fixture_is_what_anki_records(tmp_path: Path) -> None:
    """Recorded again with the installed ``anki`` package under faketime, the same answers
    and due days come out."""
    recorded = record_again("make_anki_sibling_replay.py", tmp_path, DATA["zone"])
    assert recorded == stored(DATA)
