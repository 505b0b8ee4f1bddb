"""A misconception the learner holds brings the families that set its trap forward: first
among the new cards of a session and in practice, the rest in their usual order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from studyapp.progress import misconceptions
from studyapp.questions.diagnosis import slip_candidates, target_of
from studyapp.questions.misconceptions import misconception
from studyapp.srs.queue import QueueItem
from studyapp.store.trap_answers import trap_rows
from studyapp.study import SessionKind, StudyConfig, StudyService
from studyapp.study.drill import trap_families

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
POST = "nvlink-infiniband"
MISCONCEPTION = "bits_as_bytes"
"""In this post's usual order a family without the trap comes before some with it."""


def _service(tmp_path: Path, now: list[datetime]) -> StudyService:
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", clock=lambda: now[0]))


def _slip(service: StudyService, cards: int) -> None:
    """A recorded drill of ``cards`` cards, each answered with the misconception's slip."""
    slips = set(misconception(MISCONCEPTION).slips)  # type: ignore[union-attr]
    session = service.drill(MISCONCEPTION, limit=cards, seed=5, practice=False)
    while (presented := session.next()) is not None:
        question = presented.question
        ratio = next(c.ratio for c in slip_candidates(question)[0] if c.key in slips)
        outcome = session.submit(f"{target_of(question).value * ratio:.6g}")
        assert not outcome.needs_rating  # a wrong answer: rated Again by itself


def _new_families(items: list[QueueItem]) -> list[str]:
    return [i.template for i in items if i.stage.name == "NEW" and i.generated]


def test_a_held_misconception_brings_its_trap_families_first_among_new_cards(
        tmp_path: Path) -> None:
    traps = trap_families(MISCONCEPTION)
    now = [START]
    (tmp_path / "fresh").mkdir()
    fresh = _service(tmp_path / "fresh", now)
    before = _new_families(fresh.plan(SessionKind.POST, post=POST))
    fresh.close()

    now = [START]
    learner = _service(tmp_path, now)
    _slip(learner, cards=2)
    now[0] = START + timedelta(hours=2)
    assert learner.planner.targeted() == traps  # held after slips on two cards
    after = _new_families(learner.plan(SessionKind.POST, post=POST))
    learner.close()

    targeted = [f for f in after if f in traps]
    assert targeted, "the post still has new cards that set the trap"
    # the targeted families lead, the others keep their order behind them
    assert after[:len(targeted)] == targeted
    rest = [f for f in after if f not in traps and f in before]  # (drills open scenarios)
    assert rest == [f for f in before if f in rest]
    # without the misconception the order mixed them: a family without the trap came first
    flags = [f in traps for f in before]
    assert any(flags) and flags != sorted(flags, reverse=True)


def test_practice_puts_the_trap_families_first_among_new_cards(tmp_path: Path) -> None:
    now = [START]
    learner = _service(tmp_path, now)
    _slip(learner, cards=2)
    now[0] = START + timedelta(hours=2)
    items = learner.plan(SessionKind.PRACTICE, post=POST)
    learner.close()
    traps = trap_families(MISCONCEPTION)
    new = [i for i in items if i.stage.name == "NEW"]
    flags = [i.template in traps for i in new]
    assert any(flags) and flags == sorted(flags, reverse=True)  # every trap card first


def test_the_held_misconceptions_are_read_once_until_an_answer_is_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every plan sorts by the held misconceptions; their answers are read again only when
    an operation reports that the schedule changed (an answer recorded)."""
    reads: list[int] = []

    def counted(*args: object, **kwargs: object) -> object:
        reads.append(1)
        return trap_rows(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(misconceptions, "trap_rows", counted)
    now = [START]
    learner = _service(tmp_path, now)
    try:
        learner.plan(SessionKind.POST, post=POST)
        learner.plan(SessionKind.PRACTICE, post=POST)
        assert len(reads) == 1
        _slip(learner, cards=2)  # answers recorded: the schedule changed
        now[0] = START + timedelta(hours=2)
        assert learner.planner.targeted() == trap_families(MISCONCEPTION)
        learner.plan(SessionKind.POST, post=POST)
        assert len(reads) == 2
    finally:
        learner.close()
