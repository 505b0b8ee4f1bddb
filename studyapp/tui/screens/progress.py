"""The learner's progress review: posts, retention, calendar, forecast, weak cards.

Everything comes from ``studyapp.progress.learner_stats`` in one call on the
service thread. Enter opens a post's cards or a card's details; ``x``
suspends or resumes a weak card or a leech and the row shows it at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.coordinate import Coordinate
from textual.markup import escape
from textual.widget import Widget
from textual.widgets import DataTable, Label, Static

from studyapp.progress import AUTHORED, MASTERY_DEFINITION
from studyapp.text import visible
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.card_detail import CardDetailScreen
from studyapp.tui.screens.post_cards import PostCardsScreen
from studyapp.tui.screens.progress_format import (
    CSS,
    card_name,
    card_state_text,
    card_text,
    card_text_width,
    days_text,
    duration,
    misconception_cells,
    percent,
    scroll_row_into_view,
    shown_misconceptions,
)
from studyapp.tui.text import fit, plain
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.forecast import DueForecast
from studyapp.tui.widgets.heatmap import ReviewHeatmap
from studyapp.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from studyapp.progress import CardLine, LearnerStats
    from studyapp.progress.misconceptions import MisconceptionEstimate
    from studyapp.study import ProgressView

CARD_TABLES = ("weakest-table", "leeches-table")
MISCONCEPTIONS = "misconceptions-table"
PANEL_TITLES = {"progress-table": "#stats-summary", "heatmap": "#heatmap-title",
                "forecast": "#forecast-title"}


# -- the screen ------------------------------------------------------------------------


class ProgressScreen(StudyScreen):
    """Posts, retention, calendar and forecast; weak cards and leeches to act on."""

    CSS_PATH = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "tui.key.open", id="progress.open"),
        Binding("x", "suspend", "tui.key.suspend", id="progress.suspend"),
        Binding("c", "class_report", "tui.key.class_report", id="progress.class_report"),
        Binding("g", "charts", "tui.key.charts", id="progress.charts"),
        Binding("m", "drill", "tui.key.drill", id="progress.drill"),
        Binding("escape", "back", "tui.key.back", id="progress.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="progress-screen")
        self.view: ProgressView | None = None
        self.suspended: set[tuple[str, str]] = set()
        self.card_lines: dict[str, list[CardLine]] = {name: [] for name in CARD_TABLES}
        self.misconceptions: list[MisconceptionEstimate] = []
        """Held and fading, in the table's order."""

    @property
    def stats(self) -> LearnerStats | None:
        return self.view.stats if self.view else None

    @property
    def overview(self) -> LearnerStats | None:
        """Set once the figures are on screen (the same moment as ``stats``)."""
        return self.stats

    def compose(self) -> ComposeResult:
        tr = self.tr
        yield Label(tr("tui.stats.title"), classes="screen-title")
        with VerticalScroll(id="progress-body"):
            yield Static(tr("tui.stats.loading"), id="stats-summary", markup=False)
            yield RowTable(id="progress-table")
            yield Static(tr("tui.stats.mastery_means",
                            days=round(MASTERY_DEFINITION["stability_days_at_least"])),
                         id="mastery-means", classes="hint", markup=False)
            yield Label(tr("tui.stats.families"), classes="subheading")
            families = RowTable(id="families-table")
            families.can_focus = False  # read, not acted on: Tab goes on to the heat map
            yield families
            yield Label("", id="heatmap-title", classes="subheading", markup=False)
            yield ReviewHeatmap(weekdays=tr("tui.stats.weekdays").split(","),
                                months=tr("tui.stats.months").split(","),
                                less=tr("tui.stats.less"), more=tr("tui.stats.more"),
                                id="heatmap")
            yield Label("", id="forecast-title", classes="subheading", markup=False)
            yield DueForecast(today=tr("tui.stats.forecast_today"),
                              later=tr("tui.stats.forecast_later"), id="forecast")
            yield from self.card_panel("weakest")
            yield from self.card_panel("leeches")
            yield Label(self.tr("tui.stats.misconceptions"), id="misconceptions-title",
                        classes="subheading")
            yield RowTable(id=MISCONCEPTIONS)
            yield Static(self.tr("tui.stats.misconceptions_hint"), id="misconceptions-hint",
                         classes="hint", markup=False)
        yield SteadyFooter()

    def card_panel(self, name: str) -> Iterable[Widget]:
        yield Label(self.tr(f"tui.stats.{name}"), classes="subheading")
        yield RowTable(id=f"{name}-table", classes="card-table")
        yield Label(self.tr("tui.stats.none"), id=f"{name}-none", classes="hint")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#progress-table", DataTable).focus()
        self.load()

    async def on_screen_resume(self) -> None:
        await super().on_screen_resume()
        if self.view is not None:
            self.load()  # a card may have been suspended in a drill-down

    def after_language_change(self) -> None:
        self.query_one("#progress-table", DataTable).focus()

    @work(exclusive=True, group="progress", exit_on_error=False)
    async def load(self) -> None:
        view = await self.study_app.backend.call(lambda service: service.progress_view())
        self.fill(view)
        self.view = view
        self.refresh_bindings()

    # -- filling the panels ------------------------------------------------------------

    def fill(self, view: ProgressView) -> None:
        stats = view.stats
        self.suspended = set(view.suspended)
        self.query_one("#stats-summary", Static).update(self.summary_text(stats))
        self.fill_posts(stats)
        self.fill_families(stats)
        heat = stats.reviews_per_day
        self.query_one("#heatmap-title", Label).update(self.tr(
            "tui.stats.heatmap", total=sum(n for _, n in heat),
            busiest=max((n for _, n in heat), default=0)))
        self.query_one(ReviewHeatmap).update(heat)
        forecast = stats.due_forecast
        self.query_one("#forecast-title", Label).update(self.tr(
            "tui.stats.forecast", week=sum(n for _, n in forecast[:7]),
            month=sum(n for _, n in forecast)))
        self.query_one(DueForecast).update(forecast)
        self.fill_cards("weakest-table", list(stats.weakest))
        self.fill_cards("leeches-table", list(stats.leeches))
        self.fill_misconceptions(stats)

    def summary_text(self, stats: LearnerStats) -> str:
        tr, lang = self.tr, self.lang
        return "\n".join((
            tr("tui.stats.line_time", streak=days_text(stats.streak_days, lang),
               today=duration(stats.time_today_ms), total=duration(stats.time_total_ms)),
            tr("tui.stats.line_reviews", reviews=stats.reviews_total,
               today=stats.reviews_today, accuracy=percent(stats.accuracy),
               due=stats.due_today, new=stats.new_left_today),
            tr("tui.stats.line_retention", all=percent(stats.retention_30d),
               young=percent(stats.retention_young), mature=percent(stats.retention_mature),
               desired=percent(stats.desired_retention)),
            *self.comes_back_lines(stats),
            *self.last_exam_lines(stats),
        ))

    def last_exam_lines(self, stats: LearnerStats) -> list[str]:
        """The latest mock exam handed in, if any (``studyapp exam``)."""
        from studyapp.study.exam_log import exam_fields

        if not stats.exams:
            return []
        return [self.tr("tui.stats.last_exam", **exam_fields(stats.exams[0], self.lang))]

    def comes_back_lines(self, stats: LearnerStats) -> list[str]:
        """What comes back next, in the words home and the session summary use."""
        from datetime import timedelta

        from studyapp.study import ComingBack, coming_back_text

        if stats.comes_back_next_s is None:
            return []
        now = stats.generated_at
        coming = ComingBack(stats.comes_back_within_hour,
                            now + timedelta(seconds=stats.comes_back_next_s), now)
        text = coming_back_text(coming, self.lang)
        return [self.tr("tui.stats.line_comes_back", text=text)] if text else []

    def fill_posts(self, stats: LearnerStats) -> None:
        table: DataTable[object] = self.query_one("#progress-table", DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        for column in ("post", "new", "learning", "review", "mastery", "due", "accuracy"):
            table.add_column(Text(self.tr(f"tui.stats.col.{column}")), key=column)
        title_width = 26 if self.size.width >= 78 else 16  # narrow terminals scroll less
        for post in stats.posts:
            table.add_row(Text(fit(post.title, title_width)), post.new, post.learning, post.review,
                          percent(post.mastery), post.due, percent(post.accuracy),
                          key=post.slug)
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1), animate=False)

    def fill_families(self, stats: LearnerStats) -> None:
        """Mastery per question family, over the cards of it seen so far."""
        table: DataTable[object] = self.query_one("#families-table", DataTable)
        table.clear(columns=True)
        for column in ("family", "seen", "mastered", "mastery"):
            table.add_column(Text(self.tr(f"tui.stats.col.{column}")), key=column)
        for family in stats.families:
            name = (self.tr("tui.stats.family_authored") if family.family == AUTHORED
                    else family.family)
            table.add_row(plain(name, 28), family.seen, family.mastered,
                          percent(family.mastery), key=family.family)
        table.display = bool(stats.families)

    def fill_misconceptions(self, stats: LearnerStats) -> None:
        """Held and fading misconceptions; the panel is hidden while there are none."""
        table: DataTable[object] = self.query_one(f"#{MISCONCEPTIONS}", DataTable)
        row = table.cursor_row
        self.misconceptions = shown_misconceptions(stats.misconceptions)
        table.clear(columns=True)
        for column in ("misconception", "slips", "last_seen", "trend"):
            table.add_column(Text(self.tr(f"stats.misconception.col.{column}")), key=column)
        for m in self.misconceptions:
            name, slips, last, state = misconception_cells(m, self.lang)
            table.add_row(plain(name, 30), Text(slips), Text(last), Text(state), key=m.key)
        for part in (table, self.query_one("#misconceptions-title"),
                     self.query_one("#misconceptions-hint")):
            part.display = bool(self.misconceptions)
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1), animate=False)

    def drill_target(self) -> str | None:
        """The highlighted misconception when its table has focus, else the first held."""
        table = self.focused_table()
        if (table is not None and table.id == MISCONCEPTIONS
                and table.cursor_row < len(self.misconceptions)):
            return self.misconceptions[table.cursor_row].key
        return next((m.key for m in self.misconceptions if m.held), None)

    def fill_cards(self, table_id: str, lines: list[CardLine]) -> None:
        """The card column shows the prompt the learner last saw, cut to what fits 80
        columns beside lapses, accuracy and state (the deck and card id say little)."""
        table: DataTable[object] = self.query_one(f"#{table_id}", DataTable)
        row = table.cursor_row
        self.card_lines[table_id] = lines
        table.clear(columns=True)
        for column in ("card", "lapses", "accuracy", "state"):
            table.add_column(Text(self.tr(f"tui.stats.col.{column}")), key=column)
        width = card_text_width(self.size.width or 80)
        for line in lines:
            table.add_row(plain(card_text(line), width), line.lapses, percent(line.accuracy),
                          self.state_cell(line))
        table.display = bool(lines)
        self.query_one(f"#{table_id.replace('-table', '-none')}").display = not lines
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1), animate=False)

    def state_cell(self, line: CardLine) -> Text:
        suspended = (line.deck_id, line.card_key) in self.suspended
        text = Text(card_state_text(line.stage, suspended, line.leech, self.lang))
        if suspended:
            text.stylize("italic")
        return text

    # -- what the highlighted row is ------------------------------------------------------

    def focused_table(self) -> DataTable[object] | None:
        focused = self.focused
        return focused if isinstance(focused, DataTable) else None

    def highlighted_card(self) -> CardLine | None:
        table = self.focused_table()
        if table is None or table.id not in CARD_TABLES or not table.row_count:
            return None
        lines = self.card_lines[table.id]
        return lines[table.cursor_row] if table.cursor_row < len(lines) else None

    def highlighted_post(self) -> tuple[str, str] | None:
        table = self.focused_table()
        if (self.stats is None or table is None or table.id != "progress-table"
                or not table.row_count):
            return None
        post = self.stats.posts[table.cursor_row]
        return post.slug, post.title

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def set_focus(self, widget: Widget | None, scroll_visible: bool = True,
                  from_app_focus: bool = False) -> None:
        """Tab to a panel shows it from its title (the posts table from the summary)."""
        title = PANEL_TITLES.get(widget.id or "") if widget is not None else None
        if title is None or not scroll_visible:
            super().set_focus(widget, scroll_visible, from_app_focus)
            return
        super().set_focus(widget, False, from_app_focus)
        body = self.query_one("#progress-body", VerticalScroll)
        self.call_after_refresh(body.scroll_to_widget, self.query_one(title), animate=False,
                                top=True)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.has_focus:
            scroll_row_into_view(self.query_one("#progress-body", VerticalScroll),
                             event.data_table)
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a table (the table takes the key before the screen does)."""
        event.stop()
        self.action_open()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":
            return self.highlighted_post() is not None or self.highlighted_card() is not None
        if action == "suspend":
            return self.highlighted_card() is not None
        if action == "class_report":
            return self.view is not None
        if action == "drill":
            return self.drill_target() is not None
        return True

    # -- actions ------------------------------------------------------------------------

    def action_open(self) -> None:
        post = self.highlighted_post()
        if post is not None:
            self.app.push_screen(PostCardsScreen(*post))
            return
        card = self.highlighted_card()
        if card is not None:
            self.app.push_screen(CardDetailScreen(card.deck_id, card.card_key))

    def action_suspend(self) -> None:
        card = self.highlighted_card()
        if card is not None:
            self.toggle_suspended(card.deck_id, card.card_key)

    @work(group="suspend", exit_on_error=False)
    async def toggle_suspended(self, deck_id: str, card_key: str) -> None:
        key = (deck_id, card_key)
        suspend = key not in self.suspended
        changed = await self.study_app.backend.call(
            lambda service: service.set_suspended(deck_id, card_key, suspend))
        name = visible(card_name(deck_id, card_key))
        if not changed:
            self.notify(self.tr("tui.stats.never_answered", card=name), markup=False)
            return
        if suspend:
            self.suspended.add(key)
        else:
            self.suspended.discard(key)
        self.refresh_card_states()
        self.notify(self.tr("tui.stats.suspended_now" if suspend else "tui.stats.resumed_now",
                            card=name), markup=False)

    def refresh_card_states(self) -> None:
        """Only the state cells change: the cursor stays where it was."""
        for table_id in CARD_TABLES:
            table: DataTable[object] = self.query_one(f"#{table_id}", DataTable)
            for index, line in enumerate(self.card_lines[table_id]):
                table.update_cell_at(Coordinate(index, table.get_column_index("state")),
                                     self.state_cell(line),
                                     update_width=True)

    def action_class_report(self) -> None:
        self.study_app.open_screen("class_report")

    def action_charts(self) -> None:
        """Reviews, retention and mastery over time (``progress_charts``)."""
        self.study_app.open_screen("progress_charts")

    def action_drill(self) -> None:
        """A practice drill on the cards that set the misconception's trap."""
        key = self.drill_target()
        if key is not None:
            self.study_app.drill(key)

    def action_back(self) -> None:
        self.dismiss(None)

    def palette_commands(self) -> Iterable[SystemCommand]:
        """The highlighted row's actions, for the command palette."""
        tr = self.tr
        post = self.highlighted_post()
        if post is not None:
            yield SystemCommand(tr("tui.cmd.post_cards", title=escape(post[1])),
                                tr("tui.cmd.post_cards_help"), self.action_open)
        card = self.highlighted_card()
        if card is not None:
            name = escape(visible(card_name(card.deck_id, card.card_key)))
            yield SystemCommand(tr("tui.cmd.card_detail", card=name),
                                tr("tui.cmd.card_detail_help"), self.action_open)
            suspended = (card.deck_id, card.card_key) in self.suspended
            yield SystemCommand(tr("tui.cmd.unsuspend" if suspended else "tui.cmd.suspend",
                                   card=name), tr("tui.cmd.suspend_help"),
                                self.action_suspend)


__all__ = ["ProgressScreen"]
