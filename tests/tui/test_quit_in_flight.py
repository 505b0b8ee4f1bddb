"""Quitting while an answer is being saved keeps the answer.

``studyapp serve`` stops a tab's app the way the web driver does on Ctrl+C
or a closed tab: it posts ExitApp, like ``app.exit()``. The answer already
on its way to the database must still be committed before the app ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.events import AppFocus
from textual.pilot import Pilot
from textual.widgets import Input, OptionList
from tui_helpers import answer, review_rows, wait_until, wrong_answer

from studyapp.store import progress
from studyapp.study import Presented
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.question import QuestionScreen

AppFactory = Callable[..., StudyApp]


async def asked(pilot: Pilot[Any], app: StudyApp) -> tuple[QuestionScreen, Presented]:
    """The question screen once it asks its first card, and that card."""
    await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                     and app.screen.phase == "asking")
    screen = app.screen
    assert isinstance(screen, QuestionScreen) and screen.presented is not None
    return screen, screen.presented


async def test_an_answer_in_flight_is_saved_when_the_app_quits(
        app_factory: AppFactory, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saving = threading.Event()
    original = progress.record_answer

    def slow_record(*args: Any, **kwargs: Any) -> Any:
        saving.set()
        time.sleep(0.5)  # the quit arrives while this transaction is open
        return original(*args, **kwargs)

    monkeypatch.setattr(progress, "record_answer", slow_record)
    app = app_factory(study={"limit": 3})
    async with app.run_test(size=(100, 30)) as pilot:
        _, presented = await asked(pilot, app)
        question = presented.question
        await answer(pilot, wrong_answer(question), question.kind)  # wrong: saved at once
        await wait_until(pilot, saving.is_set)
        app.exit()
    (deck, card, rating, correct, _), = review_rows(db_path)
    assert (deck, card) == (presented.deck_id, presented.card_key)
    assert rating == 1 and correct == 0


async def test_a_screen_shown_before_the_page_had_focus_gets_its_focus(
        app_factory: AppFactory) -> None:
    """In a browser the app starts blurred and skips AUTO_FOCUS; focus brings it back."""
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        app.screen.set_focus(None)
        assert app.focused is None
        app.post_message(AppFocus())
        await pilot.pause()
        assert app.focused is not None and "post-row" in app.focused.classes
        app.set_focus(None)
        await app.push_screen(QuestionScreen("due", limit=1))
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        focused = app.focused
        assert isinstance(focused, Input | OptionList)
        app.post_message(AppFocus())  # something already focused: left alone
        await pilot.pause()
        assert app.focused is focused


@pytest.mark.parametrize("leave", ["ctrl+q", "exit", "escape"])
async def test_a_right_answer_waiting_for_its_rating_is_kept_as_good(
        app_factory: AppFactory, db_path: Path, leave: str) -> None:
    """ctrl+q, a closed tab (ExitApp) or Esc after "Right": recorded as Enter would."""
    from tui_helpers import right_answer

    app = app_factory(study={"limit": 3})
    async with app.run_test(size=(100, 30)) as pilot:
        screen, presented = await asked(pilot, app)
        question = presented.question
        await answer(pilot, right_answer(question), question.kind)
        await wait_until(pilot, lambda: screen.phase == "feedback")
        assert screen.outcome is not None and screen.outcome.needs_rating
        assert review_rows(db_path) == []  # held, not yet rated
        if leave == "exit":
            app.exit()
        else:
            await pilot.press(leave)
        if leave == "escape":
            await wait_until(pilot, lambda: any("recorded as Good" in n.message
                                                for n in app._notifications))
    (deck, card, rating, correct, _), = review_rows(db_path)
    assert (deck, card) == (presented.deck_id, presented.card_key)
    assert rating == 3 and correct == 1


async def test_an_answer_a_killed_app_held_is_recorded_and_said_on_home(
        app_factory: AppFactory, db_path: Path) -> None:
    from datetime import UTC, datetime

    from studyapp.store import open_store
    from studyapp.store.held import hold_answer
    from studyapp.store.progress import Answer, ensure_profile

    store = open_store(f"sqlite:///{db_path}")
    try:
        profile = ensure_profile(store, "default", {}, datetime(2026, 3, 2, tzinfo=UTC))
        held = hold_answer(store, profile.id, Answer(
            deck_id="post-intro", card_key="gen-x", post="intro", family=None, state=None,
            reviewed_at=datetime(2026, 3, 2, 9, 0, tzinfo=UTC), rating=3, correct=True,
            prompt="What did the killed app ask? " + "A long scenario. " * 40),
            datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
        from sqlalchemy import update

        from studyapp.store.tables import HeldAnswer

        with store.transaction() as session:  # its holder: a process that no longer runs
            session.execute(update(HeldAnswer).where(HeldAnswer.id == held).values(
                answer={**session.get(HeldAnswer, held).answer,  # type: ignore[union-attr]
                        "holder": {"host": "elsewhere", "pid": 1}}, held_at=datetime(
                            2026, 2, 1, tzinfo=UTC)))
    finally:
        store.close()
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: any("What did the killed app ask?" in n.message
                                            for n in app._notifications))
        said = next(n.message for n in app._notifications if "killed app" in n.message)
        assert said.endswith("…") and len(said) < 200  # the card named, not a screenful
    (deck, card, rating, correct, _), = review_rows(db_path)
    assert (deck, card, rating, correct) == ("post-intro", "gen-x", 3, 1)


async def test_quitting_while_the_summary_screen_mounts_raises_nothing(
        app_factory: AppFactory) -> None:
    """Esc on the last feedback pushes the summary as the app may be quitting: the screen
    must not query widgets that quitting has already removed."""
    from datetime import timedelta

    from studyapp.study import SessionTally
    from studyapp.tui.screens.summary import SummaryScreen

    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.push_screen(SummaryScreen(SessionTally(2, 1, timedelta(minutes=1), (), False)))
        app.exit()
    assert app.return_code == 0


async def test_the_summary_screen_focuses_its_home_button(app_factory: AppFactory) -> None:
    from datetime import timedelta

    from textual.widgets import Button

    from studyapp.study import SessionTally
    from studyapp.tui.screens.summary import SummaryScreen

    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.push_screen(SummaryScreen(SessionTally(2, 1, timedelta(minutes=1), (), False)))
        await wait_until(pilot, lambda: isinstance(app.focused, Button))
        assert app.focused is not None and app.focused.id == "summary-home"
