"""The settings screen shows each deck's own options, in the learner's language."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Static
from tui_helpers import wait_until

from studyapp.srs.deck_options import DeckOptions, with_deck_options
from studyapp.study import StudyConfig, StudyService
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.settings import SettingsScreen

AppFactory = Callable[..., StudyApp]


def give_options(db_path: Path) -> None:
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}"))
    try:
        own = DeckOptions(preset="Hard [b]facts[/b]", desired_retention=0.95,
                          learning_steps_s=(120, 900), leech_action="suspend", bury_new=False)
        service.update_settings(deck_options=with_deck_options(
            service.settings, "post-h200", own).deck_options)
    finally:
        service.close()


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "post-h200 (Hard [b]facts[/b]): retention 0.95 · steps 2m 15m, relearning 10m"),
    ("es", "post-h200 (Hard [b]facts[/b]): retención 0,95 · pasos 2m 15m, reaprendizaje 10m"),
])
async def test_the_settings_screen_lists_each_decks_own_options(
        app_factory: AppFactory, db_path: Path, lang: str, said: str) -> None:
    give_options(db_path)
    app = app_factory(lang=lang)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await pilot.press("comma")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen)
                         and app.screen.scheduler_settings is not None)
        shown = str(app.screen.query_one("#deck-options", Static).render())
        assert said in shown  # the preset's name as text, never as markup
        assert ("suspend" if lang == "en" else "suspender") in shown


async def test_without_deck_options_the_screen_says_every_deck_follows_the_profile(
        app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await pilot.press("comma")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen)
                         and app.screen.scheduler_settings is not None)
        shown = str(app.screen.query_one("#deck-options", Static).render())
        assert shown.startswith("No deck has options of its own")
