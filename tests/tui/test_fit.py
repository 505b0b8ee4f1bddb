"""Text that must fit whole at 80x24 and degrade sensibly at 60x20, in both languages:
the home screen's bar and the card browser's due column."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from test_session_scope import one_intro_card_in_learning
from textual.widgets import DataTable, Label
from tui_helpers import wait_until

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen

AppFactory = Callable[..., StudyApp]

REVIEWED_TODAY = {"en": "Reviewed today", "es": "Repasadas hoy"}


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_home_bar_keeps_reviewed_today_whole(app_factory: AppFactory, lang: str,
                                                   size: tuple[int, int]) -> None:
    app = app_factory(lang=lang)
    async with app.run_test(size=size) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        await wait_until(pilot, lambda: home.overview is not None)
        await pilot.pause()
        title = str(home.query_one("#app-title", Label).render())
        today = str(home.query_one("#today", Label).render())
        assert REVIEWED_TODAY[lang] in today
        assert len(title) + 2 + len(today) <= size[0] - 2, (title, today)


@pytest.mark.utc_days
@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_browser_due_column_shows_the_whole_date(app_factory: AppFactory, db_path: Path,
                                                       size: tuple[int, int]) -> None:
    from studyapp.tui.screens.browser import BrowserScreen

    one_intro_card_in_learning(db_path)
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.action_browser("is:learning")
        await wait_until(pilot, lambda: isinstance(app.screen, BrowserScreen)
                         and len(app.screen.cards) == 1)
        table = app.screen.query_one("#browser-table", DataTable)
        due = str(table.get_row_at(0)[3])
        # the card is back a minute after 10:00 today: its time, not a date without it
        assert due == "10:01"
        column = next(c for c in table.columns.values() if str(c.key.value) == "due")
        assert column.get_render_width(table) - 2 * table.cell_padding >= len(due)
        widths = sum(c.get_render_width(table) for c in table.columns.values())
        assert widths <= size[0] - 2


async def test_help_shows_keys_and_what_they_do_not_binding_ids(app_factory: AppFactory) -> None:
    from textual.widgets import Static

    from studyapp.tui.screens.help import HelpScreen

    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = "\n".join(str(s.render()) for s in app.screen.query(".help-keys")
                         .results(Static))
        assert "Review" in text or "review" in text
        for binding_id in ("home.review", "app.quit", "summary.home", "help.back"):
            assert binding_id not in text
