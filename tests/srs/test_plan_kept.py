"""Recall a month after the exam beside recall at the exam, and the cramming warning.

FSRS-6's forgetting curve, R(t, S) = (1 + F·t/S)^(-w20) with F = 0.9^(-1/w20) - 1
(https://github.com/open-spaced-repetition/fsrs4anki/wiki/The-Algorithm), read
KEEP_DAYS after the exam with no review in between. The clock is injected:
every plan is made at NOW.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.srs.exam_plan import (
    CRAM_EXAM_RECALL,
    CRAM_KEPT_RECALL,
    KEEP_DAYS,
    plan_exam,
)
from studyapp.srs.scheduler import DEFAULT_PARAMETERS, Scheduler, SchedulerSettings

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)  # noon, study day 2025-03-03 (rollover 04:00)
W = list(DEFAULT_PARAMETERS)


def recall(t_days: float, stability: float) -> float:
    factor = 0.9 ** (-1 / W[20]) - 1
    return float((1 + factor * t_days / stability) ** -W[20])


def test_a_month_after_is_the_same_curve_thirty_days_on() -> None:
    weights = list(W)
    weights[2] = 100.0  # a first Good gives 100 days: no review before the exam
    scheduler = Scheduler(SchedulerSettings(parameters=tuple(weights), learning_steps_s=()),
                          zone=UTC)
    plan = plan_exam(date(2025, 3, 13), NOW, scheduler, [], new_left=1, zone=UTC)
    assert KEEP_DAYS == 30
    # the one new card is seen on day 0; the exam is 10 study days later, a month 40
    assert plan.predicted_recall == pytest.approx(recall(10, 100.0), rel=1e-9)
    assert plan.recall_month_after == pytest.approx(recall(40, 100.0), rel=1e-9)
    assert not plan.cramming  # 98.5% and 95.0%: nothing forgotten that matters


@pytest.mark.parametrize(("days", "cramming"), [(2, True), (60, False)])
def test_cramming_is_flagged_when_the_month_after_falls_below_the_floor(
        days: int, cramming: bool) -> None:
    """60 new cards two days before the exam: reviewed on both days, recall on the day is
    high but their stability is a few days. Spread over two months, it is kept."""
    scheduler = Scheduler(SchedulerSettings(), zone=UTC)
    plan = plan_exam(NOW.date() + timedelta(days=days), NOW, scheduler, [], new_left=60,
                     zone=UTC)
    assert plan.predicted_recall is not None and plan.recall_month_after is not None
    assert plan.predicted_recall >= CRAM_EXAM_RECALL  # the day looks fine either way
    assert plan.recall_month_after < plan.predicted_recall
    assert (plan.recall_month_after < CRAM_KEPT_RECALL) is cramming
    assert plan.cramming is cramming
    data = plan.as_json()
    assert data["cramming"] is cramming and data["recall_after_days"] == 30
    assert data["cramming_rule"] == {"recall_at_exam_at_least": 0.85,
                                     "recall_month_after_below": 0.75}
    assert data["recall_month_after"] <= plan.recall_month_after  # rounded down


def test_nothing_to_study_has_no_recall_either_way() -> None:
    plan = plan_exam(date(2025, 3, 13), NOW, Scheduler(SchedulerSettings(), zone=UTC), [],
                     new_left=0, zone=UTC)
    assert plan.predicted_recall is None and plan.recall_month_after is None
    assert not plan.cramming and plan.as_json()["recall_month_after"] is None


def test_the_command_line_shows_both_and_warns_in_both_languages(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"

    def plan(lang: str, days: int, *more: str) -> str:
        exam = (date.today() + timedelta(days=days)).isoformat()
        result = CliRunner().invoke(main, ["--db", db, "--lang", lang, "plan", "--exam", exam,
                                           *more])
        assert result.exit_code == 0, result.output
        return result.output

    soon = plan("en", 2)  # every built-in card new, two days before the exam
    assert "Predicted recall a month later " in soon
    assert "Warning: cramming." in soon and "under 75.0%" in soon
    assert "Aviso: atracón." in plan("es", 2) and "75,0\u00a0%" in plan("es", 2)
    data = json.loads(plan("en", 2, "--json"))
    assert data["cramming"] is True and data["recall_month_after"] < 0.75
    later = plan("en", 120)
    assert "Predicted recall a month later" in later and "cramming" not in later
