"""Untrusted text (deck prompts, choices, explanations) as plain Content.

Deck text is never parsed as markup: ``[@click=app.quit]`` or ``[bold]``
in a prompt is shown literally. Control characters are made visible.
"""

from __future__ import annotations

import unicodedata

from textual.content import Content

_ALLOWED = frozenset("\n\t")
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _shown(ch: str) -> str:
    if ch in _ALLOWED:
        return ch
    if unicodedata.category(ch) == "Cc" or ch in _BIDI_CONTROLS:
        return repr(ch)[1:-1]
    return ch


def visible(text: str) -> str:
    """Control characters (and bidi overrides) shown as escapes, never obeyed.

    Spaces such as the no-break space in ``163 840`` stay as they are.
    """
    return "".join(_shown(ch) for ch in text)


def plain(text: str) -> Content:
    """Text as Content with no markup interpretation at all."""
    return Content(visible(text))
