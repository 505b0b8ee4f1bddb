"""Anki → studyapp → Anki: notes keep their guid, a cloze note stays one note with its cards,
and each card keeps its own sources."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.anki.anki_collection import read_collection
from studyapp.catalog.posts import load_post
from studyapp.cli import main

pytest.importorskip("anki.collection")
from anki_fixtures import add, export


def run(tmp_path: Path, *args: str) -> tuple[int, str]:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])
    return result.exit_code, result.output


def test_guids_and_cloze_notes_survive_the_round_trip(tmp_path: Path) -> None:
    from anki.collection import Collection

    col = Collection(str(tmp_path / "trip.anki2"))
    try:
        basic = add(col, "Basic", "Trip", "", Front="Memory of the H200",
                    Back="HBM3e<br><i>Source: NVIDIA H200 datasheet</i>")
        cloze = add(col, "Cloze", "Trip", "",
                    Text="NVLink 4 gives {{c1::900 GB/s}} per GPU over {{c2::18}} links")
        package = export(col, tmp_path / "trip.apkg")
    finally:
        col.close()
    code, output = run(tmp_path, "import", str(package))
    assert code == 0, output
    back = tmp_path / "back.apkg"
    code, output = run(tmp_path, "export", "--format", "apkg", "-o", str(back), "--deck", "trip")
    assert code == 0, output
    returned = read_collection(back)
    by_guid = {note.guid: note for note in returned.notes}
    assert set(by_guid) == {basic.guid, cloze.guid}  # no copies: Anki updates its notes
    cloze_note = by_guid[cloze.guid]
    assert "{{c1::900 GB/s}}" in cloze_note.fields[0] and "{{c2::18}}" in cloze_note.fields[0]
    assert len([c for c in returned.cards if c.note_id == cloze_note.id]) == 2
    basic_note = by_guid[basic.guid]
    assert "NVIDIA H200 datasheet" in " ".join(basic_note.fields)
    intro = load_post("intro", "en")  # the post a converted deck is filed under by default
    assert intro.title not in " ".join(basic_note.fields)  # not that post's sources
    assert not any(url in " ".join(basic_note.fields) for url in intro.sources)


def test_a_note_with_two_cards_goes_back_as_one_note_with_both(tmp_path: Path) -> None:
    """Basic (and reversed card): two studyapp cards, one Anki note again, each card at its
    ordinal with its answers; before, both went as notes with one guid and Anki kept one."""
    from anki.collection import Collection, ExportAnkiPackageOptions
    from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    col = Collection(str(tmp_path / "two.anki2"))
    try:
        note = add(col, "Basic (and reversed card)", "Two", "", Front="HBM3e", Back="H200")
        reverse = next(c for c in note.cards() if c.ord == 1)
        reverse.start_timer()
        col.sched.answerCard(reverse, 3)
        package = export(col, tmp_path / "two.apkg", history=True)
    finally:
        col.close()
    assert run(tmp_path, "import", str(package))[0] == 0
    back = tmp_path / "back.apkg"
    code, output = run(tmp_path, "export", "--format", "apkg", "--with-history", "-o",
                       str(back), "--deck", "two")
    assert code == 0, output
    col = Collection(str(tmp_path / "again.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(back), options=ImportAnkiPackageOptions(with_scheduling=True)))
        notes = col.find_notes("")
        assert len(notes) == 1
        again = col.get_note(notes[0])
        assert (again.id, again.guid) == (note.id, note.guid)
        cards = {c.ord: c for c in again.cards()}
        assert set(cards) == {0, 1}
        assert "HBM3e" in again.fields[again.keys().index("Prompt 1")]
        assert "H200" in again.fields[again.keys().index("Prompt 2")]
        reviews = {o: col.db.scalar("SELECT count() FROM revlog WHERE cid = ?", c.id)
                   for o, c in cards.items()}
        assert reviews == {0: 0, 1: 1}
        again_package = tmp_path / "again.apkg"
        col.export_anki_package(out_path=str(again_package), limit=None,
                                options=ExportAnkiPackageOptions(legacy=True,
                                                                 with_scheduling=True))
    finally:
        col.close()
    # back here: each card's answers to that card, none twice
    code, output = run(tmp_path, "import", str(again_package))
    assert code == 0, output
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        reps = dict(db.execute("SELECT card_key, reps FROM card_states"))
        answers = db.execute("SELECT count() FROM review_logs").fetchone()[0]
    assert answers == 1
    assert reps == {f"note-{note.id}-2": 1}


def test_a_nested_cloze_keeps_both_cards_and_its_back_extra(tmp_path: Path) -> None:
    from anki.collection import Collection
    from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    col = Collection(str(tmp_path / "nested.anki2"))
    try:
        note = add(col, "Cloze", "Nested", "", Text="{{c1::NVLink {{c2::4}}}} links H100s",
                   Back_Extra="900 GB/s both directions")
        assert len(note.cards()) == 2
        package = export(col, tmp_path / "nested.apkg")
    finally:
        col.close()
    assert run(tmp_path, "import", str(package))[0] == 0
    back = tmp_path / "back.apkg"
    assert run(tmp_path, "export", "--format", "apkg", "-o", str(back), "--deck", "nested")[0] == 0
    col = Collection(str(tmp_path / "again.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(back), options=ImportAnkiPackageOptions()))
        again = col.get_note(col.find_notes("")[0])
        assert again.guid == note.guid
        assert sorted(c.ord for c in again.cards()) == [0, 1]
        assert "900 GB/s both directions" in again["Back Extra"]
    finally:
        col.close()
