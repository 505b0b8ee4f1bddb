"""Anki → studyapp → Anki on a whole community deck, card by card, with figures.

The full-size run of ``test_community_deck.py`` for a deck too big to keep in
the repository::

    python tests/anki/compare_community_deck.py DECK.apkg DECK_ID [import|from-anki]

It opens the package with Anki's library (FSRS on), brings it into a fresh
studyapp home (``import``, or ``deck from-anki --with-history`` and ``deck
add``), studies ten cards here, exports the deck with ``--with-history``,
opens that with Anki and prints how many cards were compared, how many are
identical, and how many differ in what (one example each). The ten cards
studied here are answered in Anki too with the same buttons, to check their
memory state against Anki's own.

Run on the Vietnamese deck of https://github.com/lars76/spaced_repetition_benchmark_test
(``deck.apkg``, 570 notes "Basic (and reversed card)" with IPA, 1,140 cards,
13,552 reviews logged in Anki 2023; no licence stated, so it is not kept here):
both ways, 1,124 of 1,140 cards identical; 6 with invisible format characters
left out of their text, 10 (the ones studied here) whose state continues from
the state Anki had stored, as Anki's own answer gives it (10 of 10 within 1%),
not from Anki's recomputation of the log (the stored states of 1,113 cards
differ from what Anki 26 recomputes with the preset, which has no FSRS
parameters left).
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from anki_compare import CardView, card_views, compare
from click.testing import CliRunner
from test_community_deck import anki_collection, answered_here

from studyapp.cli import main


def main_run(package: Path, deck_id: str, way: str) -> None:
    home = Path(tempfile.mkdtemp(prefix="studyapp-compare-"))
    os.environ["STUDYAPP_HOME"] = str(home)
    started = time.monotonic()

    def run(*args: str, given: str | None = None) -> str:
        result = CliRunner().invoke(main, ["--db", f"sqlite:///{home / 'study.sqlite3'}",
                                           "--lang", "en", *args], input=given)
        if result.exit_code:
            raise SystemExit(f"studyapp {' '.join(args)}: {result.output}")
        return result.output

    src = anki_collection(home / "source.anki2", package)
    try:
        before, before_computed = card_views(src), card_views(src, computed=True)
        reviews = src.db.scalar("SELECT count() FROM revlog WHERE ease > 0")
    finally:
        src.close()
    if way == "import":
        run("import", str(package))
    else:
        run("deck", "from-anki", str(package), "-o", str(home / f"{deck_id}.yaml"),
            "--with-history", "--id", deck_id)
        run("deck", "add", str(home / f"{deck_id}.yaml"))
    run("study", "--plain", "--deck", deck_id, "--limit", "10", "--seed", "1",
        given="\n3\n" * 10)
    here = answered_here(home)
    back = home / "back.apkg"
    run("export", "--format", "apkg", "--with-history", "-o", str(back), "--deck", deck_id)
    dst = anki_collection(home / "back.anki2", back)
    try:
        after, after_computed = card_views(dst), card_views(dst, computed=True)
    finally:
        dst.close()
    guids = {view.note_id: view.guid for view in before.values()}
    studied = {}
    for key, count in here.items():
        note_id, ordinal = key.removeprefix("note-").rsplit("-", 1)
        studied[guids[int(note_id)], int(ordinal.lstrip("c")) - 1] = count
    result = compare(before, before_computed, after, after_computed, studied_here=studied)
    print(f"{package.name} ({way}): {len(before)} cards, {reviews} reviews in Anki, "
          f"{sum(here.values())} answers given in studyapp")
    print(f"compared {result.compared}, identical {result.identical}, "
          f"differing {result.compared - result.identical}")
    for aspect, count in result.differences.most_common():
        print(f"  {count:5d}  {aspect}  (e.g. {result.examples[aspect]})")
    same = anki_answers(home, studied, after)
    print(f"studied here: {len(studied)} cards; memory state as Anki gives it for the same "
          f"answer from the card's stored state: {same} of {len(studied)} within 1%")
    print(f"{time.monotonic() - started:.1f} s")
    with sqlite3.connect(home / "study.sqlite3") as db:  # the answers given here, kept
        assert db.execute("SELECT count() FROM review_logs").fetchone()[0] >= reviews


def anki_answers(home: Path, studied: dict[tuple[str, int], int], after: dict[
        tuple[str, int], CardView]) -> int:
    """The cards studied here answered in the source collection with the same buttons:
    how many have there the memory state studyapp exported (within 1%)."""
    from anki.collection import Collection
    from anki.scheduler_pb2 import CardAnswer

    with sqlite3.connect(home / "study.sqlite3") as db:
        buttons = {key: [r for (r,) in db.execute(
            "SELECT rating FROM review_logs r JOIN card_states c ON c.id = r.card_id "
            "WHERE c.card_key = ? AND r.uid NOT LIKE 'anki-%' ORDER BY r.reviewed_at", (key,))]
            for (key,) in db.execute("SELECT DISTINCT card_key FROM card_states")}
    col = Collection(str(home / "source.anki2"))
    same = 0
    try:
        for (guid, ordinal), _ in studied.items():
            note_id = col.db.scalar("SELECT id FROM notes WHERE guid = ?", guid)
            card = col.get_card(col.db.scalar(
                "SELECT id FROM cards WHERE nid = ? AND ord = ?", note_id, ordinal))
            for rating in buttons.get(f"note-{note_id}-{ordinal + 1}", []):
                card.start_timer()
                states = col._backend.get_scheduling_states(card.id)
                col.sched.answer_card(col.sched.build_answer(
                    card=card, states=states, rating=CardAnswer.Rating.Value(
                        ("AGAIN", "HARD", "GOOD", "EASY")[rating - 1])))
                card = col.get_card(card.id)
            memory = card.memory_state
            mine = after[guid, ordinal].memory
            same += bool(memory and mine and all(
                abs(a / b - 1) <= 0.01 for a, b in zip(mine, (memory.stability,
                                                            memory.difficulty), strict=True)))
    finally:
        col.close()
    return same


if __name__ == "__main__":
    main_run(Path(sys.argv[1]), sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "import")
