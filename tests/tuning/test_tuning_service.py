"""The tuning service on a real database: fitted parameters saved and used, an exam applied."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from learner_sim import simulate_learner, store_history

from studyapp.srs.scheduler import DEFAULT_PARAMETERS
from studyapp.study import StudyConfig, StudyService
from studyapp.tuning import exam_plan, optimize_profile, optimize_summary, saved_exam_plan

NOW = datetime(2025, 6, 2, 10, 0, tzinfo=UTC)


def _service(url: str, profile: str = "default") -> StudyService:
    return StudyService(StudyConfig(db_url=url, profile=profile, lang="en", clock=lambda: NOW))


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'study.sqlite3'}"


def test_fitted_parameters_are_saved_and_then_schedule_the_profile(url: str) -> None:
    service = _service(url)
    assert service.profile.name == "default"  # created with the defaults
    store_history(url, "default", simulate_learner(cards=300, days=120))
    stages: list[float] = []
    outcome = optimize_profile(service, progress=lambda _, f: stages.append(f))
    service.close()
    assert outcome.saved and outcome.result.better
    assert stages == sorted(stages) and stages[-1] == 1.0
    assert "Saved" in optimize_summary(outcome, "en")
    again = _service(url)
    try:
        assert again.settings.parameters == outcome.parameters != DEFAULT_PARAMETERS
        assert tuple(again.scheduler.settings.parameters) == outcome.parameters
    finally:
        again.close()
    other = _service(url, "someone-else")  # settings are per profile
    try:
        assert other.settings.parameters == DEFAULT_PARAMETERS
    finally:
        other.close()


def test_too_little_history_changes_nothing(url: str) -> None:
    service = _service(url)
    try:
        outcome = optimize_profile(service)
        assert not outcome.saved and outcome.result.missing == outcome.result.needed
        assert service.settings.parameters == DEFAULT_PARAMETERS
        assert "400 more" in optimize_summary(outcome, "en")
    finally:
        service.close()


@pytest.mark.utc_days
def test_applying_an_exam_plan_sets_the_new_card_limit_and_the_date(url: str) -> None:
    service = _service(url)
    try:
        cards = sum(d.cards for d in service.deck_list() if d.enabled)  # decks switched on
        preview = exam_plan(service, date(2025, 7, 2))  # 30 days: 23 to see everything
        assert preview.new_left == cards and preview.new_per_day == -(-cards // 23)
        assert service.settings.exam_date is None and saved_exam_plan(service) is None
        applied = exam_plan(service, date(2025, 7, 2), apply=True)
        assert service.settings.new_per_day == applied.new_per_day
        assert service.settings.exam_date == "2025-07-02"
        saved = saved_exam_plan(service)
        assert saved is not None and saved.days_left == 30
    finally:
        service.close()


def _memory_rows(service: StudyService) -> dict[tuple[str, str], tuple[float | None, datetime]]:
    return {key: (row.stability, row.due) for key, row in service.card_states().items()
            if row.stage}


def _replayed(service: StudyService) -> dict[int, float | None]:
    """Each card's stability from its history through the profile's scheduler now."""
    from studyapp.srs import Memory, Rating
    from studyapp.store.history import review_history

    memories: dict[int, Memory] = {}
    for card, when, rating in review_history(service.store, service.profile.id):
        memories[card] = service.scheduler.review(memories.get(card, Memory(card_id=card)),
                                                  Rating(rating), when)
    return {card: m.stability for card, m in memories.items()}


@pytest.mark.parametrize("reschedule", [False, True])
def test_saved_parameters_recompute_every_memory_state_and_undo_restores(
        url: str, reschedule: bool) -> None:
    """Anki recomputes memory states when parameters change ("reschedule cards on change"
    moves due dates too, when asked; they stay by default); undo puts the old parameters
    and states back."""
    from studyapp.tuning import undo_optimize

    service = _service(url)
    store_history(url, "default", simulate_learner(cards=300, days=120))
    before = _memory_rows(service)
    outcome = optimize_profile(service, reschedule=reschedule)
    service.close()
    assert outcome.saved and outcome.recomputed == len(before) > 0
    assert f"Memory states of {outcome.recomputed} cards recomputed" in optimize_summary(
        outcome, "en")
    service = _service(url)
    try:
        after = _memory_rows(service)
        ids = {key: row.id for key, row in service.card_states().items()}
        replayed = _replayed(service)
        for key, (stability, _due) in after.items():
            assert stability == pytest.approx(replayed[ids[key]], rel=1e-9)
        changed = sum(1 for key in before if before[key][0] != after[key][0])
        assert changed > len(before) * 0.9
        moved = sum(1 for key in before if before[key][1] != after[key][1])
        assert (moved > 0) if reschedule else (moved == 0)
        assert undo_optimize(service) == len(before)
        assert service.settings.parameters == DEFAULT_PARAMETERS
        assert service.settings.previous_parameters is None
        undone = _memory_rows(service)
        replayed = _replayed(service)
        for key, (stability, _due) in undone.items():
            assert stability == pytest.approx(replayed[ids[key]], rel=1e-9)
        assert undo_optimize(service) is None  # nothing left to undo
    finally:
        service.close()


@pytest.mark.utc_days
def test_clearing_an_exam_plan_restores_the_learners_own_limit(url: str) -> None:
    """`plan --apply` then `plan --clear` left the new-card limit at the plan's 216;
    a limit the learner chose (7 here, not the default 20) must come back, even after
    applying two plans in a row."""
    from studyapp.tuning import clear_exam_plan

    service = _service(url)
    try:
        service.update_settings(new_per_day=7)
        first = exam_plan(service, date(2025, 6, 4), apply=True)  # two days: too close
        assert first.too_close and service.settings.new_per_day == first.new_per_day != 7
        second = exam_plan(service, date(2025, 7, 2), apply=True)
        assert service.settings.new_per_day == second.new_per_day != 7
        assert clear_exam_plan(service) == 7
        assert service.settings.new_per_day == 7 and service.settings.exam_date is None
        assert service.settings.new_per_day_before_exam is None
        assert clear_exam_plan(service) == 7  # clearing again changes nothing
    finally:
        service.close()
    again = _service(url)  # and it was saved
    try:
        assert again.settings.new_per_day == 7
    finally:
        again.close()


@pytest.mark.parametrize("passed", [True, False])
def test_the_summary_says_the_health_check_in_both_languages(passed: bool) -> None:
    from studyapp.srs.fit_health import HealthCheck
    from studyapp.srs.optimize import OptimizeResult
    from studyapp.tuning import OptimizeOutcome

    health = HealthCheck(0.5, 0.05, 0.8, 1.0 if passed else 1.3, 0.9 if passed else 2.1)
    result = OptimizeResult(900, 800, 400, enough=True, better=False, log_loss_default=0.5,
                            log_loss_fitted=0.51, rmse_default=0.05, rmse_fitted=0.06,
                            health=health)
    outcome = OptimizeOutcome(result, False, DEFAULT_PARAMETERS, ignore_before="2026-05-20")
    english, spanish = optimize_summary(outcome, "en"), optimize_summary(outcome, "es")
    assert "2026-05-20" in english and "2026-05-20" in spanish
    if passed:
        assert "FSRS can adapt to your memory well" in english
        assert "FSRS se adapta bien a tu memoria" in spanish
    else:
        assert "difficult for FSRS to predict" in english and "1.30" in english
        assert "le cuesta predecir" in spanish and "1,30" in spanish and "2,10" in spanish
    assert outcome.as_json()["health_check"] == {
        "passed": passed, "log_loss": 0.5, "rmse_bins": 0.05, "retention": 0.8,
        "adjusted_log_loss": health.adjusted_log_loss, "adjusted_rmse": health.adjusted_rmse}
