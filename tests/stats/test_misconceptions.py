"""Misconceptions over simulated study days: slips raise them, right traps let them fade."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta

import pytest

from studyapp.i18n import strings
from studyapp.progress.misconceptions import (
    HALF_LIFE_DAYS,
    TrapAnswer,
    estimate,
    slips_between,
)
from studyapp.questions.misconceptions import MISCONCEPTIONS, misconception_of

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def day(n: float) -> datetime:
    return START + timedelta(days=n)


def study_day(at: datetime) -> date:
    return at.date()


def k_only(at: datetime, card: str, slipped: bool) -> TrapAnswer:
    return TrapAnswer(at, card, "k_only", slipped)


def test_slips_on_different_cards_make_a_held_misconception_that_rises() -> None:
    answers = [k_only(day(0), "kv-cache-per-token", True)]
    (one,) = estimate(answers, day(0), study_day)
    assert not one.held  # one slip is a slip, not yet a misconception
    answers += [k_only(day(3), "kv-cache-size", True), k_only(day(6), "scenario-serving", True)]
    (three,) = estimate(answers, day(6), study_day)
    assert three.held and three.slips == 3 and three.slip_cards == 3
    assert three.evidence > one.evidence
    assert three.trend == "rising"
    assert three.last_seen == day(6)


def test_right_answers_to_its_traps_on_three_cards_over_two_days_let_it_fade() -> None:
    answers = [k_only(day(0), "a", True), k_only(day(1), "b", True)]
    (held,) = estimate(answers, day(1), study_day)
    assert held.held
    answers += [k_only(day(2), "c", False), k_only(day(2), "d", False)]
    (same_day,) = estimate(answers, day(2), study_day)
    assert same_day.held and not same_day.faded  # two cards on one day are not enough
    assert same_day.evidence < held.evidence
    answers += [k_only(day(3), "e", False)]
    (faded,) = estimate(answers, day(3), study_day)
    assert faded.faded and not faded.held and faded.right_since == 3
    answers += [k_only(day(12), "f", True)]
    (back,) = estimate(answers, day(12), study_day)
    assert back.right_since == 0 and not back.faded  # a new slip starts the count again


def test_a_faded_misconception_is_falling_never_rising() -> None:
    """Faded means its traps were answered right on three cards over two days since the last
    slip: the evidence only went down since, even when last week's slips still outweigh
    what there was a week ago. ``stats --json`` must not say faded and rising at once."""
    answers = [k_only(day(0), "a", True), k_only(day(1), "b", True),
               k_only(day(2), "c", False), k_only(day(2), "d", False),
               k_only(day(3), "e", False)]
    (faded,) = estimate(answers, day(3), study_day)
    assert faded.faded
    assert faded.trend == "falling"
    assert faded.as_json()["trend"] == "falling"
    # weeks on, with no answer since, it stays falling (its evidence keeps halving)
    (later,) = estimate(answers, day(40), study_day)
    assert later.faded and later.trend == "falling"


@pytest.mark.parametrize("seed", range(20))
def test_faded_and_trend_agree_over_random_histories(seed: int) -> None:
    rng = random.Random(seed)
    answers = [k_only(day(rng.uniform(0, 30)), f"card-{rng.randrange(6)}", rng.random() < 0.4)
               for _ in range(rng.randrange(3, 25))]
    for now in (day(10), day(20), day(31), day(45)):
        for found in estimate(answers, now, study_day):
            assert not (found.faded and found.trend != "falling"), (found, now)
            assert not (found.held and found.faded)


def test_one_card_answered_right_again_and_again_does_not_fade_it() -> None:
    answers = [k_only(day(0), "a", True), k_only(day(1), "b", True)]
    answers += [k_only(day(d), "c", False) for d in (2, 3, 4, 5)]
    (est,) = estimate(answers, day(5), study_day)
    assert not est.faded and est.right_since == 1


def test_evidence_halves_every_half_life() -> None:
    answers = [k_only(day(0), "a", True)]
    (now,) = estimate(answers, day(0), study_day)
    (later,) = estimate(answers, day(HALF_LIFE_DAYS * 2), study_day)
    assert now.evidence == pytest.approx(1.0)
    assert later.evidence == pytest.approx(0.25)


def test_old_slips_alone_no_longer_make_it_held() -> None:
    answers = [k_only(day(0), "a", True), k_only(day(1), "b", True)]
    (est,) = estimate(answers, day(90), study_day)
    assert not est.held and est.slips == 0


def test_misconceptions_are_kept_apart_and_ordered_by_evidence() -> None:
    answers = [k_only(day(0), "a", True), k_only(day(1), "b", True),
               TrapAnswer(day(1), "c", "bits_as_bytes", True)]
    keys = [e.key for e in estimate(answers, day(1), study_day)]
    assert keys == ["k_only", "bits_as_bytes"]


def test_answers_after_now_are_not_evidence() -> None:
    assert estimate([k_only(day(5), "a", True)], day(1), study_day) == []


def test_todays_slips_count_cards() -> None:
    answers = [k_only(day(0), "a", True), k_only(day(0.1), "b", True),
               k_only(day(0.2), "b", True), k_only(day(-1), "z", True),
               TrapAnswer(day(0.3), "c", "bits_as_bytes", False)]
    (today,) = slips_between(answers, day(0), day(1))
    assert (today.key, today.slips, today.cards) == ("k_only", 3, 2)


def test_every_built_in_slip_belongs_to_a_named_misconception() -> None:
    slips = {key.removeprefix("grading.slip.") for key in strings("en")
             if key.startswith("grading.slip.")}
    claimed = {slip for m in MISCONCEPTIONS for slip in m.slips}
    assert slips == claimed
    for lang in ("en", "es"):
        for m in MISCONCEPTIONS:
            assert m.name(lang) != m.key and m.about(lang), (lang, m.key)


def test_several_slips_show_one_idea_and_an_authored_slip_is_its_own() -> None:
    assert misconception_of("kib").key == misconception_of("gib_wrong_way").key
    assert misconception_of("kib").name("en") == "decimal for binary sizes"
    own = misconception_of("forgot-the-ecc-overhead")
    assert own.key == "forgot-the-ecc-overhead" and own.name("es") == own.key
    assert own.about("en") == ""
