"""Anki → studyapp → Anki: notes keep their guid, a cloze note stays one note with its cards,
and each card keeps its own sources."""

from __future__ import annotations

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
