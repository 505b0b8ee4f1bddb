"""The study service end to end: sessions, limits, undo, leeches, profiles.

The clock is driven by the test, so a week of study runs in a second.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest

from studyapp.questions.model import Kind, Question
from studyapp.srs import Rating
from studyapp.study import SessionKind, StudyConfig, StudyService

START_DAY = date(2026, 3, 2)


def local_noon(day: date = START_DAY) -> datetime:
    """Noon of ``day`` in the test's local zone, in UTC: a study day's middle.

    The study day rolls over at 04:00 local time and the suite's zone follows
    the hour it runs at, so a clock fixed in UTC could start just before the
    rollover; noon keeps a day's flow inside one study day at any hour.
    """
    return datetime.combine(day, time(12)).astimezone().astimezone(UTC)


@dataclass
class Clock:
    now: datetime = field(default_factory=local_noon)
    log: list[datetime] = field(default_factory=list)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def right_answer(question: Question) -> str:
    if question.kind is Kind.SCENARIO:  # every step, one a line
        return "\n".join(right_answer(part.question) for part in question.parts)
    if question.kind is Kind.CHOICE:
        return str(question.choices.index(str(question.answer)) + 1)
    if question.kind is Kind.TRUEFALSE:
        return "y" if question.answer else "n"
    if question.kind is Kind.NUMERIC:
        return repr(float(question.answer))  # type: ignore[arg-type]
    return str(question.answer)


def wrong_answer(question: Question) -> str:
    if question.kind is Kind.SCENARIO:  # the first step wrong
        first, *rest = question.parts
        return "\n".join([wrong_answer(first.question),
                          *(right_answer(part.question) for part in rest)])
    if question.kind is Kind.CHOICE:
        return str((question.choices.index(str(question.answer)) + 1) % len(question.choices)
                   + 1)
    if question.kind is Kind.TRUEFALSE:
        return "n" if question.answer else "y"
    if question.kind is Kind.NUMERIC:
        return repr(float(question.answer) * 3 + 1)  # type: ignore[arg-type]
    return "definitely not this"


def service(tmp_path: Path, clock: Clock, profile: str = "ana") -> StudyService:
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile=profile, lang="en", clock=clock))


def answer_all(svc: StudyService, kind: SessionKind = SessionKind.DUE, *,
               right: bool = True, limit: int | None = None, **kw: str) -> int:
    session = svc.start(kind, limit=limit, seed=1, **kw)  # type: ignore[arg-type]
    while (presented := session.next()) is not None:
        q = presented.question
        outcome = session.submit(right_answer(q) if right else wrong_answer(q))
        assert outcome.verdict.correct is right, (q.prompt, q.answer, outcome.verdict)
        if outcome.needs_rating:
            session.rate(Rating.GOOD)
    return session.answered


def test_a_right_answer_waits_for_a_rating_and_shows_intervals(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    session = svc.start(SessionKind.POST, post="h200", seed=3)
    presented = session.next()
    assert presented is not None and presented.question.post == "h200"
    outcome = session.submit(right_answer(presented.question))
    assert outcome.needs_rating and not outcome.recorded
    assert set(outcome.intervals) == set(Rating)
    from studyapp.store.progress import review_count

    assert review_count(svc.store, svc.profile.id) == 0
    session.rate(Rating.EASY)
    assert review_count(svc.store, svc.profile.id) == 1


def test_a_wrong_answer_is_recorded_as_again_at_once(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    session = svc.start(SessionKind.POST, post="h100", seed=3)
    presented = session.next()
    assert presented is not None
    outcome = session.submit(wrong_answer(presented.question))
    assert outcome.recorded and not outcome.needs_rating
    from studyapp.store.progress import card_state

    row = card_state(svc.store, svc.profile.id, presented.deck_id, presented.card_key)
    assert row is not None and row.reps == 1


def test_an_answer_in_the_wrong_unit_is_not_recorded(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    for slug in ("h200", "hbm-kv-cache", "h100", "intro"):
        session = svc.start(SessionKind.PRACTICE, post=slug, seed=5)
        while (presented := session.next()) is not None:
            q = presented.question
            if q.kind is Kind.NUMERIC and q.unit in ("GB", "GiB", "TB", "MB", "KB", "B"):
                outcome = session.submit("3 ms")
                assert outcome.verdict.correct is None and not outcome.recorded
                return
            if session.submit(right_answer(q)).needs_rating:
                session.rate()
    pytest.skip("no numeric size question in these decks yet")


def test_undo_restores_the_card_and_removes_the_log(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    from studyapp.store.progress import card_state, review_count

    session = svc.start(SessionKind.POST, post="h200", seed=1)
    first = session.next()
    assert first is not None
    session.submit(right_answer(first.question))
    session.rate(Rating.GOOD)
    second = session.next()
    assert second is not None
    session.submit(wrong_answer(second.question))
    row_before = card_state(svc.store, svc.profile.id, first.deck_id, first.card_key)
    assert review_count(svc.store, svc.profile.id) == 2
    assert session.undo()
    assert review_count(svc.store, svc.profile.id) == 1
    # the card answered second was new: undo removes its state entirely
    assert card_state(svc.store, svc.profile.id, second.deck_id, second.card_key) is None
    assert card_state(svc.store, svc.profile.id, first.deck_id, first.card_key) == row_before
    again = session.next()
    assert again is not None and again.card_key == second.card_key
    assert session.answered == 1


def test_practice_changes_nothing(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    session = svc.start(SessionKind.PRACTICE, post="tpu", seed=2)
    first = session.next()
    assert first is not None
    right = session.submit(right_answer(first.question))
    assert not right.needs_rating and not right.recorded  # nothing to schedule
    second = session.next()
    assert second is not None
    wrong = session.submit(wrong_answer(second.question))
    assert not wrong.recorded
    assert (session.answered, session.correct) == (2, 1)
    answered = answer_all(svc, SessionKind.PRACTICE, post="tpu", limit=5)
    assert answered == 5
    from studyapp.store.progress import card_states, review_count

    assert review_count(svc.store, svc.profile.id) == 0
    assert card_states(svc.store, svc.profile.id) == {}


def test_new_card_limit_and_a_week_of_study(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    svc.update_settings(new_per_day=10, reviews_per_day=30)
    from studyapp.store.progress import answered_between, card_states

    first = clock.now
    for day in range(7):
        answer_all(svc, SessionKind.DUE)
        start = first + timedelta(days=day, hours=-6)
        new, reviews = answered_between(svc.store, svc.profile.id, start,
                                        start + timedelta(days=1))
        assert new == 10, f"day {day}: {new} new cards"
        assert reviews <= 30
        overview = svc.overview()
        assert overview.new_left == 0
        clock.advance(days=1)
    rows = card_states(svc.store, svc.profile.id)
    # seventy answered; a written card put off a day (a drawn question stated its answer)
    # is stored new and unanswered
    assert sum(1 for r in rows.values() if r.reps) == 70
    assert all(r.stage == 0 for r in rows.values() if not r.reps)
    # after a week of right answers, the first day's cards are in review, due later
    assert sum(1 for r in rows.values() if r.stage == 2) >= 10
    assert all(r.due > r.last_review for r in rows.values() if r.last_review)  # type: ignore[operator]


def test_leech_after_eight_lapses_and_suspend(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    from studyapp.store.progress import card_state
    from studyapp.study import StudySession

    item = svc.plan(SessionKind.POST, post="h100")[0]
    key = item.key

    def one_card() -> StudySession:
        return StudySession(svc, SessionKind.DUE, [item], limit=1, seed=4, lang="en")

    session = one_card()
    p = session.next()
    assert p is not None
    session.submit(right_answer(p.question))
    session.rate(Rating.EASY)
    for _ in range(10):
        clock.advance(days=60)
        session = one_card()
        p = session.next()
        assert p is not None
        row = card_state(svc.store, svc.profile.id, *key)
        assert row is not None
        if row.stage == 2:  # in review: forget it
            session.submit(wrong_answer(p.question))
        else:  # relearning: get it right again
            session.submit(right_answer(p.question))
            session.rate(Rating.EASY)
    row = card_state(svc.store, svc.profile.id, *key)
    assert row is not None and row.lapses >= 5
    for _ in range(20):
        if row.lapses >= 8:
            break
        clock.advance(days=60)
        session = one_card()
        p = session.next()
        assert p is not None
        if row.stage == 2:
            session.submit(wrong_answer(p.question))
        else:
            session.submit(right_answer(p.question))
            session.rate(Rating.EASY)
        row = card_state(svc.store, svc.profile.id, *key)
        assert row is not None
    assert row.lapses >= 8 and row.leech
    assert svc.set_suspended(*key, True)
    clock.advance(days=400)
    assert key not in {i.key for i in svc.plan(SessionKind.POST, post="h100")}
    assert svc.set_suspended(*key, False)
    assert key in {i.key for i in svc.plan(SessionKind.POST, post="h100")}


def test_two_profiles_never_see_each_other(tmp_path: Path) -> None:
    clock = Clock()
    ana, ben = service(tmp_path, clock, "ana"), service(tmp_path, clock, "ben")
    answer_all(ana, SessionKind.POST, post="h100", limit=4)
    from studyapp.store.progress import card_states, review_count

    assert review_count(ana.store, ana.profile.id) == 4
    assert review_count(ben.store, ben.profile.id) == 0
    assert card_states(ben.store, ben.profile.id) == {}
    assert sum(p.new for p in ben.overview().posts) > sum(p.new for p in ana.overview().posts)


def test_progress_survives_reopening(tmp_path: Path) -> None:
    clock = Clock()
    answered = answer_all(service(tmp_path, clock), SessionKind.POST, post="h200", limit=3)
    reopened = service(tmp_path, clock)
    h200 = next(p for p in reopened.overview().posts if p.slug == "h200")
    assert answered == 3
    assert h200.learning + h200.review >= 1
    assert h200.new == h200.total - (h200.learning + h200.review)


def test_streak_counts_consecutive_study_days(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    assert svc.overview().streak == 0
    for _ in range(3):
        answer_all(svc, SessionKind.POST, post="h100", limit=2)
        clock.advance(days=1)
    # a new day without study yet: the streak still counts up to yesterday
    assert svc.overview().streak == 3
    clock.advance(days=1)  # a day missed
    answer_all(svc, SessionKind.POST, post="h100", limit=1)
    assert svc.overview().streak == 1


def test_a_deck_and_a_post_together_narrow_the_session(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    both = svc.plan(SessionKind.DECK, deck="numeric-drill", post="hgx")
    deck_only = svc.plan(SessionKind.DECK, deck="numeric-drill")
    assert both and {i.post for i in both} == {"hgx"}
    assert {i.deck_id for i in both} == {"numeric-drill"}
    assert len(both) < len(deck_only)


def test_a_deck_file_named_twice_is_one_deck(tmp_path: Path) -> None:
    """Opening the same deck file again (a session, then the card browser) replaces the
    loaded deck of its id: two copies would list every card twice."""
    deck = tmp_path / "drill.yaml"
    deck.write_text("deck: drill\ntitle: Drill\nlanguage: en\npost: intro\ncards:\n"
                    "  - id: one\n    type: truefalse\n    prompt: HBM is stacked DRAM.\n"
                    "    answer: true\n", encoding="utf-8")
    svc = service(tmp_path, Clock())
    first = svc.find_deck(str(deck))
    again = svc.find_deck(str(deck))
    assert first.id == again.id == "drill"
    assert [d.id for d in svc.decks].count("drill") == 1
    assert [c.spec.id for c in svc._cards if c.deck.id == "drill"] == ["one"]
