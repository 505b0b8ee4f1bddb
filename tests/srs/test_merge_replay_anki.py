"""Merging two copies of a profile replays each card's log as Anki's FSRS reads it.

``data/anki_memory.json`` (``make_anki_memory.py``, recorded with the ``anki``
package 26.x) holds logs with a Forget, a Set due date, cram answers in a
filtered deck that does not reschedule and early reviews in one that does, and
the memory state Anki works out from each whole log (and from the part after
"ignore reviews before"). The logs come into a profile in two halves, as two
copies of one profile merge: the second import replays every card that gained
answers, and must land on Anki's state, not on one that counts cram answers
or what a Forget cut off.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from studyapp.progress.profile_files import answer_replay
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store import open_store
from studyapp.store.progress import card_states, ensure_profile
from studyapp.store.progress_files import Export, import_progress, validate_record

DATA = json.loads((Path(__file__).parent / "data" / "anki_memory.json").read_text())
ZONE = ZoneInfo(DATA["zone"])
ANSWERS = (0, 1, 2, 3)  # revlog types of an answer: learning, review, relearning, filtered
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _settings(ignore_before: str | None = None) -> SchedulerSettings:
    return SchedulerSettings(
        parameters=tuple(DATA["parameters"]), desired_retention=DATA["desired_retention"],
        learning_steps_s=tuple(DATA["learning_steps_s"]),
        relearning_steps_s=tuple(DATA["relearning_steps_s"]),
        day_rollover_hour=DATA["rollover_hour"], ignore_reviews_before=ignore_before)


def _moment(row: list[int]) -> datetime:
    return datetime.fromtimestamp(row[0] / 1000, UTC)


def _export(name: str, rows: list[list[int]]) -> Export:
    """A card's Anki log (revlog rows: id, type, ease, factor, ivl, lastIvl) as a profile
    export holds it: answers with their Anki entry, Forget and Set due date as changes."""
    export = Export()
    for row in rows:
        kind, ease = row[1], row[2]
        if kind in ANSWERS and 1 <= ease <= 4:
            export.reviews.append(validate_record("review", {
                "uid": f"anki-{name}-{row[0]}", "deck_id": "memory", "card_key": name,
                "reviewed_at": _moment(row), "rating": ease, "correct": ease > 1,
                "anki": {"type": kind, "factor": row[3], "ivl": row[4]}}, name))
        elif kind in (4, 5):
            export.schedule_changes.append(validate_record("change", {
                "uid": f"anki-{name}-{row[0]}", "deck_id": "memory", "card_key": name,
                "changed_at": _moment(row), "kind": kind, "factor": row[3],
                "interval": row[4]}, name))
    last = export.reviews[-1]["reviewed_at"]
    export.cards.append(validate_record("card", {
        "deck_id": "memory", "card_key": name, "post": "intro", "stage": 2, "due": last,
        "last_review": last, "stability": 1.0, "difficulty": 5.0, "reps": len(export.reviews),
        "created_at": _moment(rows[0])}, name))
    return export


def _first_half(export: Export) -> Export:
    """The copy of the profile that stopped half-way through the log."""
    half = len(export.reviews) // 2
    cut = export.reviews[half - 1]["reviewed_at"]
    return Export(cards=[{**export.cards[0], "last_review": cut, "due": cut}],
                  reviews=export.reviews[:half],
                  schedule_changes=[c for c in export.schedule_changes
                                    if c["changed_at"] <= cut])


@pytest.mark.parametrize(("ignore_before", "expected"), [
    (None, "computed"), (DATA["ignore_before"], "computed_ignoring")])
def test_a_merge_replays_each_log_to_the_state_anki_gives_it(
        tmp_path: Path, ignore_before: str | None, expected: str) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'merge.sqlite3'}")
    try:
        profile = ensure_profile(store, "ana", {}, T0).id
        replay = answer_replay(_settings(ignore_before), ZONE)
        replayed = 0
        for name in DATA[expected]:
            export = _export(name, DATA["revlog"][name])
            import_progress(store, profile, _first_half(export))
            replayed += import_progress(store, profile, export, replay).cards_replayed
        states = card_states(store, profile)
        for name, (stability, difficulty) in DATA[expected].items():
            row = states["memory", name]
            assert row.stability == pytest.approx(stability, rel=0.01), name
            assert row.difficulty == pytest.approx(difficulty, rel=0.01), name
        assert replayed == len(DATA[expected])
    finally:
        store.close()


def test_the_fixture_holds_the_cards_a_replay_of_every_answer_gets_wrong() -> None:
    logs: dict[str, Any] = DATA["revlog"]
    crammed = {name for name, rows in logs.items()
               if any(r[1] == 3 and r[3] == 0 for r in rows)}
    forgotten = {name for name, rows in logs.items()
                 if any(r[1] == 4 and r[3] == 0 for r in rows)}
    assert {"cram-fsrs", "cram"} <= crammed and {"forget-fsrs", "forget"} <= forgotten
