"""Progress over time: reviews and true retention per period, mastery per post.

Opened with ``g`` from the progress screen. The figures come from
``studyapp.progress.series.progress_series`` in one call on the service thread; each
chart is a tab (left and right move between them, ``n`` too), drawn by
``widgets/progress_plot.py`` in the theme's colours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label, Static, TabbedContent, TabPane

from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.progress_format import CSS, percent
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.progress_plot import (
    Palette,
    ProgressPlot,
    draw_activity,
    draw_mastery,
)

if TYPE_CHECKING:
    from studyapp.progress.series import ProgressSeries

CHARTS = ("activity", "mastery")


class ProgressChartsScreen(StudyScreen):
    """Two charts of the learner's history, one tab each."""

    CSS_PATH = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_chart", "tui.key.next_chart", id="progress_charts.next"),
        Binding("escape", "back", "tui.key.back", id="progress_charts.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="progress-charts-screen")
        self.series: ProgressSeries | None = None
        self.desired = 0.9
        """The profile's desired retention: the line true retention is read against."""

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.charts.title"), classes="screen-title")
        yield Static(self.tr("tui.charts.loading"), id="charts-note", markup=False)
        with TabbedContent(id="charts-tabs"):
            for name in CHARTS:
                with TabPane(self.tab_title(name), id=f"chart-{name}"):
                    yield ProgressPlot(id=f"plot-{name}", classes="progress-chart")
        yield SteadyFooter()

    def tab_title(self, name: str) -> str:
        return self.tr(f"chart.{name}.tab")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#charts-tabs", TabbedContent).display = False
        self.load()

    @work(exclusive=True, group="charts", exit_on_error=False)
    async def load(self) -> None:
        from studyapp.progress.series import progress_series

        self.series, self.desired = await self.study_app.backend.call(
            lambda service: (progress_series(service), service.settings.desired_retention))
        self.fill()

    def fill(self) -> None:
        series = self.series
        if series is None:
            return
        note = self.query_one("#charts-note", Static)
        tabs = self.query_one("#charts-tabs", TabbedContent)
        last = series.points[-1] if series.points else None
        note.update(self.tr("chart.none") if last is None else self.tr(
            f"chart.summary_{series.period}", reviews=last.reviews,
            retention=percent(last.retention), mastery=percent(series.mastery_now)))
        tabs.display = bool(series.points)
        for name in CHARTS:
            tabs.get_tab(f"chart-{name}").label = self.tab_title(name)  # type: ignore[assignment]
        months = self.tr("tui.stats.months").split(",")
        lang = self.lang

        def activity(plt: Any, palette: Palette) -> None:
            draw_activity(plt, series, self.tr, months, lang, palette, self.desired)

        def mastery(plt: Any, palette: Palette) -> None:
            draw_mastery(plt, series, self.tr, months, lang, palette)

        self.query_one("#plot-activity", ProgressPlot).show(activity if series.points else None)
        self.query_one("#plot-mastery", ProgressPlot).show(mastery if series.points else None)
        if series.points:
            tabs.query_one("Tabs").focus()

    def after_language_change(self) -> None:
        self.fill()

    def action_next_chart(self) -> None:
        tabs = self.query_one("#charts-tabs", TabbedContent)
        at = CHARTS.index(tabs.active.removeprefix("chart-")) if tabs.active else 0
        tabs.active = f"chart-{CHARTS[(at + 1) % len(CHARTS)]}"

    def action_back(self) -> None:
        self.dismiss(None)


__all__ = ["ProgressChartsScreen"]
