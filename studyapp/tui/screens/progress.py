"""Progress per post: new, learning, review and due cards, from the service's overview.

A first, simple screen. Deeper statistics (retention, heat map, forecast,
streak, leeches) belong below the table: ``stats_panels`` is where they go
once the service offers them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Label

from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.widgets.post_row import fit

if TYPE_CHECKING:
    from studyapp.study import Overview


class ProgressScreen(StudyScreen):
    """A table of the twelve posts; Enter studies the highlighted one."""

    CSS_PATH = Path(__file__).parent / "pages.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "study", "tui.key.study", id="progress.study"),
        Binding("escape", "back", "tui.key.back", id="progress.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="progress-screen")
        self.overview: Overview | None = None

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.progress.title"), classes="screen-title")
        with VerticalScroll(id="progress-body"):
            yield DataTable(id="progress-table", cursor_type="row", zebra_stripes=True)
            yield Label("", id="progress-totals")
            yield from self.stats_panels()
        yield Footer()

    def stats_panels(self) -> Iterable[Widget]:
        """Extra statistics under the table (none yet; see the module docstring)."""
        return ()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(DataTable).focus()
        self.load()

    def after_language_change(self) -> None:
        self.load()

    @work(exclusive=True, group="progress", exit_on_error=False)
    async def load(self) -> None:
        lang = self.lang
        self.overview = await self.study_app.backend.call(lambda service: service.overview(lang))
        self.fill(self.overview)

    def fill(self, overview: Overview) -> None:
        table = self.query_one(DataTable)
        table.clear(columns=True)
        columns = ("post", "total", "new", "learning", "review", "due", "read")
        for column in columns:
            table.add_column(Text(self.tr(f"tui.progress.{column}")), key=column)
        yes, no = self.tr("tui.progress.yes"), self.tr("tui.progress.no")
        for post in overview.posts:
            table.add_row(Text(fit(post.title, 30)), post.total, post.new, post.learning,
                          post.review, post.due, yes if post.read else no, key=post.slug)
        self.query_one("#progress-totals", Label).update(self.tr(
            "tui.progress.totals", due=overview.due_today, new=overview.new_left,
            done=overview.reviews_done_today))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on the table itself (it takes the key before the screen does)."""
        event.stop()
        self.action_study()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "study":
            return self.overview is not None
        return True

    def action_study(self) -> None:
        table = self.query_one(DataTable)
        if self.overview is None or not table.row_count:
            return
        slug = self.overview.posts[table.cursor_row].slug
        self.study_app.study_post(slug)

    def action_back(self) -> None:
        self.dismiss(None)
