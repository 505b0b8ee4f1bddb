"""The scroll keys work on every screen from the focus it opens with, and a click never
leaves the app without focus.

Every screen of ``tui/registry.py`` is opened at 80×24 on two months of
study. Where a pane can scroll, ↑ ↓ PgUp PgDn Home End move it (or the
focused list's cursor) without Tab first; a key the focused field uses
itself (a text field's Home and End, a closed list's ↑ ↓) stays the field's.
Then the screen's own key (Escape, Enter on home) still does its work.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from progress_history import make_history
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Markdown, Select, Static
from tui_helpers import settled, wait_until, wait_up_to

from studyapp import locations
from studyapp.study.views import SessionTally
from studyapp.tui import registry
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.page_keys import main_pane

AppFactory = Callable[..., StudyApp]
SIZE = (80, 24)

COURSE = "\n".join([
    "deck: long-course",
    "title: A long course",
    "course: Serving 101",
    "summary: |",
    *(f"  Paragraph {n}: the KV cache grows with every token of context.\n" for n in range(40)),
    "language: en",
    "cards:",
    "  - {id: kv-grows, type: truefalse, prompt: The KV cache grows with context., answer: true}",
    ""])

TALLY = SessionTally(answered=3, correct=2, elapsed=timedelta(minutes=3),
                     comes_back=(timedelta(hours=2),) * 3, practice=False)


def attr(name: str) -> Callable[[Screen[Any]], bool]:
    return lambda screen: getattr(screen, name, None) not in (None, False, [])


async def open_post_cards(app: StudyApp, pilot: Pilot[Any]) -> None:
    app.open_screen("post_cards", "h200", "H200")
    await wait_until(pilot, lambda: attr("data")(app.screen))


async def open_card_detail(app: StudyApp, pilot: Pilot[Any]) -> None:
    await open_post_cards(app, pilot)
    await pilot.press("enter")
    await wait_until(pilot, lambda: attr("loaded")(app.screen))


Opener = Callable[[StudyApp, Pilot[Any]], Awaitable[None]]


async def open_calc_charts(app: StudyApp, pilot: Pilot[Any]) -> None:
    """The calculator's charts, as ``g`` opens them from the calculator's form."""
    await OPENERS["calculator"](app, pilot)
    calculator = app.screen
    await pilot.press("g")
    await wait_until(pilot, lambda: app.screen is not calculator)


def simple(open_it: Callable[[StudyApp], object],
           ready: Callable[[Screen[Any]], bool] = lambda screen: True) -> Opener:
    async def opener(app: StudyApp, pilot: Pilot[Any]) -> None:
        before = app.screen
        open_it(app)
        await wait_until(pilot, lambda: app.screen is not before and ready(app.screen))
    return opener


async def stay_home(app: StudyApp, pilot: Pilot[Any]) -> None:
    return None


OPENERS: dict[str, Opener] = {
    "home": stay_home,
    "post": simple(lambda app: app.open_post("hbm-kv-cache")),
    "course": simple(lambda app: app.open_screen("course", "long-course"),
                     lambda screen: any("Paragraph 39" in markdown.source
                                        for markdown in screen.query(Markdown))),
    "question": simple(lambda app: app.start_session("practice"), attr("presented")),
    "summary": simple(lambda app: app.open_screen("summary", TALLY)),
    "calculator": simple(lambda app: app.action_calculator(), attr("catalog")),
    "decks": simple(lambda app: app.action_decks(), attr("rows")),
    "browser": simple(lambda app: app.action_browser(), attr("searches")),
    "progress": simple(lambda app: app.action_progress(), attr("view")),
    "post_cards": open_post_cards,
    "card_detail": open_card_detail,
    "class_report": simple(lambda app: app.action_class_report(), attr("report")),
    "glossary": simple(lambda app: app.action_glossary()),
    "settings": simple(lambda app: app.action_settings()),
    "help": simple(lambda app: app.action_help()),
    "error": simple(lambda app: app.open_screen("error", "A line of the message.\n" * 40)),
    "confirm": simple(lambda app: app.open_screen("confirm", "Leave?", "Yes", "No")),
    "exam": simple(lambda app: app.open_screen("exam", ("hbm-kv-cache",), 30.0, 4, 1),
                   attr("sheet")),
    "progress_charts": simple(lambda app: app.open_screen("progress_charts")),
    "calc_charts": open_calc_charts,
}

MUST_SCROLL = {"post", "course", "progress", "class_report", "help", "calculator", "settings",
               "browser", "error"}
"""Screens whose pane overflows 80×24 here: the walk checks their keys, not nothing."""


def field_uses(widget: Widget | None, key: str) -> bool:
    """A text field's caret keys and a closed list's ↑ ↓ belong to the field."""
    return isinstance(widget, Input | Select) and key in widget._bindings.key_to_bindings


def place(pane: Widget, focused: Widget | None) -> tuple[object, ...]:
    """Where the learner is: the pane's scroll, the focused row (home's posts) and the
    focused list's cursor."""
    cursor = focused.cursor_row if isinstance(focused, DataTable) else None
    pane_cursor = pane.cursor_row if isinstance(pane, DataTable) else None
    return pane.scroll_y, focused, cursor, pane_cursor


