"""Pilot tests of the other screens: calculator, decks, progress, settings, help,
command palette, key remaps, languages, and a database that cannot be used."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import DataTable, Input, Select, Static
from tui_helpers import wait_until

from studyapp.study import StudyConfig, StudyService
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.calculator import CalculatorScreen
from studyapp.tui.screens.decks import DecksScreen
from studyapp.tui.screens.help import HelpScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.message import ErrorScreen
from studyapp.tui.screens.post import PostScreen
from studyapp.tui.screens.progress import ProgressScreen
from studyapp.tui.screens.question import QuestionScreen
from studyapp.tui.screens.settings import SettingsScreen
from studyapp.tui.widgets.post_row import PostRow

AppFactory = Callable[..., StudyApp]


def text_of(app: StudyApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def home_ready(pilot: object, app: StudyApp) -> None:
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)  # type: ignore[arg-type]
                     and app.screen.overview is not None)


async def test_calculator_recomputes_as_the_form_changes(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await home_ready(pilot, app)
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, CalculatorScreen)
                         and app.screen.catalog is not None)
        assert "Does not fit" in text_of(app, "#fit-result")  # 70B bf16 on one H200
        gpus = app.screen.query_one("#gpus", Input)
        gpus.value = "2"
        await wait_until(pilot, lambda: "Fits" in text_of(app, "#fit-result"))
        gpus.value = "two"
        await wait_until(pilot, lambda: gpus.has_class("-invalid"))
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


async def test_calculator_flags_a_context_past_the_model_and_a_borrowed_rate(
        app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        await home_ready(pilot, app)
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, CalculatorScreen)
                         and app.screen.catalog is not None)
        assert "was published for" not in text_of(app, "#fit-result")
        context = app.screen.query_one("#context", Input)
        context.value = "327680000"  # Llama 3.1 70B was published for 131,072 tokens
        await pilot.pause()
        await wait_until(pilot, lambda: "was published for 131,072 tokens" in text_of(
            app, "#fit-result"))
        context.value = "131072"
        await pilot.pause()
        await wait_until(pilot, lambda: "was published" not in text_of(app, "#fit-result"))
        app.screen.query_one("#gpu", Select).value = "a100-80gb"
        app.screen.query_one("#dtype", Select).value = "fp8"
        await wait_until(pilot, lambda: "has no fp8 rate" in text_of(app, "#decode-result"))
        assert "312 TFLOPS" in text_of(app, "#train-result")  # the A100's BF16 rate, said


async def test_calculator_fits_at_60_columns(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(60, 20)) as pilot:
        await home_ready(pilot, app)
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, CalculatorScreen)
                         and app.screen.catalog is not None)
        assert app.screen.has_class("-narrow")


async def test_decks_list_a_broken_deck_and_study_a_good_one(app_factory: AppFactory) -> None:
    user_decks = Path(os.environ["STUDYAPP_HOME"]) / "data" / "decks"
    user_decks.mkdir(parents=True)
    (user_decks / "broken.yaml").write_text("deck: broken\ncards: [\n", encoding="utf-8")
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await home_ready(pilot, app)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DecksScreen) and app.screen.rows)
        screen = app.screen
        assert isinstance(screen, DecksScreen)
        broken = [row for row in screen.rows if not row.ok]
        assert [row.path.endswith("broken.yaml") for row in broken] == [True]
        table = screen.query_one(DataTable)
        table.move_cursor(row=screen.rows.index(broken[0]))
        await pilot.pause()
        assert "broken.yaml" in text_of(app, "#deck-info")
        assert screen.check_action("study", ()) is False
        table.move_cursor(row=0)
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.presented is not None)
        assert app.screen.presented.deck_id == screen.rows[0].deck_id  # type: ignore[attr-defined]


async def test_progress_lists_the_twelve_posts(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await home_ready(pilot, app)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ProgressScreen)
                         and app.screen.overview is not None)
        assert app.screen.query_one(DataTable).row_count == 12


async def test_settings_are_saved_and_applied_at_once(app_factory: AppFactory,
                                                      db_path: Path) -> None:
    app = app_factory()
    prefs = Path(os.environ["STUDYAPP_HOME"]) / "config" / "tui.json"
    async with app.run_test(size=(80, 24)) as pilot:
        await home_ready(pilot, app)
        assert not prefs.exists()  # written only when something changes
        await pilot.press("comma")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen)
                         and app.screen.scheduler_settings is not None)
        app.screen.query_one("#new_per_day", Input).value = "5"
        await wait_until(pilot, lambda: app.screen.scheduler_settings.new_per_day == 5)  # type: ignore[attr-defined]
        app.screen.query_one("#theme", Select).value = "nord"
        await pilot.pause()
        assert app.theme == "nord"
        app.screen.query_one("#language", Select).value = "es"
        await wait_until(pilot, lambda: app.lang == "es")
        await pilot.pause()
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and "Introducción" in str(app.screen.query_one(".section-title")
                                                   .render()))
    saved = json.loads(prefs.read_text(encoding="utf-8"))
    assert saved["language"] == "es" and saved["theme"] == "nord"
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}"))
    try:
        assert service.settings.new_per_day == 5
    finally:
        service.close()


async def test_help_lists_keys_and_closes(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        assert len(app.screen_stack) == 2
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


async def test_palette_opens_a_post_by_name(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await home_ready(pilot, app)
        await pilot.press("ctrl+p")
        assert CommandPalette.is_open(app)  # type: ignore[arg-type]
        await pilot.press(*"Open post: NVIDIA H200")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        assert app.screen.slug == "h200"  # type: ignore[attr-defined]


async def test_keys_remapped_from_the_settings_file(app_factory: AppFactory) -> None:
    prefs = Path(os.environ["STUDYAPP_HOME"]) / "config" / "tui.json"
    prefs.parent.mkdir(parents=True)
    prefs.write_text(json.dumps({"keymap": {"home.read": "o"}}), encoding="utf-8")
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await home_ready(pilot, app)
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))


async def test_review_due_is_disabled_when_nothing_is_due(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await home_ready(pilot, app)
        assert app.screen.check_action("review_due", ()) is None  # shown dimmed


async def test_spanish_home_has_no_english_labels(app_factory: AppFactory) -> None:
    app = app_factory(lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        await home_ready(pilot, app)
        rows = list(app.screen.query(PostRow))
        assert rows[0].post.title.startswith("Las piezas")
        labels = [str(label.render()) for label in app.screen.query(".section-title")]
        assert labels == ["Introducción", "Memoria", "Aceleradores", "Sistemas", "Red",
                          "Almacenamiento"]
        footer = {binding.binding.description for binding in app.screen.active_bindings.values()}
        assert "Estudiar" in footer and "Study" not in footer


async def test_a_database_that_cannot_be_used_ends_with_a_message(app_factory: AppFactory,
                                                                  db_path: Path) -> None:
    db_path.write_bytes(b"this is not a database, just text " * 100)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ErrorScreen))
        screen = app.screen
        assert isinstance(screen, ErrorScreen) and screen.fatal
        assert app.fatal_error
        await pilot.press("escape")  # a fatal problem cannot be dismissed
        assert isinstance(app.screen, ErrorScreen)
        await pilot.press("q")
    assert app.return_code == 1
