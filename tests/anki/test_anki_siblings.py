"""The cards of one Anki note are siblings here: burying follows each deck's preset as
Anki's v3 scheduler does.

Anki (the ``anki`` package, 26.9.3) answers one card of a reversed note; the
package, history and presets come in; the cards a session here offers today
must be the ones Anki's own queue offers: the answered note's other card
buried when the preset buries new siblings, offered when it does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.study import SessionKind, StudyConfig, StudyService

pytest.importorskip("anki.collection")
from anki_fixtures import add, export


def _collection(folder: Path, *, bury_new: bool) -> object:
    from anki.collection import Collection

    col = Collection(str(folder / "siblings.anki2"))
    col.set_config("fsrs", True)
    deck = col.decks.id("Siblings")
    preset = col.decks.get_config(col.decks.add_config_returning_id("Both ways"))
    preset["new"]["bury"] = bury_new
    preset["rev"]["bury"] = True
    col.decks.update_config(preset)
    found = col.decks.get(deck)
    found["conf"] = preset["id"]
    col.decks.save(found)
    for n in range(4):
        add(col, "Basic (and reversed card)", "Siblings", Front=f"Term {n}",
            Back=f"Meaning {n}")
    return col


@pytest.mark.parametrize("bury_new", [True, False])
def test_a_session_offers_the_siblings_anki_offers(tmp_path: Path, bury_new: bool) -> None:
    col: object = _collection(tmp_path, bury_new=bury_new)
    try:
        col.decks.select(col.decks.id("Siblings"))  # type: ignore[attr-defined]
        card = col.sched.getCard()  # type: ignore[attr-defined]
        card.start_timer()
        col.sched.answerCard(card, 3)  # type: ignore[attr-defined]
        answered = card.nid
        queued = col.sched.get_queued_cards(fetch_limit=50)  # type: ignore[attr-defined]
        anki_new = {(c.card.note_id, c.card.template_idx) for c in queued.cards
                    if c.queue == 0}  # 0: the new queue (learning cards are 1)
        package = export(col, tmp_path / "siblings.apkg", history=True)
    finally:
        col.close()  # type: ignore[attr-defined]
    assert (answered, 1) not in anki_new if bury_new else (answered, 1) in anki_new
    db = tmp_path / "study.sqlite3"
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{db}", "--lang", "en", "import",
                                       str(package)])
    assert result.exit_code == 0, result.output
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db}", lang="en"))
    try:
        ours = {item.card_key for item in service.plan(SessionKind.DECK, deck="siblings")
                if item.stage == 0}
    finally:
        service.close()
    assert ours == {f"note-{nid}-{ordinal + 1}" for nid, ordinal in anki_new}


@pytest.mark.parametrize(("answer_first", "ease", "shown"), [
    ("new", 4, True),  # straight to review: a new card's answer buries no review sibling
    ("new", 3, False),  # now learning: a learning card keeps its review sibling out today
    ("review", 3, False)])  # a review buries its new sibling
def test_a_new_cards_answer_buries_no_review_sibling_as_in_anki(
        tmp_path: Path, answer_first: str, ease: int, shown: bool) -> None:
    """Anki gathers learning cards, then reviews, then new cards: answering a new card
    buries only its new siblings, a review its new and review siblings
    (``exclude_earlier_gathered_queues``, rslib/src/scheduler/bury_and_suspend.rs), and a
    card in learning keeps the siblings gathered after it out of the day's queue."""
    col: object = _collection(tmp_path, bury_new=True)
    try:
        notes = col.find_notes("")  # type: ignore[attr-defined]
        cards = [col.get_note(nid).cards() for nid in notes]  # type: ignore[attr-defined]
        col.sched.set_due_date([pair[1].id for pair in cards], "0")  # type: ignore[attr-defined]
        col.decks.select(col.decks.id("Siblings"))  # type: ignore[attr-defined]
        first = cards[0][0 if answer_first == "new" else 1]
        card = col.get_card(first.id)  # type: ignore[attr-defined]
        card.start_timer()
        col.sched.answerCard(card, ease)  # type: ignore[attr-defined]
        queued = col.sched.get_queued_cards(fetch_limit=50)  # type: ignore[attr-defined]
        anki_queue = {(c.card.note_id, c.card.template_idx) for c in queued.cards
                      if c.queue in (0, 2)}  # new and review queues
        package = export(col, tmp_path / "siblings.apkg", history=True)
    finally:
        col.close()  # type: ignore[attr-defined]
    sibling = (notes[0], 1 if answer_first == "new" else 0)
    assert (sibling in anki_queue) == shown
    db = tmp_path / "study.sqlite3"
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{db}", "--lang", "en", "import",
                                       str(package)])
    assert result.exit_code == 0, result.output
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db}", lang="en"))
    try:
        ours = {item.card_key for item in service.plan(SessionKind.DECK, deck="siblings")
                if item.stage in (0, 2)}
    finally:
        service.close()
    assert ours == {f"note-{nid}-{ordinal + 1}" for nid, ordinal in anki_queue}
