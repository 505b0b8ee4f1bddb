"""Session planning: the study day, today's limits, and one card per fact in a queue."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from pathlib import Path

from study_parts import answer, drill_service
from test_service import START_DAY, Clock

from studyapp.srs import Rating
from studyapp.srs.scheduler import CardStage
from studyapp.study import SessionKind
from studyapp.study.changes import Changes


def local(hour: int, days: int = 0) -> datetime:
    return datetime.combine(START_DAY + timedelta(days=days), time(hour)).astimezone().astimezone(
        UTC)


def test_the_study_day_rolls_over_at_the_profiles_hour(tmp_path: Path) -> None:
    clock = Clock(local(3, days=1))
    svc = drill_service(tmp_path, clock)
    try:
        rollover = svc.settings.day_rollover_hour
        assert rollover == 4
        assert svc.planner.today() == START_DAY.isoformat()  # 03:00: still the day before
        clock.now = local(5, days=1)
        assert svc.planner.today() == (START_DAY + timedelta(days=1)).isoformat()
    finally:
        svc.close()


def test_more_new_cards_are_for_today_only_and_report_the_config(tmp_path: Path) -> None:
    clock = Clock(local(12))
    svc = drill_service(tmp_path, clock)
    try:
        planner = svc.planner
        base = svc.settings.new_per_day
        assert planner.new_limit_today() == base
        assert planner.study_more_new(5) == base + 5
        assert svc.reported == [Changes.CONFIG]
        assert planner.limits_left()[0] == base + 5
        clock.advance(days=1)
        assert planner.new_limit_today() == base
    finally:
        svc.close()


def test_a_queue_asks_one_card_per_fact_and_keeps_the_rest_in_reserve(tmp_path: Path) -> None:
    svc = drill_service(tmp_path, Clock(local(12)))
    try:
        svc.update_settings(new_per_day=1)
        queue = svc.planner.session_queue(SessionKind.DECK, deck="drill")
        assert len(queue.main) == 1 and not queue.learning
        planned = [i.card_key for i in [*queue.main, *queue.reserve]]
        # the two cards of one fact never both: the other waits for another day
        assert sorted(planned) in (["alone", "stacked"], ["alone", "stacked-again"])
        assert svc.planner.plan(SessionKind.DECK, deck="drill") == [*queue.learning,
                                                                    *queue.main]
    finally:
        svc.close()


def test_a_card_answered_today_holds_back_its_sibling_and_uses_the_limit(
        tmp_path: Path) -> None:
    clock = Clock(local(12))
    svc = drill_service(tmp_path, clock)
    try:
        planner = svc.planner
        new_left = planner.limits_left()[0]
        assert planner.continue_choice(None, []) is None  # nothing started, no post named
        svc.answering.record_answer(answer(svc, clock, "stacked", Rating.GOOD))
        assert planner.limits_left()[0] == new_left - 1
        plan = {i.card_key: i.stage for i in planner.plan(SessionKind.DECK, deck="drill")}
        assert plan["stacked"] is CardStage.LEARNING  # back within the learn-ahead limit
        assert plan["alone"] is CardStage.NEW
        assert "stacked-again" not in plan  # its sibling was answered today
        assert planner.continue_choice(None, []) == ("review", "")
        clock.advance(days=1)
        plan = {i.card_key: i.stage for i in planner.plan(SessionKind.DECK, deck="drill")}
        assert plan["stacked"] is CardStage.LEARNING  # due now
        assert "stacked-again" not in plan  # a new day, but its sibling is in this queue
    finally:
        svc.close()
