"""studyapp's scheduler against Anki's, on a history Anki itself scheduled.

``data/anki_replay.json`` was recorded with the ``anki`` package (26.x, FSRS
on, fuzz and load balancing off) by ``make_anki_replay.py``: 405 answers of 26
cards at varied hours,
some after midnight and before the 04:00 rollover, over two months, in the
Europe/Madrid time zone. Each review is replayed through ``Scheduler`` at the
same instant; stability must agree within 1% and the due day exactly.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from anki_recording import record_again, stored

from studyapp.srs import Memory, Rating, Scheduler, SchedulerSettings, format_interval
from studyapp.srs.calendar import study_day

DATA = json.loads((Path(__file__).parent / "data" / "anki_replay.json").read_text())
ZONE = ZoneInfo(DATA["zone"])


def _scheduler() -> Scheduler:
    settings = SchedulerSettings(
        parameters=tuple(DATA["parameters"]), desired_retention=DATA["desired_retention"],
        learning_steps_s=tuple(DATA["learning_steps_s"]),
        relearning_steps_s=tuple(DATA["relearning_steps_s"]),
        day_rollover_hour=DATA["rollover_hour"],
        fuzz=False, load_balancing=False)  # recorded with Anki's fuzz and balancing off
    return Scheduler(settings, zone=ZONE)


def _days(scheduler: Scheduler, due: datetime, now: datetime) -> int:
    rollover = scheduler.settings.day_rollover_hour
    return (study_day(due, rollover, ZONE) - study_day(now, rollover, ZONE)).days


def _replay() -> list[tuple[dict[str, Any], Memory, dict[Rating, timedelta], datetime]]:
    scheduler = _scheduler()
    memories: dict[str, Memory] = {}
    out = []
    for n, record in enumerate(DATA["reviews"]):
        now = datetime.fromisoformat(record["at"])
        memory = memories.get(record["card"], Memory(card_id=n))
        shown = scheduler.preview(memory, now)
        memory = memories[record["card"]] = scheduler.review(memory, Rating(record["rating"]),
                                                             now)
        out.append((record, memory, shown, now))
    return out


def test_the_fixture_covers_the_hard_cases() -> None:
    hours = {datetime.fromisoformat(r["at"]).hour for r in DATA["reviews"]}
    assert {0, 2, 3} & hours and {21, 23} & hours  # before the rollover, and late evenings
    assert any(r["rating"] == 1 and r["queue"] == 1 and r["interval_days"] is None
               for r in DATA["reviews"][10:])  # lapses into relearning
    assert len(DATA["reviews"]) >= 400


def test_stability_and_due_day_agree_with_anki() -> None:
    scheduler = _scheduler()
    mismatches = []
    for record, memory, _shown, now in _replay():
        assert memory.stability is not None and memory.due is not None
        if abs(memory.stability / record["stability"] - 1) > 0.01:
            mismatches.append((record["card"], record["at"], "stability",
                               memory.stability, record["stability"]))
        if record["queue"] == 2:
            got = _days(scheduler, memory.due, now)
            if got != record["due_in_days"]:
                mismatches.append((record["card"], record["at"], "due", got,
                                   record["due_in_days"]))
        elif (memory.due - now).total_seconds() != record["due_in_seconds"]:
            mismatches.append((record["card"], record["at"], "due s",
                               (memory.due - now).total_seconds(), record["due_in_seconds"]))
    assert mismatches == []


def test_buttons_show_what_anki_shows_in_days() -> None:
    """Every button whose Anki label is whole days shows the same number of days."""
    differences = []
    for record, _memory, shown, _now in _replay():
        for rating, label in zip(Rating, record["shown"], strict=True):
            if label.endswith("d"):
                ours = format_interval(shown[rating])
                if ours != label:
                    differences.append((record["card"], record["at"], rating.name, ours, label))
    assert differences == []


@pytest.mark.parametrize("hour, minute", [(8, 0), (21, 30)])
def test_the_next_morning_is_the_next_study_day(hour: int, minute: int) -> None:
    """Again 21:00, Good 21:02, Good 21:13, then Good the next day at 08:00 or 21:30:
    Anki gives stability 2.15 and the same intervals both times, Easy showing 4d."""
    scheduler = _scheduler()
    day = datetime(2026, 4, 6, tzinfo=ZONE)
    memory = Memory(card_id=1)
    for rating, when in ((Rating.AGAIN, day + timedelta(hours=21)),
                         (Rating.GOOD, day + timedelta(hours=21, minutes=2)),
                         (Rating.GOOD, day + timedelta(hours=21, minutes=13))):
        memory = scheduler.review(memory, rating, when)
    nxt = day + timedelta(days=1, hours=hour, minutes=minute)
    shown = scheduler.preview(memory, nxt)
    assert [format_interval(shown[r]) for r in Rating] == ["10m", "1d", "2d", "4d"]
    after = scheduler.review(memory, Rating.GOOD, nxt)
    assert after.stability == pytest.approx(2.152, rel=0.005)
    assert after.due is not None and _days(scheduler, after.due, nxt) == 2
    record = next(r for r in DATA["reviews"]
                  if r["card"] == f"pair-{hour:02d}{minute:02d}" and r["at"].startswith(
                      "2026-04-07"))
    assert after.stability == pytest.approx(record["stability"], rel=0.01)


@pytest.mark.slow
def test_the_fixture_is_what_anki_records(tmp_path: Path) -> None:
    """The stored history is Anki's own, not a copy of our answers: recorded again with
    the installed ``anki`` package (under faketime, as make_anki_replay.py says), every
    review, button and stability comes out the same."""
    recorded = record_again("make_anki_replay.py", tmp_path, DATA["zone"], test_mode=True)
    assert recorded == stored(DATA)
