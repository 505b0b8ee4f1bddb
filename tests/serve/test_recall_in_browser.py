"""A self-graded (recall) card in the browser face: Enter shows the answer, 1..4 rates it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")
from test_serve_in_browser import (
    CHROMIUM,
    Served,
    browser,
    open_tab,
    review_rows,
    serve,
    wait_until,
)

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here")]
__all__ = ["browser", "serve"]  # fixtures, used by name

PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
       b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
       b"\x00\x00\x00\x00IEND\xaeB`\x82")

DECK = """deck: recall-browser
title: Recall in the browser
language: en
post: intro
cards:
  - id: axes
    type: recall
    prompt: "Name the three axes of parallelism."
    answer: "data, tensor and pipeline"
"""


def cli(tmp_path: Path, *args: str) -> None:
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-m", "studyapp", "--db",
                    f"sqlite:///{tmp_path / 'study.sqlite3'}", "--profile", "ana", *args],
                   check=True, capture_output=True, env=env, cwd=Path(__file__).parents[2])


def test_a_recall_card_is_shown_then_rated_in_the_browser(
        tmp_path: Path, serve: Callable[..., Served], browser: Any) -> None:
    deck = tmp_path / "recall.yaml"
    deck.write_text(DECK, encoding="utf-8")
    cli(tmp_path, "deck", "add", str(deck))
    cli(tmp_path, "deck", "disable", "post-intro")  # the recall card is the post's only card
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


IMAGE_DECK = """deck: pictures
title: Pictures
language: en
post: intro
cards:
  - id: which-gpu
    type: recall
    prompt: "Which GPU is this? [image: h100.png]"
    answer: "H100"
"""


def test_a_card_image_opens_in_a_tab_of_the_browser_face(
        tmp_path: Path, serve: Callable[..., Served], browser: Any) -> None:
    deck = tmp_path / "pictures.yaml"
    deck.write_text(IMAGE_DECK, encoding="utf-8")
    (tmp_path / "pictures.media").mkdir()
    (tmp_path / "pictures.media" / "h100.png").write_bytes(PNG)
    cli(tmp_path, "deck", "add", str(deck))
    cli(tmp_path, "deck", "disable", "post-intro")
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
