"""Undo puts the session back exactly: the same question, choice order and counters.

Seen in the TUI: undo turned "+3 learning" into "+2 learning" and the card it
brought back came with its choices in a new order.
"""

from __future__ import annotations

from pathlib import Path

from test_service import Clock, right_answer, service, wrong_answer

from studyapp.srs import Rating
from studyapp.study import Presented, SessionKind, StudySession


def _view(p: Presented) -> tuple[object, ...]:
    q = p.question
    return (p.number, p.total, p.card_key, p.stage, p.returning, p.learning, p.early_by,
            q.prompt, tuple(q.choices or ()), q.answer)


def _answer(session: StudySession, p: Presented, right: bool) -> None:
    outcome = session.submit(right_answer(p.question) if right else wrong_answer(p.question))
    if outcome.needs_rating:
        session.rate(Rating.GOOD)


def test_undo_shows_the_same_card_the_same_way(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    try:
        session = svc.start(SessionKind.POST, post="h200", seed=3)
        seen: list[tuple[object, ...]] = []
        for n in range(12):  # new cards, then the learning ones as they come back
            p = session.next()
            assert p is not None
            seen.append(_view(p))
            before = (session.answered, session.correct, session.remaining,
                      session.learning_left)
            _answer(session, p, right=n % 3 != 1)
            nxt = session.next()
            assert nxt is not None
            after_next = _view(nxt)
            assert session.undo()
            back = session.next()
            assert back is not None
            assert _view(back) == seen[-1]  # same instance, same choice order, same counters
            assert (session.answered, session.correct, session.remaining,
                    session.learning_left) == before
            _answer(session, back, right=n % 3 != 1)
            again = session.next()
            assert again is not None and _view(again) == after_next
            session.skip()
            clock.advance(minutes=3)
    finally:
        svc.close()
