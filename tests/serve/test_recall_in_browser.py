"""A self-graded (recall) card in the browser face: Enter shows the answer, 1..4 rates it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")
from recall_decks import write_pictures_deck, write_recall_deck
from test_serve_in_browser import (
    CHROMIUM,
    Served,
    browser,
    open_tab,
    review_rows,
    serve,
    studyapp,
    wait_until,
)

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here")]
__all__ = ["browser", "serve"]  # fixtures, used by name

def test_a_recall_card_is_shown_then_rated_in_the_browser(
        tmp_path: Path, serve: Callable[..., Served], browser: Any) -> None:
    deck = write_recall_deck(tmp_path)
    studyapp(tmp_path, "deck", "add", str(deck))
    studyapp(tmp_path, "deck", "disable", "post-intro")  # the recall card is the post's only card
    server = serve()
    page, screen = open_tab(browser, server.url)
    screen.wait_for("Reviewed today")
    screen.press("Enter")  # the first post: intro
    screen.wait_for("Study this post")
    screen.press("s")
    screen.wait_for("[1/", "Name the three axes")
    screen.press("Enter")  # show the answer
    screen.wait_for("Answer: data, tensor and pipeline", "Easy")
    screen.press("1")  # Again: forgot
    wait_until(lambda: review_rows(server.db))
    (profile, card, rating, _), = review_rows(server.db)
    assert (profile, card, rating) == ("ana", "axes", 1)
    page.close()


def test_a_recall_card_shown_then_its_tab_closed_records_nothing(
        tmp_path: Path, serve: Callable[..., Served], browser: Any) -> None:
    """Closing the tab is no rating: nothing is recorded and the card stays due."""
    from test_serve_in_browser import running

    deck = write_recall_deck(tmp_path)
    studyapp(tmp_path, "deck", "add", str(deck))
    studyapp(tmp_path, "deck", "disable", "post-intro")
    server = serve()
    page, screen = open_tab(browser, server.url)
    screen.wait_for("Reviewed today")
    screen.press("Enter")
    screen.wait_for("Study this post")
    screen.press("s")
    screen.wait_for("[1/", "Name the three axes")
    screen.press("Enter")  # show the answer
    screen.wait_for("Answer: data, tensor and pipeline", "Easy")
    apps = server.app_pids()
    page.close()  # closing the tab ends its app process
    wait_until(lambda: not any(running(pid) for pid in apps), timeout=30)
    assert review_rows(server.db) == []


def test_a_card_image_opens_in_a_tab_of_the_browser_face(
        tmp_path: Path, serve: Callable[..., Served], browser: Any) -> None:
    deck = write_pictures_deck(tmp_path)
    studyapp(tmp_path, "deck", "add", str(deck))
    studyapp(tmp_path, "deck", "disable", "post-intro")
    server = serve()
    page, screen = open_tab(browser, server.url)
    screen.wait_for("Reviewed today")
    screen.press("Enter")
    screen.wait_for("Study this post")
    screen.press("s")
    screen.wait_for("[1/", "Which GPU is this?")
    with page.context.expect_page(timeout=20_000) as opened:
        screen.press("Control+g")
    image = opened.value
    image.wait_for_load_state()
    assert "/download/" in image.url
    assert image.evaluate("document.contentType") == "image/png"  # shown, not downloaded
    page.close()
