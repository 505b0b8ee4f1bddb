"""A lost server connection is retried with backoff, in a fresh try each time.

The clock and the sleep are injected: the waits are asserted, not waited.
"""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from studyapp.store import Reconnect, ServerAway
from studyapp.store.database import RETRY_DELAYS, connection_lost


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def refused() -> OperationalError:
    return OperationalError("SELECT 1", {}, Exception("connection refused"))


def reconnect(clock: Clock) -> Reconnect:
    return Reconnect(delays=(0.2, 0.5, 1.0), probe_every=5.0, sleep=clock.sleep, clock=clock)


def test_a_connection_lost_twice_is_retried_after_growing_waits() -> None:
    clock = Clock()
    tries: list[int] = []

    def work(attempt: int) -> str:
        tries.append(attempt)
        if attempt < 2:
            raise refused()
        return "written"

    retry = reconnect(clock)
    assert retry.run(work) == "written"
    assert tries == [0, 1, 2]  # the work knows a later try may follow a lost reply
    assert clock.slept == [0.2, 0.5]
    assert not retry.away


def test_a_server_that_stays_away_is_said_once_then_not_waited_for() -> None:
    clock = Clock()
    calls: list[int] = []

    def down(attempt: int) -> None:
        calls.append(attempt)
        raise refused()

    retry = reconnect(clock)
    with pytest.raises(ServerAway, match="connection refused"):
        retry.run(down)
    assert calls == [0, 1, 2, 3] and clock.slept == [0.2, 0.5, 1.0]
    assert retry.away

    calls.clear()
    clock.now += 4.9  # within the probe interval: known to be away, not tried, no wait
    with pytest.raises(ServerAway):
        retry.run(down)
    assert calls == [] and clock.slept == [0.2, 0.5, 1.0]

    clock.now += 0.2  # past it: one try, no backoff
    with pytest.raises(ServerAway):
        retry.run(down)
    assert calls == [0] and clock.slept == [0.2, 0.5, 1.0]

    clock.now += 5.0
    assert retry.run(lambda attempt: attempt) == 0  # back: the first try works
    assert not retry.away

    calls.clear()  # and a later loss is retried with backoff again
    with pytest.raises(ServerAway):
        retry.run(down)
    assert calls == [0, 1, 2, 3]


def test_an_error_that_is_not_a_lost_connection_is_never_retried() -> None:
    clock = Clock()
    calls: list[int] = []

    def broken(attempt: int) -> None:
        calls.append(attempt)
        raise IntegrityError("INSERT", {}, Exception("duplicate key"))

    with pytest.raises(IntegrityError):
        reconnect(clock).run(broken)
    assert calls == [0] and clock.slept == []


def test_an_invalidated_connection_counts_as_lost_whatever_the_error() -> None:
    invalidated = ProgrammingError("SELECT 1", {}, Exception("gone"),
                                   connection_invalidated=True)
    assert connection_lost(invalidated)
    assert connection_lost(refused())
    assert not connection_lost(ProgrammingError("SELECT 1", {}, Exception("syntax")))
    assert not connection_lost(ValueError("not a database error"))


def test_the_default_waits_grow_and_stay_short() -> None:
    assert list(RETRY_DELAYS) == sorted(RETRY_DELAYS)
    assert sum(RETRY_DELAYS) < 5  # the learner waits this long once, at the start of an outage


def test_sqlite_runs_the_work_once_it_has_no_server(tmp_path: object) -> None:
    from pathlib import Path

    from studyapp.store import open_store

    assert isinstance(tmp_path, Path)
    store = open_store(f"sqlite:///{tmp_path / 'p.sqlite3'}")
    calls: list[int] = []

    def locked(attempt: int) -> None:
        calls.append(attempt)
        raise refused()

    try:
        with pytest.raises(OperationalError):
            store.reach(locked)
        assert calls == [0]
    finally:
        store.close()
