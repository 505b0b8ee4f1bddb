"""An exported .apkg read back by Anki itself (the official ``anki`` package)."""

from __future__ import annotations

from collections.abc import Iterator
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
deck: export-drill
title: {{es: "Práctica", en: "Drill"}}
language: en
post: h200
cards:
  - id: memory-type
    type: text
    prompt: "Which memory does the H200 use? <b>not bold</b>"
    answer: HBM3e
    accept: [HBM3E]
    explanation: "{explanation}"
  - id: pick-one
    type: choice
    prompt: {{es: "¿Cuánta memoria?", en: "How much memory?"}}
    choices: [141 GB, 80 GB]
    answer: 0
  - id: kv-per-token
    type: numeric
    post: hbm-kv-cache
    prompt: "{{layers}} layers: KV bytes per token with 8 KV heads of 128 in BF16?"
    params:
      layers: [32, 80]
    answer: "2 * layers * 8 * 128 * 2"
    unit: B
  - id: gen-fits
    type: generated
    generator: fits-on-gpu
"""


def _deck(tmp_path: Path, explanation: str = "HBM3e: first on the H200."):
    path = tmp_path / "drill.yaml"
    path.write_text(DECK.format(explanation=explanation), encoding="utf-8")
    return load_deck(path)


@pytest.fixture
def collection(tmp_path: Path) -> Iterator[object]:
    col = anki_collection.Collection(str(tmp_path / "fresh.anki2"))
    yield col
    col.close()


def _import(col: object, package: Path) -> None:
    col.import_anki_package(ImportAnkiPackageRequest(  # type: ignore[attr-defined]
        package_path=str(package), options=ImportAnkiPackageOptions(with_scheduling=False)))


def _notes(col: object) -> dict[str, object]:
    return {note.guid: note for note in (col.get_note(nid)  # type: ignore[attr-defined]
                                         for nid in col.find_notes(""))}  # type: ignore[attr-defined]


def test_anki_reads_notes_fields_tags_and_guids(tmp_path: Path, collection: object) -> None:
    deck = _deck(tmp_path)
    target = tmp_path / "drill.apkg"
    summary = write_apkg(select_cards([deck]), target, "en", instances=3, timestamp=1_700_000_000)
    # 2 static cards + 2 templates × 3 draws
    assert (summary.notes, summary.static_cards, summary.template_cards) == (8, 2, 2)
    _import(collection, target)
    notes = _notes(collection)
    assert len(notes) == 8
    text = notes[note_guid("export-drill", "memory-type", 0)]
    assert text.note_type()["name"] == "studyapp text"
    assert text["Prompt"] == "Which memory does the H200 use? &lt;b&gt;not bold&lt;/b&gt;"
    assert text["Answer"] == "HBM3e" and text["Accepted"] == "HBM3E"
    assert text["Explanation"] == "HBM3e: first on the H200."
    assert "NVIDIA H200" in text["Source"] and "https://www.nvidia.com/" in text["Source"]
    assert sorted(text.tags) == ["studyapp::deck::export-drill", "studyapp::post::h200"]
    choice = notes[note_guid("export-drill", "pick-one", 0)]
    assert choice["Choices"] == "1) 141 GB<br>2) 80 GB" and choice["Answer"] == "1) 141 GB"
    draws = [notes[note_guid("export-drill", "gen-fits", n)] for n in range(3)]
    assert all("studyapp::family::fits-on-gpu" in n.tags for n in draws)
    assert len({n["Prompt"] for n in draws}) > 1  # fresh numbers in each instance
    numeric = notes[note_guid("export-drill", "kv-per-token", 0)]
    assert "studyapp::post::hbm-kv-cache" in numeric.tags
    assert numeric.note_type()["name"] == "studyapp numeric"
    assert collection.decks.by_name("studyapp::Drill") is not None  # type: ignore[attr-defined]


def test_a_newer_export_updates_notes_instead_of_adding_copies(tmp_path: Path,
                                                               collection: object) -> None:
    first, second = tmp_path / "first.apkg", tmp_path / "second.apkg"
    write_apkg(select_cards([_deck(tmp_path)]), first, "en", instances=2,
               timestamp=1_700_000_000)
    _import(collection, first)
    write_apkg(select_cards([_deck(tmp_path, "Corrected: HBM3e.")]), second, "en", instances=2,
               timestamp=1_700_086_400)
    _import(collection, second)
    notes = _notes(collection)
    assert len(notes) == 6
    assert notes[note_guid("export-drill", "memory-type", 0)]["Explanation"] == \
        "Corrected: HBM3e."


def test_spanish_export_and_a_post_selection(tmp_path: Path, collection: object) -> None:
    deck = _deck(tmp_path)
    target = tmp_path / "es.apkg"
    summary = write_apkg(select_cards([deck], post="h200"), target, "es", instances=1)
    assert summary.notes == 3  # the numeric card belongs to another post
    _import(collection, target)
    notes = _notes(collection)
    assert notes[note_guid("export-drill", "pick-one", 0)]["Prompt"] == "¿Cuánta memoria?"
    assert collection.decks.by_name("studyapp::Práctica") is not None  # type: ignore[attr-defined]
