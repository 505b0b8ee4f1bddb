"""Months of study made through the real service, for the progress screens' tests.

Every answer goes through ``StudySession`` with a clock that walks the days
before ``FIXED_NOW``, so the heat map, forecast, retention and leeches come
from the same code that records a learner's answers.
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from datetime import datetime, timedelta
from pathlib import Path

from tui_helpers import FIXED_NOW, right_answer, wrong_answer

from studyapp import locations
from studyapp.srs.scheduler import Rating
from studyapp.study import SessionKind, StudyConfig, StudyService

DAY = timedelta(days=1)

_MADE: dict[tuple[object, ...], bytes] = {}
"""Each history made in this test process, by its arguments and the database it started
from. Made again it is the same history (a fixed clock and seeds; only the random ids of
answers and draws differ), and making one takes seconds of study through the service."""

SHARED: Path | None = None
"""A folder every worker of a parallel test run shares (tests/tui/conftest.py sets it):
a history one worker made, the others copy instead of studying it again."""


def make_history(db_path: Path, profile: str = "default", *, days: int = 60,
                 skill: float = 0.75, per_day: int = 12, seed: int = 1) -> None:
    """Study on most of the last ``days`` days, right with probability ``skill``."""
    before = db_path.read_bytes() if db_path.exists() else b""
    key = (profile, days, skill, per_day, seed, hashlib.sha256(before).digest(), _world())
    if key in _MADE:
        db_path.write_bytes(_MADE[key])
        return
    name = hashlib.sha256(repr(key).encode()).hexdigest()
    shared = None if SHARED is None else SHARED / f"{name}.sqlite3"
    if shared is not None and shared.exists():
        _MADE[key] = shared.read_bytes()
        db_path.write_bytes(_MADE[key])
        return
    _make(db_path, profile, days, skill, per_day, seed)
    _MADE[key] = db_path.read_bytes()
    if shared is not None:
        _share(shared, _MADE[key])


def _world() -> tuple[object, ...]:
    """What else shapes a history: the built-in decks studied (snapshot tests use their
    own), the user's decks and the time zone that cuts study days."""
    user = locations.user_decks_dir()
    user_decks = sorted((p.name, p.stat().st_size) for p in user.iterdir()) if user.is_dir() else []
    return (str(locations.builtin_decks_dir()), tuple(user_decks), os.environ.get("TZ"),
            time.tzname)


def _share(path: Path, made: bytes) -> None:
    """Leave a history for the run's other workers, whole or not at all (a worker that
    finds none makes its own)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    partial.write_bytes(made)
    os.replace(partial, path)


def _make(db_path: Path, profile: str, days: int, skill: float, per_day: int,
          seed: int) -> None:
    rng = random.Random(f"{profile}-{seed}")
    moment = [FIXED_NOW - days * DAY]

    def clock() -> datetime:
        return moment[0]

    # answer times follow the simulated clock too, so time studied is the same on every run
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}", profile=profile,
                                       lang="en", clock=clock,
                                       stopwatch=lambda: moment[0].timestamp()))
    service.update_settings(new_card_order="authored-first")  # the history these tests know
    _study(service, moment, rng, days, skill, per_day)


def _study(service: StudyService, moment: list[datetime], rng: random.Random, days: int,
           skill: float, per_day: int) -> None:
    try:
        for day in range(days):
            if rng.random() < 0.25:
                continue
            moment[0] = FIXED_NOW - (days - day) * DAY + timedelta(hours=rng.randint(0, 6))
            kind = SessionKind.POST if day % 3 == 0 else SessionKind.DUE
            session = service.start(kind, post="h200" if kind is SessionKind.POST else None,
                                    limit=per_day, seed=day)
            # per_day answers a day (the limit counts distinct cards; returns come on top)
            while session.answered < per_day and (presented := session.next()) is not None:
                moment[0] += timedelta(seconds=rng.randint(10, 50))
                question = presented.question
                right = rng.random() < skill
                outcome = session.submit(right_answer(question) if right
                                         else wrong_answer(question))
                if outcome.needs_rating:
                    session.rate(Rating.GOOD)
    finally:
        service.close()
