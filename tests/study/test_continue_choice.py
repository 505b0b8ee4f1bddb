"""``c`` on home continues whatever is due first, and never finds nothing while cards wait.

Seen: "Nothing to study here right now" while the header said "Due today 9"
and ``r`` opened 9 cards (the last post had learning cards due later today
only; the due reviews were in other posts).
"""

from __future__ import annotations

from pathlib import Path

from test_service import Clock, right_answer, service

from studyapp.srs import Rating
from studyapp.study import SessionKind, StudyService

POSTS = ["intro", "hbm-kv-cache", "h100", "h200", "blackwell"]


def _graduate(svc: StudyService, clock: Clock, post: str, cards: int) -> None:
    """Answer ``cards`` new cards of ``post`` right until they reach review."""
    for _ in range(3):
        session = svc.start(SessionKind.POST, post=post, limit=cards, seed=1)
        while (p := session.next()) is not None:
            if session.submit(right_answer(p.question)).needs_rating:
                session.rate(Rating.GOOD)
        clock.advance(minutes=11)


def test_due_cards_first_then_any_due_then_new(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    try:
        _graduate(svc, clock, "h200", 3)
        _graduate(svc, clock, "h100", 3)
        assert svc.continue_choice("h200", POSTS) == ("post", "h200")  # new cards left
        clock.advance(days=20)  # every review is due
        assert svc.continue_choice("h200", POSTS) == ("post", "h200")
        # the last post's due cards answered: the due ones elsewhere come next
        session = svc.start(SessionKind.POST, post="h200", seed=2)
        while (p := session.next()) is not None and p.stage.name != "NEW":
            if session.submit(right_answer(p.question)).needs_rating:
                session.rate(Rating.GOOD)
        assert svc.continue_choice("h200", POSTS) == ("review", "")
        assert svc.continue_choice(None, POSTS) == ("review", "")
        assert len(svc.plan(SessionKind.REVIEW)) > 0
    finally:
        svc.close()


def test_learning_due_later_today_is_not_continued_but_new_cards_are(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    try:
        session = svc.start(SessionKind.POST, post="h200", limit=1, seed=1)
        p = session.next()
        assert p is not None
        session.submit(right_answer(p.question))
        session.rate(Rating.GOOD)  # a 10-minute step: waiting, not ready within... 20 min
        clock.advance(seconds=1)
        choice = svc.continue_choice("h200", POSTS)
        assert choice is not None  # never "nothing" while cards wait
        assert svc.update_settings(new_per_day=0, learn_ahead_min=0)
        waiting = svc.continue_choice("h200", POSTS)  # only a step due in 10 minutes
        assert waiting is not None and waiting[0] == "wait"
        clock.advance(minutes=10)
        assert svc.continue_choice("h200", POSTS) == ("post", "h200")
    finally:
        svc.close()
