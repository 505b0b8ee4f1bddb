"""Untrusted text (deck prompts, choices, explanations) as plain Content.

Deck text is never parsed as markup: ``[@click=app.quit]`` or ``[bold]``
in a prompt is shown literally. Control characters are made visible.
"""

from __future__ import annotations

from textual.content import Content

_ALLOWED = frozenset("\n\t")


def visible(text: str) -> str:
    """Control characters shown as escapes (``\\x1b``), never obeyed."""
    return "".join(ch if ch in _ALLOWED or ch.isprintable() else repr(ch)[1:-1] for ch in text)


def plain(text: str) -> Content:
    """Text as Content with no markup interpretation at all."""
    return Content(visible(text))
