"""Record a collection studied in Anki over twelve days, for ``test_anki_history.py``.

Run under faketime, which moves the clock of Anki's backend (Anki takes "now"
from the system clock) through the days; summer time ends on the fourth::

    echo "@2026-10-21 09:00:00" > /tmp/anki-clock
    TZ=Europe/Madrid FAKETIME_NO_CACHE=1 FAKETIME_TIMESTAMP_FILE=/tmp/anki-clock \\
    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \\
    python tests/anki/make_anki_history.py /tmp/anki-clock tests/anki/data

It writes the same collection three times: ``studied-days.apkg`` (exported
with scheduling, "Support older Anki versions" ticked),
``studied-days-anki21b.apkg`` and ``studied-days-anki21b.colpkg`` (Anki's
current format, its default), and ``studied-days.json``: what Anki shows for
every card at the end (its stage, memory state, counts, and the local day it
is due on, from Anki's own card info).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from zoneinfo import ZoneInfo

from anki.collection import Collection, ExportAnkiPackageOptions
from anki.scheduler_pb2 import CardAnswer
from anki_fixtures import PNG
from anki_fixtures import add as add_note

ZONE = ZoneInfo("Europe/Madrid")
START = datetime(2026, 10, 21, 9, 0, tzinfo=ZONE)  # summer time ends on 25 October
RATINGS = {1: CardAnswer.AGAIN, 2: CardAnswer.HARD, 3: CardAnswer.GOOD, 4: CardAnswer.EASY}
PATTERN = [3, 3, 1, 3, 4, 2, 3, 3, 1, 3, 3, 4, 3, 2, 3]


def main(clock: Path, out: Path) -> None:
    def set_clock(moment: datetime) -> None:
        clock.write_text(moment.astimezone(ZONE).strftime("@%Y-%m-%d %H:%M:%S") + "\n")
        time.sleep(0.02)

    set_clock(START)
    col = Collection(str(Path(tempfile.mkdtemp()) / "studied.anki2"))
    col.set_config("rollover", 4)
    col.set_config("fsrs", True)
    col.load_balancer_enabled = False
    conf = col.decks.config_dict_for_deck_id(1)
    conf["new"]["perDay"] = conf["rev"]["perDay"] = 100
    col.decks.save(conf)
    col.media.write_data("h100.png", PNG)

    add = partial(add_note, col)

    add("Basic", "Infra::Memory", "memory hbm", Front="Which memory does the H200 use?",
        Back="HBM3e")
    add("Basic", "Infra::Memory", "memory", Front="HBM capacity of one H100 SXM", Back="80 GB")
    add("Basic (type in the answer)", "Infra::Network", "network",
        Front="Per-direction NVLink 4 bandwidth per H100", Back="450 GB/s")
    add("Cloze", "Infra::Network", "network",
        Text="{{c1::NVLink {{c2::4}}}} links the GPUs of an HGX H100",
        Back_Extra="900 GB/s both directions")
    add("Basic", "Infra", "gpu::h100", Front='Which GPU is this? <img src="h100.png">',
        Back="H100")
    add("Basic", "Infra", "", Front="The three axes of parallelism",
        Back="<ul><li>data</li><li>tensor</li><li>pipeline</li></ul>")
    add("Basic", "Infra::Memory", "", Front="KV cache per token (GQA)",
        Back="2 &middot; layers &middot; kv<sub>heads</sub> &middot; head<sub>dim</sub>")
    col.decks.select(col.decks.id("Infra"))
    answered = 0
    moment = START
    for day in range(12):
        moment = START + timedelta(days=day)
        while moment.hour < 20:
            set_clock(moment)
            card = col.sched.getCard()
            if card is None:  # learning steps later today
                moment += timedelta(minutes=11)
                continue
            card.start_timer()
            states = col._backend.get_scheduling_states(card.id)
            rating = RATINGS[PATTERN[answered % len(PATTERN)]]
            col.sched.answer_card(col.sched.build_answer(card=card, states=states, rating=rating))
            answered += 1
            moment += timedelta(seconds=20)
    # the last day: a new card left in learning, one suspended, one flagged
    late = add("Basic", "Infra::Memory", "", Front="HBM3e bandwidth of the H200",
               Back="4.8 TB/s")
    set_clock(moment + timedelta(minutes=5))
    card = col.get_card(late.card_ids()[0])  # type: ignore[attr-defined]
    card.start_timer()
    states = col._backend.get_scheduling_states(card.id)
    col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                 rating=CardAnswer.GOOD))
    col.sched.suspend_cards([col.find_cards('"deck:Infra::Memory" KV')[0]])
    col.set_user_flag_for_cards(2, [col.find_cards("tag:hbm")[0]])
    cards = {}
    for card_id in col.find_cards(""):
        card = col.get_card(card_id)
        stats = col.card_stats_data(card_id)
        due_at = stats.due_date if stats.HasField("due_date") else None
        cards[f"{card.nid}:{card.ord}"] = {
            "type": card.type, "queue": card.queue, "due": card.due,
            "stability": card.memory_state.stability if card.memory_state else None,
            "difficulty": card.memory_state.difficulty if card.memory_state else None,
            "reps": card.reps, "lapses": card.lapses, "flag": card.user_flag(),
            # Anki's card info: the local day a review is due on
            "due_day": datetime.fromtimestamp(due_at, ZONE).date().isoformat()
            if due_at is not None else None,
        }
    view = {"anki": __import__("anki.buildinfo").buildinfo.version, "zone": "Europe/Madrid",
            "crt": col.crt, "today": col.sched.today,
            "reviews": col.db.scalar("SELECT count() FROM revlog"), "cards": cards}
    for legacy, name in ((True, "studied-days.apkg"), (False, "studied-days-anki21b.apkg")):
        col.export_anki_package(out_path=str(out / name), limit=None,
                                options=ExportAnkiPackageOptions(
                                    legacy=legacy, with_scheduling=True, with_media=True,
                                    with_deck_configs=True))
    # the whole collection in Anki's current format (this closes it)
    col.export_collection_package(str(out / "studied-days-anki21b.colpkg"), include_media=True,
                                  legacy=False)
    (out / "studied-days.json").write_text(json.dumps(view, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
