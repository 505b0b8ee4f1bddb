"""Failures of the database, and retrying work while a server's connection is lost.

A server restarting comes back within a few short waits; a longer outage
is said once (``ServerAway``) and calls fail at once until a probe finds
the server back.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, SQLAlchemyError

RETRY_DELAYS: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0)
"""Waits between tries of a call whose server connection was lost (under 4 s in all):
a server restarting comes back within them; a longer outage is then said once."""

PROBE_EVERY = 5.0
"""While the server is away, a call tries it again once this many seconds have passed
(in between, it is known to be away and no call waits for it)."""

T = TypeVar("T")

DatabaseFailure = SQLAlchemyError
"""Any failure of the database or its driver, for callers above the store that only need to
know one happened (they never import SQLAlchemy themselves)."""


class StoreError(Exception):
    """The database cannot be used as it is; the message says why and what to do."""


class ServerAway(StoreError):
    """The database server cannot be reached, even after retrying with backoff."""


def connection_lost(exc: BaseException) -> bool:
    """Whether a server database error is the connection going away (worth a fresh try).

    A refused or dropped connection, a server shutting down or starting up are
    the driver's OperationalError (or InterfaceError on a closed connection);
    a wrong query or a broken constraint is not, and is never retried.
    """
    if not isinstance(exc, DBAPIError):
        return False
    return exc.connection_invalidated or isinstance(exc, (OperationalError, InterfaceError))


@dataclass
class Reconnect:
    """Retries a unit of work whose connection was lost, each time in a fresh transaction.

    ``run(work)`` calls ``work(attempt)``; the work is one whole transaction, so
    a try that failed left nothing behind, except when the commit reached the
    server and its reply did not: ``attempt > 0`` tells the work to check for
    that (an answer looks for its uid). After the last wait the server counts
    as away: until ``probe_every`` seconds pass, calls fail at once, then one
    call tries it again. The clock and sleep are injected for tests.
    """

    delays: tuple[float, ...] = RETRY_DELAYS
    probe_every: float = PROBE_EVERY
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    away: bool = False
    tried_at: float = 0.0
    reason: str = ""

    def run(self, work: Callable[[int], T]) -> T:
        if self.away and self.clock() - self.tried_at < self.probe_every:
            raise ServerAway(self.reason)
        waits = () if self.away else self.delays
        attempt = 0
        while True:
            try:
                result = work(attempt)
            except DBAPIError as exc:
                if not connection_lost(exc):
                    raise
                if attempt >= len(waits):
                    self.away = True
                    self.tried_at = self.clock()
                    self.reason = describe_database_error(exc) or type(exc).__name__
                    raise ServerAway(self.reason) from exc
                self.sleep(waits[attempt])
                attempt += 1
            else:
                self.away = False
                return result


def describe_database_error(exc: BaseException) -> str | None:
    """One line for a database failure met after opening (a corrupt page, a lost server)."""
    if isinstance(exc, DBAPIError):
        original = exc.orig if exc.orig is not None else exc
        text = str(original).strip().splitlines()[0] if str(original).strip() else ""
        return f"database error: {text or type(original).__name__}"
    if isinstance(exc, sqlite3.DatabaseError):
        return f"database error: {exc}"
    return None
