"""Deck messages in the learner's language."""

from __future__ import annotations

from pathlib import Path

from studyapp.decks.deck_report import validation_report


def test_a_missing_deck_file_is_reported_in_spanish_with_its_place(tmp_path: Path) -> None:
    missing = tmp_path / "falta.yaml"
    lines, code = validation_report([missing], "es")
    assert code != 0
    assert lines[0] == f"{missing}:1:1: no existe el archivo o la carpeta"
    english, _ = validation_report([missing], "en")
    assert english[0] == f"{missing}:1:1: no such file or folder"
