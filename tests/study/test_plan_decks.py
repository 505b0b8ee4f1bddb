"""The exam plan counts the cards of the decks a learner studies, as sessions do."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from test_service import Clock, service

from studyapp.tuning import exam_plan


def test_plan_counts_only_decks_switched_on(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    studied = {d.deck_id: d.cards for d in svc.deck_list() if d.enabled}
    assert "numeric-drill" not in studied  # examples start switched off
    exam = date(2026, 4, 30)
    assert exam_plan(svc, exam).new_left == sum(studied.values())
    svc.set_deck_enabled("post-h200", False)
    assert exam_plan(svc, exam).new_left == sum(studied.values()) - studied["post-h200"]
