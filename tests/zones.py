"""Setting the process's local time zone for a test (``TZ`` and ``time.tzset``)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def local_time_zone(zone: str) -> Iterator[None]:
    """Run the block with ``TZ=zone``, then put the previous zone back."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()
