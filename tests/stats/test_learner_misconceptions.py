"""Misconceptions from stored answers over simulated study days: named, then fading."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from studyapp.cli import main
from studyapp.progress import learner_stats
from studyapp.questions.model import Question
from studyapp.study import SessionKind, StudyConfig, StudyService

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

FAMILIES = ("kv-cache-per-token", "kv-cache-total", "max-context-that-fits")
DECK = "deck: k-only\ntitle: K and V\nlanguage: en\npost: hbm-kv-cache\ncards:\n" + "".join(
    f"  - {{id: {family}-{n}, type: generated, generator: {family}}}\n"
    for n in range(3) for family in FAMILIES)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def k_only(question: Question) -> str | None:
    """The answer a learner who counts K only gives (None when the draw sets no such trap)."""
    slip = next((s for s in question.slips if s.key == "kv_pair"), None)
    if slip is None or not isinstance(slip.ratio, float):
        return None
    if any(s.key != "kv_pair" and s.ratio == slip.ratio for s in question.slips):
        return None  # a BF16 cache's "one byte a value" is ×0.5 too: grading names neither
    return f"{float(question.answer) * slip.ratio:.6g}"


def study_day(service: StudyService, *, slip: bool) -> int:
    """A sitting over the deck (one new card per family): K only the first time a card sets
    the trap, or all right; returns the slips made."""
    session = service.start(SessionKind.DECK, deck="k-only", seed=int(service.now().timestamp()))
    slipped: set[str] = set()
    while (presented := session.next()) is not None:
        q = presented.question
        wrong = k_only(q) if slip and presented.card_key not in slipped else None
        if wrong is not None:
            slipped.add(presented.card_key)
        outcome = session.submit(wrong if wrong is not None else f"{float(q.answer):.6g}")
        if outcome.needs_rating:
            session.rate()
    return len(slipped)


def setup(tmp_path: Path, clock: Clock) -> StudyService:
    deck = tmp_path / "k-only.yaml"
    deck.write_text(DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", clock=clock,
                                    extra_decks=(deck,)))


def test_k_only_is_named_then_fades_after_right_answers_over_two_days(tmp_path: Path) -> None:
    clock = Clock()
    service = setup(tmp_path, clock)
    assert study_day(service, slip=True) >= 2  # K only on the cards that set the trap
    first = {m.key: m for m in learner_stats(service).misconceptions}
    assert first["k_only"].held and first["k_only"].slip_cards >= 2
    clock.now = START + timedelta(days=3)  # it comes back: the slip again, days later
    study_day(service, slip=True)
    later = {m.key: m for m in learner_stats(service).misconceptions}["k_only"]
    assert later.held and later.evidence > first["k_only"].evidence and later.trend == "rising"
    for day in (8, 20):  # the trap answered right on the cards due, two study days
        clock.now = START + timedelta(days=day, hours=1)
        study_day(service, slip=False)
    faded = {m.key: m for m in learner_stats(service).misconceptions}["k_only"]
    assert faded.faded and not faded.held
    assert faded.evidence < later.evidence
    service.close()


def test_stats_names_it_in_text_and_json(tmp_path: Path) -> None:
    clock = Clock()
    service = setup(tmp_path, clock)
    study_day(service, slip=True)
    service.close()
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    data = json.loads(runner.invoke(main, ["--db", db, "--profile", "ana", "stats", "--json"]
                                    ).output)
    (k,) = [m for m in data["misconceptions"] if m["misconception"] == "k_only"]
    assert k["name"] == "counts K only" and k["held"] and k["slips"] >= 2
    assert {"evidence", "last_seen", "trend"} <= set(k)
    text = runner.invoke(main, ["--db", db, "--profile", "ana", "--lang", "es", "stats"]).output
    assert "cuenta solo K" in text
    assert "studyapp study --misconception k_only" in text
