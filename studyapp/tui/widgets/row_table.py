"""Tables on a scrolling page: a row-cursor table whose Enter shows in the footer as "Open",
and one whose scroll keys pass to the page once the table can do no more with them.

DataTable's own Enter binding is hidden, and being on the focused widget it
hides the screen's binding too; this one names what Enter does.
"""

from __future__ import annotations

from typing import ClassVar

from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.widgets import DataTable


class PageTable(DataTable[object]):
    """A row-cursor table, often inside a scrolling page (progress, the class report).

    ↑ and ↓ move the cursor, and at the first or last row scroll the page
    instead; PgUp, PgDn, Home and End page the table while it scrolls itself,
    and the page when the table is shown whole. Without this the focused table
    kept every scroll key and the rest of the page was out of reach until Tab.
    """

    def watch_virtual_size(self, old: Size, new: Size) -> None:
        """Ask for one more layout once the table has measured its rows.

        A table measures new rows when it is next idle, and the layout request that
        measuring makes is folded into the one adding the rows made. Textual keeps each
        widget's box model until its layout count changes, so when the page was laid out
        in between (another table's rows, a busy machine) it kept this table zero rows
        high until the next resize. A request made after this refresh counts anew.
        """
        if old.height != new.height:
            self.call_after_refresh(self._lay_out_again)

    def _lay_out_again(self) -> None:
        if self.is_attached:
            self.refresh(layout=True)

    def _first_row(self) -> bool:
        return self.row_count == 0 or self.cursor_row <= 0

    def _last_row(self) -> bool:
        return self.row_count == 0 or self.cursor_row >= self.row_count - 1

    def action_cursor_up(self) -> None:
        if self._first_row():
            raise SkipAction()
        super().action_cursor_up()

    def action_cursor_down(self) -> None:
        if self._last_row():
            raise SkipAction()
        super().action_cursor_down()

    def action_page_up(self) -> None:
        if not self.allow_vertical_scroll or self._first_row():
            raise SkipAction()
        super().action_page_up()

    def action_page_down(self) -> None:
        if not self.allow_vertical_scroll or self._last_row():
            raise SkipAction()
        super().action_page_down()

    def action_scroll_home(self) -> None:
        """The first row (DataTable's Home goes to the leftmost column, which a row cursor
        never needs)."""
        if not self.allow_vertical_scroll or self._first_row():
            raise SkipAction()
        self.action_scroll_top()

    def action_scroll_end(self) -> None:
        """The last row."""
        if not self.allow_vertical_scroll or self._last_row():
            raise SkipAction()
        self.action_scroll_bottom()


class RowTable(PageTable):
    """Rows that open something: a post's cards, a card's details."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "tui.key.open", id="table.open"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
