"""Images, sounds and math are shown as they are: never an answer to type as their name."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.questions.model import Kind

pytest.importorskip("anki.collection")
from anki_fixtures import PNG, add, export
from test_field_roles import questions

MP3 = b"ID3\x03\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x00" * 8


def package(tmp_path: Path) -> Path:
    from anki.collection import Collection

    col = Collection(str(tmp_path / "media.anki2"))
    typed = "Basic (type in the answer)"
    try:
        add(col, typed, "Media", "", Front="Which GPU is on this board?",
            Back='<img src="board.png">')
        add(col, typed, "Media", "", Front="Energy of a mass", Back=r"\(E = mc^2\)")
        add(col, typed, "Media", "", Front="Ridge point", Back="$I = P / B$")
        add(col, "Basic", "Media", "", Front="How is HBM said? [sound:hbm.mp3]",
            Back="aitch-bee-em")
        add(col, typed, "Media", "", Front="Memory of the H200", Back="HBM3e")
        col.media.write_data("board.png", PNG)
        col.media.write_data("hbm.mp3", MP3)
        return export(col, tmp_path / "media.apkg")
    finally:
        col.close()


def test_images_math_and_sounds_are_shown_not_typed(tmp_path: Path) -> None:
    found = questions(tmp_path, package(tmp_path))
    image = found["Which GPU is on this board?"]
    assert image.kind is Kind.RECALL and image.answer == "[image: board.png]"
    for prompt, source in (("Energy of a mass", r"\(E = mc^2\)"),
                           ("Ridge point", "$I = P / B$")):
        math = found[prompt]
        assert math.kind is Kind.RECALL and math.answer == source  # the source, as written
        assert "Math as written in Anki" in math.explanation
    spoken = found["How is HBM said? [audio: hbm.mp3]"]
    assert spoken.kind is Kind.RECALL and spoken.answer == "aitch-bee-em"
    assert found["Memory of the H200"].kind is Kind.TEXT  # a typed word stays typed


def test_the_audio_files_are_kept_beside_the_deck(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", "deck", "from-anki",
                                       str(package(tmp_path)), "-o", str(tmp_path / "m.yaml")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "m.audio" / "hbm.mp3").read_bytes() == MP3
    assert (tmp_path / "m.media" / "board.png").read_bytes() == PNG
    assert "1 audio file(s) the cards name kept in" in result.output
    assert "skipped" not in result.output
