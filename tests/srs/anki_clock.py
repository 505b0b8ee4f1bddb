"""The clock of an Anki recording: libfaketime's ``FAKETIME``, set by the recorder itself.

Anki's backend takes "now" from the system clock. Under libfaketime with
``FAKETIME_NO_CACHE=1`` every clock call reads ``FAKETIME`` again, so the recorder
moves Anki's clock by setting the variable in its own process: no clock file to read
back at every call, and no pause for a file to be seen.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime, tzinfo


def clock_in(zone: tzinfo) -> Callable[[datetime], None]:
    """What sets Anki's clock to a moment, written in ``zone`` (libfaketime reads it in
    the local time zone, ``TZ``, which the recording sets to ``zone``)."""

    def set_clock(moment: datetime) -> None:
        os.environ["FAKETIME"] = moment.astimezone(zone).strftime("@%Y-%m-%d %H:%M:%S")

    return set_clock
