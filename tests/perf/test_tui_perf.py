"""Benchmarks: a key answered to its feedback painted, Enter to the next question
painted, each against a bare Textual app doing the equivalent update, side by side.

Both apps run headless under a Pilot at the same size. A step is timed from
the key event posted to the app (as a terminal's driver posts it) until the
screen shows the new state and the refresh after it has run (``call_after_refresh``:
the new frame is painted). The bare app replaces one line of text on the same key;
its time is the floor any Textual app pays. Figures are medians over ROUNDS.

Run with ``python -m pytest tests/perf/test_tui_perf.py -s``.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from test_stats_perf import figure, report
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

from studyapp.config import Settings
from studyapp.tui.app import StudyApp, make_app
from studyapp.tui.screens.question import QuestionScreen

ROUNDS = int(os.environ.get("TUI_ROUNDS", "15"))
SIZE = (100, 30)
NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
DECK = "deck: tui-bench\ntitle: TUI benchmark\nlanguage: en\npost: h200\ncards:\n" + "".join(
    f"  - id: c{i}\n    type: choice\n    prompt: \"Which memory does chip {i} use?\"\n"
    f"    choices: [HBM3 {i}, HBM3e {i}, GDDR7 {i}, LPDDR5X {i}]\n    answer: HBM3e {i}\n"
    f"    explanation: \"HBM3e, as on the H200 (chip {i}).\"\n"
    for i in range(ROUNDS + 5))


class Bare(App[None]):
    """The floor: a Textual app that replaces one line of text on a key."""

    def __init__(self) -> None:
        super().__init__()
        self.shown = 0

    def compose(self) -> ComposeResult:
        yield Static("Question 0", id="line")

    def on_key(self) -> None:
        self.shown += 1
        self.query_one("#line", Static).update(f"Feedback {self.shown}: right, HBM3e.")


async def settle(app: App[Any], condition: Callable[[], object], timeout: float = 15) -> None:
    """Wait until ``condition()`` holds, then until the frame after it is painted."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {condition}")
        await asyncio.sleep(0)
    painted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    app.call_after_refresh(lambda: painted.done() or painted.set_result(None))
    await asyncio.wait_for(painted, timeout)


def press(app: App[Any], key: str) -> None:
    """The key event a terminal driver posts for ``key``."""
    app.post_message(events.Key(key, key if len(key) == 1 else None))


async def bare_steps(rounds: int) -> list[float]:
    app = Bare()
    times: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(rounds):
            before = app.shown
            start = time.perf_counter()
            press(app, "a")
            await settle(app, lambda b=before: app.shown > b)  # type: ignore[misc]
            times.append((time.perf_counter() - start) * 1000)
            await pilot.pause()
    return times


def _question(app: StudyApp) -> QuestionScreen | None:
    return app.screen if isinstance(app.screen, QuestionScreen) else None


def _phase(app: StudyApp) -> str | None:
    screen = _question(app)
    return screen.phase if screen is not None else None


async def study_steps(deck: Path, db: Path, rounds: int) -> tuple[list[float], list[float]]:
    """(key → feedback, Enter → next question) times in ms over ``rounds`` questions."""
    settings = Settings(db_url=f"sqlite:///{db}", profile="default", lang="en")
    app = make_app(settings, study={"deck": str(deck)}, clock=lambda: NOW, seed=7)
    feedback: list[float] = []
    following: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await settle(app, lambda: _phase(app) == "asking", timeout=60)
        await pilot.pause()
        for _ in range(rounds):
            screen = _question(app)
            assert screen is not None and screen.presented is not None
            index = screen.presented.question.answer_index
            assert index is not None
            start = time.perf_counter()
            press(app, "abcdef"[index])
            await settle(app, lambda: _phase(app) == "feedback")
            feedback.append((time.perf_counter() - start) * 1000)
            await pilot.pause()
            shown = screen.presented
            start = time.perf_counter()
            press(app, "enter")
            await settle(app, lambda s=shown: _phase(app) == "asking"  # type: ignore[misc]
                         and _question(app) is not None
                         and _question(app).presented is not s)  # type: ignore[union-attr]
            following.append((time.perf_counter() - start) * 1000)
            await pilot.pause()
    return feedback, following


def test_feedback_and_next_against_a_bare_app(tmp_path: Path) -> None:
    deck = tmp_path / "tui-bench.yaml"
    deck.write_text(DECK, encoding="utf-8")
    bare = asyncio.run(bare_steps(ROUNDS * 2))
    feedback, following = asyncio.run(study_steps(deck, tmp_path / "tui.sqlite3", ROUNDS))
    floor = statistics.median(bare)
    report(f"tui: key -> feedback median {statistics.median(feedback):.1f} ms, "
           f"Enter -> next median {statistics.median(following):.1f} ms, "
           f"bare Textual line update median {floor:.1f} ms ({ROUNDS} rounds, {SIZE})")
    figure("feedback-ratio", statistics.median(feedback) / floor, "x", "<= 2x")
    figure("next-ratio", statistics.median(following) / floor, "x", "<= 2x")
    assert len(feedback) == len(following) == ROUNDS
