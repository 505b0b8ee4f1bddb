"""Pilot tests of a whole scenario on the question screen at 80×24.

The steps come one after another on one card, the earlier ones with their
verdicts above; a wrong step, a step right from it, the method key, then the
worked chain and one rating for the card.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from textual.pilot import Pilot
from textual.widgets import Static
from tui_helpers import answer, footer_label, right_answer, wait_until

from studyapp.questions.model import Kind, Question
from studyapp.study import StudyConfig, StudyService
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.question import QuestionScreen

AppFactory = Callable[..., StudyApp]

DECK = """deck: scenario-keys
title: Scenario keys
language: en
post: hgx
cards:
  - {id: serve, type: generated, generator: scenario-serving}
"""


def deck_file(tmp_path: Path) -> Path:
    """The scenario deck, which this learner studies alone: the post decks' one-step cards,
    which a scenario waits for until seen (``study.ladders``), are not in their collection."""
    path = tmp_path / "scenario.yaml"
    path.write_text(DECK, encoding="utf-8")
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                   profile="default", extra_decks=(path,)))
    for other in svc.deck_list():
        if other.deck_id != "scenario-keys":
            svc.set_deck_enabled(other.deck_id, False)
    svc.close()
    return path


def logs(db_path: Path) -> list[tuple[int, int, int, str]]:
    with sqlite3.connect(db_path) as db:
        return list(db.execute("SELECT rating, correct, looked_at_post, params FROM review_logs"))


def text_of(widget: Static) -> str:
    return str(widget.render())


@asynccontextmanager
async def scenario_asked(app_factory: AppFactory, tmp_path: Path
                         ) -> AsyncIterator[tuple[Pilot[Any], QuestionScreen, Question]]:
    """The app at 80×24 on the scenario card, asking its first step."""
    app = app_factory(study={"deck": str(deck_file(tmp_path))})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.presented is not None
        yield pilot, screen, screen.presented.question


async def answer_steps(pilot: Pilot[Any], screen: QuestionScreen, question: Question,
                       responses: Sequence[str], start: int = 0) -> None:
    """Answer the steps from ``start`` on, one response a step, each after the screen has
    moved on to it."""
    for i, response in enumerate(responses, start):
        await answer(pilot, response, question.parts[i].question.kind)
        if i < len(question.parts) - 1:
            await wait_until(pilot, lambda i=i: screen.card.step == i + 1)  # type: ignore[misc]


async def test_a_whole_scenario_with_a_wrong_step(app_factory: AppFactory, tmp_path: Path,
                                                  db_path: Path) -> None:
    async with scenario_asked(app_factory, tmp_path) as (pilot, screen, q):
        assert q.kind is Kind.SCENARIO
        assert "Step 1/6:" in text_of(screen.card.step_prompt)
        weights = q.parts[0].question.answer
        kv = q.parts[1].question.answer
        assert isinstance(weights, float) and isinstance(kv, float)
        mine = round(weights * 3)
        await answer(pilot, f"{mine} GB", Kind.NUMERIC)
        await wait_until(pilot, lambda: screen.card.step == 1)
        assert f"{mine} GB" in screen.card.steps.text and "Not quite" in screen.card.steps.text
        await answer(pilot, right_answer(q.parts[1].question), Kind.NUMERIC)
        await wait_until(pilot, lambda: screen.card.step == 2)
        assert footer_label(screen, "ctrl+g") == "Step method"
        await pilot.press("ctrl+g")  # this step's method
        await wait_until(pilot, lambda: "Method: Total = weights" in text_of(screen.card.retry))
        total = mine + q.params["users"] * kv
        await answer(pilot, f"{total:.5g}", Kind.NUMERIC)
        await wait_until(pilot, lambda: screen.card.step == 3)
        assert f"Right from your {mine} GB; the true value was" in screen.card.steps.text
        await answer_steps(pilot, screen, q, [right_answer(p.question) for p in q.parts[3:]],
                           start=3)
        await wait_until(pilot, lambda: screen.phase == "feedback")
        # one step of six wrong (the third is right from it): the card passes, Hard at most
        assert screen.outcome is not None and screen.outcome.verdict.correct is True
        assert screen.outcome.needs_rating and screen.outcome.max_rating == 2
        assert "1. Weights = " in text_of(screen.card.feedback.query_one("#explanation", Static))
        # no empty "your answer / expected" block: the steps above compare each answer
        assert not screen.card.feedback.query_one("#comparison", Static).display
        steps = screen.card.steps.text
        assert all(f"{n}. " in steps for n in range(1, len(q.parts) + 1))
        # a long verdict wraps under its own text (a hanging indent), never back to the margin
        left = screen.card.scrollable_content_region.x
        texts = list(screen.card.steps.query(".step-text"))
        assert len(texts) == 2 * len(q.parts)
        assert all(t.region.x == left + 3 for t in texts[0::2])  # after "1. "
        assert all(t.region.x == left + 5 for t in texts[1::2])  # after "   ✓ "
        assert any(t.region.height >= 2 for t in texts[1::2])  # "Right from your ..." wraps
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(logs(db_path)) == 1)
        [(rating, correct, looked, params)] = logs(db_path)
        assert (rating, correct, looked) == (2, 1, 1)
        assert json.loads(params)["parts"][2]["carried"] is True


async def test_a_scenario_all_right_is_rated_once(app_factory: AppFactory, tmp_path: Path,
                                                  db_path: Path) -> None:
    async with scenario_asked(app_factory, tmp_path) as (pilot, screen, q):
        await answer_steps(pilot, screen, q, [right_answer(p.question) for p in q.parts])
        await wait_until(pilot, lambda: screen.phase == "feedback")
        assert screen.outcome is not None and screen.outcome.needs_rating
        await pilot.press("4")
        await wait_until(pilot, lambda: len(logs(db_path)) == 1)
        [(rating, correct, _, _)] = logs(db_path)
        assert (rating, correct) == (4, 1)


async def test_the_steps_show_in_the_card_screen_and_the_browser(
        app_factory: AppFactory, tmp_path: Path, db_path: Path) -> None:
    """After a scenario with a wrong step 1, the card's history (card screen) and the card
    browser list every step, the wrong one with its true value and the one right from it."""
    from studyapp.tui.screens.browser import BrowserScreen
    from studyapp.tui.screens.card_detail import CardDetailScreen

    async with scenario_asked(app_factory, tmp_path) as (pilot, screen, q):
        app = cast(StudyApp, pilot.app)
        weights, kv = q.parts[0].question.answer, q.parts[1].question.answer
        assert isinstance(weights, float) and isinstance(kv, float)
        mine = round(weights * 3)
        responses = [f"{mine} GB", right_answer(q.parts[1].question),
                     f"{mine + q.params['users'] * kv:.5g}",
                     *(right_answer(p.question) for p in q.parts[3:])]
        assert len(responses) == len(q.parts)
        await answer_steps(pilot, screen, q, responses)
        await wait_until(pilot, lambda: screen.phase == "feedback")
        await pilot.press("enter")  # one step wrong: rated Hard at most
        await wait_until(pilot, lambda: len(logs(db_path)) == 1)

        app.open_screen("card_detail", "scenario-keys", "serve")
        await wait_until(pilot, lambda: isinstance(app.screen, CardDetailScreen)
                         and app.screen.loaded)
        history = text_of(app.screen.query_one("#card-answers", Static))
        assert f"1. weights: {mine} GB ✗ (expected " in history
        assert "3. total: " in history and "right from an earlier answer" in history
        assert f"{len(q.parts)}. bound: " in history

        app.open_screen("browser", "deck:scenario-keys")
        await wait_until(pilot, lambda: isinstance(app.screen, BrowserScreen)
                         and app.screen.view is not None)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        shown = text_of(browser.query_one("#browser-card", Static))
        assert f"1. weights: {mine} GB ✗ (expected " in shown
        assert "right from an earlier answer" in shown


async def test_a_steps_method_is_shown_whole_and_in_sight_at_80x24(
        app_factory: AppFactory, tmp_path: Path) -> None:
    """ctrl+g on a late step, under a long list of answered steps: the method wraps to the
    card's width (none of it cut off at the edge) and the card scrolls down to it."""
    async with scenario_asked(app_factory, tmp_path) as (pilot, screen, q):
        await answer_steps(pilot, screen, q, [right_answer(p.question) for p in q.parts[:4]])
        await pilot.press("ctrl+g")
        method = q.parts[4].method
        assert len(method) > 100  # longer than a line of the card
        await wait_until(pilot, lambda: method in " ".join(text_of(screen.card.retry).split()))
        await pilot.pause(0.2)
        card, retry = screen.card, screen.card.retry
        assert retry.size.width <= card.scrollable_content_region.width
        assert retry.size.height >= 2  # wrapped, not cut
        assert card.scrollable_content_region.contains_region(retry.region)  # in sight


