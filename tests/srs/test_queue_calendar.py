"""Queue order, limits, interleaving and the 04:00 study day."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta, timezone

from studyapp.srs import CardStage, QueueItem, build_queue, day_bounds, study_day
from studyapp.srs.queue import interleave_templates_only

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def item(key: str, post: str, template: str, stage: CardStage, *, due_min: int = 0,
         retr: float = 0.5, order: int = 0) -> QueueItem:
    return QueueItem("deck", key, post, template, stage, NOW + timedelta(minutes=due_min), retr,
                     (order, 0, 0))


def test_learning_then_reviews_by_retrievability_then_new_in_curriculum_order() -> None:
    learning = [item("l2", "h100", "t1", CardStage.LEARNING, due_min=5),
                item("l1", "h200", "t2", CardStage.RELEARNING, due_min=-5)]
    reviews = [item("r1", "tpu", "t3", CardStage.REVIEW, retr=0.95),
               item("r2", "gaudi", "t4", CardStage.REVIEW, retr=0.70)]
    new = [item("n2", "hgx", "t5", CardStage.NEW, order=9),
           item("n1", "intro", "t6", CardStage.NEW, order=0)]
    queue = build_queue(learning, reviews, new, reviews_left=10, new_left=10)
    assert [q.card_key for q in queue] == ["l1", "l2", "r2", "r1", "n1", "n2"]


def test_daily_limits_cut_reviews_and_new_but_never_learning() -> None:
    learning = [item(f"l{i}", f"p{i}", f"t{i}", CardStage.LEARNING) for i in range(3)]
    reviews = [item(f"r{i}", f"q{i}", f"u{i}", CardStage.REVIEW) for i in range(5)]
    new = [item(f"n{i}", f"s{i}", f"v{i}", CardStage.NEW, order=i) for i in range(5)]
    queue = build_queue(learning, reviews, new, reviews_left=2, new_left=1)
    stages = [q.stage for q in queue]
    assert stages.count(CardStage.LEARNING) == 3
    assert stages.count(CardStage.REVIEW) == 2
    assert stages.count(CardStage.NEW) == 1


def test_variants_of_one_template_or_post_are_not_back_to_back() -> None:
    new = [item("a1", "h200", "fits", CardStage.NEW, order=0),
           item("a2", "h200", "fits", CardStage.NEW, order=1),
           item("b1", "h200", "kv", CardStage.NEW, order=2),
           item("c1", "tpu", "ici", CardStage.NEW, order=3)]
    queue = build_queue([], [], new, reviews_left=0, new_left=10)
    for first, second in itertools.pairwise(queue):
        assert first.template != second.template
    assert [q.card_key for q in queue][:2] == ["a1", "c1"]


def test_one_post_session_keeps_curriculum_order_but_splits_twins() -> None:
    items = [item("a1", "h200", "fits", CardStage.NEW, order=0),
             item("a2", "h200", "fits", CardStage.NEW, order=1),
             item("b1", "h200", "kv", CardStage.NEW, order=2)]
    assert [q.card_key for q in interleave_templates_only(items)] == ["a1", "b1", "a2"]


def test_only_twins_left_are_still_asked() -> None:
    items = [item("a1", "h200", "fits", CardStage.NEW), item("a2", "h200", "fits", CardStage.NEW)]
    assert len(build_queue([], [], items, reviews_left=0, new_left=5)) == 2


def test_study_day_rolls_over_at_four_local() -> None:
    madrid = timezone(timedelta(hours=1))
    late = datetime(2026, 3, 3, 1, 30, tzinfo=madrid)  # 01:30 still belongs to March 2
    assert study_day(late, 4, madrid) == date(2026, 3, 2)
    morning = datetime(2026, 3, 3, 4, 0, tzinfo=madrid)
    assert study_day(morning, 4, madrid) == date(2026, 3, 3)
    start, end = day_bounds(late, 4, madrid)
    assert start == datetime(2026, 3, 2, 3, 0, tzinfo=UTC)
    assert end - start == timedelta(days=1)
