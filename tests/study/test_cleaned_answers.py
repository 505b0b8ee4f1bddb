"""Answers a learner gives, in plain mode or the app, are read through one cleaning.

A file piped to ``study --plain`` often starts with a BOM; a paste from a
web page carries zero-width spaces. Neither turns a right answer wrong, nor
stops a rating from being read, and the stored answer is without them.
"""

from __future__ import annotations

import io
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studyapp.plain import run_plain
from studyapp.study import SessionKind, StudyConfig, StudyService

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
HEADER = """deck: clean
title: Clean answers
language: en
post: hbm-kv-cache
cards:
"""
CARDS = {
    "numeric": ('{id: c, type: numeric, prompt: "6 x 7?", answer: "42", tolerance: 0}', "42"),
    "choice": ("{id: c, type: choice, prompt: Which?, choices: [GDDR7, HBM3e], answer: HBM3e}",
               "HBM3e"),  # by its text: the order of the choices is drawn
    "text": ("{id: c, type: text, prompt: HBM?, answer: high bandwidth memory}",
             "high bandwidth memory"),
    "truefalse": ('{id: c, type: truefalse, prompt: "The H200 has 141 GB.", answer: true}',
                  "y"),
}


def service(tmp_path: Path, card: str) -> StudyService:
    deck = tmp_path / "clean.yaml"
    deck.write_text(f"{HEADER}  - {card}\n", encoding="utf-8")
    return StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                    lang="en", clock=lambda: NOW, extra_decks=(deck,)))


def logs(tmp_path: Path) -> list[tuple[int, int, str]]:
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        return list(db.execute("SELECT rating, correct, response FROM review_logs"))


@pytest.mark.parametrize("mark", ["\ufeff", "\u200b", "\u200c", "\u200d", "\u2060"])
@pytest.mark.parametrize("kind", list(CARDS))
def test_plain_mode_reads_answers_and_ratings_without_invisible_characters(
        tmp_path: Path, kind: str, mark: str) -> None:
    card, right = CARDS[kind]
    svc = service(tmp_path, card)
    session = svc.start(SessionKind.DECK, deck="clean")
    out = io.StringIO()
    try:  # a file that starts with a BOM, or a paste with a zero-width space in it
        run_plain(session, stdin=io.StringIO(f"{mark}{right[:1]}{mark}{right[1:]}\n4{mark}\n"),
                  stdout=out)
    finally:
        svc.close()
    assert "Correct." in out.getvalue(), out.getvalue()
    [(rating, correct, response)] = logs(tmp_path)
    assert (rating, correct) == (4, 1)  # Easy: the rating was read too
    assert mark not in response


def test_the_app_grades_through_the_same_cleaning(tmp_path: Path) -> None:
    """The terminal app and the browser send what the field holds to ``respond``."""
    svc = service(tmp_path, CARDS["numeric"][0])
    session = svc.start(SessionKind.DECK, deck="clean")
    try:
        assert session.next() is not None
        response = session.respond("\u200b4\u20602\ufeff")
        assert response.outcome.verdict.correct is True
        session.rate()
    finally:
        svc.close()
    assert logs(tmp_path) == [(3, 1, "42")]
