"""The overview: home's counts, a post's cards and what a deck offers, read from the parts."""

from __future__ import annotations

from pathlib import Path

import pytest
from study_parts import answer, drill_service
from test_service import Clock

from studyapp.catalog import UnknownIdError
from studyapp.srs import Rating
from studyapp.srs.scheduler import CardStage


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
