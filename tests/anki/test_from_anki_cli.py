"""``studyapp deck from-anki`` as a user runs it: exit code, the line printed, a deck
that validates."""

from __future__ import annotations

from pathlib import Path

import genanki
from click.testing import CliRunner, Result

from studyapp.cli import main


def run(tmp_path: Path, *args: str) -> Result:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])


def test_deck_from_anki_writes_a_deck_that_validates(tmp_path: Path) -> None:
    deck = genanki.Deck(1, "Serving")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["KV cache?", "Keys, values"]))
    source = tmp_path / "serving.apkg"
    genanki.Package(deck).write_to_file(str(source))
    target = tmp_path / "serving.yaml"
    result = run(tmp_path, "deck", "from-anki", str(source), "-o", str(target), "--post", "h100")
    assert result.exit_code == 0, result.output
    assert "1 cards from 1 notes" in result.output
    assert run(tmp_path, "deck", "validate", str(target)).exit_code == 0
    assert run(tmp_path, "deck", "from-anki", str(target), "-o", "x.yaml").exit_code == 1
