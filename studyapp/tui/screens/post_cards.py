"""One post's cards: state, due date, stability, lapses; Enter opens a card.

The drill-down from a post row of the progress screen. Cards come from
every deck that loads, joined with the profile's stored card states on the
service thread, and reach the table as frozen dataclasses.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.markup import escape
from textual.widgets import DataTable, Label, Static

from studyapp.text import visible
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.card_detail import CardDetailScreen
from studyapp.tui.screens.progress_format import (
    CSS,
    card_name,
    card_state_text,
)
from studyapp.tui.text import plain
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from studyapp.study import PostCard, PostCards


def due_text(due: datetime | None, now: datetime, lang: str) -> str:
    from studyapp.i18n import t

    if due is None:
        return "—"
    if due <= now:
        return t("tui.cards.due_now", lang)
    return due.astimezone().strftime("%Y-%m-%d")


class PostCardsScreen(StudyScreen):
    """The post's cards; ``x`` suspends or resumes one, ``s`` studies the post."""

    CSS_PATH = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "tui.key.open", id="post_cards.open"),
        Binding("x", "suspend", "tui.key.suspend", id="post_cards.suspend"),
        Binding("s", "study", "tui.key.study_post", id="post_cards.study"),
        Binding("escape", "back", "tui.key.back", id="post_cards.back"),
    ]

    def __init__(self, slug: str, title: str) -> None:
        super().__init__(id="post-cards-screen")
        self.slug = slug
        self.post_title = title
        self.data: PostCards | None = None
        self.cards: list[PostCard] = []

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.cards.title", post=self.post_title), classes="screen-title",
                    markup=False)
        yield Static(self.tr("tui.stats.loading"), id="cards-summary", markup=False)
        yield RowTable(id="cards-table")
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(DataTable).focus()
        self.load()

    async def on_screen_resume(self) -> None:
        await super().on_screen_resume()
        if self.data is not None:
            self.load()

    @work(exclusive=True, group="post-cards", exit_on_error=False)
    async def load(self) -> None:
        slug = self.slug
        data = await self.study_app.backend.call(lambda service: service.post_cards(slug))
        self.data = data
        self.cards = list(data.cards)
        self.fill()
        self.refresh_bindings()

    def fill(self) -> None:
        assert self.data is not None
        cards, now = self.cards, self.data.now
        table: DataTable[object] = self.query_one(DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        for column, key in (("stats.col.card", "card"), ("stats.col.state", "state"),
                            ("cards.col.due", "due"),
                            ("cards.col.stability", "stability"), ("stats.col.lapses", "lapses"),
                            ("cards.col.reps", "reps")):
            table.add_column(Text(self.tr(f"tui.{column}")), key=key)
        for card in cards:
            table.add_row(*self.row_cells(card, now))
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1), animate=False)
        self.query_one("#cards-summary", Static).update(self.summary(cards, now))

    def row_cells(self, card: PostCard, now: datetime) -> tuple[object, ...]:
        stability = "—" if card.stability is None else f"{card.stability:.1f}"
        state = Text(card_state_text(card.stage, card.suspended, card.leech, self.lang))
        if card.suspended:
            state.stylize("italic")
        due = "—" if card.suspended else due_text(card.due, now, self.lang)
        return (plain(card.card_key, 22), state, due, stability, card.lapses, card.reps)

    def summary(self, cards: list[PostCard], now: datetime) -> str:
        if not cards:
            return self.tr("tui.cards.no_cards")
        return self.tr("tui.cards.summary", total=len(cards),
                       seen=sum(1 for c in cards if c.stored),
                       due=sum(1 for c in cards if c.stored and not c.suspended
                               and c.due is not None and c.due <= now),
                       suspended=sum(1 for c in cards if c.suspended),
                       leeches=sum(1 for c in cards if c.leech))

    def highlighted(self) -> PostCard | None:
        table = self.query_one(DataTable)
        if not self.cards or not table.row_count or table.cursor_row >= len(self.cards):
            return None
        return self.cards[table.cursor_row]

    def on_data_table_row_highlighted(self) -> None:
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":
            return self.highlighted() is not None
        if action == "suspend":
            card = self.highlighted()
            return card is not None and card.stored
        return True

    def action_open(self) -> None:
        card = self.highlighted()
        if card is not None:
            self.app.push_screen(CardDetailScreen(card.deck_id, card.card_key))

    def action_suspend(self) -> None:
        card = self.highlighted()
        if card is not None and card.stored:
            self.toggle_suspended(self.query_one(DataTable).cursor_row, card)

    @work(group="suspend", exit_on_error=False)
    async def toggle_suspended(self, index: int, card: PostCard) -> None:
        suspend = not card.suspended
        changed = await self.study_app.backend.call(
            lambda service: service.set_suspended(card.deck_id, card.card_key, suspend))
        name = visible(card_name(card.deck_id, card.card_key))
        if not changed or self.data is None:
            self.notify(self.tr("tui.stats.never_answered", card=name), markup=False)
            return
        from dataclasses import replace

        updated = replace(card, suspended=suspend)
        self.cards[index] = updated
        table: DataTable[object] = self.query_one(DataTable)
        for column, value in enumerate(self.row_cells(updated, self.data.now)):
            table.update_cell_at(Coordinate(index, column), value, update_width=True)
        self.query_one("#cards-summary", Static).update(self.summary(self.cards, self.data.now))
        self.refresh_bindings()
        self.notify(self.tr("tui.stats.suspended_now" if suspend else "tui.stats.resumed_now",
                            card=name), markup=False)

    def action_study(self) -> None:
        self.study_app.study_post(self.slug)

    def action_back(self) -> None:
        self.dismiss(None)

    def palette_commands(self) -> Iterable[SystemCommand]:
        """The highlighted card's actions, for the command palette."""
        card = self.highlighted()
        if card is None:
            return
        tr = self.tr
        name = escape(visible(card_name(card.deck_id, card.card_key)))
        yield SystemCommand(tr("tui.cmd.card_detail", card=name), tr("tui.cmd.card_detail_help"),
                            self.action_open)
        if card.stored:
            yield SystemCommand(tr("tui.cmd.unsuspend" if card.suspended else "tui.cmd.suspend",
                                   card=name), tr("tui.cmd.suspend_help"), self.action_suspend)
