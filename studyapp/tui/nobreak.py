"""No-break spaces do not break lines in the app, as Unicode says (UAX #14, class GL).

Spanish numbers group thousands with a narrow no-break space (``131 072``),
and units are tied to their number with one; Textual and Rich wrap text at
any whitespace, so "131 072 tokens" came out as "131" on one line and
"072 tokens" on the next. Neither library has a public setting for what a
word is, so their private word patterns are replaced here, once, by the same
patterns with U+00A0, U+202F and U+2007 counted as part of a word.

The replacement is made only where the library still holds the pattern it
was written against (``ORIGINALS``); anything else leaves the library alone
and ``applied()`` says so, which ``tests/tui/test_no_break.py`` turns into a
failure naming the installed versions.
"""

from __future__ import annotations

import re
from types import ModuleType

import rich._wrap
import textual._wrap

NO_BREAK = "\u00a0\u2007\u202f"
_WORD = rf"(?:[^\s]|[{NO_BREAK}])"
_SPACE = rf"[^\S{NO_BREAK}]"

TEXTUAL_CHUNK = re.compile(rf"{_WORD}+{_SPACE}*|{_SPACE}+|[{NO_BREAK}]+")
RICH_WORD = re.compile(rf"{_SPACE}*{_WORD}+{_SPACE}*")

ORIGINALS: tuple[tuple[ModuleType, str, str, re.Pattern[str]], ...] = (
    (textual._wrap, "re_chunk", r"\S+\s*|\s+", TEXTUAL_CHUNK),
    (rich._wrap, "re_word", r"\s*\S+\s*", RICH_WORD),
)
"""(module, attribute, the library's own pattern, its replacement); written
against rich 15 and textual 8."""


def _patch(module: ModuleType, name: str, original: str, replacement: re.Pattern[str]) -> bool:
    current = getattr(module, name, None)
    if current is replacement:
        return True
    if not isinstance(current, re.Pattern) or current.pattern != original:
        return False
    setattr(module, name, replacement)
    return True


_applied = [_patch(*entry) for entry in ORIGINALS]


def applied() -> bool:
    """True when both libraries took the no-break word patterns."""
    return all(_applied)


def versions() -> str:
    """The installed versions the patch met, for the failure message."""
    # importlib.metadata costs 9 ms of the app's start (email, zipfile): only for this message
    from importlib.metadata import version

    return f"rich {version('rich')}, textual {version('textual')}"
