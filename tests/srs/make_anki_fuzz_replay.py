"""Record how Anki schedules five months of study with fuzz, load balancing and easy days on,
for ``test_anki_fuzz.py``.

Run under faketime, which moves the clock of Anki's backend to each answer's
time (Anki takes "now" from the system clock); without ANKI_TEST_MODE, so
Anki fuzzes::

    TZ=Europe/Madrid FAKETIME_NO_CACHE=1 FAKETIME="@2026-03-02 12:00:00" \\
    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \\
    python tests/srs/make_anki_fuzz_replay.py tests/srs/data/anki_fuzz_replay.json

The collection has FSRS on, studyapp's default parameters, learning steps
1m 10m, relearning 10m, the day rolling over at 04:00, load balancing on and
Saturday's easy day "reduced". Cards get fixed ids (Anki seeds fuzz from
them), new cards wait at position 100000 on (Anki's balancer counts every
card whose due number falls in the next 99 days, a new card's position too),
and one review card is due on day 60 from the start, so Anki's balancer has
something to count from the first answer. Before each answer the study
queues are rebuilt, so the balancer counts the reviews as stored. Sittings
never reach 03:30, so no learning step crosses the rollover. Cards are
learned in batches at one sitting (learned together), answered on their due
day or a little late, with varied ratings; the same file comes out every run.

Each answer is ``[card, minutes from the start, rating, due in days or null
for a learning step, the four buttons as Anki shows them]``.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from anki.collection import Collection
from anki.scheduler_pb2 import CardAnswer
from anki_clock import clock_in

from studyapp.srs.scheduler import DEFAULT_PARAMETERS

ZONE = ZoneInfo("Europe/Madrid")
START = datetime(2026, 4, 6, tzinfo=ZONE)  # a Monday, study day 0
DAYS = 150
FIRST_ID = 1_775_000_000_000
EASY_DAYS = [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 1.0]  # Saturday reduced
ANCHOR_DAYS = 60
RATINGS = {1: CardAnswer.AGAIN, 2: CardAnswer.HARD, 3: CardAnswer.GOOD, 4: CardAnswer.EASY}
HOURS = [(0, 30), (2, 15), (7, 0), (8, 40), (12, 0), (15, 20), (18, 45), (21, 30), (23, 40)]
BATCHES = {0: 24, 1: 16, 2: 12, 4: 12, 7: 16, 11: 10, 16: 14, 23: 12, 30: 12, 45: 10,
           60: 10, 80: 8, 95: 10, 110: 10, 125: 8}
"""Study day → new cards learned together at that day's sitting."""


def sitting_start(day: int, rng: random.Random) -> datetime:
    hour, minute = rng.choice(HOURS)
    when = START + timedelta(days=day, hours=hour, minutes=minute)
    return when + timedelta(days=1) if hour < 4 else when  # after midnight: the day before's


@dataclass
class Sitting:
    """Answers given in Anki at a set clock time, each recorded as [card index, minutes
    since START, rating, due day from today or None, the buttons' intervals shown]."""

    col: Collection
    ids: list[int]
    set_clock: Callable[[datetime], None]
    records: list[list[object]] = field(default_factory=list)

    def rebuild_queues(self) -> None:
        self.col.load_balancer_enabled = False  # a toggle drops the study queues
        self.col.load_balancer_enabled = True

    def answer(self, index: int, when: datetime, rating: int) -> None:
        col = self.col
        self.set_clock(when)
        self.rebuild_queues()
        col.sched.get_queued_cards()  # and the balancer, from the cards as stored
        card = col.get_card(self.ids[index])
        card.start_timer()
        states = col._backend.get_scheduling_states(card.id)
        shown = [s.replace("\u2068", "").replace("\u2069", "")
                 for s in col.sched.describe_next_states(states)]
        self.rebuild_queues()  # answered off the queue (it is not at its top)
        col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                     rating=RATINGS[rating]))
        card = col.get_card(self.ids[index])
        assert card.queue in (1, 2), "no learning step may cross the rollover"
        due = card.due - col.sched.today if card.queue == 2 else None
        minutes = int((when - START).total_seconds() // 60)
        self.records.append([index, minutes, rating, due, shown])

    def learn(self, steps: list[tuple[datetime, int]], when: datetime,
              rng: random.Random) -> datetime:
        """Answer learning and relearning steps, each at its due time (or when the sitting
        gets to it), until none is left today; when the sitting ends."""
        while steps:
            steps.sort()
            at, index = steps.pop(0)
            at = max(at, when)
            self.answer(index, at, rng.choices([1, 2, 3, 4], weights=[2, 2, 5, 1])[0])
            when = at + timedelta(seconds=30)
            card = self.col.get_card(self.ids[index])
            if card.queue == 1:
                steps.append((datetime.fromtimestamp(card.due, ZONE), index))
        return when


def main(out: Path) -> None:
    set_clock = clock_in(ZONE)

    set_clock(START - timedelta(hours=12))  # the collection is made the day before
    col = Collection(str(Path(tempfile.mkdtemp()) / "fuzz.anki2"))
    col.set_config("rollover", 4)
    col.set_config("fsrs", True)
    col.load_balancer_enabled = True
    conf = col.decks.config_dict_for_deck_id(1)
    conf["fsrsParams6"] = list(DEFAULT_PARAMETERS)
    conf["desiredRetention"] = 0.9
    conf["new"]["delays"] = [1.0, 10.0]
    conf["lapse"]["delays"] = [10.0]
    conf["new"]["perDay"] = 9999
    conf["rev"]["perDay"] = 9999
    conf["rev"]["maxIvl"] = 36500
    conf["easyDaysPercentages"] = EASY_DAYS
    col.decks.save(conf)
    model = col.models.by_name("Basic")
    assert model is not None
    total = sum(BATCHES.values()) + 1
    ids = []
    for n in range(total):
        note = col.new_note(model)
        note["Front"] = note["Back"] = f"card-{n}"
        col.add_note(note, 1)
        card_id = FIRST_ID + n * 7919
        col.db.execute("update cards set id = ? where id = ?", card_id, note.card_ids()[0])
        ids.append(card_id)
    col.sched.reposition_new_cards(ids, starting_from=100000, step_size=1, randomize=False,
                                   shift_existing=False)
    anchor = ids.pop()  # the last card: a review due on day 60, never answered
    set_clock(START + timedelta(hours=6))
    col.sched.set_due_date([anchor], str(ANCHOR_DAYS))
    anchor_today = col.sched.today
    assert col.get_card(anchor).due == anchor_today + ANCHOR_DAYS

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
        fresh = list(range(learned, learned + BATCHES.get(day, 0)))
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
        "easy_days": ["normal" if d == 1.0 else "minimum" if d == 0.0 else "reduced"
                      for d in EASY_DAYS],
        "card_ids": ids, "anchor": {"card_id": anchor, "due_day": ANCHOR_DAYS}},
        separators=(",", ":"))
    lines = ",\n".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False)
                       for r in records)
    out.write_text(head[:-1] + ',\n"answers":[\n' + lines + "\n]}\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
