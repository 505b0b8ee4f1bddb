"""A command that writes a file stops cleanly when it is told to end.

Python ends at once on SIGTERM (``kill``, a service manager) or SIGHUP (the
terminal closed), running no ``finally``: an export stopped so leaves its
temporary file behind. While a file is written, these signals raise
``KeyboardInterrupt`` instead, as ctrl+c does, so the temporary file is
removed and the command ends with one line.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                       if hasattr(signal, name))


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def ending_signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise ``KeyboardInterrupt`` inside the block (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _interrupt) for signum in ENDING_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


__all__ = ["ending_signals_interrupt"]
