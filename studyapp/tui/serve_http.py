"""What the served app says besides its page: the security headers of the page and of a
card's image, and log lines that never show a token or drive the terminal."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from aiohttp import web

from studyapp.text import one_line
from studyapp.tui.serve_door import TOKEN_PARAM

MEDIA_HEADERS = {
    "Content-Security-Policy": "sandbox; default-src 'none'; img-src 'self' data:; "
                               "style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Referrer-Policy": "no-referrer",
}
"""Headers of a card's image handed to a tab: whatever its bytes, a browser shows it with
the type the server read from them (no sniffing) in a sandbox where no script runs, so a
file that is not an image can neither reach this origin nor open an app of its own."""


def page_policy(nonce: str) -> str:
    """The app page's Content-Security-Policy: its own scripts (textual-serve's, served here,
    and the page's one inline script, carrying ``nonce``), its WebSocket, nothing else."""
    return ("default-src 'none'; "
            f"script-src 'self' 'nonce-{nonce}'; "
            "connect-src 'self'; "
            "style-src 'self' 'unsafe-inline'; "
            "font-src 'self'; "
            "img-src 'self' data:; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'")


QUERY_TOKEN = re.compile(rf"([?&]{TOKEN_PARAM}=)[^&\s]*")


class PrintableFormatter(logging.Formatter):
    """Every log record one printable line: a request's path or header never drives the
    terminal, and a malformed request (aiohttp logs its parser's error with a traceback)
    is one line naming the error, not a screenful an anonymous client can repeat.

    No line shows a token: ``?token=`` values are cut, and each of ``hidden`` (the
    token and the keys derived from it) is replaced wherever it appears."""

    def __init__(self, fmt: str | None = None, hidden: Sequence[str] = ()) -> None:
        super().__init__(fmt)
        self.hidden = tuple(value for value in hidden if value)

    def format(self, record: logging.LogRecord) -> str:
        record.msg = one_line(record.getMessage())
        record.args = None
        line = super().format(record)
        line = QUERY_TOKEN.sub(r"\1…", line.replace("\n", " "))
        for value in self.hidden:
            line = line.replace(value, "…")
        return one_line(line)

    def formatException(self, ei: Any) -> str:
        """``ExceptionType: its message`` on one line instead of the traceback."""
        error = ei[1]
        words = " ".join(str(error).split())
        return f"({type(error).__name__}: {words})" if words else f"({type(error).__name__})"

    def formatStack(self, stack_info: str) -> str:
        return ""


async def no_sniffing(request: web.Request, response: web.StreamResponse) -> None:
    """Every response is read as the type it says, never guessed from its bytes."""
    response.headers["X-Content-Type-Options"] = "nosniff"
