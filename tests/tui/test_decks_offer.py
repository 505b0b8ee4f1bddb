"""The Decks screen at today's new-card limit: Enter offers more new cards or
practice, as home and the post screen do, instead of a dead end."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from tui_helpers import wait_until

from studyapp.study import StudyConfig, StudyService
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.decks import DecksScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.question import QuestionScreen
from studyapp.tui.study_context import MORE_NEW

AppFactory = Callable[..., StudyApp]


def no_new_cards_today(db_path: Path) -> None:
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}", profile="default"))
    try:
        service.update_settings(new_per_day=0)
    finally:
        service.close()


async def open_decks(pilot: Pilot[Any], app: StudyApp) -> DecksScreen:
    """From home, "d" to the Decks screen, once its rows are in."""
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                     and app.screen.overview is not None)
    await pilot.press("d")
    await wait_until(pilot, lambda: isinstance(app.screen, DecksScreen)
                     and bool(app.screen.rows))
    screen = app.screen
    assert isinstance(screen, DecksScreen)
    return screen


async def select_deck(pilot: Pilot[Any], screen: DecksScreen, deck_id: str) -> None:
    row = next(i for i, r in enumerate(screen.rows) if r.deck_id == deck_id)
    screen.query_one(DataTable).move_cursor(row=row)
    await pilot.pause()


async def open_post_deck(pilot: Pilot[Any], app: StudyApp) -> DecksScreen:
    screen = await open_decks(pilot, app)
    await select_deck(pilot, screen, "post-h200")
    assert screen.check_action("study_more", ()) is False  # offered only when it helps
    await pilot.press("enter")
    await wait_until(pilot, lambda: screen.limit_reached == "post-h200")
    return screen


async def question_after(pilot: Pilot[Any], app: StudyApp, key: str) -> QuestionScreen:
    """Press ``key`` and wait for the question screen with its card."""
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                     and app.screen.presented is not None)
    screen = app.screen
    assert isinstance(screen, QuestionScreen) and screen.presented is not None
    return screen


async def test_enter_at_the_limit_offers_more_new_cards(app_factory: AppFactory,
                                                        db_path: Path) -> None:
    no_new_cards_today(db_path)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_post_deck(pilot, app)
        assert app.screen is screen
        info = str(screen.query_one("#deck-info", Static).render())
        assert f"m: study {MORE_NEW} more new cards" in info and "x: practice" in info
        assert screen.check_action("study_more", ()) and screen.check_action("practice", ())
        question = await question_after(pilot, app, "m")
        assert question.presented is not None and question.presented.deck_id == "post-h200"
        assert question.kind == "deck"


async def test_x_at_the_limit_practises_the_deck(app_factory: AppFactory,
                                                 db_path: Path) -> None:
    no_new_cards_today(db_path)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_post_deck(pilot, app)
        question = await question_after(pilot, app, "x")
        assert question.kind == "practice"
        assert question.presented is not None and question.presented.deck_id == "post-h200"


async def test_the_kind_column_fits_80_columns(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        table = (await open_decks(pilot, app)).query_one(DataTable)
        assert table.virtual_size.width <= table.size.width  # "installed" is never cut


async def test_the_decks_screen_shows_draws_skipped_at_study_time(
        app_factory: AppFactory) -> None:
    """A draw that failed in study (and was skipped) is shown under its deck, for its author."""
    from studyapp.decks.draw_log import record

    record("post-h200", "capacity", "decks/posts/h200.yaml:14:5",
           "division by zero in '1 / (n - 5)' (n=5)")
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_decks(pilot, app)
        await select_deck(pilot, screen, "post-h200")
        info = str(screen.query_one("#deck-info", Static).render())
        assert "Draws skipped at study time" in info
        assert "card capacity" in info and "(n=5)" in info


def screen_lines(app: StudyApp) -> list[str]:
    """The screen's text, line by line, as the terminal shows it."""
    import html
    import re

    rows: dict[float, list[tuple[float, str]]] = {}
    for match in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>',
                             app.export_screenshot()):
        rows.setdefault(float(match[2]), []).append((float(match[1]), html.unescape(match[3])))
    return ["".join(text for _, text in sorted(parts)).replace("\xa0", " ")
            for _, parts in sorted(rows.items())]


async def test_the_decks_table_opens_readable_at_60_by_20_in_spanish(
        app_factory: AppFactory) -> None:
    """It opened with names cut to their headers' width ('po  NVIDIA') until a key redrew it."""
    app = app_factory(lang="es")
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_decks(pilot, app)
        await pilot.pause(0.3)
        lines = screen_lines(app)
        header = next(line for line in lines if "Estado" in line)  # the last column whole
        assert "Título" in header
        for row in screen.rows[:3]:
            assert any(row.deck_id[:6] in line and row.title[:6] in line for line in lines), \
                (row.deck_id, lines)
