"""Benchmark: ``studyapp deck from-anki`` of a 10,000-note package, built here with genanki.

The conversion reads the package, turns every note into cards, writes the
deck and checks it as ``deck validate`` does, cues and give-aways included
(a card whose text holds another card's answer). That last check once
compared every card with every other; it now looks each answer up by its
first word, so the whole conversion grows with the deck, not its square.
Run with ``python -m pytest tests/perf/test_from_anki_perf.py -s``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import genanki
from click.testing import CliRunner
from test_stats_perf import figure, report

from studyapp.cli import main

NOTES = int(os.environ.get("FROM_ANKI_NOTES", "10000"))
GOAL_S = 60.0


def build_package(path: Path, notes: int) -> None:
    """Basic, type-in and cloze notes in three subdecks, with short answers other notes'
    explanations may name (what the give-away check looks for)."""
    typed = genanki.Model(1607392320, "Typed", fields=[{"name": "Front"}, {"name": "Back"}],
                          templates=[{"name": "Card 1", "qfmt": "{{Front}}<br>{{type:Back}}",
                                      "afmt": "{{FrontSide}}<hr id=answer>{{Back}}"}])
    decks = [genanki.Deck(2059400200 + n, f"Course::Part {n}") for n in range(3)]
    for n in range(notes):
        deck = decks[n % 3]
        if n % 5 == 0:
            deck.add_note(genanki.Note(model=genanki.CLOZE_MODEL, fields=[
                f"Fabric {n} joins {{{{c1::switch-{n}}}}} to {{{{c2::{n % 97} racks}}}}", ""]))
        elif n % 5 == 1:
            deck.add_note(genanki.Note(model=typed, fields=[
                f"Which part number has item {n}?", f"PN-{n:05d}"]))
        else:
            deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=[
                f"What does component {n} connect, after PN-{(n * 7) % notes:05d}?",
                f"The rack-{n % 101} spine of cluster {n}"]))
    genanki.Package(decks).write_to_file(str(path))


def test_from_anki_of_ten_thousand_notes(tmp_path: Path) -> None:
    package = tmp_path / "big.apkg"
    build_package(package, NOTES)
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    start = time.perf_counter()
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", "deck", "from-anki",
                                       str(package), "-o", str(tmp_path / "big"), "--merge"])
    elapsed = time.perf_counter() - start
    assert result.exit_code == 0, result.output[-2000:]
    assert f"from {NOTES} notes" in result.output
    report(f"{NOTES} notes, {(tmp_path / 'big').stat().st_size} bytes of deck")
    figure("deck from-anki, 10,000 notes", elapsed, "s", f"< {GOAL_S:.0f} s")
    assert elapsed < GOAL_S
