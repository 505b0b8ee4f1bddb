"""A real community deck with its history, Anki → studyapp → Anki, compared card by card.

``data/category-theory.apkg`` is a deck published on GitHub with the review
log its author made in Anki (source and licence: ``data/category-theory.txt``).
Anki (the ``anki`` package) opens it; studyapp brings it in (``import``, or
``deck from-anki --with-history`` then ``deck add``), two cards are studied
here, ``export --format apkg --with-history`` writes it back, and Anki opens
that. Every card must come back with its note id and guid, fields, tags, deck,
ordinal, each review (time and button) plus the ones given here, the memory
state Anki has for it, and its due day.
"""

from __future__ import annotations

import sqlite3
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from studyapp.cli import main

pytest.importorskip("anki.collection")
from anki_compare import card_views, compare, fields_kept

DECK = Path(__file__).parent / "data" / "category-theory.apkg"


def run(tmp_path: Path, *args: str, given: str | None = None) -> tuple[int, str]:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", *args], input=given)
    return result.exit_code, result.output


def anki_collection(path: Path, package: Path) -> Any:
    """A fresh collection with FSRS on and the package imported with its scheduling."""
    from anki.collection import Collection
    from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    col = Collection(str(path))
    col.set_config("fsrs", True)
    col.import_anki_package(ImportAnkiPackageRequest(
        package_path=str(package),
        options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True)))
    return col


def answered_here(tmp_path: Path) -> dict[str, int]:
    """Answers given in studyapp (not imported from Anki) per card key."""
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        return dict(db.execute(
            "SELECT c.card_key, count() FROM review_logs r JOIN card_states c "
            "ON c.id = r.card_id WHERE r.uid NOT LIKE 'anki-%' GROUP BY c.card_key"))


@pytest.mark.parametrize("way", ["import", "from-anki"])
def test_the_community_deck_comes_back_to_anki_card_by_card(tmp_path: Path, way: str) -> None:
    src = anki_collection(tmp_path / "source.anki2", DECK)
    try:
        before, before_computed = card_views(src), card_views(src, computed=True)
        anki_reviews = src.db.scalar("SELECT count() FROM revlog WHERE ease > 0")
    finally:
        src.close()
    assert len(before) == 11 and anki_reviews == 36  # the deck as published
    # logged by Anki's v1 scheduler: a learning answer's Good is button 2 there, 3 in Anki now
    with zipfile.ZipFile(DECK) as archive, tempfile.TemporaryDirectory() as folder:
        raw = sqlite3.connect(archive.extract("collection.anki2", folder))
        v1_good = raw.execute("SELECT count() FROM revlog WHERE type = 0 AND ease = 2"
                              ).fetchone()[0]
        raw.close()
    assert v1_good > 5
    if way == "import":
        code, output = run(tmp_path, "import", str(DECK))
    else:
        deck_file = tmp_path / "category-theory.yaml"
        code, output = run(tmp_path, "deck", "from-anki", str(DECK), "-o", str(deck_file),
                           "--with-history")
        assert code == 0, output
        code, output = run(tmp_path, "deck", "add", str(deck_file))
    assert code == 0, output
    code, output = run(tmp_path, "study", "--plain", "--deck", "category-theory", "--limit",
                       "2", "--seed", "1", given="\n1\n\n3\n")
    assert code == 0 and "2 answered" in output, output
    here = answered_here(tmp_path)
    assert sum(here.values()) == 2
    package = tmp_path / "back.apkg"
    code, output = run(tmp_path, "export", "--format", "apkg", "--with-history", "-o",
                       str(package), "--deck", "category-theory")
    assert code == 0, output
    assert f"{anki_reviews + 2} review(s)" in output
    dst = anki_collection(tmp_path / "back.anki2", package)
    try:
        after, after_computed = card_views(dst), card_views(dst, computed=True)
    finally:
        dst.close()
    guids = {view.note_id: view.guid for view in before.values()}
    studied = {}
    for key, count in here.items():  # note-<note id>-<n>: the note's card of ordinal n - 1
        note_id, ordinal = key.removeprefix("note-").rsplit("-", 1)
        studied[guids[int(note_id)], int(ordinal) - 1] = count
    result = compare(before, before_computed, after, after_computed, studied_here=studied)
    assert result.compared == 11
    assert dict(result.differences) == {}, result.examples
    assert result.identical == 11
    assert {after[key].deck for key in before} == {"studyapp::Category Theory"}


def test_learning_suspended_and_flagged_cards_go_back_as_they_were(tmp_path: Path) -> None:
    """Anki's own studied collection (``make_anki_history.py``): a card in learning, one
    suspended, one flagged, a nested cloze; each comes back with its queue, flag and stage.
    The two that differ differ only in how studyapp reads HTML as text (a list, ``<sub>``)."""
    package = Path(__file__).parent / "data" / "studied-days-anki21b.apkg"
    src = anki_collection(tmp_path / "source.anki2", package)
    try:
        before, before_computed = card_views(src), card_views(src, computed=True)
        states = {(src.get_card(c).note().guid, src.get_card(c).ord): (
            src.get_card(c).type, src.get_card(c).queue, src.get_card(c).flags)
            for c in src.find_cards("")}
    finally:
        src.close()
    assert {state[:2] for state in states.values()} >= {(1, 1), (2, -1), (2, 2)}
    assert any(flags for _, _, flags in states.values())
    assert run(tmp_path, "import", str(package))[0] == 0
    back = tmp_path / "back.apkg"
    code, output = run(tmp_path, "export", "--format", "apkg", "--with-history", "-o",
                       str(back))
    assert code == 0, output
    dst = anki_collection(tmp_path / "back.anki2", back)
    try:
        after, after_computed = card_views(dst), card_views(dst, computed=True)
        returned = {(dst.get_card(c).note().guid, dst.get_card(c).ord): (
            dst.get_card(c).type, dst.get_card(c).queue, dst.get_card(c).flags)
            for c in dst.find_cards("")}
    finally:
        dst.close()
    assert {key: returned.get(key) for key in states} == states
    result = compare(before, before_computed, after, after_computed)
    assert result.compared == 9 and result.identical == 7
    assert dict(result.differences) == {"fields": 2}
    for key, view in before.items():
        if "<sub>" in " ".join(view.fields.values()) or "<li>" in " ".join(view.fields.values()):
            assert not fields_kept(view, after[key])