async def settle(pilot: Pilot[Any], widget: Widget, step: float | None = 0.1) -> None:
    """Until the widget's size and scroll stay the same over ``step`` seconds (None: over
    the app's next idle moment, when nothing it started is still running)."""
    last = None
    for _ in range(40):
        now = (widget.virtual_size, widget.max_scroll_y, widget.scroll_y)
        if now == last:
            return
        last = now
        await pilot.pause(step)


async def own_key_works(app: StudyApp, pilot: Pilot[Any], screen: Screen[Any]) -> None:
    """Escape leaves the screen (the browser's search field first); Enter opens a post from
    home."""
    for _ in range(2):
        await pilot.press("enter" if isinstance(screen, HomeScreen) else "escape")
        await wait_up_to(pilot, 0.2, lambda: app.screen is not screen)
        if app.screen is not screen:
            return
    await wait_until(pilot, lambda: app.screen is not screen)


async def check_scroll_keys(app: StudyApp, pilot: Pilot[Any], name: str) -> bool:
    """The six keys from the screen's first focus; True when a pane could scroll."""
    screen = app.screen
    focused = screen.focused
    assert focused is not None, f"{name} opens with nothing focused"
    pane = main_pane(screen, getattr(screen, "SCROLL_PANE", None))
    if pane is None:
        await pilot.press("down", "pagedown", "end", "home", "pageup", "up")
        assert app.screen is screen and screen.focused is focused, name
        return False
    await settle(pilot, pane, step=None)  # the screen has settled(): no timer moves it
    pane.scroll_home(animate=False, immediate=True)  # a dialog opens on its button, below
    await pilot.wait_for_scheduled_animations()
    await wait_up_to(pilot, 1.0, lambda: pane.scroll_y == 0)
    for key in ("end", "home", "pagedown", "pageup", "down", "up"):
        if field_uses(focused, key):
            continue
        before = place(pane, screen.focused)
        await pilot.press(key)
        await wait_up_to(pilot, 1.0, lambda was=before: place(pane, screen.focused) != was)
        await pilot.wait_for_scheduled_animations()
        assert app.screen is screen, f"{key} left {name}"
        assert place(pane, screen.focused) != before, f"{key} did nothing on {name}"
        if key == "end" and not isinstance(pane, DataTable) and screen.focused is focused:
            moved_table = isinstance(focused, DataTable) and focused is not pane
            assert moved_table or pane.scroll_y == pane.max_scroll_y, name
    return True


@pytest.fixture
def studied(db_path: Path) -> None:
    make_history(db_path, days=30, skill=0.6, per_day=6)
    folder = locations.user_decks_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "long-course.yaml").write_text(COURSE, encoding="utf-8")


