"""A scenario's steps count for the one-step cards they exercise (``study.ladders``):
a right step is a Good review of that card (due later, never sooner), a wrong one brings
it back on the next study day, once a day at most, apart from the card's own answers."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from studyapp.questions.generators import get_family
from studyapp.questions.grading import Verdict
from studyapp.questions.model import Kind, Question
from studyapp.questions.scenario import PartVerdict
from studyapp.srs import Rating
from studyapp.srs.calendar import day_bounds
from studyapp.srs.scheduler import CardStage
from studyapp.study import SessionKind, StudyConfig, StudyService
from studyapp.study.ladders import Counted, counted_line, step_families
from studyapp.study.session import StudySession

DAY_ONE = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
# the clock is fixed in UTC and a study day is read in UTC: 09:00 and 11:00 are one day
# (in a zone six hours west, 09:00 UTC is before the 04:00 rollover and 11:00 after it)
pytestmark = pytest.mark.utc_days

DECK = """deck: ladder
title: Ladder
language: en
post: hgx
cards:
  - {id: serve, type: generated, generator: scenario-serving}
  - {id: weights, type: generated, generator: weights-size}
  - {id: kv, type: generated, generator: kv-cache-per-token}
"""


class Clock:
    def __init__(self) -> None:
        self.now = DAY_ONE

    def __call__(self) -> datetime:
        return self.now


def right(question: Question) -> str:
    if question.kind is Kind.CHOICE:
        return str(question.choices.index(str(question.answer)) + 1)
    return f"{question.answer:.6g}"


def service(tmp_path: Path, clock: Clock) -> StudyService:
    deck = tmp_path / "ladder.yaml"
    deck.write_text(DECK, encoding="utf-8")
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                   profile="ana", clock=clock, extra_decks=(deck,)))
    for other in svc.deck_list():  # this learner studies the ladder deck alone
        if other.deck_id != "ladder":
            svc.set_deck_enabled(other.deck_id, False)
    return svc


def learn_the_families(svc: StudyService) -> None:
    """Answer the weights and KV cards right (Easy: straight to review), the scenario left."""
    session = svc.start(SessionKind.DECK, deck="ladder", seed=1)
    done: set[str] = set()
    while done != {"weights", "kv"}:
        shown = session.next()
        assert shown is not None
        if shown.card_key == "serve":
            session.skip()
            continue
        outcome = session.submit(right(shown.question))
        assert outcome.verdict.correct
        session.rate(Rating.EASY)
        done.add(shown.card_key)


def scenario(session: StudySession) -> Question:
    while True:
        shown = session.next()
        assert shown is not None
        if shown.card_key == "serve":
            return shown.question
        session.skip()


def due(svc: StudyService, key: str) -> datetime:
    [when] = svc.due_times([("ladder", key)])
    return when


def logs(tmp_path: Path) -> list[tuple[str, int, int, int | None]]:
    with sqlite3.connect(tmp_path / "study.sqlite3") as connection:
        return list(connection.execute(
            "SELECT c.card_key, l.rating, l.implicit, l.state_before FROM review_logs l "
            "JOIN card_states c ON c.id = l.card_id ORDER BY l.id"))


def answers_counted(tmp_path: Path, key: str) -> int:
    """The card's answers as the class's item statistics count them (``card_stats``)."""
    with sqlite3.connect(tmp_path / "study.sqlite3") as connection:
        [(reviews,)] = list(connection.execute(
            "SELECT s.reviews FROM card_stats s JOIN card_states c ON c.id = s.card_id "
            "WHERE c.card_key = ?", (key,)))
    return int(reviews)


def test_a_right_step_reviews_its_card_and_a_wrong_one_brings_its_card_back(
        tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    learn_the_families(svc)
    clock.now = DAY_ONE + timedelta(days=5)  # both cards in review, not due yet
    kv_before, weights_before = due(svc, "kv"), due(svc, "weights")
    assert kv_before > clock.now and weights_before > clock.now + timedelta(days=1)

    session = svc.start(SessionKind.DECK, deck="ladder", seed=5)
    q = scenario(session)
    outcome = None
    for i, part in enumerate(q.parts):
        if i == 0:  # the weights step, three times too large
            outcome = session.submit(f"{float(part.question.answer) * 3:.6g}")  # type: ignore[arg-type]
        else:
            outcome = session.submit(right(part.question))
    assert outcome is not None and outcome.parts_left == 0
    # the KV step right: a Good review of the KV card now, due later than it was
    assert due(svc, "kv") > kv_before
    # the weights step wrong: the weights card comes back on the next study day
    _, tomorrow = day_bounds(clock.now, svc.settings.day_rollover_hour)
    assert due(svc, "weights") == tomorrow < weights_before
    assert outcome.counted.startswith("Counted for: ")
    assert "KV cache per token (next in" in outcome.counted
    assert "Size of a model's weights in a dtype (sooner: back in" in outcome.counted
    session.rate(Rating.GOOD)  # the scenario itself (Hard at most: one step wrong)

    implicit = [(key, rating) for key, rating, flag, before in logs(tmp_path)
                if flag and before is None]
    assert sorted(implicit) == [("kv", int(Rating.GOOD)), ("weights", int(Rating.AGAIN))]
    # the class's item statistics count each card's own answers only
    assert answers_counted(tmp_path, "kv") == answers_counted(tmp_path, "weights") == 1

    # the next study day: the weights card is due and asked; the KV card is not
    clock.now = tomorrow + timedelta(hours=1)
    due_now = {item.card_key for item in svc.plan(SessionKind.REVIEW)}
    assert "weights" in due_now and "kv" not in due_now
    svc.close()


def test_a_card_answered_today_is_not_counted_twice(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    learn_the_families(svc)
    clock.now = DAY_ONE + timedelta(days=5)
    session = svc.start(SessionKind.DECK, deck="ladder", seed=5)
    q = scenario(session)
    for part in q.parts:
        outcome = session.submit(right(part.question))
    session.rate(Rating.GOOD)
    kv_after, written = due(svc, "kv"), len(logs(tmp_path))
    assert "KV cache per token" in outcome.counted
    # the same steps again that day (another scenario): nothing more is written
    clock.now += timedelta(hours=2)
    again = svc.ladders.credit_steps("ladder", "serve", q, _all_right(q))
    assert {c.family for c in again} == {"weights-size", "kv-cache-per-token"}
    assert all(c.log_id is None for c in again)
    assert len(logs(tmp_path)) == written and due(svc, "kv") == kv_after
    svc.close()


def test_undo_takes_back_what_the_steps_counted(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    learn_the_families(svc)
    clock.now = DAY_ONE + timedelta(days=5)
    kv_before = due(svc, "kv")
    session = svc.start(SessionKind.DECK, deck="ladder", seed=5)
    q = scenario(session)
    for part in q.parts:
        session.submit(right(part.question))
    session.rate(Rating.GOOD)
    assert due(svc, "kv") > kv_before
    assert session.undo()
    assert due(svc, "kv") == kv_before
    assert not [row for row in logs(tmp_path) if row[2]]
    svc.close()


def test_practice_counts_for_nothing(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    learn_the_families(svc)
    clock.now = DAY_ONE + timedelta(days=5)
    kv_before = due(svc, "kv")
    session = svc.start(SessionKind.PRACTICE, deck="ladder", seed=5)
    q = scenario(session)
    for part in q.parts:
        outcome = session.submit(right(part.question))
    assert outcome.counted == "" and due(svc, "kv") == kv_before
    svc.close()


def test_a_step_right_from_a_wrong_earlier_figure_counts_as_right() -> None:
    q = get_family("scenario-serving").generate(2, "en", {})
    wrong = Verdict(False, "", "", "")
    verdicts = [PartVerdict(p.name, i, Verdict(True, "", "", ""))
                for i, p in enumerate(q.parts)]
    verdicts[2] = PartVerdict(q.parts[2].name, 2, wrong)  # total: wrong, no family
    verdicts[3] = PartVerdict(q.parts[3].name, 3, wrong, carried=True)  # gpus, from it
    assert step_families(q, verdicts) == {"weights-size": True, "kv-cache-per-token": True,
                                          "min-gpus": True}
    verdicts[1] = PartVerdict(q.parts[1].name, 1, wrong)
    assert step_families(q, verdicts)["kv-cache-per-token"] is False


def _all_right(q: Question) -> list[PartVerdict]:
    return [PartVerdict(p.name, i, Verdict(True, "", "", ""))
            for i, p in enumerate(q.parts)]


def test_a_scenario_waits_until_the_families_it_chains_are_seen(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)

    def new_cards(kind: SessionKind = SessionKind.DECK) -> list[str]:
        return [i.card_key for i in svc.plan(kind, deck="ladder")]

    # fresh: the families come first; the scenario waits (practice may still show it)
    assert "serve" not in new_cards() and {"weights", "kv"} <= set(new_cards())
    assert "serve" in new_cards(SessionKind.PRACTICE)
    session = svc.start(SessionKind.DECK, deck="ladder", seed=1)
    shown = session.next()
    assert shown is not None and shown.card_key != "serve"
    session.submit(right(shown.question))
    session.rate(Rating.GOOD)
    assert "serve" not in new_cards()  # one of the two seen: still waiting
    learn_the_families(svc)
    assert "serve" in new_cards()
    # min-gpus, which the scenario also chains, is in none of this learner's decks
    assert "min-gpus" in get_family("scenario-serving").prerequisites
    svc.close()


def test_home_counts_a_waiting_scenario_as_new_only_once_a_session_offers_it(
        tmp_path: Path) -> None:
    """The post's line on home and today's "new cards wait" say what a session asks: the
    scenario is not counted while it waits for the families it chains."""
    clock = Clock()
    svc = service(tmp_path, clock)

    def offered() -> list[str]:
        return [i.card_key for i in svc.plan(SessionKind.POST, post="hgx")
                if i.stage is CardStage.NEW]

    def home() -> tuple[int, int]:
        overview = svc.overview()
        return overview.new_waiting, {p.slug: p for p in overview.posts}["hgx"].offered

    assert sorted(offered()) == ["kv", "weights"]
    assert svc.overview().new_waiting == 2
    assert home() == (2, 2)
    learn_the_families(svc)
    assert offered() == ["serve"]
    assert home() == (1, 1)
    svc.close()


def test_a_counted_card_already_due_reads_due_now_not_in_0s() -> None:
    """A card due before the scenario ends is not moved (answered today, or already due
    when a step went wrong): the line says it is due, not "next in 0s"."""
    now = datetime(2026, 12, 9, 10, 0, tzinfo=UTC)
    counted = [Counted("kv-cache-per-token", "hbm", "kv", False, now - timedelta(days=2)),
               Counted("min-gpus", "hbm", "gpus", True, now + timedelta(days=10))]
    line = counted_line(counted, now, "en")
    assert line == ("Counted for: KV cache per token (due now); "
                    "Fewest GPUs that hold the weights and KV cache (next in 10d)")
    assert "(ya toca repasarla)" in counted_line(counted[:1], now, "es")
