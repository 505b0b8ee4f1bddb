"""The card index: decks by id or file, cards by key and fact, the decks studied."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from study_parts import DRILL, drill_service

from studyapp.catalog import UnknownIdError
from studyapp.study import NoSuchItem
from studyapp.study.changes import Changes


def test_cards_sharing_a_fact_are_siblings_and_a_card_is_not_its_own(tmp_path: Path) -> None:
    svc = drill_service(tmp_path)
    try:
        index = svc.index
        assert index.siblings("drill", "stacked") == {("drill", "stacked-again")}
        assert index.siblings("drill", "alone") == set()
        assert index.siblings("drill", "no-such-card") == set()
        with pytest.raises(NoSuchItem):
            index.card("drill", "no-such-card")
    finally:
        svc.close()


def test_references_leave_out_cards_of_no_loaded_deck(tmp_path: Path) -> None:
    svc = drill_service(tmp_path)
    try:
        refs = svc.index.card_refs([("drill", "alone"), ("gone", "card"), ("drill", "nope")])
        assert [(r.deck_id, r.card_key, r.post) for r in refs] == [("drill", "alone", "intro")]
    finally:
        svc.close()


def test_a_deck_file_replaces_the_deck_of_its_id_and_reports_the_decks_changed(
        tmp_path: Path) -> None:
    svc = drill_service(tmp_path)
    try:
        index = svc.index
        before = index.session_cards("drill", None)
        assert index.session_cards("drill", None) is before  # kept while nothing changes
        assert svc.reported == []
        edited = tmp_path / "edited.yaml"
        edited.write_text(DRILL.replace("id: alone", "id: alone-now"), encoding="utf-8")
        deck = index.find_deck(str(edited))
        assert svc.reported == [Changes.DECKS]
        assert [d.id for d in index.decks].count("drill") == 1
        assert index.find_deck("drill") is deck
        after = index.session_cards("drill", None)
        assert after is not before
        assert [c.spec.id for c in after.cards] == ["stacked", "stacked-again", "alone-now"]
        with pytest.raises(UnknownIdError):
            index.find_deck(str(tmp_path / "missing.yaml"))
    finally:
        svc.close()


def test_a_deck_replaced_in_place_is_indexed_again(tmp_path: Path) -> None:
    svc = drill_service(tmp_path)
    try:
        deck = svc.index.find_deck("drill")
        svc.index.replace_deck(replace(deck, cards=deck.cards[:1]))
        assert svc.reported == [Changes.DECKS]
        assert svc.index.siblings("drill", "stacked") == set()  # its sibling is gone
        assert ("drill", "stacked-again") not in svc.index.by_key
    finally:
        svc.close()


def test_switching_a_deck_reports_the_study_set_and_changes_the_cards_studied(
        tmp_path: Path) -> None:
    svc = drill_service(tmp_path)
    try:
        index = svc.index
        example = next(d for d in index.decks if d.id == "serving-llms-course")
        assert not index.deck_enabled(example)  # an example waits to be switched on
        assert not any(k[0] == example.id for k in index.active_keys)
        info = index.set_deck_enabled(example.id, True)
        assert info.enabled and svc.reported == [Changes.STUDY_SET]
        assert any(k[0] == example.id for k in index.active_keys)
        # a deck given as a file is studied whatever its switch says
        index.set_deck_enabled("drill", False)
        assert index.deck_enabled(index.find_deck("drill"))
        with pytest.raises(UnknownIdError):
            index.set_deck_enabled("no-such-deck", True)
        with pytest.raises(UnknownIdError):
            index.session_cards(None, "no-such-post")
    finally:
        svc.close()


def test_a_figure_a_question_states_gives_away_a_written_card(tmp_path: Path) -> None:
    # H200: 141 GB of HBM3e (https://www.nvidia.com/en-us/data-center/h200/);
    # H100 SXM: 80 GB (https://www.nvidia.com/en-us/data-center/h100/)
    text = DRILL + """  - id: capacity
    type: numeric
    prompt: How many GB of HBM3e does an H200 carry?
    answer: 141
    unit: GB
"""
    svc = drill_service(tmp_path, text=text)
    try:
        given = svc.index.given_away("drill", ["The H200 carries 141 GB of HBM3e."], "en")
        assert given == {("drill", "capacity")}
        assert svc.index.given_away("drill", ["The H100 carries 80 GB."], "en") == set()
    finally:
        svc.close()
