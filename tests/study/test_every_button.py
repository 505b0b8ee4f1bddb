"""Every rating button shows the interval that pressing it schedules, in every stage.

A card is brought to each stage through the study session with the app's own
clock (new; learning, on time and back early; relearning; review, on time and
overdue), then each rating is pressed in English and in Spanish: the interval
the outcome showed is the one stored, to the second, and the text on the
button is the text of the stored interval.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from test_service import Clock, right_answer, service, wrong_answer

from studyapp.srs import CardStage, Rating, format_interval
from studyapp.store.progress import card_state
from studyapp.study import SessionKind, StudyService, StudySession

Key = tuple[str, str]


def _ask(svc: StudyService, key: Key, lang: str, right: bool,
         rating: Rating = Rating.GOOD) -> dict[Rating, timedelta]:
    """Ask the card now, answer it, press ``rating``; the intervals the outcome showed."""
    item = next(i for i in svc.plan(SessionKind.PRACTICE, post="h200") if i.key == key)
    session = StudySession(svc, SessionKind.POST, [item], limit=None, seed=1, lang=lang)
    presented = session.next()
    assert presented is not None and presented.card_key == key[1]
    outcome = session.submit(right_answer(presented.question) if right
                             else wrong_answer(presented.question))
    assert outcome.needs_rating is right
    if right:
        session.rate(rating)
    return outcome.intervals


def _due_in(svc: StudyService, clock: Clock, key: Key) -> timedelta:
    row = card_state(svc.store, svc.profile.id, *key)
    assert row is not None
    return row.due - clock.now


def _stage(svc: StudyService, key: Key) -> CardStage:
    row = card_state(svc.store, svc.profile.id, *key)
    return CardStage.NEW if row is None else CardStage(row.stage)


def _to_review(svc: StudyService, clock: Clock, key: Key) -> None:
    for _ in range(3):  # the two learning steps, then graduation
        _ask(svc, key, "en", right=True)
        clock.advance(seconds=_due_in(svc, clock, key).total_seconds())


def _new(svc: StudyService, clock: Clock, key: Key) -> None:
    pass


def _learning(svc: StudyService, clock: Clock, key: Key) -> None:
    _ask(svc, key, "en", right=True)
    clock.advance(seconds=_due_in(svc, clock, key).total_seconds())


def _early(svc: StudyService, clock: Clock, key: Key) -> None:
    _ask(svc, key, "en", right=True)
    clock.advance(minutes=2)  # back 8 minutes before its 10-minute step is due


def _relearning(svc: StudyService, clock: Clock, key: Key) -> None:
    _to_review(svc, clock, key)
    _ask(svc, key, "en", right=False)
    clock.advance(seconds=_due_in(svc, clock, key).total_seconds())


def _review(svc: StudyService, clock: Clock, key: Key) -> None:
    _to_review(svc, clock, key)
    clock.advance(hours=3)


def _overdue(svc: StudyService, clock: Clock, key: Key) -> None:
    _to_review(svc, clock, key)
    clock.advance(days=12, hours=5)


STAGES: dict[str, tuple[Callable[[StudyService, Clock, Key], None], CardStage]] = {
    "new": (_new, CardStage.NEW),
    "learning": (_learning, CardStage.LEARNING),
    "early": (_early, CardStage.LEARNING),
    "relearning": (_relearning, CardStage.RELEARNING),
    "review": (_review, CardStage.REVIEW),
    "overdue": (_overdue, CardStage.REVIEW),
}


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("stage", list(STAGES))
@pytest.mark.parametrize("rating", list(Rating))
def test_each_button_schedules_what_it_shows(tmp_path: Path, stage: str, lang: str,
                                             rating: Rating) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    try:
        key = svc.plan(SessionKind.POST, post="h200")[0].key
        bring, expected = STAGES[stage]
        bring(svc, clock, key)
        assert _stage(svc, key) is expected
        if rating is Rating.AGAIN:  # a wrong answer is Again; "I guessed" too
            shown = _ask(svc, key, lang, right=False)
        else:
            shown = _ask(svc, key, lang, right=True, rating=rating)
        assert set(shown) == set(Rating)  # every button has its interval
        scheduled = _due_in(svc, clock, key)
        assert scheduled == shown[rating]
        assert format_interval(scheduled, lang) == format_interval(shown[rating], lang)
        assert format_interval(shown[rating], lang)  # never empty
    finally:
        svc.close()


@pytest.mark.parametrize("lang", ["en", "es"])
def test_i_guessed_after_a_right_answer_schedules_again(tmp_path: Path, lang: str) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    try:
        key = svc.plan(SessionKind.POST, post="h200")[0].key
        _review(svc, clock, key)
        shown = _ask(svc, key, lang, right=True, rating=Rating.AGAIN)
        assert _due_in(svc, clock, key) == shown[Rating.AGAIN]
        assert _stage(svc, key) is CardStage.RELEARNING
    finally:
        svc.close()
