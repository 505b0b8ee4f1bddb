"""What the question header says: learning cards that may come now, a card shown
early (learn-ahead), the learner's flag, in the plain loop and the service alike."""

from __future__ import annotations

import io
from pathlib import Path

from test_service import Clock, right_answer

from studyapp.srs import Rating
from studyapp.study import SessionKind, StudyConfig, StudyService

DECK = """deck: header
title: Header
language: en
post: h200
cards:
  - {id: one, type: truefalse, prompt: "The H200 SXM has 141 GB.", answer: true}
  - {id: two, type: truefalse, prompt: "The H200 SXM has 4.8 TB/s.", answer: true}
"""


def service(tmp_path: Path, clock: Clock) -> StudyService:
    deck = tmp_path / "header.yaml"
    deck.write_text(DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'header.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, lang="en", clock=clock, extra_decks=(deck,)))


def test_learning_count_leaves_out_cards_due_beyond_the_learn_ahead_limit(
        tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    svc.update_settings(learn_ahead_min=5)
    session = svc.start(SessionKind.DECK, deck="header", seed=1)
    first = session.next()
    assert first is not None
    session.submit(right_answer(first.question))
    session.rate(Rating.GOOD)  # back in 10 minutes: beyond the 5-minute limit
    second = session.next()
    assert second is not None and second.learning == 0
    session.submit(right_answer(second.question))
    session.rate(Rating.AGAIN)  # back in a minute: may come now
    clock.advance(minutes=1)
    third = session.next()
    assert third is not None and third.card_key == second.card_key
    assert third.learning == 1 and third.early_by is None  # due: not early


def test_a_card_shown_early_says_so_in_the_plain_header(tmp_path: Path) -> None:
    from studyapp.plain import run_plain

    clock = Clock()
    svc = service(tmp_path, clock)
    session = svc.start(SessionKind.DECK, deck="header", seed=1, limit=3)
    out = io.StringIO()
    # both right and Good (10 min); the third question is the first card, 10 min early
    run_plain(session, stdin=io.StringIO("y\n\ny\n\n"), stdout=out)
    headers = [line for line in out.getvalue().splitlines() if line.startswith("[")]
    assert len(headers) == 3
    assert "early" not in headers[0] and "early" not in headers[1]
    assert headers[2].startswith("[2/2] +2 learning · early · due in 10 min · h200 · ")


def test_the_flag_is_shown_with_the_question(tmp_path: Path) -> None:
    from studyapp.browse import browser_for
    from studyapp.plain import render_question

    clock = Clock()
    svc = service(tmp_path, clock)
    browser = browser_for(svc)
    card = browser.find("header", "two")
    assert browser.apply([card], "flag", 3) == 1
    session = svc.start(SessionKind.DECK, deck="header", seed=1)
    shown = {}
    while (presented := session.next()) is not None:
        shown[presented.card_key] = presented
        session.submit(right_answer(presented.question))
        session.rate(Rating.EASY)
        clock.advance(minutes=1)
        if len(shown) == 2:
            break
    assert shown["two"].flag == 3 and shown["one"].flag == 0
    assert render_question(shown["two"], "en")[0].endswith(" · flag 3")
    assert "flag" not in render_question(shown["one"], "en")[0]
