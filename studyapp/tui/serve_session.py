"""One browser tab's app: the process it runs, and the limits on what a tab may ask of it
(its window size, its input rate, how many tabs at once, how long it may take to quit).

The bridge between textual-serve's WebSocket and a ``studyapp`` process of
its own: exec'd without a shell, in its own session, with the database in its
environment and never the token.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from textual_serve.app_service import AppService
from textual_serve.server import to_int

from studyapp.tui.serve_door import TOKEN_ENV

log = logging.getLogger("studyapp.serve")


QUIT_GRACE_S = 10.0
"""How long an app may take to commit and close after being asked to quit."""
MAX_COLUMNS = 500
MAX_ROWS = 200
"""The largest window a tab may ask for: a 20000×20000 screen is gigabytes, not a study."""
MAX_MESSAGE_BYTES = 1 << 20
"""The largest WebSocket message the server reads; aiohttp closes the socket on more."""
MAX_INPUT_BYTES = 8 << 10
"""The largest keyboard input (a paste) passed to an app at once; more is dropped."""
INPUT_BYTES_PER_S = 2 << 10
"""Input a tab may send each second after a first ``MAX_INPUT_BYTES``; more is dropped.

An app queues the keys it has not handled yet and handles a few thousand a second
on a busy machine (one 60 KB paste: over 10 s), so an unbounded stream (3 MB of
pastes) kept it busy for a minute after its tab closed. Typing and the mouse send
well under 1 KB a second; a pasted answer fits in the first allowance."""
TAB_MEMORY_BYTES = 100 * 10**6
"""What one tab's app process holds, rounded up (about 80 MB measured on Linux)."""

def default_max_sessions() -> int:
    """Open tabs allowed at once: a quarter of this machine's memory, 1 to 64 tabs."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return 8
    return max(1, min(64, total // 4 // TAB_MEMORY_BYTES))


def window_size(width: object, height: object) -> tuple[int, int]:
    """A tab's terminal size, within what one app may draw (1×1 to 500×200)."""
    def bounded(value: object, default: int, top: int) -> int:
        number = to_int(value, default) if isinstance(value, str) else value
        if not isinstance(number, int) or isinstance(number, bool):
            number = default
        return max(1, min(top, number))

    return bounded(width, 80, MAX_COLUMNS), bounded(height, 24, MAX_ROWS)


@dataclass
class InputAllowance:
    """A tab's input allowance: ``MAX_INPUT_BYTES`` at first, refilled at
    ``INPUT_BYTES_PER_S`` (a token bucket), so its app is never far behind its tab."""

    available: float = MAX_INPUT_BYTES
    at: float = field(default_factory=lambda: time.monotonic())

    def take(self, size: int) -> bool:
        """May ``size`` more bytes go to the app now? They are taken from the allowance."""
        now = time.monotonic()
        self.available = min(MAX_INPUT_BYTES,
                             self.available + (now - self.at) * INPUT_BYTES_PER_S)
        self.at = now
        if size > self.available:
            return False
        self.available -= size
        return True


def app_command(*, profile: str, lang: str | None) -> list[str]:
    """The command each tab runs: this Python, this studyapp, the same profile and language."""
    argv = [sys.executable, "-m", "studyapp", "--profile", profile]
    if lang is not None:
        argv += ["--lang", lang]
    return argv


def app_environment(db_url: str | None) -> dict[str, str]:
    """The database travels in the environment, never in ``ps`` output."""
    return {"STUDYAPP_DB": db_url} if db_url else {}


class AppProcess(AppService):
    """One tab's app: exec'd (no shell), in its own session, stopped with a grace period."""

    def __init__(self, argv: Sequence[str], extra_env: Mapping[str, str],
                 **kwargs: Any) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = list(argv)
        self.extra_env = dict(extra_env)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        environment = self._build_environment(width=width, height=height)
        environment.pop(TOKEN_ENV, None)  # an app needs no token: it is behind the door
        environment.update(self.extra_env)
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=environment, start_new_session=True)
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        """Ask the app to quit; it commits and closes. Only a hung app is terminated."""
        task, self._task = self._task, None
        process = self._process
        if task is None or process is None:
            return
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        try:
            # an app still busy with earlier input may not read this soon: the grace period
            # covers sending the request as well as quitting
            async with asyncio.timeout(QUIT_GRACE_S):
                await self.send_meta({"type": "quit"})
                await asyncio.shield(process.wait())
        except TimeoutError:
            log.warning("app process %s did not quit; terminating it", process.pid)
            with contextlib.suppress(ProcessLookupError):
                process.terminate()  # the web driver turns SIGTERM into a clean exit too
            try:
                await asyncio.wait_for(asyncio.shield(process.wait()), QUIT_GRACE_S)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        with contextlib.suppress(asyncio.CancelledError):
            await task
