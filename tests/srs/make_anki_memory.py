"""Record the memory states Anki works out from a review log, for ``test_anki_memory.py``.

Run under faketime, as ``make_anki_replay.py`` (Anki takes "now" from the
system clock)::

    TZ=Europe/Madrid ANKI_TEST_MODE=1 FAKETIME_NO_CACHE=1 \
    FAKETIME="@2026-03-02 12:00:00" \
    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \
    python tests/srs/make_anki_memory.py tests/srs/data/anki_memory.json

Sixty days with SM-2 (FSRS off): cards learnt and reviewed at varied hours,
one forgotten ("Forget") and learnt again, one given a due date, one crammed
in a filtered deck that does not reschedule, one reviewed early in one that
does, and two whose older log is deleted (an incomplete history). Then FSRS
is turned on in the deck options (studyapp's default parameters) and every
card's memory state is recorded ("sm2"). Forty more days with FSRS on, with
more of the same; then Anki's memory state from each card's whole log
(``compute_memory_state``), and again with "ignore reviews before" set.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from anki.collection import Collection
from anki.scheduler_pb2 import CardAnswer
from anki_clock import clock_in

from studyapp.srs.scheduler import DEFAULT_PARAMETERS

ZONE = ZoneInfo("Europe/Madrid")
START = datetime(2026, 4, 6, tzinfo=ZONE)
RATINGS = {1: CardAnswer.AGAIN, 2: CardAnswer.HARD, 3: CardAnswer.GOOD, 4: CardAnswer.EASY}
SWITCH_DAY = 60  # FSRS turned on
END_DAY = 100
IGNORE_BEFORE = "2026-05-20"  # "ignore reviews before", after the switch to FSRS
NAMES = ["plain-0", "plain-1", "plain-2", "plain-3", "forget", "set-due", "cram", "early",
         "truncated-0", "truncated-1", "forget-fsrs", "cram-fsrs"]


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return START + timedelta(days=day, hours=hour, minutes=minute)


def timeline() -> list[tuple[datetime, str, str, int]]:
    """(local time, card, action, rating): 'answer', 'forget', 'due', 'cram', 'early'."""
    rng = random.Random(31)
    events: list[tuple[datetime, str, str, int]] = []
    hours = [(0, 40), (3, 30), (7, 15), (12, 0), (19, 30), (23, 10)]
    for n, name in enumerate(NAMES):
        when = at(n % 3, 9 + n, 5)
        steps = 0
        while when < at(END_DAY - 1, 0):
            rating = rng.choices([1, 2, 3, 4], weights=[2, 2, 6, 1])[0] if steps > 2 else 3
            events.append((when, name, "answer", rating))
            steps += 1
            if steps <= 2:
                when += timedelta(minutes=rng.choice([1, 10, 12]))
            elif rating == 1:
                when += timedelta(minutes=12)
            else:
                gap = rng.choice([1, 2, 3, 5, 8, 13])
                hour, minute = rng.choice(hours)
                base = (when - timedelta(hours=4)).date()
                when = datetime(base.year, base.month, base.day, tzinfo=ZONE) + \
                    timedelta(days=gap, hours=hour, minutes=minute)
                if hour < 4:
                    when += timedelta(days=1)
    specials = [(at(20, 10), "forget", "forget", 0), (at(20, 10, 5), "forget", "answer", 3),
                (at(20, 10, 10), "forget", "answer", 3), (at(25, 18), "set-due", "due", 0),
                (at(30, 20), "cram", "cram", 1), (at(30, 20, 2), "cram", "cram", 3),
                (at(33, 11), "early", "early", 3),
                (at(70, 10), "forget-fsrs", "forget", 0),
                (at(70, 10, 5), "forget-fsrs", "answer", 1),
                (at(70, 10, 15), "forget-fsrs", "answer", 3),
                (at(75, 20), "cram-fsrs", "cram", 1), (at(75, 20, 2), "cram-fsrs", "cram", 4),
                (at(80, 9), "set-due", "due", 0), (at(82, 9), "early", "early", 4)]
    events += specials
    events.sort(key=lambda e: e[0])
    return events


def _revlog(col: Collection, cid: int) -> list[list[int]]:
    """(id, type, ease, factor, ivl, lastIvl); the id (a time in milliseconds) to the
    second, as the recorder sets the clock: the milliseconds are its own delay."""
    return [[row[0] // 1000 * 1000, *row[1:]] for row in col.db.all(
        "select id, type, ease, factor, ivl, lastIvl from revlog where cid = ? order by id",
        cid)]


def _filtered(col: Collection, name: str, search: str, reschedule: bool) -> int:
    deck = col.sched.get_or_create_filtered_deck(0)
    deck.name = name
    deck.config.reschedule = reschedule
    del deck.config.search_terms[:]
    term = deck.config.search_terms.add()
    term.search, term.limit = search, 10
    return col.sched.add_or_update_filtered_deck(deck).id


def _fsrs_on(col: Collection, ignore_before: str = "") -> None:
    """FSRS switched on (or its options saved again) in the deck options screen."""
    update = col.decks.get_deck_configs_for_update(1)
    config = update.all_config[0].config
    config.config.fsrs_params_6[:] = list(DEFAULT_PARAMETERS)
    config.config.desired_retention = 0.9
    config.config.ignore_revlogs_before_date = ignore_before
    col._backend.update_deck_configs(
        target_deck_id=1, configs=[config], removed_config_ids=[], mode=0,
        card_state_customizer="", limits=update.current_deck.limits,
        new_cards_ignore_review_limit=False, fsrs=True, apply_all_parent_limits=False,
        fsrs_reschedule=False, fsrs_health_check=False)


def _states(col: Collection, cards: dict[str, int]) -> dict[str, Any]:
    out = {}
    for name, cid in cards.items():
        card = col.get_card(cid)
        memory = card.memory_state
        out[name] = None if memory is None else [memory.stability, memory.difficulty]
    return out


def _computed(col: Collection, cards: dict[str, int]) -> dict[str, Any]:
    out = {}
    for name, cid in cards.items():
        found = col._backend.compute_memory_state(cid)
        out[name] = [found.state.stability, found.state.difficulty] \
            if found.HasField("state") else None
    return out


def main(out: Path) -> None:
    set_clock = clock_in(ZONE)

    set_clock(START - timedelta(hours=12))
    folder = Path(tempfile.mkdtemp())
    col = Collection(str(folder / "memory.anki2"))
    col.set_config("rollover", 4)
    col.load_balancer_enabled = False
    conf = col.decks.config_dict_for_deck_id(1)
    conf["new"]["delays"] = [1.0, 10.0]
    conf["lapse"]["delays"] = [10.0]
    conf["new"]["perDay"] = 9999
    conf["rev"]["perDay"] = 9999
    col.decks.save(conf)
    model = col.models.by_name("Basic")
    assert model is not None
    cards: dict[str, int] = {}
    for name in NAMES:
        note = col.new_note(model)
        note["Front"], note["Back"] = name, name
        col.add_note(note, 1)
        cards[name] = note.card_ids()[0]
    record: dict[str, Any] = {}
    switched = False
    for when, name, action, rating in timeline():
        if not switched and when >= at(SWITCH_DAY, 0):
            set_clock(at(SWITCH_DAY, 0) - timedelta(hours=12))
            # an incomplete history: the log before day 40 of these two is gone
            cut = int(at(40, 0).timestamp() * 1000)
            for lost in ("truncated-0", "truncated-1"):
                col.db.execute("delete from revlog where cid = ? and id < ?", cards[lost], cut)
            _fsrs_on(col)
            record["switched_at"] = int(time.time()) * 1000
            record["sm2"] = _states(col, cards)
            record["sm2_revlog"] = {n: _revlog(col, c) for n, c in cards.items()}
            record["sm2_cards"] = {n: [col.get_card(c).ivl, col.get_card(c).factor]
                                   for n, c in cards.items()}
            switched = True
        set_clock(when)
        cid = cards[name]
        if action == "forget":
            col.sched.schedule_cards_as_new([cid], restore_position=True, reset_counts=False)
            continue
        if action == "due":
            col.sched.set_due_date([cid], "3")
            continue
        deck = None
        if action in ("cram", "early"):
            deck = _filtered(col, f"f-{name}-{when.day}", f'"front:{name}"', action == "early")
        card = col.get_card(cid)
        card.start_timer()
        states = col._backend.get_scheduling_states(card.id)
        col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                     rating=RATINGS[rating]))
        if deck is not None:
            col.sched.empty_filtered_deck(deck)
            col.decks.remove([deck])
    set_clock(at(END_DAY, 12))
    record["revlog"] = {n: _revlog(col, c) for n, c in cards.items()}
    record["cards"] = {n: [col.get_card(c).ivl, col.get_card(c).factor]
                       for n, c in cards.items()}
    record["computed"] = _computed(col, cards)
    _fsrs_on(col, IGNORE_BEFORE)
    record["ignore_before"] = IGNORE_BEFORE
    record["computed_ignoring"] = _computed(col, cards)
    record["now"] = int(time.time()) * 1000
    col.close()
    head = {"anki": __import__("anki.buildinfo").buildinfo.version, "zone": "Europe/Madrid",
            "rollover_hour": 4, "parameters": list(DEFAULT_PARAMETERS),
            "desired_retention": 0.9, "learning_steps_s": [60, 600],
            "relearning_steps_s": [600], **record}
    out.write_text(json.dumps(head, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
