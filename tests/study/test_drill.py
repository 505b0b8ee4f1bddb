"""A drill on one misconception: only the cards that set its trap, practice by default."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.questions.diagnosis import slip_candidates, target_of
from studyapp.questions.generators import get_family
from studyapp.questions.grading import grade
from studyapp.questions.misconceptions import misconception
from studyapp.srs.queue import QueueItem
from studyapp.study import SessionKind, StudyConfig, StudyService, planning
from studyapp.study.curriculum import CurriculumCard
from studyapp.study.drill import DRILL_LIMIT, UnknownMisconception, drill_queue, trap_families
from studyapp.study.queue_items import queue_item

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def service(tmp_path: Path) -> StudyService:
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", clock=lambda: NOW))


@pytest.mark.parametrize("key", ["k_only", "bits_as_bytes", "ring_factor", "dtype_size"])
def test_trap_families_declare_a_slip_of_the_misconception(key: str) -> None:
    families = trap_families(key)
    assert families
    slips = set(misconception(key).slips)  # type: ignore[union-attr]
    for name in families:
        assert {s.key for s in get_family(name).slips} & slips, name


def test_the_drill_asks_only_cards_that_set_the_trap_and_records_nothing(
        tmp_path: Path) -> None:
    svc = service(tmp_path)
    families = trap_families("k_only")
    session = svc.drill("k_only", seed=3)
    assert session.practice
    seen = []
    while (presented := session.next()) is not None:
        seen.append(presented.question.family)
        assert any(s.key == "kv_pair" for s in presented.question.slips), presented.question
        session.submit("1")
    assert seen and set(seen) <= families
    assert len(seen) == len(set(seen))  # one card per family
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM review_logs").fetchone()[0] == 0
    svc.close()


def test_an_unknown_misconception_is_named(tmp_path: Path) -> None:
    with pytest.raises(UnknownMisconception):
        service(tmp_path).drill("counts-v-only")
    result = CliRunner().invoke(main, ["study", "--plain", "--misconception", "counts-v-only"])
    assert result.exit_code == 2
    assert "unknown misconception 'counts-v-only'; one of: k_only" in result.output


@pytest.mark.parametrize("seed", [1, 5, 9])
def test_a_k_only_answer_in_the_drill_is_named_as_k_only(tmp_path: Path, seed: int) -> None:
    """On a BF16 cache half the bytes is also "values counted as one byte each", so the
    grader names neither; a K-only drill draws numbers where the slip it drills is named."""
    svc = service(tmp_path)
    session = svc.drill("k_only", seed=seed)
    named = []
    while (presented := session.next()) is not None:
        question = presented.question
        [k_only] = [c.ratio for c in slip_candidates(question)[0] if c.key == "kv_pair"]
        answer = f"{target_of(question).value * k_only:.6g}"  # K counted, V left out
        named.append(grade(question, answer).slips)
        session.submit(answer)
    assert named and all(slips[:1] == ("kv_pair",) for slips in named), named
    svc.close()


@pytest.mark.parametrize("key", ["k_only", "bits_as_bytes"])
def test_the_drill_makes_queue_items_only_for_the_trap_families(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    """The drill narrows the cards before it ranks them, and asks what narrowing the
    whole practice queue would have asked."""
    svc = service(tmp_path)
    families = trap_families(key)
    whole = drill_queue(svc.session_queue(SessionKind.PRACTICE), families, DRILL_LIMIT)
    made: list[str] = []

    def counted(card: CurriculumCard, *args: Any) -> QueueItem:
        made.append(card.template)
        return queue_item(card, *args)

    monkeypatch.setattr(planning, "queue_item", counted)
    session = svc.drill(key)
    assert made and set(made) <= families
    assert len(made) == sum(c.template in families for c in svc.index.active_cards)
    assert [i.key for i in session.queue.main] == [i.key for i in whole.main]
    svc.close()
