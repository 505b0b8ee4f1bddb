"""The exam plan introduces new cards as the session does: each deck with a daily new
limit of its own at most that limit a day, the profile's limit over all."""

from __future__ import annotations

from datetime import UTC, date, datetime

from studyapp.srs.exam_plan import daily_new, plan_exam
from studyapp.srs.scheduler import DEFAULT_PARAMETERS, Scheduler, SchedulerSettings

W = list(DEFAULT_PARAMETERS)
W[2] = 100.0  # a first Good gives 100 days: no new card is reviewed again before the exam
NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)  # study day 2025-03-03 (rollover 04:00 UTC)


def test_a_deck_limit_spreads_its_cards_and_the_others_fill_the_days() -> None:
    assert daily_new(4, 10, 10) == [4, 4, 2, 0, 0, 0, 0, 0, 0, 0]
    # six cards of a deck at one a day; the four others fill each day up to four
    assert daily_new(4, 10, 10, [(6, 1)]) == [4, 2, 1, 1, 1, 1, 0, 0, 0, 0]
    assert sum(daily_new(4, 3, 10, [(6, 1)])) == 3 + 4  # three of the six by day three
    assert daily_new(5, 2, 8, [(3, 0), (2, 2)]) == [5, 0]  # a deck at 0 a day waits


def test_cards_a_deck_limit_leaves_unseen_by_the_exam_count_as_not_recalled() -> None:
    scheduler = Scheduler(SchedulerSettings(parameters=tuple(W), learning_steps_s=()),
                          zone=UTC)
    exam = date(2025, 3, 7)  # four study days: every one of them learns (under a week)
    free = plan_exam(exam, NOW, scheduler, [], new_left=8, zone=UTC)
    capped = plan_exam(exam, NOW, scheduler, [], new_left=8, zone=UTC, deck_limits=[(6, 1)])
    assert free.new_unreached == 0 and free.new_per_day == 2
    # the capped deck sees one a day for four days: two of its six wait past the exam
    assert capped.new_unreached == 2 and capped.as_json()["new_unreached"] == 2
    assert free.predicted_recall is not None and capped.predicted_recall is not None
    assert capped.predicted_recall < free.predicted_recall * 6 / 8 + 1e-9
