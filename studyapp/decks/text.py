"""Untrusted text from deck files, made safe to keep and show.

Decks are other people's files. Their prompts, choices and explanations are
plain text: renderers must show them as plain ``Text`` and never interpret
them as Rich/Textual markup (``[@click=app.quit]`` stays literal). What this
module removes is what no renderer can make harmless by escaping: ANSI escape
sequences and control characters that would move the cursor, recolour or
retitle a terminal, or reorder text (bidi overrides).
"""

from __future__ import annotations

import re
import unicodedata

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-byte ESC forms,
# and their 8-bit C1 equivalents.
_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[@-Z\\-_]"
)
# C0 except tab and newline, DEL, C1, and the bidi embedding/override/isolate marks.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

REPLACEMENT = "\ufffd"


def plain_text(value: str) -> str:
    """``value`` with ANSI sequences removed and other control characters made visible.

    ``\\r\\n`` becomes ``\\n``; remaining control characters become U+FFFD so a
    reader sees that something was there.
    """
    if value.isprintable():
        return value
    value = value.replace("\r\n", "\n")
    value = _ANSI.sub("", value)
    return _CONTROL.sub(REPLACEMENT, value)


def has_unsafe_characters(value: str) -> bool:
    """True if ``plain_text`` would change ``value``."""
    return plain_text(value) != value


_REORDERING = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})


def _shown(ch: str) -> str:
    if ch in "\n\t":
        return ch
    if unicodedata.category(ch) in ("Cc", "Cs") or unicodedata.bidirectional(ch) in _REORDERING:
        return ascii(ch)[1:-1]
    return ch


def visible(text: str) -> str:
    """Text for a terminal: control characters and bidi overrides shown as escapes.

    Used by every renderer (the TUI and plain mode) on text from decks,
    generated questions and stored answers. Spaces such as the no-break
    space in ``163 840`` stay as they are.
    """
    if text.isprintable():
        return text
    return "".join(_shown(ch) for ch in text)


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