@pytest.mark.parametrize("leave", ["ctrl+q", "exit", "escape"])
async def test_a_scenario_left_after_a_wrong_step_is_again_with_its_steps(
        app_factory: AppFactory, tmp_path: Path, db_path: Path, leave: str) -> None:
    """ctrl+q, a closed tab (ExitApp) or Esc between the steps, one of them wrong: the
    steps answered are recorded as Again, with their answers and slips."""
    async with scenario_asked(app_factory, tmp_path) as (pilot, screen, q):
        kv = q.parts[1].question.answer
        assert isinstance(kv, float)
        await answer_steps(pilot, screen, q, [right_answer(q.parts[0].question),
                                              f"{kv * 1000:.5g} GB"])  # MB as GB
        assert logs(db_path) == []
        if leave == "exit":
            pilot.app.exit()
        else:
            await pilot.press(leave)
        if leave == "escape":
            await wait_until(pilot, lambda: any(
                "The steps you answered were recorded as Again" in n.message
                for n in pilot.app._notifications))
    [(rating, correct, _, params)] = logs(db_path)
    assert (rating, correct) == (1, 0)
    steps = json.loads(params)["parts"]
    assert [s["correct"] for s in steps] == [True, False]
    assert steps[1]["slips"] == ["prefix"]


async def test_a_scenario_left_after_right_steps_only_records_nothing(
        app_factory: AppFactory, tmp_path: Path, db_path: Path) -> None:
    async with scenario_asked(app_factory, tmp_path) as (pilot, screen, q):
        await answer_steps(pilot, screen, q, [right_answer(p.question) for p in q.parts[:2]])
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(pilot.app.screen, QuestionScreen))
        assert not any("recorded" in n.message for n in pilot.app._notifications)
    assert logs(db_path) == []
