"""The study service on one thread of its own.

SQL, YAML and deck loading never run on the event loop; and because the
service and its sessions are not thread-safe, every call goes through the
same single thread, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from studyapp.study import StudyService

T = TypeVar("T")


class StudyBackend:
    """Runs functions of the study service off the event loop, one at a time."""

    def __init__(self, make_service: Callable[[], StudyService]) -> None:
        self._make_service = make_service
        self._service: StudyService | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="studyapp-service")

    def _run(self, fn: Callable[[StudyService], T]) -> T:
        if self._service is None:
            self._service = self._make_service()
        return fn(self._service)

    async def call(self, fn: Callable[[StudyService], T]) -> T:
        """Run ``fn(service)`` on the service thread and wait for its result."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, fn)

    def close(self) -> None:
        """Finish pending calls, then close the database."""

        def close_service() -> None:
            if self._service is not None:
                self._service.close()
                self._service = None

        # Closing must never stop the app from exiting.
        with contextlib.suppress(Exception):
            self._executor.submit(close_service).result(timeout=10)
        self._executor.shutdown(wait=False, cancel_futures=True)
