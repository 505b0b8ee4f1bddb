"""The mock exam: a timed paper across posts, feedback only at the end, the schedule untouched."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from studyapp.catalog.posts import POST_SLUGS
from studyapp.decks import CardSpec
from studyapp.questions.grading import grade
from studyapp.questions.model import Kind, Question
from studyapp.study import StudyConfig, StudyService, exam
from studyapp.study.exam import FACT, METHOD, SCENARIO, ExamSheet, TimeUp, role_of
from studyapp.study.showing import showing

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
POSTS = ("hbm-kv-cache", "hgx", "nvlink-infiniband")


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(tmp_path: Path, clock: Clock) -> StudyService:
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", clock=clock))


def right(question: Question) -> str:
    """The right answer as a learner types it."""
    if question.kind is Kind.CHOICE:
        return str(question.choices.index(str(question.answer)) + 1)
    if question.kind is Kind.TRUEFALSE:
        yes, no = question.answer_words
        return yes if question.answer else no
    if question.kind is Kind.NUMERIC:
        return f"{question.answer:.6g}"
    return str(question.answer)


def answer_all(sheet: ExamSheet, at: datetime, *, wrong: int | None = None) -> None:
    for i, item in enumerate(sheet.items):
        q = item.question
        if q.kind is Kind.SCENARIO:
            for part in q.parts:
                assert sheet.answer(i, right(part.question), at) is None
        elif i == wrong:
            assert sheet.answer(i, wrong_but_readable(q), at) is None
        else:
            assert sheet.answer(i, right(q), at) is None


def wrong_but_readable(question: Question) -> str:
    if question.kind is Kind.NUMERIC:
        return f"{float(question.answer) * 3 + 1:.6g}"
    if question.kind is Kind.CHOICE:
        return str((question.choices.index(str(question.answer)) + 1) % len(question.choices) + 1)
    if question.kind is Kind.TRUEFALSE:
        yes, no = question.answer_words
        return no if question.answer else yes
    return "something else entirely"


def review_count(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        return int(db.execute("SELECT count(*) FROM review_logs").fetchone()[0])


def test_the_paper_spans_the_posts_with_methods_facts_and_a_scenario(
        service: StudyService) -> None:
    sheet = service.exam(POSTS, count=12, minutes=30, seed=7)
    items = sheet.items
    assert len(items) == 12
    assert {item.post for item in items} == set(POSTS)
    roles = [item.role for item in items]
    assert roles.count(SCENARIO) >= 1 and METHOD in roles and FACT in roles
    families = [item.question.family or item.key for item in items]
    assert len(families) == len(set(families))  # one card per family
    assert all(item.question.kind is not Kind.RECALL for item in items)
    again = service.exam(POSTS, count=12, minutes=30, seed=7)
    assert [i.question.prompt for i in again.items] == [i.question.prompt for i in items]


def test_no_feedback_until_it_is_handed_in(service: StudyService, clock: Clock) -> None:
    sheet = service.exam(POSTS, count=6, minutes=30, seed=3)
    numeric = next(i for i, item in enumerate(sheet.items)
                   if item.question.kind is Kind.NUMERIC)
    q = sheet.items[numeric].question
    assert grade(q, wrong_but_readable(q)).correct is False
    assert sheet.answer(numeric, wrong_but_readable(q), clock.now) is None  # taken, not judged
    unreadable = sheet.answer(numeric, "lots", clock.now)
    assert unreadable is not None  # an unreadable answer is asked again, as in a session


def test_time_runs_out(service: StudyService, clock: Clock) -> None:
    sheet = service.exam(POSTS, count=5, minutes=10, seed=5)
    clock.now = START + timedelta(minutes=4)
    assert sheet.left(clock.now) == timedelta(minutes=6)
    first = sheet.items[0].question
    target = first.parts[0].question if first.kind is Kind.SCENARIO else first
    assert sheet.answer(0, right(target), clock.now) is None
    late = START + timedelta(minutes=10, seconds=1)
    with pytest.raises(TimeUp):
        sheet.answer(1, "1", late)
    result = sheet.hand_in(late)
    assert result.handed_in_at == START + timedelta(minutes=10)
    assert sum(m.answered for m in result.marks) == 1
    assert result.credit < len(result.marks)


def test_score_per_post_and_misconception(service: StudyService, clock: Clock) -> None:
    sheet = service.exam(POSTS, count=10, minutes=30, seed=11)
    answer_all(sheet, clock.now)
    perfect = sheet.hand_in(clock.now)
    assert perfect.share == pytest.approx(1.0)
    assert {s.key for s in perfect.by_post()} == set(POSTS)
    assert all(s.share == 1.0 for s in perfect.by_misconception())

    sheet = service.exam(POSTS, count=10, minutes=30, seed=11)
    wrong = next(i for i, item in enumerate(sheet.items) if item.question.kind is Kind.NUMERIC)
    answer_all(sheet, clock.now, wrong=wrong)
    one_off = sheet.hand_in(clock.now)
    assert one_off.credit == pytest.approx(len(one_off.marks) - 1)
    post = sheet.items[wrong].post
    row = next(s for s in one_off.by_post() if s.key == post)
    assert row.credit == row.out_of - 1
    data = one_off.as_json()
    assert data["out_of"] == 10 and data["score"] == pytest.approx(9)
    assert data["questions"][wrong]["credit"] == 0 and data["questions"][wrong]["solution"]


def test_a_slip_on_the_paper_is_scored_under_its_misconception(
        service: StudyService, clock: Clock) -> None:
    for seed in range(40):
        sheet = service.exam(("hbm-kv-cache",), count=8, minutes=30, seed=seed)
        trapped = [(i, item) for i, item in enumerate(sheet.items)
                   if item.question.kind is Kind.NUMERIC
                   and any(s.key == "kv_pair" for s in item.question.slips)]
        if trapped:
            break
    else:
        pytest.fail("no K/V trap in 40 papers on the HBM post")
    index, item = trapped[0]
    slip = next(s for s in item.question.slips if s.key == "kv_pair")
    assert isinstance(slip.ratio, float)
    sheet.answer(index, f"{float(item.question.answer) * slip.ratio:.6g}", clock.now)
    result = sheet.hand_in(clock.now)
    k_only = next(s for s in result.by_misconception() if s.key == "k_only")
    assert k_only.credit == k_only.out_of - 1
    assert result.by_misconception()[0].key == "k_only"  # the worst first


def test_the_schedule_is_untouched(service: StudyService, clock: Clock, tmp_path: Path) -> None:
    assert service.card_states() == {}  # opens the database
    sheet = service.exam(POSTS, count=6, minutes=30, seed=2)
    answer_all(sheet, clock.now)
    sheet.hand_in(clock.now)
    assert review_count(tmp_path) == 0
    assert service.card_states() == {}


def test_handing_in_leaves_the_schedule_unless_asked_to_count_the_answers(
        service: StudyService, clock: Clock, tmp_path: Path) -> None:
    assert service.card_states() == {}  # opens the database
    sheet = service.exam(POSTS, count=6, minutes=30, seed=2)
    answer_all(sheet, clock.now, wrong=1)
    result = sheet.hand_in(clock.now)
    assert service.record_exam(result)
    assert review_count(tmp_path) == 0 and service.card_states() == {}

    again = service.exam(POSTS, count=6, minutes=30, seed=2)
    answer_all(again, clock.now, wrong=1)
    counted = again.hand_in(clock.now)
    assert service.record_exam(counted, count_as_reviews=True)
    answered = [m for m in counted.marks if m.answered]
    assert review_count(tmp_path) == len(answered) == 6
    states = service.card_states()
    assert set(states) == {m.item.key for m in answered}
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        ratings = dict(db.execute("SELECT c.card_key, l.rating FROM review_logs l "
                                  "JOIN card_states c ON c.id = l.card_id"))
    missed = counted.marks[1]
    assert missed.credit < 1 and ratings[missed.item.key[1]] == 1  # Again
    assert sorted(ratings.values()).count(3) == 5  # the rest Good
    # new cards, scheduled as in a session: the missed one comes back first (Again's step)
    right_card = counted.marks[0].item.key
    assert clock.now < states[missed.item.key].due < states[right_card].due


def test_the_paper_draws_only_the_questions_it_asks(
        service: StudyService, monkeypatch: pytest.MonkeyPatch) -> None:
    """Roles come from the cards (a family's kind, a card's type): a 20-question paper over
    every post draws its 20 questions, not the built-in decks' hundreds of cards."""
    drawn: list[tuple[str, str]] = []

    def counted(card: CardSpec, seed: int, lang: str) -> Question:
        drawn.append((card.deck, card.id))
        return showing(card, seed, lang)

    monkeypatch.setattr(exam, "showing", counted)
    for seed in (1, 2, 3):
        drawn.clear()
        sheet = service.exam(POST_SLUGS, count=20, minutes=30, seed=seed)
        assert len(sheet.items) == 20
        assert drawn == [item.key for item in sheet.items]
        assert [item.role for item in sheet.items].count(SCENARIO) == 1
        cards = service.index.by_key
        assert all(item.role == role_of(cards[item.key], item.question)
                   for item in sheet.items)
