"""``study --plain`` prints each rating with the interval that choosing it schedules."""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.srs import format_interval

DECK = """deck: one
title: One
language: en
post: h200
cards:
  - {id: only, type: truefalse, prompt: "The H200 SXM has 141 GB.", answer: true}
"""


def _scheduled(db: Path) -> timedelta:
    with sqlite3.connect(db) as connection:
        due, = connection.execute("SELECT due FROM card_states").fetchone()
        at, = connection.execute(
            "SELECT reviewed_at FROM review_logs ORDER BY id DESC LIMIT 1").fetchone()
    return datetime.fromisoformat(due) - datetime.fromisoformat(at)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_interval_printed_for_each_choice_is_the_one_stored(tmp_path: Path,
                                                                 lang: str) -> None:
    deck = tmp_path / "one.yaml"
    deck.write_text(DECK, encoding="utf-8")
    db = tmp_path / "plain.sqlite3"
    env = {"STUDYAPP_HOME": str(tmp_path / "home")}
    yes = "s" if lang == "es" else "y"
    for rating in ("3", "2", "4"):  # new → step; back early → Hard; early again → Easy
        result = CliRunner().invoke(main, ["--db", f"sqlite:///{db}", "--lang", lang,
                                           "study", "--deck", str(deck), "--plain",
                                           "--limit", "1"], input=f"{yes}\n{rating}\n", env=env)
        assert result.exit_code == 0, result.output
        shown = re.search(rf"\b{rating}=[^(]+\(([^)]+)\)", result.output)
        assert shown is not None, result.output
        assert shown.group(1) == format_interval(_scheduled(db), lang), result.output
