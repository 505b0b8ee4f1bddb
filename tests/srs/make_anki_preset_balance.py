"""Record how Anki's load balancer weighs each preset's cards apart, for
``test_anki_preset_balance.py``.

Run under faketime, as ``make_anki_fuzz_replay.py`` is (without ANKI_TEST_MODE,
so Anki fuzzes)::

    TZ=Europe/Madrid FAKETIME_NO_CACHE=1 FAKETIME="@2026-03-02 12:00:00" \\
    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \\
    python tests/srs/make_anki_preset_balance.py \\
        tests/srs/data/anki_preset_balance.json

The fuzz recorder's collection (FSRS on, studyapp's default parameters, steps
1m 10m, relearning 10m, rollover 04:00, load balancing on, weekdays normal)
with three decks: "Alpha" on preset "A", "Beta" and "Gamma" both on preset
"B", Basic notes, siblings not buried, and no card due before the first
answers: Anki's balancer counts only the cards of the answered card's preset,
and fuzz alone places a card whose preset has none due in its window.

Each answer is ``[card, minutes from the start, rating, due in days or null
for a learning step, the four buttons as Anki shows them]``; ``decks`` gives
each card's deck, ``presets`` each deck's preset.
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

DAYS = 70
PRESETS = {"Alpha": "A", "Beta": "B", "Gamma": "B"}
BATCHES = {0: ("Alpha", 6), 2: ("Beta", 8), 3: ("Alpha", 8), 5: ("Gamma", 8),
           9: ("Beta", 8), 14: ("Gamma", 8), 20: ("Alpha", 8), 28: ("Beta", 6),
           36: ("Gamma", 6), 45: ("Alpha", 6)}
"""Study day → (deck, cards) learned together at that day's sitting."""


def main(out: Path) -> None:
    set_clock = clock_in(ZONE)

    set_clock(START - timedelta(hours=12))
    col = Collection(str(Path(tempfile.mkdtemp()) / "presets.anki2"))
    col.set_config("rollover", 4)
    col.set_config("fsrs", True)
    col.load_balancer_enabled = True
    preset_ids = {}
    for name in sorted(set(PRESETS.values())):
        conf = col.decks.get_config(col.decks.add_config_returning_id(name))
        conf["fsrsParams6"] = list(DEFAULT_PARAMETERS)
        conf["desiredRetention"] = 0.9
        conf["new"].update(delays=[1.0, 10.0], perDay=9999, bury=False)
        conf["rev"].update(perDay=9999, maxIvl=36500, bury=False)
        conf["lapse"]["delays"] = [10.0]
        conf["buryInterdayLearning"] = False
        col.decks.update_config(conf)
        preset_ids[name] = conf["id"]
    deck_ids = {}
    for deck_name, preset in PRESETS.items():
        deck_ids[deck_name] = col.decks.id(deck_name)
        deck = col.decks.get(deck_ids[deck_name])
        deck["conf"] = preset_ids[preset]
        col.decks.save(deck)
    basic = col.models.by_name("Basic")
    assert basic is not None
    ids: list[int] = []
    decks: list[str] = []
    for day in sorted(BATCHES):
        deck_name, count = BATCHES[day]
        for _ in range(count):
            note = col.new_note(basic)
            note["Front"] = note["Back"] = f"card-{len(ids)}"
            col.add_note(note, deck_ids[deck_name])
            fixed = FIRST_ID + len(ids) * 7919
            col.db.execute("update cards set id = ? where id = ?", fixed, note.card_ids()[0])
            ids.append(fixed)
            decks.append(deck_name)
    col.sched.reposition_new_cards(ids, starting_from=100000, step_size=1, randomize=False,
                                   shift_existing=False)

    rng = random.Random(26)
    learned = 0
    sitting = Sitting(col, ids, set_clock)
    records, answer = sitting.records, sitting.answer

    for day in range(DAYS):
        when = sitting_start(day, rng)
        set_clock(when)
        today = col.sched.today
        due_cards = [i for i in range(learned) if col.get_card(ids[i]).queue == 2
                     and col.get_card(ids[i]).due <= today and rng.random() > 0.12]
        rng.shuffle(due_cards)
        fresh = list(range(learned, learned + BATCHES.get(day, ("", 0))[1]))
        learned += len(fresh)
        for index in due_cards:
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
        "card_ids": ids, "decks": decks, "presets": PRESETS}, separators=(",", ":"))
    lines = ",\n".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False)
                       for r in records)
    out.write_text(head[:-1] + ',\n"answers":[\n' + lines + "\n]}\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
