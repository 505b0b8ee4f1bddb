"""Untrusted text (deck prompts, choices, names, explanations) for the TUI: ``plain``.

Deck and user text is never parsed as markup: ``[@click=app.quit]`` or
``[bold]`` in a prompt is shown literally, and control characters are made
visible (``studyapp.text.visible``). ``plain`` is the one helper for every
widget: a ``Static``, a ``Content.assemble`` or a ``DataTable`` cell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.content import Content, Span

from studyapp.text import visible

if TYPE_CHECKING:
    from rich.console import JustifyMethod


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with an ellipsis."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


class PlainContent(Content):
    """Content that a ``DataTable`` measures and shows whole.

    A table sizes a column by its cells' Rich measure, which a bare
    ``Content`` lacks (its column would shrink to the header): in a table it
    renders as the equal Rich ``Text``.
    """

    __slots__ = ("_justify",)

    def __init__(self, text: str = "", spans: list[Span] | None = None,
                 cell_length: int | None = None, *,
                 justify: JustifyMethod | None = None) -> None:
        super().__init__(text, spans, cell_length)
        self._justify: JustifyMethod | None = justify

    def __rich__(self) -> Text:  # type: ignore[override]
        return self.as_text()

    def as_text(self) -> Text:
        """The equal Rich ``Text`` (what a ``DataTable`` column header takes)."""
        return Text(self.plain, justify=self._justify)


def plain(text: str, width: int | None = None, *,
          justify: JustifyMethod | None = None) -> PlainContent:
    """``text`` shown as it is, never as markup; cut to ``width`` cells with ``…``.

    ``justify`` places it in a table cell or column header (``"right"``).
    """
    shown = visible(text)
    return PlainContent(fit(shown, width) if width else shown, justify=justify)


__all__ = ["PlainContent", "fit", "plain"]
