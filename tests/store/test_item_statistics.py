"""Moodle's item statistics against a class computed by hand, the flags they raise (a
mis-keyed card is "check the key", not "reteach"), and carried-forward steps counted apart.

Formulas: https://docs.moodle.org/dev/Quiz_statistics_calculations (facility index,
standard deviation with S - 1, discrimination coefficient against the rest of the test,
discriminative efficiency C / C_max); the discrimination index is p(upper) - p(lower)
between the top and bottom 27% of the class (Lopez 1998, https://www.rasch.org/rmt/rmt121r.htm).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from store_answers import answer

from studyapp.classroom import class_report
from studyapp.classroom.items import CARRIED
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=2)

# First attempts (1 right, 0 wrong) of five students on three cards:
#        A  B  C   overall
#   s1   1  1  1   3/3
#   s2   1  1  0   2/3
#   s3   1  0  1   2/3
#   s4   0  1  0   1/3
#   s5   0  0  0   0/3
# 27% of 5 is 1.35, so one student a group: upper {s1}, lower {s5}.
# Rest of the test X (share right on the other two cards):
#   A: x = 1 1 1 0 0,  X = 1 .5 .5 .5 0
#      F = 0.6; SD = sqrt(((3 x .4²) + (2 x .6²)) / 4) = sqrt(0.3) = 0.5477
#      D = 1 - 0 = 1
#      C(x, X) = (.4 x .5 + 0 + 0 + 0 + (-.6)(-.5)) / 4 = 0.125; V(x) = 0.3; V(X) = 0.125
#      r = 0.125 / sqrt(0.3 x 0.125) = 0.6455
#      C_max (both sorted: x 0 0 1 1 1, X 0 .5 .5 .5 1) = (.3 + 0 + 0 + 0 + .2) / 4 = 0.125
#      DE = 0.125 / 0.125 = 1
#   C: x = 1 0 1 0 0,  X = 1 1 .5 .5 0
#      F = 0.4; SD = sqrt(0.3) = 0.5477; D = 1 - 0 = 1
#      C = (.24 - .16 - .06 + .04 + .24) / 4 = 0.075; V(X) = 0.7 / 4 = 0.175
#      r = 0.075 / sqrt(0.3 x 0.175) = 0.3273
#      C_max (x 0 0 0 1 1, X 0 .5 .5 1 1) = (.24 + .04 + .04 + .24 + .24) / 4 = 0.2
#      DE = 0.075 / 0.2 = 0.375
#      F below 0.5 with D at or above 0.2: "reteach"
# s5 then answers A again, right: on all attempts s5's mark on A is 1/2, so A's
# all-attempts facility is (1 + 1 + 1 + 0 + .5) / 5 = 0.7.
TABLE = {"s1": (1, 1, 1), "s2": (1, 1, 0), "s3": (1, 0, 1), "s4": (0, 1, 0), "s5": (0, 0, 0)}


def _answer(store: object, pid: int, card: str, right: bool, at: datetime,
            **changes: object) -> None:
    """One answer; the card is learning after it, so only its first answer is a first
    attempt (answered while new)."""
    base = answer("hand", card, at, post="hbm-kv-cache", stage=1, reps=0)
    changes = {"params": {} if right else {"answer_slips": []}, **changes}
    record_answer(store, pid, replace(  # type: ignore[arg-type]
        base, correct=right, rating=3 if right else 1, **changes))


def _report(url: str):  # type: ignore[no-untyped-def]
    store = open_store(url)
    try:
        return class_report(store, {"hbm-kv-cache": 3}, NOW)
    finally:
        store.close()


def test_moodle_statistics_match_a_class_computed_by_hand(db_url: str) -> None:
    store = open_store(db_url)
    try:
        for n, (name, marks) in enumerate(TABLE.items()):
            pid = ensure_profile(store, name, {}, T0).id
            for card, right in zip("ABC", marks, strict=True):
                _answer(store, pid, card, bool(right), T0 + timedelta(minutes=n))
            if name == "s5":
                _answer(store, pid, "A", True, T0 + timedelta(hours=1))
    finally:
        store.close()
    items = {i.card_key: i for i in _report(db_url).items}
    a, c = items["A"], items["C"]
    assert a.first is not None and c.first is not None and a.every is not None
    assert a.first.students == 5
    assert a.first.facility == pytest.approx(0.6)
    assert a.first.sd == pytest.approx(0.3 ** 0.5)
    assert a.first.discrimination_index == pytest.approx(1.0)
    assert a.first.discrimination_r == pytest.approx(0.125 / (0.3 * 0.125) ** 0.5)
    assert a.first.discriminative_efficiency == pytest.approx(1.0)
    assert c.first.facility == pytest.approx(0.4)
    assert c.first.sd == pytest.approx(0.3 ** 0.5)
    assert c.first.discrimination_index == pytest.approx(1.0)
    assert c.first.discrimination_r == pytest.approx(0.075 / (0.3 * 0.175) ** 0.5)
    assert c.first.discriminative_efficiency == pytest.approx(0.375)
    assert a.every.facility == pytest.approx(0.7)
    assert c.flags == ("reteach",) and a.flags == ()


def test_a_mis_keyed_card_is_check_the_key_not_reteach(tmp_path: Path) -> None:
    """Ten students; four sound cards the stronger get right more often, and a true/false
    card keyed the wrong way round: only the three weakest are marked right on it."""
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    store = open_store(url)
    try:
        for s in range(10):
            pid = ensure_profile(store, f"s{s}", {}, T0).id
            at = T0 + timedelta(minutes=s)
            for j in range(4):
                _answer(store, pid, f"sound-{j}", s >= 2 * j + 1, at)
            _answer(store, pid, "tf-key", s < 3, at, response="false" if s >= 3 else "true")
    finally:
        store.close()
    report = _report(url)
    key = next(i for i in report.items if i.card_key == "tf-key")
    assert key.first is not None and key.first.facility == pytest.approx(0.3)
    assert key.first.discrimination_index is not None and key.first.discrimination_index < 0
    assert key.flags == ("check the key",)
    assert [i.card_key for i in report.check_key] == ["tf-key"]
    assert "tf-key" not in {i.card_key for i in report.reteach}
    # every distinct answer is listed, the right ones too
    assert {(r.answer, r.verdict, r.count) for r in key.responses} >= {("false", "wrong", 7)}


def test_carried_forward_steps_are_right_from_carried_and_name_no_slip(tmp_path: Path) -> None:
    """The study loop keeps a carried step's own slips in its record; the report counts
    the step as right from the student's earlier answer, apart, blaming no slip."""
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    store = open_store(url)
    try:
        for s in range(3):
            pid = ensure_profile(store, f"s{s}", {}, T0).id
            steps = [{"name": "weights", "given": "810 GB", "correct": False, "carried": False,
                      "slips": ["bits"]},
                     {"name": "total", "given": "900 GB", "correct": False, "carried": True,
                      "slips": ["write: bits"]},
                     {"name": "fits", "given": "no", "correct": True, "carried": False,
                      "slips": []}]
            _answer(store, pid, "serve", True, T0 + timedelta(minutes=s),
                    response="810 / 900 / no", params={"parts": steps})
    finally:
        store.close()
    serve = next(i for i in _report(url).items if i.card_key == "serve")
    assert serve.carried == 3
    verdicts = {(r.answer, r.verdict, r.slip) for r in serve.responses}
    assert ("total: 900 GB", CARRIED, "") in verdicts
    assert ("weights: 810 GB", "wrong", "weights: bits") in verdicts
    assert all("write: bits" not in r.slip for r in serve.responses)


def test_a_card_against_the_rest_of_the_deck_is_check_the_key() -> None:
    """On a short deck the card itself moves a student's total: the strong students who
    failed a mis-keyed card can leave the top 27%, so D stays positive while the card's
    marks go against the rest of the deck (the figures of a 12-student hand run)."""
    from studyapp.classroom.item_stats import CHECK_KEY, RETEACH, ItemStats, flags

    first = ItemStats(12, 5 / 12, 0.5149, 0.6667, -0.3714, -0.4483)
    assert flags(first, overrides=0) == (CHECK_KEY,)
    assert flags(ItemStats(12, 5 / 12, 0.5149, 0.6667, 0.205, 0.4545), overrides=0) == (RETEACH,)
