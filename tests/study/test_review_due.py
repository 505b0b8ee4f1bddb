""""Review due" serves due reviews and learning cards only; new cards wait for study."""

from __future__ import annotations

from pathlib import Path

from test_service import Clock, service, wrong_answer

from studyapp.srs import CardStage
from studyapp.study import SessionKind


def test_review_due_serves_no_new_cards_from_any_post(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    session = svc.start(SessionKind.POST, post="h200", seed=1)
    presented = session.next()
    assert presented is not None
    session.submit(wrong_answer(presented.question))  # Again: learning, back in a minute
    clock.advance(minutes=2)
    planned = svc.plan(SessionKind.REVIEW)
    assert [(i.deck_id, i.card_key) for i in planned] == [(presented.deck_id,
                                                           presented.card_key)]
    assert all(i.stage is not CardStage.NEW for i in planned)
    review = svc.start(SessionKind.REVIEW, seed=1)
    back = review.next()
    assert back is not None and back.card_key == presented.card_key
    review.submit(wrong_answer(back.question))
    clock.advance(minutes=30)  # past the learn-ahead limit: nothing else is due
    assert review.next() is not None  # the card itself, due again
    # a study session still brings today's new cards
    assert any(i.stage is CardStage.NEW for i in svc.plan(SessionKind.DUE))
