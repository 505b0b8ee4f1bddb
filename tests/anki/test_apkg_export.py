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
from anki_fixtures import PNG  # noqa: E402

from studyapp.anki.apkg import draws_guid, note_guid, select_cards, write_apkg  # noqa: E402
from studyapp.decks import load_deck  # noqa: E402

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


def _cards_of(col: object, nid: int) -> list[object]:
    return [col.get_card(cid) for cid in col.find_cards(f"nid:{nid}")]  # type: ignore[attr-defined]


def test_anki_reads_notes_fields_tags_and_guids(tmp_path: Path, collection: object) -> None:
    deck = _deck(tmp_path)
    target = tmp_path / "drill.apkg"
    summary = write_apkg(select_cards([deck]), target, "en", instances=3, timestamp=1_700_000_000)
    # 2 static cards + 2 generated cards, each one note holding its 3 draws
    assert (summary.notes, summary.static_cards, summary.template_cards) == (4, 2, 2)
    assert summary.stamp == "20231114T221320"
    _import(collection, target)
    notes = _notes(collection)
    assert len(notes) == 4
    text = notes[note_guid("export-drill", "memory-type", 0)]
    assert text.note_type()["name"] == "studyapp text"
    assert text["Key"] == "export-drill/memory-type"
    assert text["Prompt"] == "Which memory does the H200 use? &lt;b&gt;not bold&lt;/b&gt;"
    assert text["Answer"] == "HBM3e" and text["Accepted"] == "HBM3E"
    assert text["Explanation"] == "HBM3e: first on the H200."
    assert "NVIDIA H200" in text["Source"] and "https://www.nvidia.com/" in text["Source"]
    assert sorted(text.tags) == ["studyapp::deck::export-drill",
                                 "studyapp::export::20231114T221320", "studyapp::post::h200"]
    choice = notes[note_guid("export-drill", "pick-one", 0)]
    assert choice["Choices"] == "1) 141 GB<br>2) 80 GB" and choice["Answer"] == "1) 141 GB"
    generated = notes[draws_guid("export-drill", "gen-fits")]
    assert "studyapp::family::fits-on-gpu" in generated.tags
    assert generated.note_type()["name"] == "studyapp draws"
    prompts = [generated[f"Prompt {n}"] for n in (1, 2, 3)]
    assert len({p for p in prompts if p}) == len([p for p in prompts if p]) > 1  # fresh draws
    cards = _cards_of(collection, generated.id)
    assert len(cards) == len([p for p in prompts if p])  # one card per draw: siblings
    numeric = notes[draws_guid("export-drill", "kv-per-token")]
    assert "studyapp::post::hbm-kv-cache" in numeric.tags
    assert collection.decks.by_name("studyapp::Drill") is not None  # type: ignore[attr-defined]
    firsts = [note.fields[0] for note in notes.values()]
    assert len(firsts) == len(set(firsts))  # Anki flags no duplicates


def test_anki_buries_the_other_draws_of_a_generated_card(tmp_path: Path,
                                                         collection: object) -> None:
    deck = _deck(tmp_path)
    target = tmp_path / "drill.apkg"
    write_apkg(select_cards([deck]), target, "en", instances=3)
    # Anki's "Import any deck presets": the deck's own preset comes along, burying on
    collection.import_anki_package(ImportAnkiPackageRequest(  # type: ignore[attr-defined]
        package_path=str(target), options=ImportAnkiPackageOptions(
            with_scheduling=False, with_deck_configs=True)))
    col = collection
    drill = col.decks.by_name("studyapp::Drill")["id"]  # type: ignore[attr-defined]
    config = col.decks.config_dict_for_deck_id(drill)  # type: ignore[attr-defined]
    assert config["new"]["bury"] and config["rev"]["bury"]  # the export's preset, not Default
    col.decks.select(drill)  # type: ignore[attr-defined]
    generated = _notes(col)[draws_guid("export-drill", "gen-fits")]
    seen: list[int] = []
    while (card := col.sched.getCard()) is not None:  # type: ignore[attr-defined]
        seen.append(card.nid)
        card.start_timer()
        col.sched.answerCard(card, 4)  # type: ignore[attr-defined]
    assert seen.count(generated.id) == 1  # one draw a day: its siblings are buried
    assert len(_cards_of(col, generated.id)) > 1


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
    assert len(notes) == 4
    assert notes[note_guid("export-drill", "memory-type", 0)]["Explanation"] == \
        "Corrected: HBM3e."


