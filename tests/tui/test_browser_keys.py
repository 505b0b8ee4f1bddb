"""The card browser's keys: ``/`` moves to the search field without typing into
it, and F1 opened from the browser lists the browser's own keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.widgets import DataTable, Input, Static
from tui_helpers import wait_until

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.browser import BrowserScreen
from studyapp.tui.screens.help import HelpScreen
from studyapp.tui.screens.home import HomeScreen

AppFactory = Callable[..., StudyApp]


async def open_browser(pilot: Any, app: StudyApp) -> BrowserScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                     and app.screen.overview is not None)
    await pilot.press("b")
    await wait_until(pilot, lambda: isinstance(app.screen, BrowserScreen)
                     and app.screen.searches > 0 and bool(app.screen.cards))
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    return screen


async def test_slash_focuses_the_search_without_typing_it(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_browser(pilot, app)
        search = screen.query_one("#browser-search", Input)
        search.value = "post:h200"
        screen.query_one("#browser-table", DataTable).focus()
        await pilot.pause()
        await pilot.press("slash")
        await pilot.pause()
        assert search.has_focus
        assert search.value == "post:h200"
        await pilot.press("end", "slash")  # in the field "/" is text, as in "GB/s"
        await pilot.pause()
        assert search.value == "post:h200/"


async def test_help_from_the_browser_lists_its_keys(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_browser(pilot, app)
        screen.query_one("#browser-table", DataTable).focus()
        await pilot.pause()
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_screen = app.screen
        first = help_screen.query(".subheading").first()
        assert "browser" in str(first.render()).lower()
        keys = str(help_screen.query(".help-keys").first(Static).render())
        for key, words in (("e", "Edit"), ("z", "Bury"), ("1-4", "Flag"), ("/", "Search")):
            assert any(line.split()[:1] == [key] and words in line
                       for line in keys.splitlines()), (key, keys)
