"""Cards never answered get a stand-in id, so cards learned together spread out on Easy."""

from __future__ import annotations

from datetime import UTC, datetime

from studyapp.srs import Memory, Rating, Scheduler, SchedulerSettings
from studyapp.study.held import new_card_id, reviewed_state

NOW = datetime(2026, 5, 4, 10, tzinfo=UTC)


def test_the_stand_in_id_is_the_same_for_the_same_card() -> None:
    assert new_card_id("network", "nvlink-1") == new_card_id("network", "nvlink-1")
    assert new_card_id("network", "nvlink-1") != new_card_id("network", "nvlink-2")
    assert new_card_id("a", "bc") != new_card_id("ab", "c")


def test_new_cards_answered_easy_together_come_back_on_several_days() -> None:
    scheduler = Scheduler(SchedulerSettings(load_balancing=False), zone=UTC)
    days = set()
    for n in range(30):
        reviewed: list[Memory] = []
        state = reviewed_state(scheduler, Rating.EASY, NOW, reviewed,
                               new_card_id("memory", f"card-{n}"))(None)
        assert state.due == reviewed[0].due
        days.add((state.due - NOW).days)
    # Easy on a new card: FSRS-6's initial stability 8.3 days, fuzzed 6 to 10 days
    assert len(days) >= 3 and min(days) >= 6 and max(days) <= 10
