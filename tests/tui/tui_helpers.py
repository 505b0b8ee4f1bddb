"""Helpers for the terminal app tests: a fixed clock, answering, reading saved reviews."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from studyapp.questions.model import Kind, Question

FIXED_NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
"""Every app in these tests lives at this moment (snapshots must not move)."""

SEED = 7


def fixed_clock() -> datetime:
    return FIXED_NOW


async def wait_until(pilot: Pilot[Any], condition: Callable[[], object],
                     timeout: float = 15.0) -> None:
    """Let the app run until ``condition()`` holds (service calls run on a thread)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            app = pilot.app
            raise AssertionError(f"timed out waiting for {condition}; screens: "
                                 f"{app.screen_stack}; notifications: "
                                 f"{[n.message for n in app._notifications]}")
        await pilot.pause(0.02)


async def wait_up_to(pilot: Pilot[Any], seconds: float, condition: Callable[[], object]) -> None:
    """Let the app run until ``condition()`` holds or ``seconds`` pass; the test's own
    assertion (with its message) then says whether it held."""
    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        await asyncio.sleep(0.01)  # the app runs meanwhile; no redraw forced per look


async def settled(pilot: Pilot[Any]) -> None:
    """Let the app finish what it started: every worker done (loads run on the service
    thread, and one may start another), every message handled and the loop idle."""
    app = pilot.app
    while True:
        await pilot.pause()
        if all(worker.is_finished for worker in app.workers):
            return
        await wait_until(pilot, lambda: all(worker.is_finished for worker in app.workers))


async def click_when_drawn(pilot: Pilot[Any], widget: Widget) -> None:
    """Click ``widget`` once it is drawn where a person would click it (a click sent
    before the frame that lays it out lands on whatever was there)."""
    screen = pilot.app.screen
    await wait_until(pilot, lambda: widget.region.width > 0
                     and screen.get_widget_at(*widget.region.offset)[0] is widget)
    await pilot.click(widget)


def right_answer(question: Question) -> str:
    """What a learner who knows the answer types for this question (a scenario: every step,
    one a line)."""
    if question.kind is Kind.SCENARIO:
        return "\n".join(right_answer(part.question) for part in question.parts)
    if question.kind is Kind.CHOICE:
        assert question.answer_index is not None
        return str(question.answer_index + 1)
    if question.kind is Kind.TRUEFALSE:
        return "y" if question.answer else "n"
    if question.kind is Kind.NUMERIC:
        assert isinstance(question.answer, float | int)
        return f"{question.answer:.6g} {question.unit or ''}".strip()
    return str(question.answer)


def wrong_answer(question: Question) -> str:
    if question.kind is Kind.SCENARIO:  # the first step wrong
        first, *rest = question.parts
        return "\n".join([wrong_answer(first.question),
                          *(right_answer(part.question) for part in rest)])
    if question.kind is Kind.CHOICE:
        assert question.answer_index is not None
        return "2" if question.answer_index == 0 else "1"
    if question.kind is Kind.TRUEFALSE:
        return "n" if question.answer else "y"
    if question.kind is Kind.NUMERIC:
        assert isinstance(question.answer, float | int)
        return f"{question.answer * 3 + 1:.6g} {question.unit or ''}".strip()
    return "certainly not this"


async def answer(pilot: Pilot[Any], text: str, kind: Kind) -> None:
    """Type or press an answer as the question's layout expects."""
    if kind in (Kind.CHOICE, Kind.TRUEFALSE):
        await pilot.press(text)
    else:
        await pilot.press(*text)
        await pilot.press("enter")


def footer_label(screen: Screen[Any], key: str) -> str | None:
    """The label the footer gives ``key`` on ``screen`` now (None: not bound there)."""
    active = screen.active_bindings.get(key)
    return None if active is None else active.binding.description


def review_rows(db_path: Path) -> list[tuple[str, str, int, int, str | None]]:
    """(deck, card, rating, correct, response) of every answer saved in the database."""
    with sqlite3.connect(db_path) as connection:
        return list(connection.execute(
            "SELECT c.deck_id, c.card_key, r.rating, r.correct, r.response "
            "FROM review_logs r JOIN card_states c ON c.id = r.card_id ORDER BY r.id"))
