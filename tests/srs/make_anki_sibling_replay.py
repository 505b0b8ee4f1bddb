"""Record how Anki's load balancer keeps the cards of one note apart, for
``test_anki_siblings_balance.py``.

Run under faketime, as ``make_anki_fuzz_replay.py`` is (Anki takes "now" from
the system clock; without ANKI_TEST_MODE, so Anki fuzzes)::

    TZ=Europe/Madrid FAKETIME_NO_CACHE=1 FAKETIME="@2026-03-02 12:00:00" \\
    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \\
    python tests/srs/make_anki_sibling_replay.py \\
        tests/srs/data/anki_sibling_replay.json

The collection is the fuzz recorder's (FSRS on, studyapp's default parameters,
steps 1m 10m, relearning 10m, rollover 04:00, load balancing on, every
weekday normal) with "Basic (and reversed card)" notes, both cards of a note
learned at one sitting, and the preset burying review siblings (Anki then
passes the note to its balancer) but not new ones. A review whose sibling was
answered that day is buried by Anki and answered on a later day. Cards get
fixed ids (the fuzz seed), the cards of note k are 2k and 2k + 1.

Each answer is ``[card, minutes from the start, rating, due in days or null
for a learning step, the four buttons as Anki shows them]``.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from anki.collection import Collection
from anki_clock import clock_in
from make_anki_fuzz_replay import FIRST_ID, START, ZONE, Sitting, sitting_start

from studyapp.srs.scheduler import DEFAULT_PARAMETERS

DAYS = 90
ANCHOR_DAYS = 60
BATCHES = {0: 10, 1: 8, 3: 8, 6: 8, 10: 6, 15: 8, 22: 6, 30: 6, 45: 6, 60: 6}
"""Study day → notes (two cards each) learned together at that day's sitting."""


def main(out: Path) -> None:
    set_clock = clock_in(ZONE)

    set_clock(START - timedelta(hours=12))
    col = Collection(str(Path(tempfile.mkdtemp()) / "siblings.anki2"))
    col.set_config("rollover", 4)
    col.set_config("fsrs", True)
    col.load_balancer_enabled = True
    conf = col.decks.config_dict_for_deck_id(1)
    conf["fsrsParams6"] = list(DEFAULT_PARAMETERS)
    conf["desiredRetention"] = 0.9
    conf["new"].update(delays=[1.0, 10.0], perDay=9999, bury=False)
    conf["rev"].update(perDay=9999, maxIvl=36500, bury=True)
    conf["lapse"]["delays"] = [10.0]
    conf["buryInterdayLearning"] = False
    col.decks.save(conf)
    reversed_type = col.models.by_name("Basic (and reversed card)")
    basic = col.models.by_name("Basic")
    assert reversed_type is not None and basic is not None
    ids: list[int] = []
    for n in range(sum(BATCHES.values())):
        note = col.new_note(reversed_type)
        note["Front"], note["Back"] = f"front-{n}", f"back-{n}"
        col.add_note(note, 1)
        for ordinal, card_id in enumerate(note.card_ids()):
            fixed = FIRST_ID + (2 * n + ordinal) * 7919
            col.db.execute("update cards set id = ? where id = ?", fixed, card_id)
            ids.append(fixed)
    anchor_note = col.new_note(basic)
    anchor_note["Front"] = anchor_note["Back"] = "anchor"
    col.add_note(anchor_note, 1)
    anchor = anchor_note.card_ids()[0]
    col.sched.reposition_new_cards([*ids, anchor], starting_from=100000, step_size=1,
                                   randomize=False, shift_existing=False)
    set_clock(START + timedelta(hours=6))
    col.sched.set_due_date([anchor], str(ANCHOR_DAYS))

    rng = random.Random(26)
    learned = 0
    sitting = Sitting(col, ids, set_clock)
    records, answer = sitting.records, sitting.answer

    for day in range(DAYS):
        when = sitting_start(day, rng)
        set_clock(when)
        col.sched.get_queued_cards()  # a new day: Anki unburies yesterday's siblings
        today = col.sched.today
        due_cards = [i for i in range(learned) if col.get_card(ids[i]).queue == 2
                     and col.get_card(ids[i]).due <= today and rng.random() > 0.12]
        rng.shuffle(due_cards)
        fresh = list(range(learned, learned + 2 * BATCHES.get(day, 0)))
        learned += len(fresh)
        for index in due_cards:
            if col.get_card(ids[index]).queue != 2:  # buried by its sibling's answer
                continue
            answer(index, when, rng.choices([1, 2, 3, 4], weights=[1, 2, 6, 1])[0])
            when += timedelta(seconds=20)
        steps = [(when + timedelta(seconds=20 * n), i) for n, i in enumerate(fresh)]
        for index in due_cards:
            if col.get_card(ids[index]).queue == 1:
                steps.append((when, index))
        when = sitting.learn(steps, when, rng)
    col.close()
    head = json.dumps({
        "anki": __import__("anki.buildinfo").buildinfo.version,
        "zone": "Europe/Madrid", "start": START.isoformat(), "rollover_hour": 4,
        "parameters": list(DEFAULT_PARAMETERS), "desired_retention": 0.9,
        "learning_steps_s": [60, 600], "relearning_steps_s": [600],
        "card_ids": ids, "anchor": {"due_day": ANCHOR_DAYS}}, separators=(",", ":"))
    lines = ",\n".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False)
                       for r in records)
    out.write_text(head[:-1] + ',\n"answers":[\n' + lines + "\n]}\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
