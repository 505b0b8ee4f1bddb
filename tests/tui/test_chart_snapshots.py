"""Snapshots of the progress charts at 80×24, from fixed figures, in the dark and the
light theme; and the charts screen from the fixed two-month history.

Accept reviewed changes with ``pytest tests/tui/test_chart_snapshots.py --snapshot-update``
and look at the SVGs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from progress_history import make_history
from test_progress_snapshots import SNAPSHOT_DECKS, on_progress
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from tui_helpers import wait_until

from studyapp import locations
from studyapp.i18n import t
from studyapp.progress.series import (
    CardCurve,
    CurvePoint,
    CurveReview,
    PostMastery,
    ProgressSeries,
    SeriesPoint,
)
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.progress_charts import ProgressChartsScreen
from studyapp.tui.widgets.progress_plot import (
    Palette,
    ProgressPlot,
    draw_activity,
    draw_curve,
    draw_mastery,
)

SIZE = (80, 24)
THEMES = ("textual-dark", "textual-light")
AppFactory = Callable[..., StudyApp]
SnapCompare = Callable[..., bool]

WEEKS = [date(2026, 3, 2) + timedelta(weeks=n) for n in range(12)]
SERIES = ProgressSeries(
    "week",
    tuple(SeriesPoint(start, start + timedelta(days=6), reviews, counted, passed)
          for start, reviews, counted, passed in zip(
              WEEKS, [40, 62, 55, 70, 48, 0, 35, 66, 80, 58, 61, 22],
              [10, 30, 33, 45, 30, 0, 20, 41, 55, 40, 44, 15],
              [7, 24, 27, 39, 27, 0, 18, 36, 50, 37, 41, 14], strict=True)),
    (PostMastery("h100", "NVIDIA H100", 20, (0, 1, 2, 4, 6, 6, 6, 8, 10, 12, 13, 14)),
     PostMastery("h200", "NVIDIA H200", 10, (0, 0, 1, 1, 2, 3, 3, 3, 4, 5, 6, 6)),
     PostMastery("hbm-kv-cache", "HBM", 30, (0, 0, 0, 0, 1, 1, 1, 2, 3, 3, 4, 4)),
     PostMastery("tpu", "TPU", 15, (0,) * 12)),
)
"""Twelve weeks: a week off in the middle, mastery of a few posts growing."""


def _curve() -> CardCurve:
    """A card answered on days 0, 3, 10 (Again) and 12, recall by FSRS-6's default curve."""
    decay = 0.1542
    factor = 0.9 ** (-1 / decay) - 1
    first = date(2026, 3, 2)
    answers = [(0, 3, None, 2.3), (3, 3, 0.88, 6.0), (10, 1, 0.85, 1.2), (12, 3, 0.93, 3.5)]
    points = []
    for n in range(28):
        day_n, _, _, stability = max((a for a in answers if a[0] <= n), key=lambda a: a[0])
        recall = (1 + factor * (n - day_n) / stability) ** -decay
        points.append(CurvePoint(first + timedelta(days=n), recall, n > 20))
    reviews = tuple(CurveReview(datetime(2026, 3, 2, 10, tzinfo=UTC) + timedelta(days=d),
                                first + timedelta(days=d), rating, before, after)
                    for d, rating, before, after in answers)
    return CardCurve("d", "c", first + timedelta(days=20), tuple(points), reviews)


class ChartApp(App[None]):
    """One chart filling an 80×24 screen, in the given theme."""

    CSS = "ProgressPlot { height: 1fr; }"

    def __init__(self, chart: str, theme: str, lang: str = "en") -> None:
        super().__init__()
        self.chart, self.chart_theme, self.lang = chart, theme, lang

    def compose(self) -> ComposeResult:
        yield ProgressPlot(id="plot")

    def on_mount(self) -> None:
        self.theme = self.chart_theme
        lang = self.lang
        months = t("tui.stats.months", lang).split(",")

        def tr(key: str, **fields: object) -> str:
            return t(key, lang, **fields)

        def drawing(plt: Any, palette: Palette) -> None:
            if self.chart == "activity":
                draw_activity(plt, SERIES, tr, months, lang, palette, 0.9)
            elif self.chart == "mastery":
                draw_mastery(plt, SERIES, tr, months, lang, palette)
            else:
                draw_curve(plt, _curve(), tr, months, lang, palette, 0.9)

        self.query_one(ProgressPlot).show(drawing)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("chart", ["activity", "mastery", "curve"])
