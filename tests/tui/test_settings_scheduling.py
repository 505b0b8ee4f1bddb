"""The settings screen's fuzz, load balancing and easy days: shown, checked, saved."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, Static
from tui_helpers import wait_until

from studyapp.study import StudyConfig, StudyService
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.settings import SettingsScreen, parse_easy_days

AppFactory = Callable[..., StudyApp]


def test_easy_days_read_one_letter_a_weekday() -> None:
    assert parse_easy_days("nnnnn r m") == ("normal",) * 5 + ("reduced", "minimum")
    for wrong in ("nnnnnr", "nnnnnrx", "nnnnnrmm"):
        with pytest.raises(ValueError):
            parse_easy_days(wrong)


async def test_fuzz_balancing_and_easy_days_are_saved(app_factory: AppFactory,
                                                     db_path: Path) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await pilot.press("comma")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen)
                         and app.screen.scheduler_settings is not None)
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        assert screen.query_one("#fuzz", Checkbox).value  # on by default, as in Anki
        assert screen.query_one("#easy_days", Input).value == "nnnnnnn"
        screen.query_one("#load_balancing", Checkbox).value = False
        await wait_until(pilot, lambda: screen.scheduler_settings is not None
                         and not screen.scheduler_settings.load_balancing)
        screen.query_one("#easy_days", Input).value = "nnnnnxm"
        await pilot.pause()
        assert "Easy days" in str(screen.query_one("#settings-status", Static).render())
        screen.query_one("#easy_days", Input).value = "nnnnnrm"
        await wait_until(pilot, lambda: screen.scheduler_settings is not None
                         and screen.scheduler_settings.easy_days[-1] == "minimum")
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}"))
    try:
        settings = service.settings
        assert settings.fuzz and not settings.load_balancing
        assert settings.easy_days == ("normal",) * 5 + ("reduced", "minimum")
    finally:
        service.close()

