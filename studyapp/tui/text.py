"""Untrusted text (deck prompts, choices, explanations) as plain Content.

Deck text is never parsed as markup: ``[@click=app.quit]`` or ``[bold]``
in a prompt is shown literally. Control characters are made visible.
"""

from __future__ import annotations

from textual.content import Content

from studyapp.decks.text import visible

__all__ = ["plain", "visible"]


def plain(text: str) -> Content:
    """Text as Content with no markup interpretation at all."""
    return Content(visible(text))
