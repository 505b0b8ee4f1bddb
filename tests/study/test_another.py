"""Another one now: a missed method card drawn again with fresh numbers, never recorded."""

from __future__ import annotations

import io
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studyapp.plain import run_plain
from studyapp.questions.model import Kind, Question
from studyapp.study import SessionKind, StudyConfig, StudyService, StudySession

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

DECK = """deck: another-drill
title: Another drill
language: en
post: hbm-kv-cache
cards:
  - {id: kv, type: generated, generator: kv-cache-per-token}
  - {id: memory, type: generated, generator: memory-type}
  - {id: serve, type: generated, generator: scenario-serving}
"""


def start(tmp_path: Path, *, practice: bool = False) -> tuple[StudyService, StudySession]:
    deck = tmp_path / "drill.yaml"
    deck.write_text(DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    service = StudyService(StudyConfig(db_url=url, profile="ana", clock=lambda: NOW,
                                       extra_decks=(deck,)))
    kind = SessionKind.PRACTICE if practice else SessionKind.DECK
    return service, service.start(kind, deck="another-drill", seed=4)


def wrong(question: Question) -> str:
    if question.kind is Kind.CHOICE:
        return "1" if question.answer_index != 0 else "2"
    return f"{float(question.answer) * 3 + 1:.6g}"


def right(question: Question) -> str:
    if question.kind is Kind.CHOICE:
        assert question.answer_index is not None
        return str(question.answer_index + 1)
    return f"{float(question.answer):.6g}"


def logs(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        return int(db.execute("SELECT count(*) FROM review_logs").fetchone()[0])


def until(session: StudySession, family: str) -> Question:
    """Answer the session's cards right until one of ``family`` is asked."""
    presented = session.next()
    while presented is not None and presented.question.family != family:
        q = presented.question
        for line in ([right(p.question) for p in q.parts] if q.kind is Kind.SCENARIO
                     else [right(q)]):
            outcome = session.submit(line)
        if outcome.needs_rating:
            session.rate()
        presented = session.next()
    assert presented is not None, family
    return presented.question


def test_a_missed_method_card_comes_again_with_fresh_numbers(tmp_path: Path) -> None:
    service, session = start(tmp_path)
    missed = until(session, "kv-cache-per-token")
    assert not session.can_another
    session.submit(wrong(missed))
    recorded = logs(tmp_path)
    assert session.can_another
    prompts = {missed.prompt}
    for _ in range(3):  # as many times as the learner wants
        again = session.another()
        assert again.practice and again.question.family == "kv-cache-per-token"
        assert again.question.prompt not in prompts  # other numbers
        prompts.add(again.question.prompt)
        assert not session.can_another  # one at a time
        outcome = session.submit(right(again.question))
        assert outcome.verdict.correct and not outcome.recorded and not outcome.needs_rating
        assert session.can_another
    assert logs(tmp_path) == recorded  # nothing recorded or scheduled
    assert session.answered == 1 and session.extra_answered == 3 and session.extra_correct == 3
    following = session.next()
    assert following is not None and following.question.family != "kv-cache-per-token"
    session.submit(right(following.question))
    assert not session.can_another  # the session went on: answering ends the offer
    service.close()


def test_a_fact_card_is_not_drawn_again(tmp_path: Path) -> None:
    service, session = start(tmp_path)
    fact = until(session, "memory-type")
    session.submit(wrong(fact))
    assert not session.can_another
    with pytest.raises(RuntimeError):
        session.another()
    service.close()


def test_leaving_on_a_drawn_again_question_records_nothing(tmp_path: Path) -> None:
    service, session = start(tmp_path)
    missed = until(session, "kv-cache-per-token")
    session.submit(wrong(missed))
    before = logs(tmp_path)
    again = session.another()
    session.submit(right(again.question))
    assert session.settle() is None
    assert logs(tmp_path) == before
    service.close()


def test_the_next_question_not_answered_yet_waits_for_another(tmp_path: Path) -> None:
    service, session = start(tmp_path)
    missed = until(session, "kv-cache-per-token")
    session.submit(wrong(missed))
    following = session.next()  # plain mode shows the next question at once
    assert following is not None and session.can_another
    shown = session.shown
    again = session.another()
    assert again.question.family == "kv-cache-per-token" and session.shown == shown - 1
    session.submit(right(again.question))
    back = session.next()  # the question put back comes next, counted once
    assert back is not None and back.card_key == following.card_key
    assert back.question == following.question  # asked as it was shown
    assert session.shown == shown
    service.close()


def test_undo_of_the_miss_ends_it(tmp_path: Path) -> None:
    service, session = start(tmp_path)
    missed = until(session, "kv-cache-per-token")
    session.submit(wrong(missed))
    assert session.can_another
    assert session.undo()
    assert not session.can_another
    service.close()


def test_in_practice_too(tmp_path: Path) -> None:
    service, session = start(tmp_path, practice=True)
    missed = until(session, "kv-cache-per-token")
    session.submit(wrong(missed))
    assert session.can_another
    again = session.another()
    assert session.submit(wrong(again.question)).verdict.correct is False
    assert session.extra_answered == 1 and session.extra_correct == 0
    service.close()


def test_plain_mode_takes_plus_for_another(tmp_path: Path) -> None:
    deck = tmp_path / "drill.yaml"
    deck.write_text(DECK.split("  - {id: memory")[0], encoding="utf-8")  # the method card only
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    service = StudyService(StudyConfig(db_url=url, profile="ana", clock=lambda: NOW,
                                       extra_decks=(deck,)))
    session = service.start(SessionKind.DECK, deck="another-drill", seed=4)
    first = session.next()
    assert first is not None and first.question.family == "kv-cache-per-token"
    out = io.StringIO()
    # wrong, then "+" and a wrong answer to the new numbers, then input ends
    run_plain(session, stdin=io.StringIO(f"{wrong(first.question)}\n+\n1\n"), stdout=out)
    text = out.getvalue()
    assert "Type + at the next > prompt" in text
    assert "Another with new numbers (practice: not scheduled):" in text
    assert text.count("Llama") >= 2 or text.count("KV") >= 2  # the new question was shown
    assert session.extra_answered == 1 and session.answered == 1
    assert logs(tmp_path) == 1  # the miss alone is recorded
    service.close()