async def test_every_screen_scrolls_with_its_keys_from_the_first_focus(
        app_factory: AppFactory, studied: None) -> None:
    assert set(OPENERS) == {entry.id for entry in registry.SCREENS}
    app = app_factory()
    scrolled: set[str] = set()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        for entry in registry.SCREENS:
            popped = app.screen_stack[1:]
            app.go_home()
            await wait_until(pilot, lambda: len(app.screen_stack) == 1
                             and not any(gone.is_attached for gone in popped))  # noqa: B023
            await settled(pilot)
            await OPENERS[entry.id](app, pilot)
            await settled(pilot)
            screen = app.screen
            if await check_scroll_keys(app, pilot, entry.id):
                scrolled.add(entry.id)
            await own_key_works(app, pilot, screen)
            assert app._exception is None, entry.id
    assert scrolled >= MUST_SCROLL, MUST_SCROLL - scrolled


async def test_the_worked_solution_scrolls_from_the_continue_button(
        app_factory: AppFactory) -> None:
    """After a wrong answer the focus is on Continue, under a long explanation."""
    app = app_factory()
    async with app.run_test(size=(80, 16)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        app.start_session("practice")
        await wait_until(pilot, lambda: attr("presented")(app.screen))
        screen = app.screen
        question = screen.presented.question  # type: ignore[attr-defined]
        from tui_helpers import answer, wrong_answer

        await answer(pilot, wrong_answer(question), question.kind)
        await wait_until(pilot, lambda: isinstance(screen.focused, Button))
        card = screen.query_one("#card")
        await settle(pilot, card)
        assert card.max_scroll_y > 0, "the explanation fits: this test checks nothing"
        await pilot.press("end")
        await wait_until(pilot, lambda: card.scroll_y == card.max_scroll_y)
        await pilot.press("home")
        await wait_until(pilot, lambda: card.scroll_y == 0)
        await pilot.press("down")
        await wait_until(pilot, lambda: card.scroll_y > 0)
        assert isinstance(screen.focused, Button)
        await pilot.press("enter")  # Continue: the next question
        await wait_until(pilot, lambda: not isinstance(screen.focused, Button))


CLICKS = {"post": ("#post-heading", "#notice"), "calculator": ("#calc-title", "#fit-result"),
          "progress": ("#stats-summary", "#mastery-means"), "help": (".subheading",),
          "settings": ("Label",), "summary": ("#summary-next", "#summary-title")}


@pytest.mark.parametrize("name", sorted(CLICKS))
async def test_a_click_on_text_keeps_the_keys_working(app_factory: AppFactory,
                                                      name: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await OPENERS[name](app, pilot)
        await settled(pilot)
        screen = app.screen
        for selector in CLICKS[name]:
            target = screen.query(selector).first()
            assert not target.focusable
            await pilot.click(target)
            await settled(pilot)  # the focus is given back after the next refresh
            await wait_up_to(pilot, 1.0, lambda: screen.focused is not None)
            assert screen.focused is not None, f"a click on {selector} left no focus"
        await pilot.click(offset=(SIZE[0] - 1, 0))  # the top line's far end
        await settled(pilot)
        await wait_up_to(pilot, 1.0, lambda: screen.focused is not None)
        assert screen.focused is not None
        await own_key_works(app, pilot, screen)


async def test_focus_lost_under_a_key_comes_back(app_factory: AppFactory) -> None:
    """A button disabled while it works (settings' Optimize) used to leave no focus, and
    every key but ctrl+q did nothing."""
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await OPENERS["progress"](app, pilot)
        screen = app.screen
        table = screen.focused
        assert table is not None
        screen.set_focus(None)
        await wait_until(pilot, lambda: screen.focused is table)
        body = screen.query_one("#progress-body")
        await settle(pilot, body)
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: body.scroll_y > 0)
        assert isinstance(screen.query_one("#stats-summary"), Static)
