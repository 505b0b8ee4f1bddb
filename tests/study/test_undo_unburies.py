"""Undo takes back everything an answer did, the siblings it buried included."""

from __future__ import annotations

from pathlib import Path

from test_service import Clock, right_answer
from test_session_queue import SIBLING_DECK

from studyapp.srs import Rating
from studyapp.study import SessionKind, StudyConfig, StudyService

KEYS = {("siblings", "capacity"), ("siblings", "capacity-back")}


def service(tmp_path: Path, clock: Clock) -> StudyService:
    deck = tmp_path / "siblings.yaml"
    deck.write_text(SIBLING_DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'undo.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, lang="en", clock=clock, extra_decks=(deck,)))


def test_undo_brings_back_the_siblings_the_answer_buried(tmp_path: Path) -> None:
    from studyapp.browse import browser_for

    clock = Clock()
    svc = service(tmp_path, clock)
    browser = browser_for(svc)
    for key in ("capacity", "capacity-back"):  # flagged: both are stored rows
        browser.apply([browser.find("siblings", key)], "flag", 1)
    session = svc.start(SessionKind.DECK, deck="siblings", seed=1)
    while (presented := session.next()) is not None:
        if (presented.deck_id, presented.card_key) in KEYS:
            break
        session.skip()
    assert presented is not None
    answered = (presented.deck_id, presented.card_key)
    (sibling,) = KEYS - {answered}
    session.submit(right_answer(presented.question))
    session.rate(Rating.GOOD)
    assert svc.card_states()[sibling].buried_until is not None
    assert session.undo()
    assert svc.card_states()[sibling].buried_until is None  # back today
    assert browser.find(*sibling).buried is False
