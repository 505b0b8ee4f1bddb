"""A simulated learner for the FSRS optimizer: reviews the app schedules, answered by a memory
that follows FSRS with parameters other than the defaults; and a way to store them.
"""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

import fsrs_rs_python as fsrs_rs

from studyapp.srs.optimize import ReviewEvent
from studyapp.srs.scheduler import (
    DEFAULT_PARAMETERS,
    Memory,
    Rating,
    Scheduler,
    SchedulerSettings,
)

# A learner who forgets much faster than the defaults assume: small initial
# stabilities (w0-w3), slow stability growth (w8) and a steeper curve (w20).
TRUE_PARAMETERS = list(DEFAULT_PARAMETERS)
TRUE_PARAMETERS[0:4] = [0.1, 0.3, 0.6, 2.0]
TRUE_PARAMETERS[8] = 1.0
TRUE_PARAMETERS[20] = 0.5

START = datetime(2025, 1, 6, 12, 0, tzinfo=UTC)


def _recall(parameters: list[float], stability: float, days: float) -> float:
    decay = -parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    return float((1 + factor * days / stability) ** decay)


def simulate_learner(cards: int, days: int, seed: int = 7) -> list[ReviewEvent]:
    """Reviews scheduled by the app (default parameters), answered by TRUE_PARAMETERS memory.

    One review per card and day (no same-day steps), at noon UTC.
    """
    rng = random.Random(seed)
    app = Scheduler(SchedulerSettings(learning_steps_s=(), relearning_steps_s=()))
    truth = fsrs_rs.FSRS(TRUE_PARAMETERS)
    events: list[ReviewEvent] = []
    for card in range(1, cards + 1):
        day = rng.randrange(days // 2)
        memory = Memory(card_id=card)
        true_state: fsrs_rs.MemoryState | None = None
        last_day = day
        while day < days:
            elapsed = day - last_day
            if true_state is None:
                recalled = rng.random() < 0.75  # first sight: most are known or guessed
            else:
                recalled = rng.random() < _recall(TRUE_PARAMETERS, true_state.stability,
                                                  elapsed)
            rating = (rng.choice([Rating.HARD, Rating.GOOD, Rating.GOOD, Rating.GOOD,
                                  Rating.EASY]) if recalled else Rating.AGAIN)
            now = START + timedelta(days=day)
            events.append(ReviewEvent(card, now, int(rating)))
            states = truth.next_states(true_state, 0.9, elapsed)
            true_state = {Rating.AGAIN: states.again, Rating.HARD: states.hard,
                          Rating.GOOD: states.good, Rating.EASY: states.easy}[rating].memory
            memory = app.review(memory, rating, now)
            assert memory.due is not None
            last_day = day
            day += max(1, round((memory.due - now).total_seconds() / 86400))
    return events


def store_history(db_url: str, profile: str, events: list[ReviewEvent]) -> None:
    """Write the events as one profile's cards and review logs (a deck of its own)."""
    from sqlalchemy import insert

    from studyapp.store import open_store
    from studyapp.store.tables import CardState, Profile, ReviewLog

    store = open_store(db_url)
    try:
        with store.transaction() as session:
            found = session.query(Profile).filter_by(name=profile).one_or_none()
            if found is None:
                found = Profile(name=profile, created_at=START,
                                settings=SchedulerSettings().to_dict())
                session.add(found)
                session.flush()
            last = {e.card_id: e for e in events}
            ids = {}
            for card_id, event in last.items():
                card = CardState(profile_id=found.id, deck_id="simulated",
                                 card_key=f"card-{card_id}", post="intro", family=None,
                                 state=2, step=None, stability=5.0, difficulty=5.0,
                                 due=event.reviewed_at + timedelta(days=5),
                                 last_review=event.reviewed_at, reps=1, lapses=0,
                                 suspended=False, leech=False, created_at=START)
                session.add(card)
                session.flush()
                ids[card_id] = card.id
            session.execute(insert(ReviewLog), [
                {"profile_id": found.id, "card_id": ids[e.card_id], "reviewed_at": e.reviewed_at,
                 "rating": e.rating, "correct": e.rating > 1, "uid": uuid.uuid4().hex}
                for e in events])
    finally:
        store.close()
