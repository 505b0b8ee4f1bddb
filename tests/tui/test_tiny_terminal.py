"""The app survives any terminal size down to 1×1, and says when it is too small.

A 10-column terminal once crashed wrapping text inside an OptionList; each
screen is opened at sizes from 1×1 up, then the terminal grows back and the
screen is usable again.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot
from textual.widgets import Label, Static
from tui_helpers import settled, wait_until

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen

AppFactory = Callable[..., StudyApp]
SIZES = [(1, 1), (2, 1), (3, 2), (10, 5), (20, 8), (30, 10)]
SCREENS = ["home", "post", "question", "help", "browser", "progress", "decks", "settings",
           "calculator", "glossary"]


async def open_screen(app: StudyApp, pilot: Pilot[None], name: str) -> None:
    if name == "home":
        return
    home = app.screen
    if name == "post":
        await pilot.press("enter")
    elif name == "question":
        await pilot.press("s")
    else:
        getattr(app, f"action_{name}")()
    await wait_until(pilot, lambda: app.screen is not home)


async def resize(pilot: Pilot[None], width: int, height: int) -> None:
    """Resize, then wait until the screen is laid out at the new size and whatever the
    resize started (a notice mounted, a layout worker) is done."""
    await pilot.resize_terminal(width, height)
    await wait_until(pilot, lambda: pilot.app.screen.outer_size == (width, height))
    await settled(pilot)


@pytest.mark.parametrize("screen", SCREENS)
async def test_every_screen_survives_tiny_sizes_and_grows_back(
        app_factory: AppFactory, screen: str) -> None:
    app = app_factory(lang="es" if SCREENS.index(screen) % 2 else "en")  # both languages
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await open_screen(app, pilot, screen)
        await settled(pilot)  # its data loaded and shown
        opened = type(app.screen)
        for width, height in SIZES:
            await resize(pilot, width, height)
            assert app.return_code is None and app._exception is None, (width, height)
        await resize(pilot, 80, 24)
        assert app._exception is None
        assert type(app.screen) is opened


async def test_below_the_smallest_usable_size_a_message_says_so(
        app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await resize(pilot, 12, 4)
        notice = app.screen.query_one("#too-small", Static)
        assert notice.display and "at least 40×10" in str(notice.render())
        assert notice.region.height == app.size.height  # the whole screen, footer included
        assert notice.region.width >= app.size.width - 2  # a scrollbar may keep its column
        await resize(pilot, 80, 24)
        assert not app.screen.query("#too-small") or \
            not app.screen.query_one("#too-small", Static).display


async def test_keys_under_the_notice_do_nothing_blind(app_factory: AppFactory) -> None:
    """At 10 columns Enter and s once opened a post and started a session unseen."""
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        home, focused = app.screen, app.screen.focused
        await resize(pilot, 10, 24)
        await pilot.press("enter", "s", "b", "down")
        await settled(pilot)  # a session started by s would be on screen by now
        assert app.screen is home
        await resize(pilot, 80, 24)
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
        await resize(pilot, 12, 24)
        assert str(app.screen.query_one("#session-line", Label).render()) != whole
        await resize(pilot, 80, 24)
        assert str(app.screen.query_one("#session-line", Label).render()) == whole


@pytest.mark.parametrize("size", SIZES)
async def test_the_app_starts_in_a_tiny_terminal(app_factory: AppFactory,
                                                 size: tuple[int, int]) -> None:
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await settled(pilot)
        await pilot.press("enter")
        await settled(pilot)
        assert app._exception is None
