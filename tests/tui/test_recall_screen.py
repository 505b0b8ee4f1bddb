"""Pilot: a self-graded (recall) card shows its answer on Enter, then takes Again..Easy."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from recall_decks import RECALL_DECK, write_recall_deck
from textual.pilot import Pilot
from textual.widgets import Button, Input
from tui_helpers import click_when_drawn, wait_until

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.question import QuestionScreen


@asynccontextmanager
async def asking(app_factory: Callable[..., StudyApp],
                 deck: Path) -> AsyncIterator[tuple[Pilot[Any], QuestionScreen]]:
    """The app at 80x24 studying ``deck``, its first card asked."""
    app = app_factory(study={"deck": str(deck)})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        assert isinstance(app.screen, QuestionScreen)
        yield pilot, app.screen


def ratings(db_path: Path) -> list[tuple[int, int]]:
    with sqlite3.connect(db_path) as db:
        return list(db.execute("SELECT rating, correct FROM review_logs ORDER BY id"))


async def test_enter_shows_the_answer_and_again_means_forgot(
        app_factory: Callable[..., StudyApp], tmp_path: Path, db_path: Path) -> None:
    deck = write_recall_deck(tmp_path)
    async with asking(app_factory, deck) as (pilot, screen):
        assert "Enter" in str(screen.query_one("#response", Input).placeholder)
        await pilot.press("enter")  # nothing typed: shows the answer
        await wait_until(pilot, lambda: screen.phase == "feedback")
        assert "Answer: data, tensor and pipeline" in str(screen.query_one("#verdict").render())
        shown = [b for b in screen.query(Button) if b.id and b.id.startswith("rate-")
                 and b.display]
        assert [b.id for b in shown] == ["rate-again", "rate-hard", "rate-good", "rate-easy"]
        assert "Again" in str(shown[0].label) and "guessed" not in str(shown[0].label)
        await pilot.press("1")
        await wait_until(pilot, lambda: bool(ratings(db_path)))
        assert ratings(db_path) == [(1, 0)]


async def test_a_card_without_an_explanation_shows_its_answer_once(
        app_factory: Callable[..., StudyApp], tmp_path: Path) -> None:
    """Cards from Anki often have no explanation: the answer is not repeated under one."""
    deck = tmp_path / "bare.yaml"
    deck.write_text(RECALL_DECK.replace('    explanation: "Batch, matrices, layers."\n', ""),
                    encoding="utf-8")
    async with asking(app_factory, deck) as (pilot, screen):
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.phase == "feedback")
        assert "data, tensor and pipeline" in str(screen.query_one("#verdict").render())
        assert not screen.query_one("#explanation-heading").display
        assert not screen.query_one("#explanation").display


async def test_an_explanation_is_shown_under_its_heading(
        app_factory: Callable[..., StudyApp], tmp_path: Path) -> None:
    deck = write_recall_deck(tmp_path)
    async with asking(app_factory, deck) as (pilot, screen):
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.phase == "feedback")
        assert screen.query_one("#explanation-heading").display
        assert "Batch, matrices, layers." in str(screen.query_one("#explanation").render())


async def test_the_show_answer_button_reveals_the_answer(
        app_factory: Callable[..., StudyApp], tmp_path: Path, db_path: Path) -> None:
    """A mouse or a tap in the browser: "Show answer", then a rating button."""
    deck = write_recall_deck(tmp_path)
    async with asking(app_factory, deck) as (pilot, screen):
        button = screen.query_one("#show-answer", Button)
        assert button.display and "Show answer" in str(button.label)
        await click_when_drawn(pilot, button)
        await wait_until(pilot, lambda: screen.phase == "feedback")
        assert not button.display
        assert "Answer: data, tensor and pipeline" in str(screen.query_one("#verdict").render())
        await click_when_drawn(pilot, screen.query_one("#rate-good", Button))
        await wait_until(pilot, lambda: bool(ratings(db_path)))
        assert ratings(db_path) == [(3, 1)]


@pytest.mark.parametrize("leave", ["ctrl+q", "exit", "escape"])
async def test_leaving_a_shown_answer_unrated_records_nothing(
        app_factory: Callable[..., StudyApp], tmp_path: Path, db_path: Path,
        leave: str) -> None:
    """ctrl+q, a closed tab (ExitApp) or Esc after "Show answer": nothing was said about
    the card, so nothing is recorded and it stays due (Anki does the same)."""
    deck = write_recall_deck(tmp_path)
    async with asking(app_factory, deck) as (pilot, screen):
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.phase == "feedback")
        if leave == "exit":
            pilot.app.exit()
        else:
            await pilot.press(leave)
        if leave == "escape":
            await wait_until(pilot, lambda: any(
                "Not rated, so nothing was recorded" in n.message
                for n in pilot.app._notifications))
            await wait_until(pilot, lambda: not isinstance(pilot.app.screen, QuestionScreen))
    assert ratings(db_path) == []
    with sqlite3.connect(db_path) as db:
        assert list(db.execute("SELECT * FROM held_answers")) == []
    async with asking(app_factory, deck) as (_, screen):  # still due: asked again
        assert screen.presented is not None and screen.presented.card_key == "axes"
