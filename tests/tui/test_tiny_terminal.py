"""The app survives any terminal size down to 1×1, and says when it is too small.

A 10-column terminal once crashed wrapping text inside an OptionList; each
screen is opened at sizes from 1×1 up, then the terminal grows back and the
screen is usable again.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Label, Static
from tui_helpers import wait_until

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen

AppFactory = Callable[..., StudyApp]
SIZES = [(1, 1), (2, 1), (3, 2), (10, 5), (20, 8), (30, 10)]
SCREENS = ["home", "post", "question", "help", "browser", "progress", "decks", "settings",
           "calculator", "glossary"]


async def open_screen(app: StudyApp, pilot: object, name: str) -> None:
    if name == "home":
        return
    if name == "post":
        await pilot.press("enter")  # type: ignore[attr-defined]
    elif name == "question":
        await pilot.press("s")  # type: ignore[attr-defined]
    else:
        getattr(app, f"action_{name}")()


@pytest.mark.parametrize("screen", SCREENS)
async def test_every_screen_survives_tiny_sizes_and_grows_back(
        app_factory: AppFactory, screen: str) -> None:
    app = app_factory(lang="es" if SCREENS.index(screen) % 2 else "en")  # both languages
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await open_screen(app, pilot, screen)
        await pilot.pause(0.3)
        opened = type(app.screen)
        for width, height in SIZES:
            await pilot.resize_terminal(width, height)
            await pilot.pause(0.1)
            assert app.return_code is None and app._exception is None, (width, height)
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.3)
        assert app._exception is None
        assert type(app.screen) is opened


async def test_below_the_smallest_usable_size_a_message_says_so(
        app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.resize_terminal(12, 4)
        await pilot.pause(0.2)
        notice = app.screen.query_one("#too-small", Static)
        assert notice.display and "at least 40×10" in str(notice.render())
        assert notice.region.height == app.size.height  # the whole screen, footer included
        assert notice.region.width >= app.size.width - 2  # a scrollbar may keep its column
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        assert not app.screen.query("#too-small") or \
            not app.screen.query_one("#too-small", Static).display


async def test_keys_under_the_notice_do_nothing_blind(app_factory: AppFactory) -> None:
    """At 10 columns Enter and s once opened a post and started a session unseen."""
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        home, focused = app.screen, app.screen.focused
        await pilot.resize_terminal(10, 24)
        await pilot.pause(0.2)
        await pilot.press("enter", "s", "b", "down")
        await pilot.pause(0.3)
        assert app.screen is home
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        assert app.screen.focused is focused  # the learner's place is kept
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is not home)


async def test_a_question_header_cut_at_a_small_width_is_whole_again_when_it_grows(
        app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await pilot.press("s")  # the post's summary first, then its questions
        await wait_until(pilot, lambda: app.screen is not app.screen_stack[0])
        await pilot.press("enter")
        await wait_until(pilot, lambda: getattr(app.screen, "presented", None) is not None)
        whole = str(app.screen.query_one("#session-line", Label).render())
        await pilot.resize_terminal(12, 24)
        await pilot.pause(0.2)
        assert str(app.screen.query_one("#session-line", Label).render()) != whole
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        assert str(app.screen.query_one("#session-line", Label).render()) == whole


@pytest.mark.parametrize("size", SIZES)
async def test_the_app_starts_in_a_tiny_terminal(app_factory: AppFactory,
                                                 size: tuple[int, int]) -> None:
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert app._exception is None
