"""Anki's load balancer weighs the cards of the answered card's preset only, and leaves a
card to fuzz alone when its preset has none due; so does studyapp's.

``data/anki_preset_balance.json`` was recorded with the ``anki`` package (26.x,
FSRS, fuzz and load balancing on) by ``make_anki_preset_balance.py``: ten weeks
over three decks, "Alpha" on one preset and "Beta" and "Gamma" sharing another,
and nothing due before the first answers
(rslib/src/scheduler/states/load_balancer.rs: ``days_by_preset``, and
``find_interval`` returning None for a preset without cards in its window).
Each answer is replayed through ``Scheduler`` at the same instant with the
same card id and, as the study service reads them (``PerDeck.balanced_with``),
the reviews due of the decks of the card's preset; the due day must be Anki's.
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
from studyapp.srs.calendar import study_day

DATA = json.loads((Path(__file__).parent / "data" / "anki_preset_balance.json").read_text())
ZONE = ZoneInfo(DATA["zone"])
START = datetime.fromisoformat(DATA["start"])
ROLLOVER = DATA["rollover_hour"]


def _days(due: datetime, now: datetime) -> int:
    return (study_day(due, ROLLOVER, ZONE) - study_day(now, ROLLOVER, ZONE)).days


@cache
def _agreement(by_preset: bool) -> tuple[int, int, int]:
    """(answers sent to review, on Anki's day, placed while their preset had nothing due),
    each from Anki's due days before it; ``by_preset`` False weighs every deck's reviews."""
    settings = SchedulerSettings(
        parameters=tuple(DATA["parameters"]), desired_retention=DATA["desired_retention"],
        learning_steps_s=tuple(DATA["learning_steps_s"]),
        relearning_steps_s=tuple(DATA["relearning_steps_s"]), day_rollover_hour=ROLLOVER)
    ids, decks, presets = DATA["card_ids"], DATA["decks"], DATA["presets"]
    memories: dict[int, Memory] = {}
    scheduler = Scheduler(settings, zone=ZONE)
    total = agree = alone = 0
    for index, minutes, rating, due, _shown in DATA["answers"]:
        now = START + timedelta(minutes=minutes)
        preset = presets[decks[index]]
        weighed = [i for i in range(len(ids))
                   if not by_preset or presets[decks[i]] == preset]

        def due_times(start: datetime, end: datetime,
                      weighed: list[int] = weighed) -> list[datetime]:
            found = (memories.get(ids[i]) for i in weighed)
            return [m.due for m in found if m is not None and m.stage is CardStage.REVIEW
                    and m.due is not None and start <= m.due < end]

        memory = memories.get(ids[index], Memory(card_id=ids[index]))
        balanced = scheduler.with_due_reviews(due_times, now)
        after = balanced.review(memory, Rating(rating), now)
        if due is not None:
            assert after.due is not None
            total += 1
            agree += _days(after.due, now) == due
            window = study_day(now, ROLLOVER, ZONE)
            alone += not any(0 <= (study_day(d, ROLLOVER, ZONE) - window).days < 99
                             for d in due_times(now - timedelta(days=2),
                                                now + timedelta(days=101)))
            after = replace(after, due=after.due + timedelta(days=due - _days(after.due, now)))
        memories[ids[index]] = after
    return total, agree, alone


def test_due_days_are_ankis_weighing_each_preset_apart() -> None:
    total, agree, alone = _agreement(True)
    print(f"due day as Anki's: {agree}/{total} ({alone} with nothing of the preset due)")
    assert total >= 400 and alone >= 2
    assert agree / total >= 0.99


def test_weighing_every_decks_reviews_together_misses_ankis_days() -> None:
    """The fixture can tell: one load over all decks (studyapp before) misses Anki's day on
    many answers."""
    total, agree, _ = _agreement(False)
    print(f"one load for all decks: {agree}/{total}")
    assert total - agree >= 20


@pytest.mark.slow
def test_the_fixture_is_what_anki_records(tmp_path: Path) -> None:
    """Recorded again with the installed ``anki`` package under faketime, the same answers
    and due days come out."""
    recorded = record_again("make_anki_preset_balance.py", tmp_path, DATA["zone"])
    assert recorded == stored(DATA)
