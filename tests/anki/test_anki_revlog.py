"""Anki's whole review log comes along: each answer's kind, and the entries that are no
answer (Forget, Set due date) as schedule changes; SM-2 cards get Anki's FSRS state."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.study import StudyConfig, StudyService
from studyapp.tuning import recompute_memory_states

pytest.importorskip("anki.collection")
from anki_fixtures import export


def _sm2_collection(folder: Path) -> Any:
    """Six cards answered with SM-2 (FSRS off), one forgotten and learnt again, one given a
    due date, one crammed in a filtered deck that does not reschedule."""
    from anki.collection import Collection
    from anki.scheduler_pb2 import CardAnswer

    col = Collection(str(folder / "sm2.anki2"))
    basic = col.models.by_name("Basic")
    deck = col.decks.id("Moved")
    for i in range(6):
        note = col.new_note(basic)
        note["Front"], note["Back"] = f"Question {i}", f"Answer {i}"
        col.add_note(note, deck)
    col.decks.select(deck)
    for ease in [3, 3, 4, 1, 3, 3, 3, 2, 4, 3, 3, 3, 3, 1, 3, 3, 4, 3]:
        card = col.sched.getCard()
        if card is None:
            break
        card.start_timer()
        col.sched.answerCard(card, ease)
    ids = sorted(col.find_cards(""))
    col.sched.schedule_cards_as_new([ids[0]], restore_position=True, reset_counts=False)
    col.sched.set_due_date([ids[1]], "3")
    cram = col.sched.get_or_create_filtered_deck(0)
    cram.name, cram.config.reschedule = "Cram", False
    del cram.config.search_terms[:]
    term = cram.config.search_terms.add()
    term.search, term.limit = f"cid:{ids[2]}", 5
    cram_id = col.sched.add_or_update_filtered_deck(cram).id
    card = col.get_card(ids[2])
    card.start_timer()
    col.sched.answer_card(col.sched.build_answer(
        card=card, states=col._backend.get_scheduling_states(card.id), rating=CardAnswer.AGAIN))
    col.sched.empty_filtered_deck(cram_id)
    return col


def _fsrs_on(col: Any) -> None:
    """FSRS turned on in the deck options, as a learner moving to FSRS does."""
    deck = col.decks.id("Moved")
    update = col.decks.get_deck_configs_for_update(deck)
    config = update.all_config[0].config
    col._backend.update_deck_configs(
        target_deck_id=deck, configs=[config], removed_config_ids=[], mode=0,
        card_state_customizer="", limits=update.current_deck.limits,
        new_cards_ignore_review_limit=False, fsrs=True, apply_all_parent_limits=False,
        fsrs_reschedule=False, fsrs_health_check=False)


def test_the_whole_log_comes_along_and_sm2_cards_get_ankis_fsrs_state(tmp_path: Path) -> None:
    col = _sm2_collection(tmp_path)
    try:
        package = export(col, tmp_path / "sm2.apkg", history=True)
        revlog = col.db.all("SELECT id, type, ease, factor FROM revlog")
        _fsrs_on(col)
        anki_states = {}
        for card_id in col.find_cards(""):
            card = col.get_card(card_id)
            if card.memory_state is not None:
                anki_states[f"note-{card.nid}-{card.ord + 1}"] = (
                    card.memory_state.stability, card.memory_state.difficulty)
    finally:
        col.close()
    db = tmp_path / "study.sqlite3"
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{db}", "--lang", "en", "import",
                                       str(package)])
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as conn:
        answers = {int(uid[5:]): json.loads(anki) for uid, anki in conn.execute(
            "SELECT uid, anki FROM review_logs")}
        changes = {int(uid[5:]): (kind, factor) for uid, kind, factor in conn.execute(
            "SELECT uid, kind, factor FROM schedule_changes")}
        states = {key: (s, d) for key, s, d in conn.execute(
            "SELECT card_key, stability, difficulty FROM card_states WHERE state != 0")}
    # nothing of the log is lost: every entry is an answer or a change, with its kind
    assert sorted(answers) + sorted(changes) == sorted(r[0] for r in revlog if r[2]) + \
        sorted(r[0] for r in revlog if not r[2])
    for entry, kind, ease, factor in revlog:
        if ease:
            assert answers[entry]["type"] == kind and answers[entry]["factor"] == factor
        else:
            assert changes[entry] == (kind, factor)
    assert (4, 0) in changes.values()  # Forget
    assert any(kind == 4 and factor > 0 for kind, factor in changes.values())  # Set due date
    assert any(a["type"] == 3 and a["factor"] == 0 for a in answers.values())  # cram
    assert anki_states and set(anki_states) <= set(states)
    for key, (stability, difficulty) in anki_states.items():
        assert states[key][0] == pytest.approx(stability, rel=0.01), key
        assert states[key][1] == pytest.approx(difficulty, rel=0.01), key
    # worked out again from the stored log (as optimize does), the cram answer stays out
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db}"))
    try:
        assert recompute_memory_states(service) == len(states)
    finally:
        service.close()
    with sqlite3.connect(db) as conn:
        again = {key: (s, d) for key, s, d in conn.execute(
            "SELECT card_key, stability, difficulty FROM card_states WHERE state != 0")}
    for key, (stability, difficulty) in anki_states.items():
        assert again[key][0] == pytest.approx(stability, rel=0.01), key
        assert again[key][1] == pytest.approx(difficulty, rel=0.01), key
    # and the whole log goes along with the learner's progress file
    exported = CliRunner().invoke(main, ["--db", f"sqlite:///{db}", "export", "--format",
                                         "json"])
    assert exported.exit_code == 0, exported.output
    data = json.loads(exported.output)
    assert len(data["schedule_changes"]) == len(changes)
    progress = tmp_path / "progress.json"
    progress.write_text(exported.output)
    other = tmp_path / "other.sqlite3"
    moved = CliRunner().invoke(main, ["--db", f"sqlite:///{other}", "import", str(progress)])
    assert moved.exit_code == 0, moved.output
    with sqlite3.connect(other) as conn:
        assert sorted(conn.execute("SELECT uid, kind, factor FROM schedule_changes")) == \
            sorted((f"anki-{entry}", kind, factor) for entry, (kind, factor) in changes.items())
        assert sorted(json.loads(a)["type"] for (a,) in conn.execute(
            "SELECT anki FROM review_logs")) == sorted(a["type"] for a in answers.values())
