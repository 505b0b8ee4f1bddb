"""Memory states from a review log, against the ones Anki works out from the same log.

``data/anki_memory.json`` was recorded with the ``anki`` package (26.x) by
``make_anki_memory.py``: twelve cards answered with SM-2 for sixty days (one
forgotten and learnt again, one given a due date, one crammed in a filtered
deck that does not reschedule, one reviewed early in one that does, two whose
older log was deleted), FSRS then turned on in the deck options, forty more
days with FSRS, then Anki's memory state from each card's whole log, and again
with "ignore reviews before". studyapp reads each log through the functions
the import and ``optimize`` use; stability and difficulty agree within 1%.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from anki_recording import record_again, stored

from studyapp.anki.anki_collection import AnkiCard, AnkiReview
from studyapp.anki.anki_history import revlog_entries, sm2_memory
from studyapp.srs import Memory, Rating, Scheduler, SchedulerSettings
from studyapp.srs.revlog import ignore_before_moment, replay

DATA = json.loads((Path(__file__).parent / "data" / "anki_memory.json").read_text())
ZONE = ZoneInfo(DATA["zone"])


def _scheduler() -> Scheduler:
    settings = SchedulerSettings(
        parameters=tuple(DATA["parameters"]), desired_retention=DATA["desired_retention"],
        learning_steps_s=tuple(DATA["learning_steps_s"]),
        relearning_steps_s=tuple(DATA["relearning_steps_s"]),
        day_rollover_hour=DATA["rollover_hour"])
    return Scheduler(settings, zone=ZONE)


def _logs(rows: list[list[int]]) -> list[AnkiReview]:
    return [AnkiReview(id=r[0], card_id=1, ease=r[2], interval=r[4], last_interval=r[5],
                       factor=r[3], time_ms=0, type=r[1]) for r in rows]


def _card(interval: int, factor: int) -> AnkiCard:
    return AnkiCard(id=1, note_id=1, deck_id=1, ordinal=0, type=2, queue=2, due=0,
                    interval=interval, factor=factor, reps=0, lapses=0, data="")


def _close(ours: tuple[float, float] | None, anki: list[float] | None) -> bool:
    if ours is None or anki is None:
        return ours is None and anki is None
    return ours[0] == pytest.approx(anki[0], rel=0.01) and \
        ours[1] == pytest.approx(anki[1], rel=0.01)


def _memory(memory: Memory | None) -> tuple[float, float] | None:
    if memory is None or memory.stability is None or memory.difficulty is None:
        return None
    return memory.stability, memory.difficulty


def test_the_fixture_covers_forget_cram_set_due_and_incomplete_logs() -> None:
    kinds = {(row[1], row[3] == 0) for rows in DATA["revlog"].values() for row in rows}
    assert (4, True) in kinds  # Forget: manual, ease factor 0
    assert (4, False) in kinds  # Set due date: manual, ease factor kept
    assert (3, True) in kinds  # cram: filtered deck without rescheduling
    assert (3, False) in kinds  # early review in a rescheduling filtered deck
    assert all(row[1] != 0 for row in DATA["sm2_revlog"]["truncated-0"])  # no learning left


def test_sm2_cards_get_the_memory_state_anki_gives_them_when_fsrs_is_turned_on() -> None:
    """An SM-2 history imported from Anki: the import's memory state is Anki's on the day
    FSRS was turned on, incomplete logs starting from memory_state_from_sm2."""
    scheduler = _scheduler()
    for name, anki in DATA["sm2"].items():
        ours = sm2_memory(_card(*DATA["sm2_cards"][name]), _logs(DATA["sm2_revlog"][name]),
                          scheduler)
        assert _close(ours, anki), (name, ours, anki)
    # the old import (stability = interval, difficulty 5) is far off on most cards
    far = [name for name, anki in DATA["sm2"].items()
           if abs(max(DATA["sm2_cards"][name][0], 1) / anki[0] - 1) > 0.2]
    assert len(far) >= 8


def test_forget_cram_and_set_due_date_are_left_out_as_anki_leaves_them_out() -> None:
    scheduler = _scheduler()
    for name, anki in DATA["computed"].items():
        ours = _memory(replay(scheduler, 1, revlog_entries(_logs(DATA["revlog"][name]))))
        assert _close(ours, anki), (name, ours, anki)


def _every_answer(rows: list[list[int]]) -> float:
    """Stability when every rated entry is replayed, as studyapp once did."""
    scheduler, memory = _scheduler(), Memory(card_id=1)
    for row in rows:
        if 1 <= row[2] <= 4:
            memory = scheduler.review(memory, Rating(row[2]),
                                      datetime.fromtimestamp(row[0] / 1000, UTC))
    assert memory.stability is not None
    return memory.stability


@pytest.mark.parametrize(("state", "log", "name"), [
    ("sm2", "sm2_revlog", "forget"), ("sm2", "sm2_revlog", "cram"),
    ("computed", "revlog", "forget-fsrs"), ("computed", "revlog", "cram-fsrs")])
def test_replaying_every_answer_would_be_wrong_on_these_cards(state: str, log: str,
                                                              name: str) -> None:
    """The fixture can tell: replaying cram answers and what came before a Forget misses
    Anki's stability by more than 10% on each of these cards (a few lapses later the
    states converge again)."""
    anki = DATA[state][name][0]
    assert abs(_every_answer(DATA[log][name]) / anki - 1) > 0.1


def test_ignore_reviews_before_cuts_the_log_where_anki_cuts_it() -> None:
    scheduler = _scheduler()
    cut = ignore_before_moment(date.fromisoformat(DATA["ignore_before"]))
    assert cut == datetime(2026, 5, 20, tzinfo=UTC)  # midnight UTC, as params.rs parses it
    differ = 0
    for name, anki in DATA["computed_ignoring"].items():
        ours = _memory(replay(scheduler, 1, revlog_entries(_logs(DATA["revlog"][name])),
                              ignore_before=cut))
        assert _close(ours, anki), (name, ours, anki)
        differ += not _close(ours, DATA["computed"][name])
    assert differ >= 6  # the cut changes most cards' states


@pytest.mark.slow
def test_the_fixture_is_what_anki_records(tmp_path: Path) -> None:
    """Recorded again with the installed ``anki`` package (under faketime, as
    make_anki_memory.py says), the same log and the same memory states come out."""
    recorded = record_again("make_anki_memory.py", tmp_path, DATA["zone"], test_mode=True)
    assert recorded == stored(DATA)
