"""The learner's stats on SQLite and PostgreSQL: a simulated month, exact figures
from hand-made histories, and the fixed keys of ``stats --json``."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.catalog.posts import POST_SLUGS
from studyapp.progress import (
    card_drilldown,
    day_boundaries,
    learner_stats,
    mastery_age,
    retrievability,
)
from studyapp.srs.calendar import study_day
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store.progress import Answer, NewState, record_answer
from studyapp.study import SessionKind, StudyConfig, StudyService

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass
class Clock:
    now: datetime = START

    def __call__(self) -> datetime:
        return self.now


def write_deck(folder: Path, cards: int = 40) -> Path:
    body = ["deck: stats-drill\ntitle: Stats drill\nlanguage: en\npost: intro\ncards:\n"]
    for n in range(cards):
        body.append(f"  - id: fact-{n:03d}\n    type: truefalse\n"
                    f"    prompt: \"Fact {n} holds.\"\n    answer: true\n"
                    f"    explanation: \"It does.\"\n")
    path = folder / "stats-drill.yaml"
    path.write_text("".join(body), encoding="utf-8")
    return path


def write_hand_deck(folder: Path, keys: tuple[str, ...]) -> Path:
    """The deck the hand-written answers of ``write`` belong to (post h100)."""
    body = ["deck: hand\ntitle: By hand\nlanguage: en\npost: h100\ncards:\n"]
    body += [f"  - id: {key}\n    type: truefalse\n    prompt: \"{key} holds.\"\n"
             f"    answer: true\n" for key in keys]
    path = folder / "hand.yaml"
    path.write_text("".join(body), encoding="utf-8")
    return path


def service(url: str, clock: Clock, deck: Path | None = None) -> StudyService:
    return StudyService(StudyConfig(db_url=url, profile="ana", lang="en", clock=clock,
                                    extra_decks=(deck,) if deck else ()))


def write(svc: StudyService, card: str, at: datetime, *, rating: int = 3, stage: int = 2,
          stage_before_stability: float | None = None, stability: float = 10.0,
          due: datetime | None = None, lapses: int = 0, leech: bool = False) -> None:
    """One answer straight into the store (``stage_before_stability`` sets young/mature)."""
    answer = Answer(
        deck_id="hand", card_key=card, post="h100", family=None,
        state=NewState(stage, None, stability, 5.0, due or at + timedelta(days=stability), at,
                       1, lapses, leech),
        reviewed_at=at, rating=rating, correct=rating > 1, duration_ms=5000, seed=3,
        params={"gpu": "h100-sxm"}, prompt="p", response="r", expected="e", lang="en")
    record_answer(svc.store, svc.profile.id, answer)


@pytest.mark.utc_days
def test_a_month_of_study_gives_sensible_stats(db_url: str, tmp_path: Path) -> None:
    clock = Clock()
    deck = write_deck(tmp_path)
    svc = service(db_url, clock, deck)
    rng = random.Random(4)
    answered = right = 0
    try:
        for _ in range(30):
            session = svc.start(SessionKind.DECK, deck="stats-drill", seed=1)
            while session.next() is not None:
                ok = rng.random() < 0.85
                outcome = session.submit("y" if ok else "n")
                if outcome.needs_rating:
                    session.rate()
                answered += 1
                right += ok
                clock.now += timedelta(seconds=20)
            clock.now = clock.now.replace(hour=9, minute=0) + timedelta(days=1)
        clock.now -= timedelta(hours=12)  # the evening of the 30th study day
        stats = learner_stats(svc)
    finally:
        svc.close()
    assert stats.reviews_total == answered and stats.correct_total == right
    assert stats.cards_seen == 40
    assert stats.streak_days == 30
    per_day = dict(stats.reviews_per_day)
    last30 = [per_day[study_day(clock.now) - timedelta(days=i)] for i in range(30)]
    assert all(n > 0 for n in last30) and sum(last30) == answered
    assert stats.retention_30d is not None and 0.6 < stats.retention_30d <= 1.0
    assert stats.retention_young is not None
    assert stats.desired_retention == 0.9
    intro = next(p for p in stats.posts if p.slug == "intro")
    assert intro.learning + intro.review >= 40 and intro.mastered > 0
    assert 0 < intro.mastery <= 1
    assert intro.accuracy is not None and abs(intro.accuracy - right / answered) < 1e-9
    assert 0 < sum(n for _, n in stats.due_forecast) <= 40  # some intervals pass 30 days
    assert len(stats.reviews_per_day) == 180 and len(stats.due_forecast) == 30
    data = stats.as_json()
    assert set(data["posts"]) == set(POST_SLUGS)
    json.dumps(data)


def test_retention_counts_first_review_of_review_cards_young_and_mature(
        db_url: str, tmp_path: Path) -> None:
    now = START + timedelta(days=60)
    clock = Clock(now)
    svc = service(db_url, clock)
    try:
        day = now - timedelta(days=3)
        write(svc, "a", day - timedelta(days=30), stage=2, stability=5)  # new card: not counted
        write(svc, "a", day, rating=3, stability=8)  # young pass (stability before 5)
        write(svc, "b", day - timedelta(days=50), stability=30)
        write(svc, "b", day, rating=1, stage=3, stability=4)  # mature fail
        write(svc, "b", day + timedelta(minutes=10), rating=3, stage=2, stability=4)
        write(svc, "c", day - timedelta(days=40), stability=25)
        write(svc, "c", day, rating=3, stability=60)  # mature pass
        write(svc, "d", now - timedelta(days=45), stability=3)
        write(svc, "d", now - timedelta(days=40), rating=1, stage=3)  # outside 30 days
        stats = learner_stats(svc)
    finally:
        svc.close()
    # the logs before "day" count as first answers (state_before 0): never in retention
    assert stats.retention_reviews == 3
    assert stats.retention_young == 1.0
    assert stats.retention_mature == 0.5
    assert stats.retention_30d == pytest.approx(2 / 3)


@pytest.mark.utc_days
def test_calendar_streak_forecast_mastery_and_leeches(db_url: str, tmp_path: Path) -> None:
    now = START + timedelta(days=10, hours=3)
    clock = Clock(now)
    svc = service(db_url, clock, write_hand_deck(tmp_path, ("x", "y", "z", "strong", "weak")))
    settings = SchedulerSettings()
    try:
        today = study_day(now)
        bounds = day_boundaries(today - timedelta(days=4), 6, settings.day_rollover_hour)
        # one answer just before and one just after the 04:00 rollover of yesterday
        write(svc, "x", bounds[3] - timedelta(seconds=1), stability=1)
        write(svc, "y", bounds[3] + timedelta(seconds=1), stability=1)
        write(svc, "z", bounds[2] + timedelta(hours=2), stability=1)
        # a strong card, reviewed a day ago: recall > 0.9, mastered
        write(svc, "strong", now - timedelta(days=1), stability=40,
              due=now + timedelta(days=39))
        # a weak card reviewed long ago: recall < 0.9, not mastered, overdue
        write(svc, "weak", now - timedelta(days=30), stability=5,
              due=now - timedelta(days=25), lapses=9, leech=True)
        # as strong, but of a card since removed from the deck: mastered, counted nowhere
        write(svc, "removed", now - timedelta(days=1), stability=40,
              due=now + timedelta(days=39))
        stats = learner_stats(svc)
        detail = card_drilldown(svc, "hand", "weak")
    finally:
        svc.close()
    per_day = dict(stats.reviews_per_day)
    assert per_day[today - timedelta(days=1)] == 3  # "y", "strong" and "removed"
    assert per_day[today - timedelta(days=2)] == 2  # 03:59:59 belongs to the day before
    assert per_day[today] == 0
    assert stats.streak_days == 2  # nothing yet today; yesterday and the day before
    h100 = next(p for p in stats.posts if p.slug == "h100")
    # "strong" only: "y", one study day old at stability 1, is recalled at 0.9 (time since
    # a review counts in study days, as the scheduler and Anki count it) but a memory of a
    # day is not mastered: mastery also asks for a stability of 21 days
    assert h100.mastered == 1
    assert h100.total == h100.new + h100.learning + h100.review  # none suspended
    hand = next(d for d in stats.decks if d.deck_id == "hand")
    assert (hand.total, hand.mastered) == (5, 1)
    forecast = dict(stats.due_forecast)
    assert forecast[today] >= 1  # overdue cards are due today
    assert forecast[today + timedelta(days=29)] == 0
    assert [c.card_key for c in stats.leeches] == ["weak"]
    assert stats.weakest[0].card_key == "weak"
    assert stats.weakest[0].retrievability == pytest.approx(
        retrievability(settings, 5, 30), rel=1e-6)
    assert stats.weakest[0].retrievability < 0.9
    assert detail is not None and detail.reviews == 1
    assert detail.logs[0].params == {"gpu": "h100-sxm"}
    assert mastery_age(settings) == pytest.approx(1.0)


def test_stats_json_has_the_fixed_keys_for_every_post(tmp_path: Path) -> None:
    runner = CliRunner()
    from studyapp.cli import main

    env = {"STUDYAPP_HOME": str(tmp_path / "home")}
    result = runner.invoke(main, ["--lang", "en", "stats", "--json"], env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    for key in ("profile", "reviews_total", "cards_seen", "due_today", "retention_30d",
                "posts"):
        assert key in data
    assert data["retention_30d"] is None and data["reviews_total"] == 0
    assert list(data["posts"]) == list(POST_SLUGS)
    for post in data["posts"].values():
        assert {"new", "learning", "review", "due", "mastery"} <= set(post)
    text = runner.invoke(main, ["--lang", "es", "stats"], env=env)
    assert text.exit_code == 0 and "Retención real" in text.output
    missing = runner.invoke(main, ["stats", "--card", "nope/none"], env=env)
    assert missing.exit_code == 1 and "no answers stored" in missing.output
