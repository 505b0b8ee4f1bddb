"""A row-cursor table whose Enter shows in the footer as "Open".

DataTable's own Enter binding is hidden, and being on the focused widget it
hides the screen's binding too; this one names what Enter does.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable


class RowTable(DataTable[object]):
    """Rows that open something: a post's cards, a card's details."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "tui.key.open", id="table.open"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