def test_fewer_instances_leave_draws_that_anki_finds_as_empty_cards(
        tmp_path: Path, collection: object) -> None:
    five, two = tmp_path / "five.apkg", tmp_path / "two.apkg"
    write_apkg(select_cards([_deck(tmp_path)]), five, "en", instances=5,
               timestamp=1_700_000_000)
    _import(collection, five)
    summary = write_apkg(select_cards([_deck(tmp_path)]), two, "en", instances=2,
                         timestamp=1_700_086_400)
    assert summary.notes == 4
    _import(collection, two)
    assert len(_notes(collection)) == 4  # the same notes, updated: nothing stale added
    stale = collection.find_notes(  # type: ignore[attr-defined]
        f"tag:studyapp::* -tag:studyapp::export::{summary.stamp}")
    assert stale == []
    generated = _notes(collection)[draws_guid("export-drill", "gen-fits")]
    assert generated["Prompt 3"] == "" and generated["Prompt 1"]
    empty = collection.get_empty_cards()  # type: ignore[attr-defined]
    assert sum(len(n.card_ids) for n in empty.notes) >= 1  # Tools › Empty Cards removes them


def test_spanish_export_has_its_own_notes_and_decks(tmp_path: Path, collection: object) -> None:
    deck = _deck(tmp_path)
    english, spanish = tmp_path / "en.apkg", tmp_path / "es.apkg"
    write_apkg(select_cards([deck], post="h200"), english, "en", instances=1)
    summary = write_apkg(select_cards([deck], post="h200"), spanish, "es", instances=1)
    assert summary.notes == 3 and summary.decks == 1  # the numeric card is of another post
    _import(collection, english)
    _import(collection, spanish)
    notes = _notes(collection)
    assert len(notes) == 6  # Spanish notes beside the English ones, none overwritten
    assert notes[note_guid("export-drill", "pick-one", 0)]["Prompt"] == "How much memory?"
    assert notes[note_guid("export-drill", "pick-one", 0, "es")]["Prompt"] == "¿Cuánta memoria?"
    assert notes[note_guid("export-drill", "pick-one", 0, "es")]["Key"] == \
        "export-drill/pick-one (es)"
    names = {d.name for d in collection.decks.all_names_and_ids()}  # type: ignore[attr-defined]
    assert {"studyapp::Drill", "studyapp::es::Práctica"} <= names
    for name in names - {"Default", "studyapp", "studyapp::es"}:
        deck_id = collection.decks.id_for_name(name)  # type: ignore[attr-defined]
        assert collection.decks.card_count(deck_id, include_subdecks=False), name  # no empty


ANKI_DECK = """\
deck: course-memory
title: Course › Memory
language: en
post: intro
cards:
  - id: which-gpu
    type: text
    prompt: "Which GPU is this? [image: h100.png] [image: secret.txt] [image: gone.png]"
    answer: H100
    tags: [memory, "gpu::h100"]
  - id: axes
    type: recall
    prompt: "The three axes of parallelism"
    answer: "- data\\n- tensor\\n- pipeline"
"""


def test_a_deck_from_anki_goes_back_with_its_tags_images_and_nesting(
        tmp_path: Path, collection: object) -> None:
    """What ``deck from-anki`` made returns to Anki as it was: the card's own tags, the
    image as an <img> with its file, the subdeck nested, no answer repeated as explanation."""
    deck_file = tmp_path / "course-memory.yaml"
    deck_file.write_text(ANKI_DECK, encoding="utf-8")
    media = tmp_path / "course-memory.media"
    media.mkdir()
    (media / "h100.png").write_bytes(PNG)
    (tmp_path / "secret.txt").write_text("not for the package", encoding="utf-8")
    (media / "secret.txt").symlink_to(tmp_path / "secret.txt")  # never followed
    target = tmp_path / "course.apkg"
    write_apkg(select_cards([load_deck(deck_file)]), target, "en", instances=1)
    _import(collection, target)
    notes = _notes(collection)
    gpu = notes[note_guid("course-memory", "which-gpu", 0)]
    assert gpu["Prompt"] == ('Which GPU is this? <img src="h100.png"> [image: secret.txt] '
                             "[image: gone.png]")
    assert gpu["Explanation"] == ""  # it would only repeat "H100"
    assert {"memory", "gpu::h100"} <= set(gpu.tags)
    media_dir = Path(collection.media.dir())  # type: ignore[attr-defined]
    assert (media_dir / "h100.png").read_bytes() == PNG
    assert not (media_dir / "secret.txt").exists()
    axes = notes[note_guid("course-memory", "axes", 0)]
    assert axes["Answer"] == "- data<br>- tensor<br>- pipeline" and axes["Explanation"] == ""
    deck_ids = {card.did for card in (collection.get_card(c)  # type: ignore[attr-defined]
                                      for c in collection.find_cards(""))}  # type: ignore[attr-defined]
    names = {collection.decks.name(d) for d in deck_ids}  # type: ignore[attr-defined]
    assert names == {"studyapp::Course::Memory"}
