"""The optimizer button in Settings (with its progress) and the exam line on the home screen."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from learner_sim import simulate_learner, store_history
from textual.widgets import Button, Checkbox, Input, ProgressBar, Static
from tui_helpers import fixed_clock, wait_until

from studyapp.srs.scheduler import DEFAULT_PARAMETERS
from studyapp.study import StudyConfig, StudyService
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.settings import SettingsScreen
from studyapp.tuning import exam_plan

AppFactory = Callable[..., StudyApp]


def _status(app: StudyApp) -> str:
    return str(app.screen.query_one("#optimize-status", Static).render())


async def _open_settings(pilot: object, app: StudyApp) -> None:
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)  # type: ignore[arg-type]
                     and app.screen.overview is not None)
    await pilot.press("comma")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen)  # type: ignore[arg-type]
                     and app.screen.scheduler_settings is not None)


async def test_optimize_without_history_says_how_many_reviews_are_needed(
        app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        await _open_settings(pilot, app)
        assert not app.screen.query_one("#optimize-progress", ProgressBar).display
        app.screen.query_one("#optimize", Button).press()
        await wait_until(pilot, lambda: "more" in _status(app))
        assert "needs 400: 400 more" in _status(app)
        assert not app.screen.query_one("#optimize", Button).disabled


async def test_ignore_reviews_before_is_a_setting_as_in_anki(app_factory: AppFactory,
                                                             db_path: Path) -> None:
    """The date `optimize --ignore-before` saves: a past day saved, a future one refused,
    empty clears it."""
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        await _open_settings(pilot, app)
        field = app.screen.query_one("#ignore_before", Input)
        field.value = "2999-01-01"
        await wait_until(pilot, lambda: field.has_class("-invalid"))
        field.value = "2025-02-15"
        await wait_until(pilot, lambda: app.screen.scheduler_settings is not None  # type: ignore[attr-defined]
                         and app.screen.scheduler_settings.ignore_reviews_before == "2025-02-15")
        assert not field.has_class("-invalid")
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}"))
    try:
        assert service.settings.ignore_reviews_before == "2025-02-15"
    finally:
        service.close()


async def test_optimize_shows_progress_then_saves(app_factory: AppFactory, db_path: Path,
                                                  monkeypatch: object) -> None:
    url = f"sqlite:///{db_path}"
    store_history(url, "default", simulate_learner(cards=300, days=120))
    seen: list[tuple[str, bool]] = []
    original = SettingsScreen.show_stage

    def spy(self: SettingsScreen, stage: str, fraction: float) -> None:
        original(self, stage, fraction)
        seen.append((stage, self.query_one("#optimize-progress", ProgressBar).display))

    monkeypatch.setattr(SettingsScreen, "show_stage", spy)  # type: ignore[attr-defined]
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        await _open_settings(pilot, app)
        app.screen.query_one("#optimize", Button).press()
        await wait_until(pilot, lambda: "Saved" in _status(app), timeout=30)
        assert not app.screen.query_one("#optimize-progress", ProgressBar).display
    assert [stage for stage, _ in seen] == ["items", "fit", "evaluate", "refit", "health",
                                          "done"]
    assert all(shown for _, shown in seen)  # the bar is visible while it runs
    service = StudyService(StudyConfig(db_url=url))
    try:
        assert service.settings.parameters != DEFAULT_PARAMETERS
    finally:
        service.close()


def _memory(url: str) -> dict[tuple[str, str], tuple[float | None, object]]:
    service = StudyService(StudyConfig(db_url=url))
    try:
        return {key: (row.stability, row.due) for key, row in service.card_states().items()}
    finally:
        service.close()


@pytest.mark.parametrize("reschedule", [False, True])
async def test_optimize_in_settings_recomputes_keeps_due_dates_if_asked_and_undoes(
        app_factory: AppFactory, db_path: Path, reschedule: bool) -> None:
    """The terminal app offers what `optimize --reschedule` and `optimize --undo` do."""
    url = f"sqlite:///{db_path}"
    store_history(url, "default", simulate_learner(cards=300, days=120))
    before = _memory(url)
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        await _open_settings(pilot, app)
        undo = app.screen.query_one("#optimize-undo", Button)
        assert undo.disabled  # nothing optimized yet
        app.screen.query_one("#reschedule", Checkbox).value = reschedule
        app.screen.query_one("#optimize", Button).press()
        await wait_until(pilot, lambda: "Saved" in _status(app), timeout=30)
        assert "Memory states of 300 cards recomputed" in _status(app)
        await wait_until(pilot, lambda: not undo.disabled)
        after = _memory(url)
        assert sum(before[k][0] != after[k][0] for k in before) > 270  # stabilities moved
        moved = sum(before[k][1] != after[k][1] for k in before)
        assert (moved > 0) if reschedule else (moved == 0)
        undo.press()
        await wait_until(pilot, lambda: "Previous parameters restored" in _status(app))
        assert "300 cards recomputed" in _status(app)
        await wait_until(pilot, lambda: undo.disabled)  # nothing more to undo
    service = StudyService(StudyConfig(db_url=url))
    try:
        assert service.settings.parameters == DEFAULT_PARAMETERS
        assert service.settings.previous_parameters is None
    finally:
        service.close()


@pytest.mark.utc_days
async def test_home_counts_down_to_a_saved_exam(app_factory: AppFactory, db_path: Path) -> None:
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}", clock=fixed_clock))
    try:
        exam_plan(service, date(2026, 4, 1), apply=True)  # the fixed clock says 2026-03-02
    finally:
        service.close()
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.query_one("#exam-plan", Static).display)
        line = str(app.screen.query_one("#exam-plan", Static).render())
        assert line.startswith("Exam in 30 d (2026-04-01)")
        assert "new/day" in line and "recall on the day" in line
