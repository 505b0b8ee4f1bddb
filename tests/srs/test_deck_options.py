"""A deck's own options over the profile's: resolved with ``dataclasses.replace``, checked."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from studyapp.srs.deck_options import (
    PROFILE_RULES,
    DeckOptions,
    DeckOptionsError,
    DeckSchedulers,
    deck_rules,
    deck_settings,
    shown_options,
    with_deck_options,
)
from studyapp.srs.scheduler import Memory, Rating, Scheduler, SchedulerSettings
from studyapp.study.per_deck import leech_met

NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)


def test_a_deck_without_options_is_scheduled_as_the_profile() -> None:
    profile = SchedulerSettings(desired_retention=0.88, new_per_day=12)
    assert deck_settings(profile, "any") is profile
    assert deck_rules(profile, "any") == PROFILE_RULES
    schedulers = DeckSchedulers(profile)
    assert schedulers("any") is schedulers.profile


def test_only_the_fields_a_deck_sets_replace_the_profiles() -> None:
    profile = SchedulerSettings(desired_retention=0.88, new_per_day=12, reviews_per_day=99)
    own = DeckOptions(desired_retention=0.95, learning_steps_s=(120,), bury_new=False)
    settings = with_deck_options(profile, "physics", own)
    physics = deck_settings(settings, "physics")
    assert physics.desired_retention == 0.95 and physics.learning_steps_s == (120,)
    assert (physics.new_per_day, physics.reviews_per_day) == (12, 99)  # the profile's
    assert deck_rules(settings, "physics").bury_new is False
    assert deck_rules(settings, "physics").bury_reviews is True
    # stored as JSON in the profile, and read back the same
    again = SchedulerSettings.from_dict(settings.to_dict())
    assert deck_settings(again, "physics") == physics
    assert shown_options(again)["physics"]["own"] == ["bury_new", "desired_retention",
                                                     "learning_steps_s"]
    # a profile without deck options exports as it did before they existed
    assert "deck_options" not in profile.to_dict()
    assert "deck_options" not in with_deck_options(settings, "physics", None).to_dict()


def test_a_higher_retention_gives_a_shorter_interval() -> None:
    memory = Memory(card_id=1)
    intervals = {}
    for retention in (0.85, 0.95):
        settings = with_deck_options(SchedulerSettings(), "d",
                                     DeckOptions(desired_retention=retention))
        scheduler = DeckSchedulers(settings)("d")
        intervals[retention] = scheduler.preview(memory, NOW)[Rating.EASY]
    assert intervals[0.95] < intervals[0.85]
    profile = Scheduler(SchedulerSettings()).preview(memory, NOW)[Rating.EASY]
    assert intervals[0.95] < profile < intervals[0.85]


def test_a_stored_entry_that_no_longer_validates_leaves_its_deck_with_the_profile() -> None:
    settings = SchedulerSettings.from_dict({"deck_options": {
        "bad": {"desired_retention": 7}, "good": {"new_per_day": 3}}})
    assert deck_settings(settings, "bad").desired_retention == 0.9
    assert deck_settings(settings, "good").new_per_day == 3
    assert list(shown_options(settings)) == ["good"]
    broken = SchedulerSettings.from_dict({"deck_options": ["not", "a", "map"]})
    assert deck_settings(broken, "good") is broken


@pytest.mark.parametrize(("options", "said"), [
    ({"desired_retention": True}, "desired retention: True is not a number"),
    ({"maximum_interval_days": 0.5}, "maximum interval (days): 0.5 is not a whole number"),
    ({"learning_steps_s": [60] * 21}, "learning steps (s): 21 steps; at most 20"),
    ({"preset": ["x"]}, "preset: ['x'] is not text"),
    ({"parameters": [float("nan")] * 21}, "parameters: nan is not a finite number"),
])
def test_options_of_the_wrong_type_or_range_are_refused(options: dict[str, object],
                                                        said: str) -> None:
    with pytest.raises(DeckOptionsError, match=r"^deck options: ") as refused:
        DeckOptions.from_dict(options)
    assert said in str(refused.value)


def test_a_preset_name_is_one_printable_line() -> None:
    own = DeckOptions.from_dict({"preset": "Evil\n\x1b[31mred\u202e" + "x" * 200})
    assert own.preset.startswith("Evil [31mred") and len(own.preset) == 100
    assert own.preset.isprintable()


def test_a_leech_is_met_at_the_threshold_and_every_half_threshold_after() -> None:
    # Anki: rslib/src/scheduler/states/review.rs, leech_threshold_met (half rounded up):
    # threshold 8 -> 8, 12, 16; threshold 3 -> 3, 5, 7
    assert [n for n in range(20) if leech_met(n, 8)] == [8, 12, 16]
    assert [n for n in range(8) if leech_met(n, 3)] == [3, 5, 7]
    assert not leech_met(5, 0)
