"""The class report's misconceptions: how many students hold each, from their named slips."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner
from store_answers import answer

from studyapp.classroom import class_report
from studyapp.cli import main
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=1)

# (student, slips as (card, slip key)): ana and bo count K only on two cards each (held);
# cy reads bits as bytes once (one slip: not held); dee slips K only twice on ONE card
# (not held: one card may be one confusing question)
CLASS = {
    "ana": [("kv-size", "kv_pair"), ("kv-70b", "kv_pair")],
    "bo": [("kv-size", "kv_pair"), ("kv-70b", "kv_pair"), ("link", "bits")],
    "cy": [("link", "bits")],
    "dee": [("kv-size", "kv_pair"), ("kv-size", "kv_pair")],
}


def _class(db_url: str, t0: datetime = T0) -> None:
    store = open_store(db_url)
    try:
        for name, slips in CLASS.items():
            profile = ensure_profile(store, name, {}, t0)
            for n, (card, slip) in enumerate(slips):
                base = answer("kv-class", card, t0 + timedelta(minutes=n))
                record_answer(store, profile.id, replace(
                    base, response="8", correct=False, rating=1,
                    params={"answer_slips": [slip]}))
            # a right answer and a slip too old to count (more than 60 days before NOW)
            record_answer(store, profile.id, answer("kv-class", "easy", t0))
            old = answer("kv-class", "old", t0 - timedelta(days=61))
            record_answer(store, profile.id, replace(
                old, response="1", correct=False, rating=1,
                params={"answer_slips": ["bits"]}))
    finally:
        store.close()


def test_report_counts_students_who_hold_each_misconception(db_url: str) -> None:
    _class(db_url)
    store = open_store(db_url)
    try:
        report = class_report(store, {"intro": 1}, NOW)
    finally:
        store.close()
    found = [(m.key, m.students, m.slips) for m in report.misconceptions]
    # k_only: ana and bo hold it (2 slips on 2 cards); dee's 2 slips on one card do not
    # count; bits_as_bytes: bo once and cy once, the 61-day-old slips left out: nobody holds it
    assert found == [("k_only", 2, 6), ("bits_as_bytes", 0, 2)]
    listed = report.as_json("es")["misconceptions"]
    assert [m["misconception"] for m in listed] == ["k_only", "bits_as_bytes"]
    assert listed[0]["students"] == 2 and listed[0]["name"] != "k_only"


def test_report_leaves_out_excluded_students(db_url: str) -> None:
    _class(db_url)
    store = open_store(db_url)
    try:
        report = class_report(store, {"intro": 1}, NOW, exclude=["ana"])
    finally:
        store.close()
    assert report.misconceptions[0].key == "k_only"
    assert report.misconceptions[0].students == 1


def test_class_report_prints_misconceptions(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    _class(db, datetime.now(UTC) - timedelta(days=1))  # the command reports as of now
    env = {**os.environ, "STUDYAPP_HOME": str(tmp_path / "home"), "COLUMNS": "100"}
    runner = CliRunner()
    shown = runner.invoke(main, ["--db", db, "class", "report", "--json"], env=env)
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.output)
    assert data["misconceptions"][0]["misconception"] == "k_only"
    assert data["misconceptions"][0]["students"] == 2
    assert "items" in data and "hardest_questions" in data  # keys added, none renamed
    text = runner.invoke(main, ["--db", db, "class", "report"], env=env)
    assert text.exit_code == 0, text.output
    assert "Misconceptions in the class" in text.output


def test_two_slips_of_one_misconception_count_its_cards_once(db_url: str) -> None:
    """dtype_bytes and dtype_bf16 both name the data type's size: on one card they are
    one card (not held); on two cards, held."""
    store = open_store(db_url)
    try:
        for name, cards in (("eve", ("w", "w")), ("fay", ("w", "x"))):
            profile = ensure_profile(store, name, {}, T0)
            for n, (card, slip) in enumerate(zip(cards, ("dtype_bytes", "dtype_bf16"),
                                                 strict=True)):
                record_answer(store, profile.id, replace(
                    answer("kv-class", card, T0 + timedelta(minutes=n)), response="8",
                    correct=False, rating=1, params={"answer_slips": [slip]}))
        report = class_report(store, {"intro": 1}, NOW)
    finally:
        store.close()
    assert [(m.key, m.students, m.slips) for m in report.misconceptions] == [
        ("dtype_size", 1, 4)]
