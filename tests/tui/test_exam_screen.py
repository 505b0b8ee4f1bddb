"""The mock exam on screen at 80×24: no verdicts while it runs, the clock, the result."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static
from tui_helpers import FIXED_NOW, footer_label, right_answer, wait_until, wrong_answer

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.exam import ExamScreen

# FIXED_NOW is a UTC moment: study days and dates are read in UTC, whatever hour the
# suite runs at (a zone ten hours west showed the day before)
pytestmark = pytest.mark.utc_days

AppFactory = Callable[..., StudyApp]
REQUEST = {"posts": ("hbm-kv-cache", "hgx"), "minutes": 10, "count": 4, "seed": 3}


class Clock:
    def __init__(self) -> None:
        self.now = FIXED_NOW

    def __call__(self) -> datetime:
        return self.now


def shown(screen: ExamScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def start(pilot: Any) -> ExamScreen:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ExamScreen)
                     and pilot.app.screen.sheet is not None)
    screen = pilot.app.screen
    assert isinstance(screen, ExamScreen)
    return screen


async def type_line(pilot: Any, text: str) -> None:
    await pilot.press(*text)
    await pilot.press("enter")
    await pilot.pause()


async def test_answers_get_no_verdict_then_the_result_shows_every_solution(
        app_factory: AppFactory, db_path: Path) -> None:
    app = app_factory(study={"exam": REQUEST})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot)
        sheet = screen.sheet
        assert sheet is not None and len(sheet.items) == 4
        assert footer_label(screen, "ctrl+f") == "Hand in"
        first = sheet.items[0].question
        for line in wrong_answer(first).split("\n"):  # a scenario: its first step wrong
            await type_line(pilot, line)
            assert "right" not in shown(screen, "#exam-message").lower()
            assert shown(screen, "#exam-message") == ""  # no verdict, not even a hint
        assert screen.index == 1
        await type_line(pilot, "")  # left blank
        assert screen.index == 2
        for item in sheet.items[2:]:
            for line in right_answer(item.question).split("\n"):
                await type_line(pilot, line)
        assert screen.result is not None
        text = shown(screen, "#exam-prompt")
        assert "Score: 2 of 4" in text or "Score: 2." in text, text[:200]
        assert text.count("Worked solution") == 4
        assert not screen.query_one(Input).display
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ExamScreen))
    with sqlite3.connect(db_path) as db:  # nothing was recorded
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        if "review_logs" in tables:
            assert db.execute("SELECT count(*) FROM review_logs").fetchone()[0] == 0


async def test_time_running_out_hands_the_paper_in(app_factory: AppFactory) -> None:
    clock = Clock()
    app = app_factory(study={"exam": REQUEST}, clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot)
        assert "10:00 left" in shown(screen, "#exam-status")
        clock.now = FIXED_NOW + timedelta(minutes=3, seconds=30)
        screen.tick()
        assert "6:30 left" in shown(screen, "#exam-status")
        clock.now = FIXED_NOW + timedelta(minutes=11)
        await wait_until(pilot, lambda: screen.result is not None, timeout=5)
        text = shown(screen, "#exam-prompt")
        assert text.startswith("Time is up")
        assert "Score: 0 of 4" in text
        assert footer_label(screen, "ctrl+f") is None


async def test_escape_hands_in_first_then_leaves(app_factory: AppFactory) -> None:
    app = app_factory(study={"exam": REQUEST}, lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot)
        await pilot.press("escape")
        assert screen.result is not None
        assert "Nota: 0 de 4" in shown(screen, "#exam-prompt")
        assert isinstance(app.screen, ExamScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ExamScreen))


def test_the_exam_request_reaches_the_app(app_factory: AppFactory) -> None:
    app = app_factory(study={"exam": REQUEST})
    assert app.study_request == {"exam": REQUEST}
    _: dict[str, Any] = REQUEST


async def test_the_handed_in_paper_is_kept_for_progress(app_factory: AppFactory,
                                                        db_path: Path) -> None:
    from studyapp.study.exam_log import exams

    app = app_factory(study={"exam": REQUEST})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot)
        await pilot.press("escape")  # hands the paper in, every question blank
        assert screen.result is not None
        url = f"sqlite:///{db_path}"
        await wait_until(pilot, lambda: len(exams("default", url)) == 1, timeout=5)
    kept = exams("default", url)[0]
    assert kept["out_of"] == 4 and kept["score"] == 0
    assert {p["post"] for p in kept["posts"]} <= set(REQUEST["posts"])


async def test_the_progress_screen_shows_the_last_paper(app_factory: AppFactory,
                                                        db_path: Path) -> None:
    from studyapp.study import StudyConfig, StudyService
    from studyapp.tui.screens.home import HomeScreen
    from studyapp.tui.screens.progress import ProgressScreen

    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}", profile="default",
                                       clock=lambda: FIXED_NOW))
    sheet = service.exam(("hbm-kv-cache",), count=3, minutes=10, seed=1)
    assert service.record_exam(sheet.hand_in(FIXED_NOW))
    service.close()
    app = app_factory(lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ProgressScreen)
                         and app.screen.view is not None)
        summary = str(app.screen.query_one("#stats-summary", Static).render())
    day = FIXED_NOW.isoformat()[:10]
    assert f"Último simulacro de examen: 0/{len(sheet.items)} (0%) el {day}" in summary


async def test_ctrl_r_counts_the_answers_as_reviews_when_handed_in(
        app_factory: AppFactory, db_path: Path) -> None:
    app = app_factory(study={"exam": REQUEST})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot)
        assert "schedule untouched" in shown(screen, "#exam-status")
        await pilot.press("ctrl+r")
        assert screen.count_as_reviews
        assert "answers count as reviews" in shown(screen, "#exam-status")
        sheet = screen.sheet
        assert sheet is not None
        for item in sheet.items:
            for line in right_answer(item.question).split("\n"):
                await type_line(pilot, line)
        assert screen.result is not None
        assert "recorded as a review" in shown(screen, "#exam-status")
        await pilot.press("ctrl+r")  # handed in: no longer changes anything
        assert screen.count_as_reviews

        def reviews() -> int:
            with sqlite3.connect(db_path) as db:
                return int(db.execute("SELECT count(*) FROM review_logs").fetchone()[0])

        await wait_until(pilot, lambda: reviews() == len(sheet.items))
