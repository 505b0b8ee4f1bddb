"""A newer package of the same Anki collection updates what an earlier import installed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.locations import user_decks_dir

pytest.importorskip("anki.collection")
from anki_fixtures import FORMATS, export, studied_collection


def run(tmp_path: Path, *args: str) -> tuple[int, str]:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])
    return result.exit_code, result.output


def review_count(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        return int(db.execute("SELECT count() FROM review_logs").fetchone()[0])


def installed_cards() -> dict[str, dict[str, object]]:
    deck = yaml.safe_load((user_decks_dir() / "studied.yaml").read_text(encoding="utf-8"))
    return {card["id"]: card for card in deck["cards"]}


@pytest.mark.parametrize("form", FORMATS)
def test_a_newer_package_updates_notes_cards_tags_and_history(tmp_path: Path,
                                                             form: str) -> None:
    col = studied_collection(tmp_path, cards=6, answers=8)
    try:
        first = export(col, tmp_path / "first.apkg", history=True, form=form)
        code, output = run(tmp_path, "import", str(first))
        assert code == 0, output
        before = review_count(tmp_path)
        notes = [col.get_note(n) for n in col.find_notes("")]
        notes[0].tags.append("leech")  # what Anki adds by itself after too many lapses
        col.update_note(notes[0])
        notes[1]["Back"] = "Answer one, corrected"
        col.update_note(notes[1])
        added = col.new_note(col.models.by_name("Basic"))
        added["Front"], added["Back"] = "A question added later", "Its answer"
        col.add_note(added, col.decks.id("Studied"))
        col.decks.select(col.decks.id("Studied"))
        answered = 0
        for ease in (3, 3, 4):
            card = col.sched.getCard()
            if card is None:
                break
            card.start_timer()
            col.sched.answerCard(card, ease)
            answered += 1
        assert answered
        second = export(col, tmp_path / "second.apkg", history=True, form=form)
    finally:
        col.close()
    code, output = run(tmp_path, "import", str(second))
    assert code == 0, output
    assert "--replace" not in output
    assert "2 note(s) updated, 1 card(s) added" in output
    assert f"{answered} reviews added" in output
    assert review_count(tmp_path) == before + answered
    cards = installed_cards()
    assert cards[f"note-{notes[0].id}-1"]["tags"] == ["leech"]
    assert cards[f"note-{notes[1].id}-1"]["answer"] == "Answer one, corrected"
    assert f"note-{added.id}-1" in cards
    # the same package again changes nothing
    code, output = run(tmp_path, "import", str(second))
    assert code == 0, output
    assert "0 note(s) updated, 0 card(s) added" in output and "0 reviews added" in output


def test_a_note_the_newer_package_lacks_is_kept(tmp_path: Path) -> None:
    col = studied_collection(tmp_path, cards=3, answers=0)
    try:
        first = export(col, tmp_path / "first.apkg")
        gone = col.find_notes("")[0]
        col.remove_notes([gone])
        second = export(col, tmp_path / "second.apkg")
    finally:
        col.close()
    assert run(tmp_path, "import", str(first))[0] == 0
    code, output = run(tmp_path, "import", str(second))
    assert code == 0, output
    assert "1 card(s) kept" in output
    assert f"note-{gone}-1" in installed_cards()


def test_another_collection_with_the_same_deck_name_names_only_real_options(
        tmp_path: Path) -> None:
    packages = []
    for name in ("one", "two"):
        folder = tmp_path / name
        folder.mkdir()
        col = studied_collection(folder, cards=2, answers=0)
        try:
            packages.append(export(col, folder / "studied.apkg"))
        finally:
            col.close()
    assert run(tmp_path, "import", str(packages[0]))[0] == 0
    code, output = run(tmp_path, "import", str(packages[1]))
    assert code == 1
    assert "--replace" not in output
    assert "deck from-anki" in output and "--id" in output


def test_a_card_anki_tagged_leech_is_a_leech_here(tmp_path: Path) -> None:
    col = studied_collection(tmp_path, cards=4, answers=8)
    try:
        studied = [col.get_note(n) for n in col.find_notes("")
                   if col.get_note(n).cards()[0].reps > 0]
        studied[0].tags.append("leech")
        col.update_note(studied[0])
        package = export(col, tmp_path / "leech.apkg", history=True)
    finally:
        col.close()
    assert run(tmp_path, "import", str(package))[0] == 0
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        leeches = {key for key, leech in db.execute("SELECT card_key, leech FROM card_states")
                   if leech}
    assert leeches == {f"note-{studied[0].id}-1"}
