"""Home shows recall a month after a saved exam under the plan's line, and warns of
cramming in the warning colour. The app's clock is fixed (2026-03-02)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from textual.widgets import Static
from tui_helpers import fixed_clock, wait_until

from studyapp.study import StudyConfig, StudyService
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tuning import exam_plan

AppFactory = Callable[..., StudyApp]


_SAVED: dict[date, bytes] = {}
"""The new database with each exam saved, once per test process: the fixed clock makes
the plan the same every time, and walking it card by card takes seconds."""


def save_exam(db_path: Path, exam: date) -> None:
    """As ``exam-plan --apply``: the exam and the plan's daily new-card limit saved."""
    if exam in _SAVED:
        db_path.write_bytes(_SAVED[exam])
        return
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}", clock=fixed_clock))
    try:
        exam_plan(service, exam, apply=True)
    finally:
        service.close()
    _SAVED[exam] = db_path.read_bytes()


@pytest.mark.utc_days
@pytest.mark.parametrize(("lang", "exam", "words"), [
    ("en", date(2026, 3, 4), "Cramming: "),
    ("es", date(2026, 3, 4), "Atracón: "),
    ("en", date(2026, 4, 1), "A month after the exam, without reviews: "),
    ("es", date(2026, 4, 1), "Un mes después del examen, sin repasos: "),
])
async def test_home_shows_the_month_after_and_warns_of_cramming(
        app_factory: AppFactory, db_path: Path, lang: str, exam: date, words: str) -> None:
    save_exam(db_path, exam)
    app = app_factory(lang=lang)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.query_one("#exam-plan", Static).display,
                         timeout=60)  # the plan is walked card by card on the service thread
        plan = app.screen.query_one("#exam-plan", Static)
        first, second = str(plan.render()).split("\n")
        assert first.startswith(("Exam in", "Examen en"))
        assert second.startswith(words)
        await wait_until(pilot, lambda: plan.region.height == 2)  # both lines shown
