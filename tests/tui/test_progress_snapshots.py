"""Snapshots of the progress review at fixed size, clock, seed, deck and time zone.

Two months of study on the fixed snapshot deck (and two more profiles for
the class report) are made through the real service before the app starts.
Accept reviewed changes with ``pytest tests/tui --snapshot-update``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from progress_history import make_history
from textual.pilot import Pilot
from textual.widgets import DataTable
from tui_helpers import wait_until

from studyapp import locations
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.card_detail import CardDetailScreen
from studyapp.tui.screens.class_report import ClassReportScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.post_cards import PostCardsScreen
from studyapp.tui.screens.progress import ProgressScreen

SIZE = (80, 24)
NARROW = (60, 20)
SNAPSHOT_DECKS = Path(__file__).parent / "snapshot_decks"

AppFactory = Callable[..., StudyApp]
SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def fixed_world(monkeypatch: pytest.MonkeyPatch, db_path: Path) -> Iterator[None]:
    """The fixed deck, UTC study days, and the same history on every machine."""
    monkeypatch.setattr(locations, "builtin_decks_dir", lambda: SNAPSHOT_DECKS)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    make_history(db_path, days=60, skill=0.6, per_day=6)
    try:
        yield
    finally:
        monkeypatch.undo()
        time.tzset()


async def on_progress(pilot: Pilot[Any]) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                     and app.screen.overview is not None)
    await pilot.press("p")
    await wait_until(pilot, lambda: isinstance(app.screen, ProgressScreen)
                     and app.screen.view is not None)
    await pilot.wait_for_scheduled_animations()
    # the panels are filled at once and laid out over the next frames: their titles are
    # drawn once the heat map and forecast are (both titles say something even when empty)
    await wait_until(pilot, lambda: all(app.screen.query_one(f"#{title}").size.height > 0
                                        for title in ("heatmap-title", "forecast-title")))
    # the page's panels lay out over several frames (the heat map last): the snapshot
    # waits until its height has settled, or the scrollbar is drawn for some runs only
    # (five frames alike in a row: on a busy machine two alike can still be mid-layout)
    body = app.screen.query_one("#progress-body")
    settled = None
    alike = 0
    for _ in range(150):
        await pilot.pause(0.1)
        await app.workers.wait_for_complete()
        tables = list(app.screen.query(DataTable))
        now = (body.virtual_size, body.scroll_y, body.max_scroll_y, body.show_vertical_scrollbar,
               tuple((t.scroll_y, t.cursor_row) for t in tables))
        # a table measures its rows when idle, and the page lays it out after: on a busy
        # machine the page can hold still for a while with a filled table zero rows high
        measured = all(not t.display or min(t.virtual_size.height, t.size.height)
                       >= t.row_count + t.show_header for t in tables)
        alike = alike + 1 if now == settled and measured else 0
        if alike >= 5:
            break
        settled = now
    await pilot.pause(0.2)


async def settled(pilot: Pilot[Any], widget: Any) -> None:
    """Until the page's height stops changing: every part of it drawn (the scroll bar's
    thumb in a snapshot depends on the whole page)."""
    last = None
    alike = 0
    for _ in range(150):
        await pilot.app.workers.wait_for_complete()
        size = (widget.virtual_size, widget.scroll_y)
        measured = all(not t.display or min(t.virtual_size.height, t.size.height)
                       >= t.row_count + t.show_header for t in pilot.app.screen.query(DataTable))
        alike = alike + 1 if size == last and measured else 0
        if alike >= 5:  # five alike in a row: two can be alike mid-layout on a busy machine
            return
        last = size
        await pilot.pause(0.1)


async def on_charts(pilot: Pilot[Any]) -> None:
    await on_progress(pilot)
    screen = pilot.app.screen
    body, title = screen.query_one("#progress-body"), screen.query_one("#heatmap-title")
    await settled(pilot, body)
    await pilot.press("tab")  # the heat map: the page scrolls to its title
    await wait_until(pilot, lambda: title.region.y == body.region.y + 1)  # its margin above
    await pilot.wait_for_scheduled_animations()  # the scroll has finished, not just begun
    await settled(pilot, body)


async def on_leeches(pilot: Pilot[Any]) -> None:
    await on_progress(pilot)
    pilot.app.screen.query_one("#leeches-table", DataTable).focus()
    await pilot.pause()
    await pilot.press("x")
    screen = pilot.app.screen
    assert isinstance(screen, ProgressScreen)
    # the worker marks the card, redraws its cells, then posts a notice: wait for all
    await wait_until(pilot, lambda: bool(screen.suspended) and bool(pilot.app._notifications))
    await pilot.pause()
    pilot.app.clear_notifications()  # the row itself shows the change
    # the focused table scrolls into view: let every scroll finish before the picture
    body = screen.query_one("#progress-body")
    for _ in range(3):
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.2)
    await settled(pilot, body)  # on a busy machine the scroll may start late


async def on_post_cards(pilot: Pilot[Any]) -> None:
    await on_progress(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ProgressScreen) and screen.stats is not None
    row = next(i for i, p in enumerate(screen.stats.posts) if p.slug == "h200")
    screen.query_one("#progress-table", DataTable).move_cursor(row=row)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, PostCardsScreen)
                     and pilot.app.screen.data is not None)
    await pilot.pause(0.2)


async def on_card_detail(pilot: Pilot[Any]) -> None:
    await on_post_cards(pilot)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, CardDetailScreen)
                     and pilot.app.screen.loaded)
    await pilot.pause(0.2)


async def on_class_report(pilot: Pilot[Any]) -> None:
    await on_progress(pilot)
    await pilot.press("c")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ClassReportScreen)
                     and pilot.app.screen.report is not None)
    await pilot.pause(0.2)


class TestProgressReview:
    @pytest.mark.parametrize("lang", ["en", "es"])
    def test_stats(self, lang: str, app_factory: AppFactory,
                   snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(lang=lang), terminal_size=SIZE, run_before=on_progress)

    @pytest.mark.parametrize("lang", ["en", "es"])
    def test_heatmap_and_forecast(self, lang: str, app_factory: AppFactory,
                                  snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(lang=lang), terminal_size=SIZE, run_before=on_charts)

    def test_heatmap_narrow(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(), terminal_size=NARROW, run_before=on_charts)

    def test_leech_suspended(self, app_factory: AppFactory,
                             snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_leeches)

    def test_post_cards(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_post_cards)

    def test_card_detail(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_card_detail)

    def test_class_report(self, app_factory: AppFactory, db_path: Path,
                          snap_compare: SnapCompare) -> None:
        make_history(db_path, "ana", days=30, skill=0.9, per_day=6)
        make_history(db_path, "ben", days=30, skill=0.4, per_day=6)
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_class_report)
