"""Facts converge, methods vary: a card that tests a fact keeps its draw while it is
learnt or relearnt (after a lapse too, in a later sitting); one that tests a method draws
new numbers at every showing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from studyapp.questions.generators import FACT, METHOD, registered_families
from studyapp.questions.model import Kind
from studyapp.srs.queue import QueueItem
from studyapp.srs.scheduler import CardStage
from studyapp.study import SessionKind, StudyConfig, StudyService, StudySession
from studyapp.study.draws import kept_seed

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

DECK = """deck: fact-drill
title: Fact drill
language: en
post: hbm-kv-cache
cards:
  - {id: memory, type: generated, generator: memory-type}
  - {id: kv, type: generated, generator: kv-cache-per-token}
"""

FACTS = {"memory-type", "scale-up-fabric", "software-stack", "chip-ranking",
         "dense-vs-sparse", "low-precision-speedup", "perf-per-watt"}


@pytest.mark.parametrize("name", list(registered_families()))
def test_every_family_says_whether_it_tests_a_fact_or_a_method(name: str) -> None:
    family = registered_families()[name]
    assert family.teaches == (FACT if name in FACTS else METHOD)
    if family.teaches == FACT:  # a fact is picked, not computed
        assert family.kind is Kind.CHOICE


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def service(tmp_path: Path, clock: Clock) -> StudyService:
    deck = tmp_path / "drill.yaml"
    deck.write_text(DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", clock=clock,
                                    extra_decks=(deck,)))


def wrong_answer(session: StudySession) -> tuple[str, int | None]:
    """Answer the card on screen wrong; its id and the seed it was shown with."""
    presented = session.next()
    assert presented is not None
    question = presented.question
    if question.kind is Kind.CHOICE:
        other = next(c for c in question.choices if c != question.answer)
        response = str(question.choices.index(other) + 1)
    else:
        response = f"{float(question.answer) * 3:.6g}"  # type: ignore[arg-type]
    outcome = session.submit(response)
    assert outcome.verdict.correct is False and outcome.recorded
    return presented.card_key, question.seed


def shown(session: StudySession) -> tuple[str, int | None, str]:
    presented = session.next()
    assert presented is not None
    return presented.card_key, presented.question.seed, presented.question.prompt


def test_a_lapsed_fact_keeps_its_chip_and_a_method_draws_new_numbers(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    session = svc.start(SessionKind.DECK, deck="fact-drill", seed=7)
    first = dict([wrong_answer(session), wrong_answer(session)])
    assert set(first) == {"memory", "kv"}
    prompts = {}
    for _ in range(2):  # both come back in learning, this sitting
        clock.now += timedelta(minutes=2)
        key, seed, prompt = shown(session)
        prompts[key] = prompt
        assert (seed == first[key]) is (key == "memory"), key
        session.skip()
    svc.close()
    # a later sitting: the fact card, still relearning, shows the same chip again
    clock.now += timedelta(minutes=5)
    again = service(tmp_path, clock)
    later = again.start(SessionKind.DECK, deck="fact-drill", seed=99)
    seen = {}
    for _ in range(2):
        key, seed, prompt = shown(later)
        seen[key] = (seed, prompt)
        later.skip()
    assert seen["memory"] == (first["memory"], prompts["memory"])
    assert seen["kv"][0] != first["kv"]
    again.close()


def test_a_fact_out_of_learning_draws_again(tmp_path: Path) -> None:
    """Once learnt (review) or never seen (new), a fact card is asked about another chip:
    the fact is kept only while it is being learnt; a method card never keeps one."""
    from studyapp.decks import load_deck

    class Host:
        def last_seed(self, deck_id: str, card_key: str) -> int | None:
            return 42

    path = tmp_path / "drill.yaml"
    path.write_text(DECK, encoding="utf-8")
    deck = load_deck(path)
    memory, kv = deck.card("memory"), deck.card("kv")
    host: Any = Host()

    def item(stage: CardStage, card: str = "memory") -> QueueItem:
        return QueueItem("fact-drill", card, "hbm-kv-cache", "memory-type", stage)

    assert kept_seed(item(CardStage.RELEARNING), memory, {}, host) == 42
    assert kept_seed(item(CardStage.LEARNING), memory, {("fact-drill", "memory"): 5}, host) == 5
    assert kept_seed(item(CardStage.REVIEW), memory, {}, host) is None
    assert kept_seed(item(CardStage.NEW), memory, {}, host) is None
    assert kept_seed(item(CardStage.RELEARNING, "kv"), kv, {}, host) is None
