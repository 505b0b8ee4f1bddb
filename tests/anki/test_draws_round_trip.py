"""A generated card's draws to Anki and back: one card, every draw's answers, one memory.

A generated card is one card here (each showing draws new numbers) and one note
of draws in Anki (``export --instances 5``: five cards). Studied here over
weeks, exported with its history, opened in Anki and brought back, it must be
the card it was: the same stability and difficulty (within 1%), its answers
counted once. Answers given in Anki to the draws join its history, and its
memory is worked out as studyapp works out one card's: all its answers in time
order.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.questions.model import Kind, Question
from studyapp.srs import Rating
from studyapp.study import SessionKind, StudyConfig, StudyService

pytest.importorskip("anki.collection")

DECK = """\
deck: trip
title: Trip
language: en
post: h200
cards:
  - id: gen-fits
    type: generated
    generator: fits-on-gpu
"""
RATINGS = [Rating.GOOD, Rating.AGAIN, Rating.GOOD, Rating.GOOD, Rating.HARD, Rating.GOOD,
           Rating.GOOD, Rating.AGAIN, Rating.GOOD, Rating.GOOD, Rating.EASY, Rating.GOOD]


def reply(question: Question, right: bool) -> str:
    """A right or a wrong answer to a drawn question of fits-on-gpu."""
    if question.kind is Kind.TRUEFALSE:
        return "y" if bool(question.answer) is right else "n"
    if question.kind is Kind.CHOICE:
        index = question.choices.index(str(question.answer))
        return str((index if right else (index + 1) % len(question.choices)) + 1)
    value = float(question.answer)  # type: ignore[arg-type]
    return repr(value if right else value * 3 + 1)


def run(tmp_path: Path, *args: str) -> tuple[int, str]:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])
    return result.exit_code, result.output


def card(tmp_path: Path) -> dict[str, Any]:
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT * FROM card_states WHERE card_key = 'gen-fits'").fetchone()
        state = dict(row)
        state["answers"] = db.execute("SELECT count() FROM review_logs WHERE card_id = ?",
                                      (row["id"],)).fetchone()[0]
    return state


def study_for_weeks(tmp_path: Path) -> int:
    """Answer the card whenever it is due, 60 days from 2026-03-02 at noon; answers given."""
    now = [datetime.combine(date(2026, 3, 2), time(12)).astimezone().astimezone(UTC)]
    service = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                       profile="default", lang="en", clock=lambda: now[0]))
    answered = 0
    try:
        for _ in range(60):
            session = service.start(SessionKind.DECK, deck="trip", seed=answered)
            for _ in range(3):  # learning steps come back within the day
                presented = session.next()
                if presented is None:
                    break
                rating = RATINGS[answered % len(RATINGS)]
                outcome = session.submit(reply(presented.question, rating is not Rating.AGAIN))
                assert outcome.recorded or outcome.needs_rating
                if outcome.needs_rating:
                    session.rate(rating)
                answered += 1
                now[0] += timedelta(minutes=11)
            now[0] += timedelta(days=1)
    finally:
        service.close()
    return answered


def through_anki(tmp_path: Path, package: Path, *, studied: int = 0,
                 new_draw: bool = False) -> tuple[Path, list[Any]]:
    """The package imported in Anki with its progress, ``studied`` cards answered Good there
    (with ``new_draw``, the second draw too, new in Anki: Again, then Good), exported again
    with its scheduling; and each draw card's (ord, reviews, memory)."""
    from anki.collection import Collection, ExportAnkiPackageOptions
    from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    col = Collection(str(tmp_path / "anki.anki2"))
    try:
        col.set_config("fsrs", True)
        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(package),
            options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True)))
        col.decks.select(col.decks.id("studyapp::Trip"))
        for _ in range(studied):
            shown = col.sched.getCard()
            if shown is None:
                break
            shown.start_timer()
            col.sched.answerCard(shown, 3)
        if new_draw:
            second = col.find_cards("card:2")[0]
            col.sched.unbury_cards([second])
            for ease in (1, 3):
                drawn = col.get_card(second)
                drawn.start_timer()
                col.sched.answerCard(drawn, ease)
        draws = []
        for card_id in col.find_cards(""):
            drawn = col.get_card(card_id)
            reviews = col.db.scalar("SELECT count() FROM revlog WHERE cid = ?", card_id)
            memory = drawn.memory_state
            draws.append((drawn.ord, reviews, (memory.stability, memory.difficulty)
                          if memory else None))
        back = tmp_path / "from-anki.apkg"
        col.export_anki_package(out_path=str(back), limit=None, options=ExportAnkiPackageOptions(
            legacy=True, with_scheduling=True, with_media=True, with_deck_configs=True))
    finally:
        col.close()
    return back, sorted(draws)


