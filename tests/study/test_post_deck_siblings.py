"""Post decks name their siblings: one card per fact is shown a day.

Cards that test the same figure, or whose explanation gives away another
card's answer, share a ``fact:``; a card answered buries its siblings until
the next 04:00 rollover (Anki's sibling burying). A deck card may name a
generator family as its fact and so be a sibling of that family's cards.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_service import Clock, right_answer, service

from studyapp.catalog.posts import POST_SLUGS
from studyapp.questions.model import Kind, Question
from studyapp.srs import Rating
from studyapp.study import SessionKind, StudyService

SIBLINGS = [  # pairs a learner met on one day before the decks named their facts
    (("post-h200", "h200-capacity"), ("post-h200", "h200-stacks")),
    (("post-h200", "h200-70b-fp8-fits"), ("post-h200", "h200-70b-bf16-single-gpu")),
    (("post-h200", "gen-fits-on-gpu"), ("post-h200", "gen-fits-on-gpu-any")),
    (("post-hbm-kv-cache", "kv-formula-missing-term"),
     ("post-hbm-kv-cache", "kv-llama31-70b-per-token")),
    (("post-hbm-kv-cache", "kv-factor-two"), ("post-hbm-kv-cache", "gen-kv-cache-per-token")),
    (("post-nvlink-infiniband", "net-ndr-to-bytes"),
     ("post-nvlink-infiniband", "gen-bits-vs-bytes")),
    (("post-nvlink-infiniband", "net-ndr-to-bytes"),
     ("post-nvlink-infiniband", "net-ib-generations")),
]


@pytest.mark.parametrize(("one", "other"), SIBLINGS)
def test_cards_that_give_each_other_away_are_siblings(tmp_path: Path,
                                                      one: tuple[str, str],
                                                      other: tuple[str, str]) -> None:
    svc = service(tmp_path, Clock())
    assert other in svc.siblings(*one)


def _right(question: Question) -> str:
    """The right answer; a choice by its letter ("2" may also be a choice's text)."""
    if question.kind is Kind.CHOICE:
        return "abcdefgh"[question.choices.index(str(question.answer))]
    if question.kind is Kind.SCENARIO:  # every step, one a line
        return "\n".join(_right(part.question) for part in question.parts)
    return right_answer(question)


def _facts_shown(svc: StudyService, clock: Clock, kind: SessionKind,
                 post: str | None = None) -> dict[str, set[tuple[str, str]]]:
    """Answer a whole session right (Good), 20 s apart; the cards shown, by fact."""
    cards = svc._cards_by_key
    shown: dict[str, set[tuple[str, str]]] = {}
    session = svc.start(kind, post=post, seed=7)
    while (presented := session.next()) is not None:
        key = (presented.deck_id, presented.card_key)
        fact = cards[key].fact
        if fact:
            shown.setdefault(fact, set()).add(key)
        outcome = session.submit(_right(presented.question))
        assert outcome.verdict.correct
        session.rate(Rating.GOOD)
        clock.advance(seconds=20)
    return shown


@pytest.mark.parametrize("post", POST_SLUGS)
def test_a_post_session_never_shows_two_cards_of_one_fact_the_same_day(
        tmp_path: Path, post: str) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    svc.update_settings(new_per_day=200)
    shown = _facts_shown(svc, clock, SessionKind.POST, post)
    assert shown, "the post deck names facts"
    # a second session later the same day: still one card per fact
    clock.advance(hours=2)
    for fact, keys in _facts_shown(svc, clock, SessionKind.POST, post).items():
        shown.setdefault(fact, set()).update(keys)
    doubled = {fact: sorted(keys) for fact, keys in shown.items() if len(keys) > 1}
    assert not doubled


def test_a_session_across_posts_shows_one_card_per_fact(tmp_path: Path) -> None:
    """The bits-vs-bytes cards of the intro, TPU and network posts are one fact."""
    clock = Clock()
    svc = service(tmp_path, clock)
    svc.update_settings(new_per_day=400)
    shown = _facts_shown(svc, clock, SessionKind.POST)
    doubled = {fact: sorted(keys) for fact, keys in shown.items() if len(keys) > 1}
    assert not doubled
    assert "conversion:bits-vs-bytes" in shown


def test_new_cards_held_back_as_siblings_are_counted_apart_not_as_new(tmp_path: Path) -> None:
    """Home and the post screen must not promise new cards a session will not ask."""
    clock = Clock()
    svc = service(tmp_path, clock)

    def h200() -> tuple[int, int]:
        post = next(p for p in svc.overview().posts if p.slug == "h200")
        return post.new, post.held

    new_before, held_before = h200()
    assert held_before == 0
    session = svc.start(SessionKind.DUE, post="h200", seed=7)
    presented = session.next()
    while presented is not None and not svc._cards_by_key[
            (presented.deck_id, presented.card_key)].fact:
        session.skip()
        presented = session.next()
    assert presented is not None, "the H200 deck has cards that name a fact"
    siblings = svc.siblings(presented.deck_id, presented.card_key)
    outcome = session.submit(_right(presented.question))
    assert outcome.verdict.correct
    session.rate(Rating.GOOD)
    new_after, held_after = h200()
    assert new_after == new_before - 1
    assert held_after == len(siblings) > 0
