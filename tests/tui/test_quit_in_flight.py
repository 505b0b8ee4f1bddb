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
from textual.widgets import Input, OptionList
from tui_helpers import answer, review_rows, wait_until, wrong_answer

from studyapp.store import progress
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.question import QuestionScreen

AppFactory = Callable[..., StudyApp]


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
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.presented is not None
        question = screen.presented.question
        await answer(pilot, wrong_answer(question), question.kind)  # wrong: saved at once
        await wait_until(pilot, saving.is_set)
        app.exit()
    (deck, card, rating, correct, _), = review_rows(db_path)
    assert (deck, card) == (screen.presented.deck_id, screen.presented.card_key)
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