@pytest.fixture
def studied(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    deck = tmp_path / "trip.yaml"
    deck.write_text(DECK, encoding="utf-8")
    assert run(tmp_path, "deck", "add", str(deck))[0] == 0
    answered = study_for_weeks(tmp_path)
    before = card(tmp_path)
    assert before["answers"] == answered >= 8 and before["lapses"] >= 1
    package = tmp_path / "trip.apkg"
    code, output = run(tmp_path, "export", "--format", "apkg", "--with-history", "-o",
                       str(package), "--deck", "trip", "--instances", "5")
    assert code == 0, output
    return before, package


def test_five_draws_come_back_as_the_card_they_were(
        tmp_path: Path, studied: tuple[dict[str, Any], Path]) -> None:
    before, package = studied
    back, draws = through_anki(tmp_path, package)
    assert len(draws) == 5  # five draws, five cards in Anki
    assert sum(reviews for _, reviews, _ in draws) == before["answers"]
    first = draws[0]  # the first draw holds the card's history and memory
    assert first[1] == before["answers"]
    assert first[2] == pytest.approx((before["stability"], before["difficulty"]), rel=0.01)
    code, output = run(tmp_path, "import", str(back))
    assert code == 0, output
    after = card(tmp_path)
    assert after["answers"] == sum(reviews for _, reviews, _ in draws)
    assert after["stability"] == pytest.approx(before["stability"], rel=0.01)
    assert after["difficulty"] == pytest.approx(before["difficulty"], rel=0.01)
    assert (after["reps"], after["lapses"]) == (before["reps"], before["lapses"])


def test_a_draw_answered_in_anki_continues_the_card_and_no_draw_restarts_it(
        tmp_path: Path, studied: tuple[dict[str, Any], Path]) -> None:
    """Anki shows the first draw (due since spring) and buries its siblings: the answer
    joins the card's history, and the card's memory is the one Anki gives that draw."""
    before, package = studied
    back, draws = through_anki(tmp_path, package, studied=5)
    in_anki = sum(reviews for _, reviews, _ in draws) - before["answers"]
    assert in_anki == 1  # the other draws are buried siblings today
    first = draws[0]
    assert first[2] is not None and first[2] != pytest.approx(
        (before["stability"], before["difficulty"]), rel=0.01)  # the answer moved it
    code, output = run(tmp_path, "import", str(back))
    assert code == 0, output
    after = card(tmp_path)
    assert after["answers"] == before["answers"] + in_anki
    assert after["reps"] == before["reps"] + in_anki
    assert after["stability"] == pytest.approx(first[2][0], rel=0.01)
    assert after["difficulty"] == pytest.approx(first[2][1], rel=0.01)


def test_a_new_draw_answered_in_anki_does_not_start_the_card_over(
        tmp_path: Path, studied: tuple[dict[str, Any], Path]) -> None:
    """The second draw is new in Anki: its answers are logged as learning. Here they are
    answers to a card learnt in spring, so working its memory out again from its log (as
    ``optimize`` does) gives the state the import gave, not a card learnt today."""
    from studyapp.tuning import recompute_memory_states

    before, package = studied
    back, draws = through_anki(tmp_path, package, studied=1, new_draw=True)
    assert [reviews for _, reviews, _ in draws][:2] == [before["answers"] + 1, 2]
    code, output = run(tmp_path, "import", str(back))
    assert code == 0, output
    after = card(tmp_path)
    assert after["answers"] == before["answers"] + 3
    service = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                       profile="default", lang="en"))
    try:
        recompute_memory_states(service)
    finally:
        service.close()
    again = card(tmp_path)
    assert again["stability"] == pytest.approx(after["stability"], rel=0.01)
    assert again["difficulty"] == pytest.approx(after["difficulty"], rel=0.01)
    assert again["stability"] > 1  # a card learnt today would hold a day or less
