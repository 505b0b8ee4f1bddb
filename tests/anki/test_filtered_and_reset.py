"""Cards in a filtered deck go home; reviews of cards reset to new stay; subdecks stay nested."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.anki.from_anki import convert_package
from studyapp.cli import main

pytest.importorskip("anki.collection")
from anki_fixtures import FORMATS, add, export


def run(tmp_path: Path, *args: str) -> tuple[int, str]:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])
    return result.exit_code, result.output


def course(tmp_path: Path, form: str) -> tuple[Path, dict[str, int], int]:
    """Two subdecks; one card answered then reset to new, one in a filtered deck.

    Returns the package, the note ids by role and how many answers Anki counts
    (review log rows with a rating: "reset to new" writes one without)."""
    from anki.collection import Collection

    col = Collection(str(tmp_path / "course.anki2"))
    try:
        reset = add(col, "Basic", "Course::Memory", "", Front="HBM of the H200",
                    Back="HBM3e")
        filtered = add(col, "Basic", "Course::Memory", "", Front="Memory of the H100",
                       Back="80 GB")
        other = add(col, "Basic", "Course::Network", "", Front="Scale-up fabric",
                    Back="NVLink")
        col.decks.select(col.decks.id("Course::Memory"))
        for ease in (3, 3, 1, 3):
            card = col.sched.getCard()
            if card is None:
                break
            card.start_timer()
            col.sched.answerCard(card, ease)
        reset_card = col.get_note(reset.id).cards()[0]
        assert col.db.scalar("SELECT count() FROM revlog WHERE cid = ?", reset_card.id) > 0
        col.sched.schedule_cards_as_new([reset_card.id])
        cram = col.sched.get_or_create_filtered_deck(0)
        cram.name = "Cram"
        cram.config.search_terms[0].search = f"nid:{filtered.id}"
        col.sched.add_or_update_filtered_deck(cram)
        moved = col.get_note(filtered.id).cards()[0]
        assert moved.odid and moved.did != moved.odid
        counted = col.db.scalar("SELECT count() FROM revlog WHERE ease > 0")
        package = export(col, tmp_path / "course.apkg", history=True, form=form)
    finally:
        col.close()
    return package, {"reset": reset.id, "filtered": filtered.id, "other": other.id}, counted


@pytest.mark.parametrize("form", FORMATS)
def test_a_filtered_card_goes_home_and_reset_reviews_are_kept(tmp_path: Path,
                                                              form: str) -> None:
    package, notes, counted = course(tmp_path, form)
    conversion = convert_package(package, language="en", posts=["intro"])
    assert conversion.card_decks[f"note-{notes['filtered']}-1"] == "course-memory"
    assert conversion.card_decks[f"note-{notes['other']}-1"] == "course-network"
    assert sorted(d["title"] for d in conversion.decks) == ["Course › Memory",
                                                            "Course › Network"]
    code, output = run(tmp_path, "import", str(package))
    assert code == 0, output
    assert f"{counted} reviews added" in output
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        reset_reviews = db.execute(
            "SELECT count() FROM review_logs r JOIN card_states c ON c.id = r.card_id "
            "WHERE c.card_key = ?",
            (f"note-{notes['reset']}-1",)).fetchone()[0]
        state = db.execute("SELECT state FROM card_states WHERE card_key = ?",
                           (f"note-{notes['reset']}-1",)).fetchone()
    assert reset_reviews > 0 and state == (0,)  # new again, its answers kept


def test_merged_subdecks_keep_their_place_as_a_tag(tmp_path: Path) -> None:
    package, notes, _ = course(tmp_path, "legacy")
    merged = convert_package(package, language="en", posts=["intro"], merge=True)
    cards = {c["id"]: c for c in merged.deck["cards"]}
    assert "Course::Memory" in cards[f"note-{notes['filtered']}-1"]["tags"]
    assert "Course::Network" in cards[f"note-{notes['other']}-1"]["tags"]
