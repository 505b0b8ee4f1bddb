"""No-break spaces do not break lines in the app, as Unicode says (UAX #14, class GL).

Spanish numbers group thousands with a narrow no-break space (``131 072``),
and units are tied to their number with one; Textual and Rich wrap text at
any whitespace, so "131 072 tokens" came out as "131" on one line and
"072 tokens" on the next. Their word patterns are replaced here, once, by
the same patterns with U+00A0, U+202F and U+2007 counted as part of a word.
"""

from __future__ import annotations

import re

import rich._wrap
import textual._wrap

NO_BREAK = "\u00a0\u2007\u202f"
_WORD = rf"(?:[^\s]|[{NO_BREAK}])"
_SPACE = rf"[^\S{NO_BREAK}]"

TEXTUAL_CHUNK = re.compile(rf"{_WORD}+{_SPACE}*|{_SPACE}+|[{NO_BREAK}]+")
RICH_WORD = re.compile(rf"{_SPACE}*{_WORD}+{_SPACE}*")


def keep_no_break_spaces() -> None:
    """Make Textual's and Rich's wrapping keep no-break spaces inside the word."""
    textual._wrap.re_chunk = TEXTUAL_CHUNK
    rich._wrap.re_word = RICH_WORD


keep_no_break_spaces()
