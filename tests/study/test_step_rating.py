"""A scenario in a session is judged by its steps: one missed step passes at Hard at most,
says why, and brings that step's own kind of card forward in the sitting."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from studyapp.questions.model import Kind, Question
from studyapp.srs import Rating
from studyapp.srs.queue import QueueItem
from studyapp.srs.scheduler import CardStage
from studyapp.study import SCENARIO_OUTCOME, SessionKind, StudyConfig, StudyService
from studyapp.study.draws import bring_forward

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

DECK = """deck: step-drill
title: Step drill
language: en
post: hgx
cards:
  - {id: serve, type: generated, generator: scenario-serving}
  - {id: weights, type: generated, generator: weights-size}
  - {id: memory, type: generated, generator: memory-type}
  - {id: kv, type: generated, generator: kv-cache-per-token}
"""


def right(question: Question, index: int) -> str:
    part = question.parts[index].question
    if part.kind is Kind.CHOICE:
        return str(part.choices.index(str(part.answer)) + 1)
    return f"{part.answer:.6g}"


def test_a_missed_step_passes_at_hard_and_its_family_comes_next(tmp_path: Path) -> None:
    deck = tmp_path / "drill.yaml"
    deck.write_text(DECK, encoding="utf-8")
    db = tmp_path / "study.sqlite3"
    clock = [NOW]
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{db}", profile="ana",
                                   clock=lambda: clock[0], extra_decks=(deck,)))
    for other in svc.deck_list():  # this learner studies the drill deck alone
        if other.deck_id != "step-drill":
            svc.set_deck_enabled(other.deck_id, False)
    # the families the scenario chains come first (``study.ladders``): seen, then due
    first = svc.start(SessionKind.DECK, deck="step-drill", seed=3)
    while (shown := first.next()) is not None:
        assert shown.card_key != "serve"
        first.submit(right_step(shown.question))
        first.rate(Rating.EASY)
    clock[0] = NOW + timedelta(days=30)
    session = svc.start(SessionKind.DECK, deck="step-drill", seed=3)
    presented = session.next()
    while presented is not None and presented.card_key != "serve":
        session.skip()
        presented = session.next()
    assert presented is not None and presented.card_key == "serve"
    q = presented.question
    outcome = None
    for i in range(len(q.parts)):
        kv = float(q.parts[1].question.answer)  # type: ignore[arg-type]
        outcome = session.submit(f"{kv * 3:.6g}" if i == 1 else right(q, i))
    assert outcome is not None and outcome.needs_rating
    assert outcome.max_rating is Rating.HARD and outcome.capped_by_step
    session.rate(Rating.EASY)  # capped: recorded as Hard
    with sqlite3.connect(db) as connection:
        [(rating, params)] = list(connection.execute(
            "SELECT rating, params FROM review_logs WHERE NOT implicit AND seed IS NOT NULL "
            "AND params LIKE '%steps_outcome%'"))
    assert rating == int(Rating.HARD)
    assert json.loads(params)[SCENARIO_OUTCOME]["weak"] == ["kv-cache-per-token"]
    following = session.next()
    assert following is not None and following.card_key == "kv"  # ahead of memory; weights
    # was counted right by its step: reviewed, it is not asked again in this sitting
    svc.close()


def right_step(question: Question) -> str:
    if question.kind is Kind.CHOICE:
        return str(question.choices.index(str(question.answer)) + 1)
    return f"{question.answer:.6g}"


def test_bring_forward_keeps_the_rest_in_order() -> None:
    def item(key: str, family: str) -> QueueItem:
        return QueueItem("d", key, "hgx", family, CardStage.NEW)

    main = [item("a", "weights-size"), item("b", "kv-cache-per-token"), item("c", "memory-type"),
            item("d", "kv-cache-per-token")]
    keys = [i.card_key for i in bring_forward(main, ["kv-cache-per-token"])]
    assert keys == ["b", "d", "a", "c"]
    assert bring_forward(main, []) == main
