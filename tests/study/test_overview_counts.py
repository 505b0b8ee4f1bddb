"""The overview: home's counts, a post's cards and what a deck offers, read from the parts."""

from __future__ import annotations

from pathlib import Path

import pytest
from study_parts import answer, drill_service
from test_service import Clock

from studyapp.catalog import UnknownIdError
from studyapp.srs import Rating
from studyapp.srs.scheduler import CardStage
from studyapp.study import SessionKind, StudyConfig, StudyService


def test_home_counts_follow_what_was_answered(tmp_path: Path) -> None:
    clock = Clock()
    svc = drill_service(tmp_path, clock)
    try:
        overviews = svc.overviews
        before = overviews.overview("en", with_streak=False)
        drill = {deck_id: total for deck_id, _, total, _ in before.deck_totals}
        assert drill["drill"] == 3
        svc.answering.record_answer(answer(svc, clock, "stacked", Rating.GOOD))
        after = overviews.overview("en", with_streak=False)
        assert after.reviews_done_today == before.reviews_done_today + 1
        assert after.new_done_today == before.new_done_today + 1
        assert after.new_left == before.new_left - 1
        intro = {p.slug: p for p in after.posts}["intro"]
        intro_before = {p.slug: p for p in before.posts}["intro"]
        assert intro.learning == intro_before.learning + 1
        assert intro.held == intro_before.held + 1  # stacked-again waits for another day
        assert after.coming_back is not None
        assert after.coming_back.within_hour == 1  # the learning card, due within the hour
    finally:
        svc.close()


def test_a_posts_cards_carry_their_stored_state(tmp_path: Path) -> None:
    clock = Clock()
    svc = drill_service(tmp_path, clock)
    try:
        svc.answering.record_answer(answer(svc, clock, "alone", Rating.AGAIN))
        cards = {(c.deck_id, c.card_key): c for c in svc.overviews.post_cards("intro").cards}
        assert cards[("drill", "alone")].stage == CardStage.LEARNING
        assert cards[("drill", "alone")].lapses == 0 and cards[("drill", "alone")].reps == 1
        assert cards[("drill", "stacked")].stage == 0 and cards[("drill", "stacked")].due is None
    finally:
        svc.close()


def test_a_deck_blocked_only_by_todays_new_limit_says_so(tmp_path: Path) -> None:
    clock = Clock()
    svc = drill_service(tmp_path, clock)
    try:
        assert not svc.overviews.new_limit_blocks("drill")  # new cards to ask
        svc.update_settings(new_per_day=0)
        assert svc.overviews.new_limit_blocks("drill")
        with pytest.raises(UnknownIdError):
            svc.overviews.new_limit_blocks("no-such-deck")
    finally:
        svc.close()


def test_a_post_read_is_remembered_and_a_deck_summary_comes_first(tmp_path: Path) -> None:
    svc = drill_service(tmp_path)
    try:
        assert not svc.overviews.has_read("intro")
        svc.overviews.read_post("intro")
        assert svc.overviews.has_read("intro")
        assert not svc.overviews.summary_first("drill")  # no summary: nothing to read first
        view = svc.overviews.course_view("drill", "en")
        assert (view.title, view.course, view.summary) == ("Drill", "Drill", "")
    finally:
        svc.close()


def test_each_posts_new_count_on_home_is_what_its_session_asks(tmp_path: Path) -> None:
    """Home's "N new" for a post is the new cards a session over it asks (the day's limit
    aside): not a card its post has not taught yet, a second card of a fact or generator
    family the session already asks, nor a scenario waiting for what it chains."""
    clock = Clock()
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                   profile="ana", lang="en", clock=clock))
    try:
        svc.update_settings(new_per_day=10_000)

        def counts() -> dict[str, tuple[int, int]]:
            return {p.slug: (p.offered, sum(i.stage is CardStage.NEW for i in svc.plan(
                SessionKind.POST, post=p.slug))) for p in svc.overview().posts}

        fresh = counts()
        assert all(home == asked for home, asked in fresh.values()), fresh
        intro = {p.slug: p for p in svc.overview().posts}["intro"]
        assert intro.offered < intro.new  # siblings of one fact: one of them is asked
        session = svc.start(SessionKind.POST, post="intro", seed=1)
        for _ in range(5):  # answered wrong: learning cards due today, their facts taken
            if session.next() is None:
                break
            if session.submit("1").needs_rating:
                session.rate(Rating.GOOD)
        after = counts()
        assert after["intro"] != fresh["intro"]
        assert all(home == asked for home, asked in after.values()), after
    finally:
        svc.close()
