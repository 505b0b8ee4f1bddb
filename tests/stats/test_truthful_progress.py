"""Progress that tells the truth: one mastery, weakest cards by their record.

- Mastered is one thing everywhere (``stats``, ``stats --json``, the progress
  screen, the class report): a review card recalled now with probability 0.9
  or more whose stability is 21 days or more (Anki's "mature"). Three days of
  study with stabilities of 0.4–2 days is 0% mastery, not 79%.
- The weakest cards are those with the most lapses, then the lowest
  accuracy, then the highest difficulty: a card at 4/8 right ranks above ten
  cards at 100%, however long ago those were reviewed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from studyapp.classroom import class_report_for
from studyapp.progress import MASTERY_DEFINITION, learner_stats, mastery_age, retrievability
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store.progress import Answer, NewState, record_answer
from studyapp.store.weak_cards import weakness_key
from studyapp.study import StudyConfig, StudyService

NOW = datetime(2026, 3, 12, 15, 0, tzinfo=UTC)


@dataclass
class Clock:
    now: datetime = NOW

    def __call__(self) -> datetime:
        return self.now


def hand_deck(folder: Path, keys: list[str]) -> Path:
    body = ["deck: hand\ntitle: By hand\nlanguage: en\npost: h100\ncards:\n"]
    body += [f"  - id: {key}\n    type: truefalse\n    prompt: \"{key} holds.\"\n"
             f"    answer: true\n" for key in keys]
    path = folder / "hand.yaml"
    path.write_text("".join(body), encoding="utf-8")
    return path


def open_service(url: str, deck: Path) -> StudyService:
    return StudyService(StudyConfig(db_url=url, profile="ana", lang="en", clock=Clock(),
                                    extra_decks=(deck,)))


def answer(svc: StudyService, card: str, at: datetime, *, right: bool = True,
           stability: float = 10.0, lapses: int = 0, difficulty: float = 5.0) -> None:
    """One answer straight into the store, with the prompt the learner saw."""
    record_answer(svc.store, svc.profile.id, Answer(
        deck_id="hand", card_key=card, post="h100", family=None,
        state=NewState(2, None, stability, difficulty, at + timedelta(days=stability), at, 1,
                       lapses, False),
        reviewed_at=at, rating=3 if right else 1, correct=right, duration_ms=4000, seed=1,
        params={}, prompt=f"How much HBM does card {card} ask about?", response="r",
        expected="e", lang="en"))


def test_a_card_at_half_right_ranks_above_ten_cards_at_full_marks(db_url: str,
                                                                   tmp_path: Path) -> None:
    keys = [f"sure-{n}" for n in range(10)] + ["half"]
    svc = open_service(db_url, hand_deck(tmp_path, keys))
    try:
        for n in range(10):  # right every time, but long ago: recall now is low
            for k in range(3):
                answer(svc, f"sure-{n}", NOW - timedelta(days=60 - k), stability=5)
        for k in range(8):  # 4 of 8 right, the last an hour ago: recall now is high
            answer(svc, "half", NOW - timedelta(days=8 - k, hours=1), right=k % 2 == 1,
                   stability=3, lapses=k // 2)
        stats = learner_stats(svc)
    finally:
        svc.close()
    assert stats.weakest[0].card_key == "half"
    assert (stats.weakest[0].reviews, stats.weakest[0].accuracy) == (8, 0.5)
    # recall now would have put the ten first: every one of them is lower than the half card's
    settings = SchedulerSettings()
    assert retrievability(settings, 5, 58) < stats.weakest[0].retrievability
    # a clean record is not weak, whatever the recall today
    assert [c.card_key for c in stats.weakest] == ["half"]
    # shown by the prompt it last showed, not by its id
    assert stats.weakest[0].prompt == "How much HBM does card half ask about?"
    assert stats.as_json()["weakest"][0]["prompt"] == stats.weakest[0].prompt


def test_weakness_orders_lapses_then_accuracy_then_difficulty() -> None:
    keys = {
        "two lapses, 90%": weakness_key(2, 20, 18, 4.0),
        "one lapse, 50%": weakness_key(1, 8, 4, 4.0),
        "no lapse, 50%, hard": weakness_key(0, 8, 4, 8.0),
        "no lapse, 50%, easy": weakness_key(0, 8, 4, 3.0),
        "no lapse, 75%": weakness_key(0, 8, 6, 9.0),
    }
    ordered = sorted(keys, key=lambda name: keys[name] or ())
    assert ordered == list(keys)
    assert weakness_key(0, 10, 10, 9.0) is None  # every answer right, never lapsed


def test_three_days_of_short_memories_is_no_mastery(db_url: str, tmp_path: Path) -> None:
    """Recall is 0.9 or more for every card (answered today), but stabilities of
    0.4–2 days are not mastery; a 30-day memory answered yesterday is."""
    keys = [f"short-{n}" for n in range(8)] + ["lasting"]
    svc = open_service(db_url, hand_deck(tmp_path, keys))
    try:
        for n in range(8):
            for day in (2, 1, 0):
                answer(svc, f"short-{n}", NOW - timedelta(days=day, hours=2),
                       stability=0.4 + 0.2 * n)
        answer(svc, "lasting", NOW - timedelta(days=1), stability=30)
        stats = learner_stats(svc)
        report, _ = class_report_for(svc)
    finally:
        svc.close()
    settings = SchedulerSettings()
    assert all(retrievability(settings, 0.4 + 0.2 * n, 0) >= 0.9 for n in range(8))
    h100 = next(p for p in stats.posts if p.slug == "h100")
    hand = next(d for d in stats.decks if d.deck_id == "hand")
    assert h100.mastered == hand.mastered == 1  # "lasting" only
    # one definition: the class report counts the same cards for this student
    ana = next(s for s in report.students if s.name == "ana")
    assert dict(ana.mastery)["h100"] == h100.mastery
    data = stats.as_json()
    assert data["posts"]["h100"]["mastered"] == 1
    assert data["mastery_definition"] == {"recall_at_least": 0.9,
                                          "stability_days_at_least": 21.0}
    assert MASTERY_DEFINITION["recall_at_least"] == 0.9 and mastery_age(settings) == 1.0
    assert data["families"]["authored"] == {"seen": 9, "mastered": 1,
                                            "mastery": round(1 / 9, 4)}


def test_stats_json_states_the_definition_and_families(tmp_path: Path) -> None:
    from studyapp.cli import main

    env = {"STUDYAPP_HOME": str(tmp_path / "home")}
    result = CliRunner().invoke(main, ["--lang", "en", "stats", "--json"], env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["mastery_definition"]["stability_days_at_least"] == 21.0
    assert data["families"] == {}
    text = CliRunner().invoke(main, ["--lang", "es", "stats"], env=env)
    assert text.exit_code == 0 and "estabilidad de 21 días o más" in text.output
