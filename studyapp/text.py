"""Text from a database or a file, made printable before any terminal or CSV output.

``visible`` is the one function every face and export runs stored or
untrusted text through (deck prompts, profile names, card ids, answers):
control characters and bidi overrides become visible escapes, so an escape
sequence in a name (OSC 52 writing the clipboard, say) is shown, never obeyed.
``csv_cell`` adds a guard against spreadsheet formulas. ``without_invisible``
is what the deck loader keeps of deck text (characters no one sees are
dropped), and ``typed_answer`` is the one cleaning of what a learner types
before any grading. This module imports nothing from studyapp, so every
layer, the store included, may use it.
"""

from __future__ import annotations

import re
import sys
import unicodedata

_REORDERING = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})

INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]")
"""Format characters that are never meant to be seen: tag characters (which can
spell hidden text), bidi marks, embeddings, overrides and isolates, zero-width
space, word joiner and invisible operators, the BOM, soft hyphen, interlinear
annotation marks. The joiners (U+200C, U+200D) stay: emoji and some scripts
are drawn with them."""

ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
"""What a paste or an input method leaves in an answer without the learner seeing it:
zero-width space, non-joiner and joiner, word joiner, and the BOM."""
_NO_ZERO_WIDTH = str.maketrans("", "", ZERO_WIDTH)


def _shown(ch: str) -> str:
    if ch in "\n\t":
        return ch
    if (unicodedata.category(ch) in ("Cc", "Cs") or unicodedata.bidirectional(ch) in _REORDERING
            or INVISIBLE.match(ch)):
        return ascii(ch)[1:-1]
    return ch


def without_invisible(text: str) -> str:
    """``text`` without the characters of ``INVISIBLE``: deck text as the learner is shown it."""
    return text if text.isprintable() else INVISIBLE.sub("", text)


def typed_answer(text: str) -> str:
    """An answer as the learner meant it: zero-width characters and BOMs dropped, the ends
    stripped. Every grading path (typed, numeric, choice, true/false, scenario steps, the
    plain line protocol, the browser) reads the answer through this one function."""
    return text.translate(_NO_ZERO_WIDTH).strip()


def visible(text: str) -> str:
    """Text for a terminal: control characters, bidi overrides and invisible format
    characters (``INVISIBLE``) shown as escapes.

    Used by every renderer (the TUI and plain mode) on text from decks,
    generated questions and stored answers. Spaces such as the no-break
    space in ``163 840`` stay as they are.
    """
    if text.isprintable():
        return text
    return "".join(_shown(ch) for ch in text)


def explains(explanation: str, expected: str) -> bool:
    """Whether an explanation says more than the answer itself.

    A card without an explanation gets its answer as one ("true", "HBM3e");
    every face and the Anki export leave such an "explanation" out, so no
    answer is shown twice under a promise of a worked solution.
    """
    said = explanation.strip().casefold()
    bare = re.sub(r"^\d+\) ", "", expected.strip()).casefold()
    return bool(said) and said not in {expected.strip().casefold(), bare}


def one_line(text: str) -> str:
    """Text for one log line: like ``visible``, and line breaks and tabs escaped too.

    What a request carries (its path, its headers) reaches the operator's
    terminal through the log; escaped, a ``%1b]0;...`` path cannot set the
    title or forge the next log line.
    """
    if text.isprintable():
        return text
    return "".join(ascii(ch)[1:-1] if ch in "\n\r\t" else _shown(ch) for ch in text)


def tolerate_encodings() -> None:
    """Write what the output encoding can carry (``?`` for the rest), read what comes.

    With ``PYTHONIOENCODING=ascii`` or a Latin-1 terminal a command, a CSV
    export to stdout or the plain loop goes on instead of stopping at the first
    accent or arrow.
    """
    for stream in (sys.stdout, sys.stderr, sys.stdin):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a CSV cell as a formula (OWASP "CSV Injection")."""


def guard_cell(value: str) -> str:
    """A CSV cell a spreadsheet shows as text: ``'`` before a formula start.

    A cell that already starts with ``'`` gets one more, so ``unguard_cell``
    gives back exactly what was written.
    """
    if value.startswith(FORMULA_STARTS) or value.startswith("'"):
        return "'" + value
    return value


def unguard_cell(value: str) -> str:
    """The text ``guard_cell`` was given."""
    if value.startswith("'") and (value[1:].startswith(FORMULA_STARTS)
                                  or value[1:].startswith("'")):
        return value[1:]
    return value


def csv_cell(value: object) -> object:
    """A value for CSV output: text made visible and guarded; numbers as they are."""
    if isinstance(value, str):
        return guard_cell(visible(value))
    return value
