"""A course-deck class's report without noise: no 0% rows for the posts it never studies
(text and CSV), and a self-graded card missed is not a row of blank wrong answers."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner
from store_answers import answer

from studyapp.cli import main
from studyapp.decks import load_deck
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

COURSE = """\
deck: serving-course
title: Serving course
language: en
course: Serving LLMs
cards:
  - id: kv-size
    type: numeric
    prompt: "KV cache of one token, in KB?"
    answer: 320
    unit: KB
  - id: kv-name
    type: recall
    prompt: "What keeps the attention keys and values of earlier tokens?"
    answer: "The KV cache"
"""


def _class(tmp_path: Path) -> dict[str, str]:
    path = tmp_path / "serving-course.yaml"
    path.write_text(COURSE, encoding="utf-8")
    deck = load_deck(path)
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    store = open_store(url)
    try:
        for n, (name, kv) in enumerate([("ana", "40"), ("bo", "320"), ("cy", "2560")]):
            profile = ensure_profile(store, name, {}, T0)
            at = T0 + timedelta(minutes=n)
            base = answer(deck.id, "kv-size", at, post="", stage=0, reps=0)
            record_answer(store, profile.id, replace(
                base, response=kv, expected="320 KB", correct=kv == "320",
                rating=3 if kv == "320" else 1, seed=0, params=None))
            base = answer(deck.id, "kv-name", at, post="", stage=0, reps=0)
            record_answer(store, profile.id, replace(  # forgot: rated Again, nothing typed
                base, response="", expected="The KV cache", correct=False, rating=1, seed=0,
                params=None))
    finally:
        store.close()
    home = tmp_path / "home"
    env = {"STUDYAPP_HOME": str(home), "STUDYAPP_DB": url, "COLUMNS": "120"}
    added = CliRunner().invoke(main, ["deck", "add", str(path)], env=env)
    assert added.exit_code == 0, added.output
    return env


def test_the_grid_has_the_course_deck_and_no_post_rows(tmp_path: Path) -> None:
    env = _class(tmp_path)
    as_csv = CliRunner().invoke(main, ["--lang", "en", "class", "report", "--csv"], env=env)
    assert as_csv.exit_code == 0, as_csv.output
    grid = as_csv.stdout.replace("\r\n", "\n").split("\n\n", 1)[0]
    rows = list(csv.DictReader(io.StringIO(grid)))
    assert sorted((r["student"], r["post"], r["deck"]) for r in rows) == [
        ("ana", "", "serving-course"), ("bo", "", "serving-course"),
        ("cy", "", "serving-course")]
    text = CliRunner().invoke(main, ["--lang", "en", "class", "report"], env=env)
    assert text.exit_code == 0, text.output
    assert "hbm-kv-cache" not in text.output and "storage-checkpoints" not in text.output
    # no per-post grid with headings and no rows: the deck's grid says it
    assert "Mastery per post" not in text.output
    assert "Mastery per deck (cards mastered)" in text.output


def test_a_missed_self_graded_card_is_no_row_of_blank_wrong_answers(tmp_path: Path) -> None:
    env = _class(tmp_path)
    text = CliRunner().invoke(main, ["--lang", "en", "class", "report"], env=env)
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    table = lines[next(i for i, line in enumerate(lines) if "common wrong answers" in line):]
    # 40 KB and 2560 KB: the ×8 bits slip both ways; the recall card has no typed answer
    assert any("serving-course/kv-size" in line and "40 KB (50%)" in line for line in table)
    assert "serving-course/kv-name (0% first try, 3 students)" in text.output  # reteach
    assert not any("kv-name" in line for line in table)
