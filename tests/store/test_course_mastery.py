"""A course deck's mastery is counted per deck by ``stats`` and the class report, never
mixed into a post's (and no post line is made of a course deck's own cards)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from store_answers import answer

from studyapp.cli import main
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer

COURSE = """\
deck: serving-course
title: Serving LLMs, week 1
course: AI infrastructure 101
summary: "The **KV cache** holds keys and values for every token."
language: en
cards:
  - {id: kv-grows, type: truefalse, prompt: "The KV cache grows with context.", answer: true}
  - {id: hbm-h200, type: choice, post: h200, prompt: "H200 memory?", choices: [HBM3, HBM3e],
     answer: HBM3e}
  - {id: gen-kv, type: generated, generator: kv-cache-total}
"""


def _cli(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["--lang", "en", *args],
                                env={"STUDYAPP_HOME": str(home)})
    assert result.exit_code == 0, result.output
    return result.output


def test_stats_and_the_class_report_count_mastery_per_deck(tmp_path: Path) -> None:
    """Ana masters all three cards of the course deck, Bo one of them."""
    home = tmp_path / "home"
    db = tmp_path / "class.sqlite3"
    url = f"sqlite:///{db}"
    source = tmp_path / "course.yaml"
    source.write_text(COURSE, encoding="utf-8")
    _cli(home, "--db", url, "deck", "add", str(source))
    now = datetime.now(UTC)
    store = open_store(url)
    try:
        for name, cards in (("ana", ["kv-grows", "hbm-h200", "gen-kv"]), ("bo", ["kv-grows"])):
            profile = ensure_profile(store, name, {}, now)
            for card in cards:
                record_answer(store, profile.id, answer(
                    "serving-course", card, now - timedelta(hours=1), post="",
                    stability=30.0, due_in=timedelta(days=30)))
    finally:
        store.close()
    stats = json.loads(_cli(home, "--db", url, "--profile", "ana", "stats", "--json"))
    assert stats["decks"]["serving-course"] == {
        "title": "Serving LLMs, week 1", "kind": "installed", "total": 3, "mastered": 3,
        "mastery": 1.0}
    assert "" not in stats["posts"] and len(stats["posts"]) == 12
    assert "Serving LLMs, week 1" in _cli(home, "--db", url, "--profile", "ana", "stats")
    report = json.loads(_cli(home, "--db", url, "class", "report", "--json"))
    decks = {s["name"]: s["decks"]["serving-course"] for s in report["students"]}
    assert decks == {"ana": 1.0, "bo": pytest.approx(1 / 3, abs=1e-4)}
    assert all("" not in s["mastery"] for s in report["students"])
    text = _cli(home, "--db", url, "class", "report")
    assert "Mastery per deck" in text and "serving-course" in text


def test_a_course_deck_class_lists_no_post_it_never_studied(tmp_path: Path) -> None:
    """A class that studies only an instructor's deck: ``--json`` and the CSV give each
    student's mastery on the posts the class studies (as the text grid does), not a 0 for
    every post of the blog."""
    home = tmp_path / "home"
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    source = tmp_path / "course.yaml"
    source.write_text(COURSE, encoding="utf-8")
    _cli(home, "--db", url, "deck", "add", str(source))
    now = datetime.now(UTC)
    store = open_store(url)
    try:
        for name, card, post in (("ana", "kv-grows", ""), ("bo", "hbm-h200", "h200")):
            profile = ensure_profile(store, name, {}, now)
            record_answer(store, profile.id, answer(
                "serving-course", card, now - timedelta(hours=1), post=post,
                stability=30.0, due_in=timedelta(days=30)))
    finally:
        store.close()
    report = json.loads(_cli(home, "--db", url, "class", "report", "--json"))
    # the one post a card of the class was answered under; a course card counts in its deck
    assert [s["mastery"] for s in report["students"]] == [{"h200": 0.0}, {"h200": 0.0}]
    text = _cli(home, "--db", url, "class", "report")
    assert "h200" in text and "hbm-kv-cache" not in text
    rows = _cli(home, "--db", url, "class", "report", "--csv").splitlines()
    assert not any(",hbm-kv-cache," in row for row in rows)
