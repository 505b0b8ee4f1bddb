"""Record how Anki schedules a small FSRS history, for ``test_anki_replay.py``.

Run under faketime, which moves the clock of Anki's backend to each review's
time (Anki takes "now" from the system clock)::

    TZ=Europe/Madrid ANKI_TEST_MODE=1 FAKETIME_NO_CACHE=1 \
    FAKETIME="@2026-03-02 12:00:00" \
    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \
    python tests/srs/make_anki_replay.py tests/srs/data/anki_replay.json

ANKI_TEST_MODE turns Anki's interval fuzz off. The collection has FSRS on,
studyapp's default parameters, learning steps 1m 10m, relearning 10m, the
day rolling over at 04:00 in the learner's time zone (TZ). The history is
fixed: the same file comes out every run.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from anki.collection import Collection
from anki.scheduler_pb2 import CardAnswer
from anki_clock import clock_in

from studyapp.srs.scheduler import DEFAULT_PARAMETERS

ZONE = ZoneInfo("Europe/Madrid")
START = datetime(2026, 4, 6, tzinfo=ZONE)  # a Monday, after the change to summer time
RATINGS = {1: CardAnswer.AGAIN, 2: CardAnswer.HARD, 3: CardAnswer.GOOD, 4: CardAnswer.EASY}


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return START + timedelta(days=day, hours=hour, minutes=minute)


def history() -> list[tuple[str, datetime, int]]:
    """(card, local time, rating): the pair of the 08:00 / 21:30 case, then varied cards."""
    reviews: list[tuple[str, datetime, int]] = []
    for name, hour, minute in (("pair-0800", 8, 0), ("pair-2130", 21, 30)):
        reviews += [(name, at(0, 21, 0), 1), (name, at(0, 21, 2), 3),
                    (name, at(0, 21, 13), 3), (name, at(1, hour, minute), 3)]
    rng = random.Random(24)
    hours = [(0, 30), (2, 15), (3, 50), (4, 10), (7, 0), (12, 0), (18, 45), (23, 40)]
    for n in range(24):
        name = f"card-{n}"
        day, (hour, minute) = rng.randrange(0, 3), rng.choice(hours)
        when = at(day, hour, minute)
        steps = 0
        while when < at(60, 0):
            rating = rng.choices([1, 2, 3, 4], weights=[2, 2, 6, 1])[0] if steps else 3
            reviews.append((name, when, rating))
            steps += 1
            if rating == 1 or (steps <= 2 and rng.random() < 0.5):
                when += timedelta(minutes=rng.choice([1, 10, 12, 30]))  # the same day
            else:
                gap = rng.choice([1, 1, 2, 3, 5, 8, 13])
                hour, minute = rng.choice(hours)
                base = (when - timedelta(hours=4)).date()
                when = datetime(base.year, base.month, base.day, tzinfo=ZONE) + \
                    timedelta(days=gap, hours=hour, minutes=minute)
                if hour < 4:  # 00:00-04:00 belongs to the study day before
                    when += timedelta(days=1)
    reviews.sort(key=lambda r: r[1])
    return reviews


def main(out: Path) -> None:
    set_clock = clock_in(ZONE)

    set_clock(START - timedelta(hours=12))  # the collection is made the day before
    folder = Path(tempfile.mkdtemp())
    col = Collection(str(folder / "replay.anki2"))
    col.set_config("rollover", 4)
    col.set_config("fsrs", True)
    col.load_balancer_enabled = False  # it moves due days within the fuzz range
    conf = col.decks.config_dict_for_deck_id(1)
    conf["fsrsParams6"] = list(DEFAULT_PARAMETERS)
    conf["desiredRetention"] = 0.9
    conf["new"]["delays"] = [1.0, 10.0]
    conf["lapse"]["delays"] = [10.0]
    conf["new"]["perDay"] = 9999
    conf["rev"]["perDay"] = 9999
    conf["rev"]["maxIvl"] = 36500
    col.decks.save(conf)
    model = col.models.by_name("Basic")
    assert model is not None
    cards: dict[str, int] = {}
    records = []
    for name, when, rating in history():
        if name not in cards:
            note = col.new_note(model)
            note["Front"], note["Back"] = name, name
            col.add_note(note, 1)
            cards[name] = note.card_ids()[0]
        set_clock(when)
        card = col.get_card(cards[name])
        card.start_timer()
        states = col._backend.get_scheduling_states(card.id)
        shown = col.sched.describe_next_states(states)
        options = []
        for option in (states.again, states.hard, states.good, states.easy):
            normal = option.normal
            which = normal.WhichOneof("kind")
            review = normal.review if which == "review" else (
                normal.relearning.review if which == "relearning" else None)
            options.append({"kind": which,
                            "days": review.scheduled_days if review is not None
                            and which == "review" else None,
                            "stability": getattr(normal, which).memory_state.stability
                            if which != "relearning" else
                            normal.relearning.learning.memory_state.stability})
        chosen = getattr(states, ("again", "hard", "good", "easy")[rating - 1])
        kind = chosen.normal.WhichOneof("kind")
        step_secs = None
        if kind == "learning":
            step_secs = chosen.normal.learning.scheduled_secs
        elif kind == "relearning":
            step_secs = chosen.normal.relearning.learning.scheduled_secs
        col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                     rating=RATINGS[rating]))
        card = col.get_card(cards[name])
        today = col.sched.today
        memory = card.memory_state
        due_day = card.due - today if card.queue == 2 else None  # a review: days from today
        if card.queue == 3:  # learning across days
            due_day = card.due - today
        records.append({
            "card": name, "at": when.isoformat(), "rating": rating,
            "shown": [s.replace("\u2068", "").replace("\u2069", "") for s in shown],
            "anki_today": today,
            "options": options,
            "stability": memory.stability if memory else None,
            "difficulty": memory.difficulty if memory else None,
            "queue": card.queue,  # 1 learning, 2 review, 3 learning across days
            "interval_days": card.ivl if card.queue == 2 else None,
            "due_in_days": due_day,
            # the step's length as Anki's scheduling states give it (card.due of a step
            # answered between midnight and the rollover is stored shifted)
            "due_in_seconds": step_secs if card.queue == 1 else None,
        })
    col.close()
    head = json.dumps({
        "anki": __import__("anki.buildinfo").buildinfo.version,
        "zone": "Europe/Madrid", "rollover_hour": 4,
        "parameters": list(DEFAULT_PARAMETERS), "desired_retention": 0.9,
        "learning_steps_s": [60, 600], "relearning_steps_s": [600]})
    lines = ",\n".join(json.dumps(r, separators=(",", ":")) for r in records)
    out.write_text(head[:-1] + ',\n"reviews": [\n' + lines + "\n]}\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
