"""An answer graded right is never lost before its rating.

It is held in the database when it is graded; leaving the question, closing
the service (tab closed, ctrl+q, SIGTERM) records it as Enter would, and an
app killed with SIGKILL leaves it held, to be recorded when the profile
opens again. These run real processes where a real process is the point.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from deck_cache import with_checked_decks

from studyapp.store import open_store
from studyapp.store.held import abandoned_answers
from studyapp.store.progress import card_states, review_count
from studyapp.study import SessionKind, StudyConfig, StudyService

DECK = """deck: held
title: Held answers
language: en
post: hbm-kv-cache
cards:
  - id: six-sevens
    type: numeric
    prompt: {en: "How much is 6 × 7?", es: "¿Cuánto es 6 × 7?"}
    answer: "42"
    tolerance: 0
"""
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    path = tmp_path / "held.yaml"
    path.write_text(DECK, encoding="utf-8")
    return path


def service(url: str, deck: Path) -> StudyService:
    return StudyService(StudyConfig(db_url=url, lang="en", clock=lambda: NOW,
                                    extra_decks=(deck,)))


def reviews(url: str) -> tuple[int, list[int]]:
    """How many answers the profile has, and each card's reps."""
    from studyapp.store.progress import ensure_profile

    store = open_store(url)
    try:
        profile = ensure_profile(store, "default", {}, NOW)
        states = card_states(store, profile.id)
        return review_count(store, profile.id), [row.reps for row in states.values()]
    finally:
        store.close()


def test_a_right_answer_is_held_until_rated_then_released(tmp_path: Path, deck: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    svc = service(url, deck)
    session = svc.start(SessionKind.DECK, deck="held")
    assert session.next() is not None
    outcome = session.submit("42")
    assert outcome.needs_rating and not outcome.recorded
    held = abandoned_answers(svc.store, svc.profile.id, NOW)
    assert held == []  # held by this live process: not abandoned
    session.rate()
    svc.close()
    store = open_store(url)
    try:
        from sqlalchemy import func, select

        from studyapp.store.tables import HeldAnswer

        with store.sessions() as s:
            assert s.execute(select(func.count()).select_from(HeldAnswer)).scalar_one() == 0
    finally:
        store.close()
    assert reviews(url) == (1, [1])


def test_closing_the_service_records_the_waiting_answer_as_good(tmp_path: Path,
                                                                deck: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    svc = service(url, deck)
    session = svc.start(SessionKind.DECK, deck="held")
    session.next()
    session.submit("42")
    svc.close()  # the tab closed, ctrl+q, SIGTERM: the app closes its service
    assert session.answered == 1
    store = open_store(url)
    try:
        from sqlalchemy import select

        from studyapp.store.tables import ReviewLog

        with store.sessions() as s:
            assert s.execute(select(ReviewLog.rating)).scalars().all() == [3]  # Good
    finally:
        store.close()


def read_until(proc: subprocess.Popen[bytes], marker: bytes, timeout: float = 60) -> bytes:
    assert proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + timeout
    fd = proc.stdout.fileno()
    while marker not in seen:
        left = deadline - time.monotonic()
        assert left > 0, seen.decode(errors="replace")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            assert chunk, seen.decode(errors="replace")
            seen += chunk
    return seen


@pytest.mark.slow
def test_sigkill_with_the_answer_shown_but_not_rated_loses_nothing(tmp_path: Path,
                                                                   deck: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    env = os.environ | {"STUDYAPP_HOME": str(with_checked_decks(tmp_path / "home")),
                        "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(Path(__file__).parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "studyapp", "--db", url, "--lang", "en", "study", "--plain",
         "--deck", str(deck)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None
    read_until(proc, b"6 \xc3\x97 7")
    proc.stdin.write(b"42\n")
    proc.stdin.flush()
    read_until(proc, b"How easy was it?")  # graded right, the rating not given
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert reviews(url) == (0, [])  # nothing rated yet: the answer is only held

    svc = service(url, deck)
    try:
        assert svc.profile is not None
        assert svc.recovered == ["How much is 6 × 7?"]
    finally:
        svc.close()
    assert reviews(url) == (1, [1])
    again = service(url, deck)  # recorded once, never twice
    try:
        assert again.profile is not None and again.recovered == []
    finally:
        again.close()
    assert reviews(url) == (1, [1])
