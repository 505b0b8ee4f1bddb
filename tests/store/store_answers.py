"""Answers written straight through the store, for tests that need history fast."""

from __future__ import annotations

from datetime import datetime, timedelta

from studyapp.store.progress import Answer, NewState


def answer(deck: str, card: str, at: datetime, *, post: str = "intro", stage: int = 2,
           stability: float = 5.0, rating: int = 3, correct: bool = True, lapses: int = 0,
           reps: int = 1, leech: bool = False, due_in: timedelta = timedelta(days=3),
           duration_ms: int = 4000) -> Answer:
    return Answer(
        deck_id=deck, card_key=card, post=post, family=None,
        state=NewState(stage=stage, step=None if stage == 2 else 0, stability=stability,
                       difficulty=5.0, due=at + due_in, last_review=at, reps=reps,
                       lapses=lapses, leech=leech),
        reviewed_at=at, rating=rating, correct=correct, duration_ms=duration_ms, seed=7,
        params={"gpu": "h200-sxm", "batch": 4}, prompt=f"Question {card}?", response="42",
        expected="42", lang="en")
