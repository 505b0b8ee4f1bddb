"""``a`` after a miss on a method card: the same family with fresh numbers, as practice."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Label
from tui_helpers import answer, right_answer, wait_until, wrong_answer

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.question import QuestionScreen

AppFactory = Callable[..., StudyApp]

DECK = """deck: another-keys
title: Another keys
language: en
post: hbm-kv-cache
cards:
  - {id: kv, type: generated, generator: kv-cache-per-token}
  - {id: memory, type: generated, generator: memory-type}
"""


def logs(db_path: Path) -> int:
    with sqlite3.connect(db_path) as db:
        return int(db.execute("SELECT count(*) FROM review_logs").fetchone()[0])


async def test_a_draws_the_missed_family_again_and_the_session_goes_on(
        app_factory: AppFactory, tmp_path: Path, db_path: Path) -> None:
    deck = tmp_path / "another.yaml"
    deck.write_text(DECK, encoding="utf-8")
    app = app_factory(study={"deck": str(deck)})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        # the fact card (if first) answered right, to reach the method card
        while screen.presented is not None and \
                screen.presented.question.family != "kv-cache-per-token":
            q = screen.presented.question
            await answer(pilot, right_answer(q), q.kind)
            await wait_until(pilot, lambda: screen.phase == "feedback")
            await pilot.press("enter")
            await wait_until(pilot, lambda: screen.phase in ("asking", "done"))
        assert screen.presented is not None
        missed = screen.presented.question
        await answer(pilot, wrong_answer(missed), missed.kind)
        await wait_until(pilot, lambda: screen.phase == "feedback")
        assert screen.can_another
        verdict = screen.card.feedback.query_one("#verdict", Label)
        assert "a: try another" in str(verdict.render())
        recorded = logs(db_path)
        for _ in range(2):
            await pilot.press("a")
            await wait_until(pilot, lambda: screen.phase == "asking")
            again = screen.presented
            assert again is not None and again.practice
            assert again.question.family == "kv-cache-per-token"
            assert again.question.prompt != missed.prompt
            await answer(pilot, right_answer(again.question), again.question.kind)
            await wait_until(pilot, lambda: screen.phase == "feedback")
            assert screen.outcome is not None and not screen.outcome.recorded
            assert screen.can_another
        assert logs(db_path) == recorded
        await pilot.press("enter")  # Continue: the session goes on
        await wait_until(pilot, lambda: screen.phase in ("asking", "done"))
        assert not screen.can_another
        assert logs(db_path) == recorded


async def test_a_picks_a_choice_while_asking(app_factory: AppFactory, tmp_path: Path) -> None:
    deck = tmp_path / "another.yaml"
    deck.write_text(DECK.replace("  - {id: kv, type: generated, generator: kv-cache-per-token}\n",
                                 ""), encoding="utf-8")
    app = app_factory(study={"deck": str(deck)})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        await pilot.press("a")  # the first choice, not "another"
        await wait_until(pilot, lambda: screen.phase == "feedback")
        assert not screen.can_another  # a fact card is not drawn again
        verdict = screen.card.feedback.query_one("#verdict", Label)
        assert "another" not in str(verdict.render())
