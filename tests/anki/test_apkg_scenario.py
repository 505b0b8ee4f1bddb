"""A scenario exported to Anki: one note, its steps on the front, the worked chain on the back."""

from __future__ import annotations

from pathlib import Path

import pytest

anki_collection = pytest.importorskip("anki.collection")
from anki.import_export_pb2 import (  # noqa: E402
    ImportAnkiPackageOptions,
    ImportAnkiPackageRequest,
)

from studyapp.anki.apkg import draws_guid, select_cards, write_apkg  # noqa: E402
from studyapp.decks import load_deck  # noqa: E402

DECK = """\
deck: scenario-export
title: Scenario export
language: en
post: storage-checkpoints
cards:
  - {id: ckpt, type: generated, generator: scenario-checkpoint}
"""


def test_a_scenario_is_one_note_whose_back_holds_the_worked_chain(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(DECK, encoding="utf-8")
    target = tmp_path / "scenario.apkg"
    summary = write_apkg(select_cards([load_deck(path)]), target, "en", instances=2,
                         timestamp=1_700_000_000)
    assert summary.notes == 1  # one note: its draws are sibling cards, its steps not split
    col = anki_collection.Collection(str(tmp_path / "fresh.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(target), options=ImportAnkiPackageOptions(with_scheduling=False)))
        notes = {col.get_note(nid).guid: col.get_note(nid) for nid in col.find_notes("")}
        note = notes[draws_guid("scenario-export", "ckpt")]
        assert note.note_type()["name"] == "studyapp draws"
        assert len(note.cards()) == 2  # one card per draw, siblings in Anki
        for draw in (1, 2):
            assert "fails on average" in note[f"Prompt {draw}"] or \
                "failing on average" in note[f"Prompt {draw}"]
            steps = note[f"Choices {draw}"].split("<br>")  # the steps, on the front
            assert len(steps) == 5 and steps[0].startswith("1. How large is one checkpoint")
            answers = note[f"Answer {draw}"].split("<br>")
            assert len(answers) == 5 and answers[0].startswith("1. ") and "GB" in answers[0]
            chain = note[f"Explanation {draw}"].split("<br>")  # the worked chain, on the back
            assert chain[0].startswith("1. ") and "× 14 B =" in chain[0]
            assert chain[3].startswith("4. ") and "√(2 × " in chain[3]
            assert chain[4].startswith("5. 24 h × (")
    finally:
        col.close()
