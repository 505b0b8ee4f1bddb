"""A scenario exported to Anki: one note, its steps on the front, the worked chain on the back."""

from __future__ import annotations

from pathlib import Path

import pytest

anki_collection = pytest.importorskip("anki.collection")
from anki.import_export_pb2 import (  # noqa: E402
    ImportAnkiPackageOptions,
    ImportAnkiPackageRequest,
)

from studyapp.decks import load_deck  # noqa: E402
from studyapp.exchange.apkg import note_guid, select_cards, write_apkg  # noqa: E402

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
    assert summary.notes == 2  # one note per draw, not one per step
    col = anki_collection.Collection(str(tmp_path / "fresh.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(target), options=ImportAnkiPackageOptions(with_scheduling=False)))
        notes = {col.get_note(nid).guid: col.get_note(nid) for nid in col.find_notes("")}
        note = notes[note_guid("scenario-export", "ckpt", 0)]
        assert note.note_type()["name"] == "studyapp scenario"
        assert "fails on average" in note["Prompt"] or "failing on average" in note["Prompt"]
        steps = note["Steps"].split("<br>")
        assert len(steps) == 5 and steps[0].startswith("1. How large is one checkpoint")
        answers = note["Answer"].split("<br>")
        assert len(answers) == 5 and answers[0].startswith("1. ") and "GB" in answers[0]
        chain = note["Explanation"].split("<br>")
        assert chain[0].startswith("1. ") and "× 14 B =" in chain[0]
        assert chain[3].startswith("4. √(2 × ") and chain[4].startswith("5. 24 h × (")
    finally:
        col.close()