def test_chart(chart: str, theme: str, snap_compare: SnapCompare) -> None:
    assert snap_compare(ChartApp(chart, theme), terminal_size=SIZE)


@pytest.mark.parametrize("theme", THEMES)
def test_curve_at_120_by_40(theme: str, snap_compare: SnapCompare) -> None:
    """The forgetting curve on a larger terminal: the first answer (100%) clear of the
    legend, days on the x axis, percentages on the y axis."""
    assert snap_compare(ChartApp("curve", theme), terminal_size=(120, 40))


def test_chart_in_spanish(snap_compare: SnapCompare) -> None:
    assert snap_compare(ChartApp("activity", "textual-dark", "es"), terminal_size=SIZE)


def test_chart_takes_the_new_theme_colours() -> None:
    """Switching to the light theme redraws the lines in the light theme's colours."""
    import asyncio

    async def run() -> tuple[str, str]:
        app = ChartApp("mastery", "textual-dark")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            dark = app.query_one(ProgressPlot).plt.build()
            app.theme = "textual-light"
            await pilot.pause()
            return dark, app.query_one(ProgressPlot).plt.build()

    dark, light = asyncio.run(run())
    assert dark != light


# -- the screen, from the two-month history of the progress snapshots ----------------------

@pytest.fixture
def fixed_world(monkeypatch: pytest.MonkeyPatch, db_path: Path) -> Iterator[None]:
    monkeypatch.setattr(locations, "builtin_decks_dir", lambda: SNAPSHOT_DECKS)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    make_history(db_path, days=60, skill=0.6, per_day=6)
    try:
        yield
    finally:
        monkeypatch.undo()
        time.tzset()


async def on_charts(pilot: Pilot[Any]) -> None:
    await on_progress(pilot)
    await pilot.press("g")
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, ProgressChartsScreen)
                     and app.screen.series is not None)
    await pilot.pause(0.3)


async def on_mastery_chart(pilot: Pilot[Any]) -> None:
    await on_charts(pilot)
    await pilot.press("n")
    await pilot.pause(0.3)


@pytest.mark.usefixtures("fixed_world")
@pytest.mark.parametrize("lang", ["en", "es"])
def test_charts_screen(lang: str, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_factory(lang=lang), terminal_size=SIZE, run_before=on_charts)


@pytest.mark.usefixtures("fixed_world")
def test_charts_screen_mastery(app_factory: AppFactory, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_mastery_chart)


@pytest.mark.usefixtures("fixed_world")
async def test_charts_switch_survive_tiny_sizes_and_go_back(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await on_charts(pilot)
        screen = app.screen
        assert isinstance(screen, ProgressChartsScreen) and screen.series is not None
        # sixty days before Monday 2 March: the weeks of 29 December to 2 March
        assert screen.series.period == "week" and len(screen.series.points) == 10
        tabs = screen.query_one("#charts-tabs")
        assert tabs.active == "chart-activity"  # type: ignore[attr-defined]
        await pilot.press("right")  # the tabs have the focus
        assert tabs.active == "chart-mastery"  # type: ignore[attr-defined]
        await pilot.press("n")
        assert tabs.active == "chart-activity"  # type: ignore[attr-defined]
        for width, height in ((40, 10), (20, 5), (1, 1), (80, 24)):
            await pilot.resize_terminal(width, height)
            await pilot.pause(0.1)
            assert app._exception is None, (width, height)
        await pilot.press("escape")
        assert type(app.screen).__name__ == "ProgressScreen"


async def test_charts_say_so_without_answers(app_factory: AppFactory) -> None:
    app = app_factory(lang="es")
    async with app.run_test(size=SIZE) as pilot:
        await on_charts(pilot)
        note = app.screen.query_one("#charts-note")
        assert note.display and "primer repaso" in str(note.render())  # type: ignore[attr-defined]
        assert not app.screen.query_one("#charts-tabs").display
