"""Decks: the built-in ones and those the learner installed; switch them on or off, study one.

Post decks start on, example decks off; installed decks on. The choice is
the profile's, stored in the database. A deck that does not load is listed
with its problems (path:line:col), never hidden and never fatal. Deck titles
are untrusted: plain text only.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Label, Static

from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.text import plain
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.row_table import PageTable

if TYPE_CHECKING:
    from studyapp.study import DeckRow


class DecksScreen(StudyScreen):
    """A table of decks; Enter studies the highlighted deck."""

    CSS_PATH = Path(__file__).parent / "pages.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "study", "tui.key.study_deck", id="decks.study"),
        Binding("space,e", "switch_deck", "tui.key.toggle_deck", id="decks.toggle"),
        Binding("m", "study_more", "tui.key.study_more", id="decks.more"),
        Binding("x", "practice", "tui.key.practice", id="decks.practice"),
        Binding("escape", "back", "tui.key.back", id="decks.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="decks-screen")
        self.rows: list[DeckRow] = []
        self.limit_reached: str | None = None
        """The deck whose new cards wait for tomorrow's limit: m and x are offered for it."""

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.decks.title"), classes="screen-title")
        yield PageTable(id="decks-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="deck-detail"):
            yield Static(self.tr("tui.decks.loading"), id="deck-info")
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(DataTable).focus()
        self.load()

    def after_language_change(self) -> None:
        self.load()

    @work(exclusive=True, group="decks", exit_on_error=False)
    async def load(self) -> None:
        lang = self.lang
        self.rows = await self.study_app.backend.call(lambda service: service.deck_rows(lang))
        self.fill_table()
        self.show_detail(0)
        self.refresh_bindings()

    def other_widths(self) -> int:
        """What the on, cards, kind and status columns take, padding and scrollbar included."""
        def widest(label: str, cells: list[str]) -> int:
            return max([len(self.tr(f"tui.decks.{label}")), *(len(cell) for cell in cells)]) + 2

        kinds = [self.tr(f"tui.decks.kind_{row.kind}" if row.kind else
                         f"tui.decks.source_{row.source}") for row in self.rows]
        states = [self.tr("tui.decks.ok") if row.ok else
                  self.tr("tui.decks.broken", count=len(row.problems)) for row in self.rows]
        return (widest("on", ["[x]"]) + widest("cards", [str(row.cards) for row in self.rows])
                + widest("source", kinds) + widest("status", states) + 4 + 2)

    def name_widths(self) -> tuple[int, int]:
        """Room for the id and title columns: what the other four columns leave at this width."""
        room = self.app.size.width - self.other_widths()
        if room >= 40:
            return 18, room - 18
        id_width = max(6, room * 2 // 5)
        return id_width, max(6, room - id_width)

    @on(events.Resize)
    def refit_columns(self) -> None:
        """A narrower terminal shortens the names, so kind and status stay in view."""
        if self.rows and self.name_widths() != getattr(self, "_widths", None):
            self.fill_table()

    def fill_table(self) -> None:
        self._widths = id_width, title_width = self.name_widths()
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        # the name columns get their widths up front: measured from their first rows, they
        # opened cut to the header's width ("po  NVIDIA") until a key redrew them
        widths = {"id": id_width, "title": title_width}
        for column, label in (("on", "on"), ("id", "id"), ("title", "title_column"),
                              ("cards", "cards"), ("source", "source"), ("status", "status")):
            table.add_column(Text(self.tr(f"tui.decks.{label}")), key=column,
                             width=widths.get(column))
        for row in self.rows:
            status = (Text(self.tr("tui.decks.ok")) if row.ok else
                      Text(self.tr("tui.decks.broken", count=len(row.problems)),
                           style="bold"))
            source = f"tui.decks.kind_{row.kind}" if row.kind else f"tui.decks.source_{row.source}"
            table.add_row(Text("[x]" if row.enabled else "[ ]"),
                          plain(row.deck_id, id_width), plain(row.title, title_width),
                          row.cards, Text(self.tr(source)), status, key=row.path)
        table.refresh(layout=True)
        if 0 <= cursor < len(self.rows):
            table.move_cursor(row=cursor)

    @on(DataTable.RowHighlighted)
    def on_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.limit_reached = None
        self.show_detail(event.cursor_row)
        self.refresh_bindings()

    def selected(self) -> DeckRow | None:
        table = self.query_one(DataTable)
        if not self.rows or not 0 <= table.cursor_row < len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def show_detail(self, index: int) -> None:
        info = self.query_one("#deck-info", Static)
        if not 0 <= index < len(self.rows):
            info.update(self.tr("tui.decks.none"))
            return
        row = self.rows[index]
        if row.ok:
            text = self.tr("tui.decks.detail", path=row.path, post=row.post, cards=row.cards)
            text += "\n" + self.tr("tui.decks.on_detail" if row.enabled else "tui.decks.off_detail")
            if row.skipped:
                text += "\n" + "\n".join([self.tr("tui.decks.draw_problems"), *row.skipped])
            info.update(plain(text))
        else:
            lines = [self.tr("tui.decks.problems", path=row.path), *row.problems]
            info.update(plain("\n".join(lines)))
        info.set_class(not row.ok, "-broken")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on the table itself (it takes the key before the screen does)."""
        event.stop()
        self.action_study()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_deck":
            row = self.selected()
            return row is not None and row.ok
        if action == "study":
            row = self.selected()
            return row is not None and row.ok and row.cards > 0
        if action in ("study_more", "practice"):
            row = self.selected()
            return row is not None and row.deck_id == self.limit_reached
        return True

    def action_study(self) -> None:
        row = self.selected()
        if row is not None and row.ok:
            self.study_deck(row.deck_id)

    @work(exclusive=True, group="deck-start", exit_on_error=False)
    async def study_deck(self, deck_id: str) -> None:
        """Study the deck, or say why not and offer more new cards or practice."""
        from studyapp.tui.study_context import MORE_NEW

        blocked = await self.study_app.backend.call(
            lambda service: service.new_limit_blocks(deck_id))
        if not blocked:
            self.study_app.study_course(deck_id)  # a summary first, if it has one
            return
        self.limit_reached = deck_id
        info = self.query_one("#deck-info", Static)
        info.update(plain(self.tr("tui.decks.limit_reached", more=MORE_NEW)))
        self.refresh_bindings()

    def action_study_more(self) -> None:
        row = self.selected()
        if row is not None and row.deck_id == self.limit_reached:
            self.study_more(row.deck_id)

    @work(exclusive=True, group="deck-start", exit_on_error=False)
    async def study_more(self, deck_id: str) -> None:
        """Raise today's new-card limit, as home's m does, then study this deck."""
        from studyapp.tui.study_context import MORE_NEW

        await self.study_app.backend.call(lambda service: service.study_more_new(MORE_NEW))
        self.notify(self.tr("tui.home.more_added", count=MORE_NEW))
        self.limit_reached = None
        self.refresh_bindings()
        self.study_app.start_session("deck", deck=deck_id)

    def action_practice(self) -> None:
        row = self.selected()
        if row is not None and row.deck_id == self.limit_reached:
            self.study_app.start_session("practice", deck=row.deck_id)

    def action_switch_deck(self) -> None:
        self.toggle()

    @work(exclusive=True, group="decks", exit_on_error=False)
    async def toggle(self) -> None:
        """Switch the highlighted deck on or off for this profile."""
        row = self.selected()
        if row is None or not row.ok:
            return
        deck_id, enabled = row.deck_id, not row.enabled
        info = await self.study_app.backend.call(
            lambda service: service.set_deck_enabled(deck_id, enabled))
        self.rows = [replace(r, enabled=info.enabled) if r.deck_id == deck_id else r
                     for r in self.rows]
        self.fill_table()
        self.show_detail(self.query_one(DataTable).cursor_row)

    def action_back(self) -> None:
        self.dismiss(None)
