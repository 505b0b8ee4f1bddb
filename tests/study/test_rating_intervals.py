"""The interval on each rating button is the one the answer is scheduled with.

A lapsed card coming back from relearning is where fsrs alone offered Good
and Easy at the same 1 day; Anki keeps Easy at least a day beyond Good.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from test_service import Clock, right_answer, service, wrong_answer

from studyapp.srs import CardStage, Rating
from studyapp.store.progress import card_state
from studyapp.study import SessionKind, StudyService, StudySession


def _answer(svc: StudyService, item_key: tuple[str, str], right: bool,
            rating: Rating = Rating.GOOD) -> dict[Rating, timedelta]:
    """Ask one card now; the intervals its rating buttons showed (none after a wrong one)."""
    item = next(i for i in svc.plan(SessionKind.PRACTICE, post="h200") if i.key == item_key)
    session = StudySession(svc, SessionKind.POST, [item._replace(stage=CardStage.NEW, due=None)],
                           limit=None, seed=1, lang="en")
    presented = session.next()
    assert presented is not None and presented.card_key == item_key[1]
    question = presented.question
    outcome = session.submit(right_answer(question) if right else wrong_answer(question))
    if outcome.needs_rating:
        session.rate(rating)
    return outcome.intervals


def test_easy_after_relearning_is_scheduled_as_shown_and_beyond_good(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    key = svc.plan(SessionKind.POST, post="h200")[0].key

    def due_in() -> timedelta:
        row = card_state(svc.store, svc.profile.id, *key)
        assert row is not None
        return row.due - clock.now

    for _ in range(3):  # learning steps, then review
        _answer(svc, key, right=True)
        clock.advance(seconds=due_in().total_seconds())
    for _ in range(2):  # a lapse, then missed again in relearning: a weak card
        _answer(svc, key, right=False)
        clock.advance(seconds=due_in().total_seconds())

    shown = _answer(svc, key, right=True, rating=Rating.EASY)

    assert due_in() == shown[Rating.EASY]
    assert shown[Rating.EASY] - shown[Rating.GOOD] >= timedelta(days=1)
