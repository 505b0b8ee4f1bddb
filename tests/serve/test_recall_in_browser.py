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
