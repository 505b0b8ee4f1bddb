"""Each rating button on the question screen reads the interval its key schedules.

Seen: a card back early ("early · due in 8 min") and answered right showed
``2 Hard`` with no interval; in Spanish ``3 Bien`` showed none. Here one
card is asked new, then back early within the learn-ahead limit, then in
relearning, in both languages and at both widths; every offered button's
label carries the interval, and the stored due time is the one shown.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.widgets import Button
from tui_helpers import FIXED_NOW, review_rows, wait_until

from studyapp.srs.scheduler import Rating, format_interval
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.question import QuestionScreen
from studyapp.tui.screens.summary import SummaryScreen

# FIXED_NOW is a UTC moment: study days and dates are read in UTC, whatever hour the
# suite runs at (a zone ten hours west showed the day before)
pytestmark = pytest.mark.utc_days

AppFactory = Callable[..., StudyApp]

DECK = """deck: one
title: One
language: en
post: h200
cards:
  - id: only
    type: choice
    prompt: "Which memory does the H200 use?"
    choices: [HBM3, HBM3e, GDDR7, LPDDR5X]
    answer: HBM3e
"""


class Clock:
    def __init__(self) -> None:
        self.now = FIXED_NOW

    def __call__(self) -> datetime:
        return self.now


def stored_due(db_path: Path) -> datetime:
    with sqlite3.connect(db_path) as connection:
        (due,) = connection.execute("SELECT due FROM card_states").fetchone()
    return datetime.fromisoformat(due).replace(tzinfo=UTC)


def phase(app: StudyApp) -> str | None:
    screen = app.screen
    return screen.phase if isinstance(screen, QuestionScreen) else None


def screen_of(app: StudyApp) -> QuestionScreen:
    screen = app.screen
    assert isinstance(screen, QuestionScreen)
    return screen


async def answer(pilot: object, app: StudyApp, right: bool) -> None:
    presented = screen_of(app).presented
    assert presented is not None and presented.question.answer_index is not None
    index = presented.question.answer_index
    await pilot.press("abcd"[index if right else (index + 1) % 4])  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: phase(app) == "feedback")  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
@pytest.mark.parametrize("lang", ["en", "es"])
async def test_every_offered_button_shows_the_interval_it_schedules(
        app_factory: AppFactory, tmp_path: Path, db_path: Path, lang: str,
        size: tuple[int, int]) -> None:
    deck = tmp_path / "one.yaml"
    deck.write_text(DECK, encoding="utf-8")
    clock = Clock()
    app = app_factory(lang=lang, clock=clock, study={"deck": str(deck)})
    async with app.run_test(size=size) as pilot:
        steps = [(True, Rating.GOOD, timedelta(minutes=1)),  # new; back 9 min early
                 (True, Rating.HARD, timedelta(minutes=1)),  # early: the reported case
                 (True, Rating.EASY, timedelta(days=30)),    # early again: graduates
                 (False, Rating.AGAIN, timedelta(minutes=11)),  # a lapse: relearning
                 (True, Rating.GOOD, timedelta(0))]
        for n, (right, rating, wait) in enumerate(steps):
            if n == 3:  # a month later: the review session from home, then a lapse
                await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
                await pilot.press("escape")
                await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
                await pilot.press("r")
            await wait_until(pilot, lambda: phase(app) == "asking")
            asked_at = clock.now
            await answer(pilot, app, right)
            await pilot.pause()  # the buttons laid out as the learner sees them
            outcome = screen_of(app).outcome
            assert outcome is not None and set(outcome.intervals) == set(Rating)
            if right:
                for shown in Rating:
                    button = app.screen.query_one(f"#rate-{shown.name.lower()}", Button)
                    assert button.display
                    label = str(button.label)
                    assert label.endswith(format_interval(outcome.intervals[shown], lang)), \
                        (n, shown, label)
                    # the whole label on the button's one line: a label longer than
                    # the one before (6m, then 10m) once wrapped its interval away
                    line = button.render_lines(button.size.region)[0].text
                    assert label in line, (n, shown, label, line)
                await pilot.press(str(int(rating)))
            await wait_until(pilot, lambda count=n + 1: len(review_rows(db_path)) == count)
            assert stored_due(db_path) - asked_at == outcome.intervals[rating]
            if not right:
                await pilot.press("enter")  # Continue
            clock.now += wait
            if n == len(steps) - 1:
                break
        await pilot.pause(0.1)
