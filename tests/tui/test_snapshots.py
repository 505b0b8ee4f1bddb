"""Snapshots of every screen at 80x24 with a fixed clock, seed and deck.

The built-in decks grow all the time, so these screens study a small fixed
deck (snapshot_decks/). Review changes with the HTML report, then accept
them with ``pytest tests/tui --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input
from tui_helpers import answer, right_answer, wait_until, wrong_answer

from studyapp import locations
from studyapp.tui.app import StudyApp
from studyapp.tui.screens import settings as settings_screen
from studyapp.tui.screens.calculator import CalculatorScreen
from studyapp.tui.screens.decks import DecksScreen
from studyapp.tui.screens.help import HelpScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.post import PostScreen
from studyapp.tui.screens.progress import ProgressScreen
from studyapp.tui.screens.question import QuestionScreen
from studyapp.tui.screens.settings import SettingsScreen
from studyapp.tui.screens.summary import SummaryScreen

SIZE = (80, 24)
SNAPSHOT_DECKS = Path(__file__).parent / "snapshot_decks"

AppFactory = Callable[..., StudyApp]
SnapCompare = Callable[..., bool]
RunBefore = Callable[[Pilot[Any]], Awaitable[None]]


@pytest.fixture(autouse=True)
def fixed_decks_and_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the fixed deck, and a settings path that is the same on every machine."""
    monkeypatch.setattr(locations, "builtin_decks_dir", lambda: SNAPSHOT_DECKS)
    monkeypatch.setattr(settings_screen, "preferences_path",
                        lambda: Path("~/.config/studyapp/tui.json"))


def still(app: StudyApp) -> None:
    """No blinking cursor in a snapshot."""
    for field in app.screen.query(Input):
        field.cursor_blink = False


async def on_home(pilot: Pilot[Any]) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                     and app.screen.overview is not None)
    await pilot.pause()


def asking(pilot: Pilot[Any]) -> bool:
    screen = pilot.app.screen
    return isinstance(screen, QuestionScreen) and screen.phase == "asking"


def in_feedback(pilot: Pilot[Any]) -> bool:
    screen = pilot.app.screen
    return isinstance(screen, QuestionScreen) and screen.phase == "feedback"


async def on_question(pilot: Pilot[Any]) -> None:
    await on_home(pilot)
    app = pilot.app
    assert isinstance(app, StudyApp)
    app.start_session("post", post="h200")
    await wait_until(pilot, lambda: asking(pilot))
    still(app)
    await pilot.pause()


async def on_right_answer(pilot: Pilot[Any]) -> None:
    await on_question(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, QuestionScreen) and screen.presented is not None
    question = screen.presented.question
    await answer(pilot, right_answer(question), question.kind)
    await wait_until(pilot, lambda: in_feedback(pilot))
    await pilot.pause()


async def on_wrong_numeric_answer(pilot: Pilot[Any]) -> None:
    await on_right_answer(pilot)
    await pilot.press("enter")  # Good
    await wait_until(pilot, lambda: asking(pilot))
    screen = pilot.app.screen
    assert isinstance(screen, QuestionScreen) and screen.presented is not None
    question = screen.presented.question
    await answer(pilot, wrong_answer(question), question.kind)
    await wait_until(pilot, lambda: in_feedback(pilot))
    still(pilot.app)  # type: ignore[arg-type]
    await pilot.pause()


async def on_summary(pilot: Pilot[Any]) -> None:
    await on_right_answer(pilot)
    await pilot.press("enter")  # Good
    await wait_until(pilot, lambda: asking(pilot))
    await pilot.press("escape")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SummaryScreen))
    await pilot.pause()


async def on_post(pilot: Pilot[Any]) -> None:
    await on_home(pilot)
    app = pilot.app
    assert isinstance(app, StudyApp)
    app.open_post("h200")
    await wait_until(pilot, lambda: isinstance(app.screen, PostScreen)
                     and app.screen.query("#figures DataTable, DataTable")
                     and app.screen.query_one("DataTable").row_count > 0)  # type: ignore[attr-defined]
    await pilot.pause(0.3)


def opening(key: str, screen_type: type, ready: Callable[[Any], object]) -> RunBefore:
    async def run_before(pilot: Pilot[Any]) -> None:
        await on_home(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, screen_type)
                         and ready(pilot.app.screen))
        still(pilot.app)  # type: ignore[arg-type]
        await pilot.pause(0.2)

    return run_before


class TestHome:
    @pytest.mark.parametrize("lang", ["en", "es"])
    def test_home(self, lang: str, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(lang=lang), terminal_size=SIZE, run_before=on_home)

    def test_home_narrow(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(), terminal_size=(60, 20), run_before=on_home)


class TestQuestion:
    @pytest.mark.parametrize("lang", ["en", "es"])
    def test_question(self, lang: str, app_factory: AppFactory,
                      snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(lang=lang), terminal_size=SIZE, run_before=on_question)

    @pytest.mark.parametrize("lang", ["en", "es"])
    def test_right_answer_with_ratings(self, lang: str, app_factory: AppFactory,
                                       snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(lang=lang), terminal_size=SIZE,
                            run_before=on_right_answer)

    def test_wrong_numeric_answer(self, app_factory: AppFactory,
                                  snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(), terminal_size=SIZE,
                            run_before=on_wrong_numeric_answer)

    def test_summary(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_summary)


class TestOtherScreens:
    def test_post(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_post)

    def test_calculator(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        run_before = opening("k", CalculatorScreen, lambda screen: screen.catalog is not None)
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=run_before)

    def test_decks(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        run_before = opening("d", DecksScreen, lambda screen: screen.rows)
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=run_before)

    @pytest.mark.utc_days
    def test_progress(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        run_before = opening("p", ProgressScreen, lambda screen: screen.overview is not None)
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=run_before)

    def test_settings(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        run_before = opening("comma", SettingsScreen,
                             lambda screen: screen.scheduler_settings is not None)
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=run_before)

    def test_help(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        run_before = opening("f1", HelpScreen, lambda screen: True)
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=run_before)
