"""Pilot: a card naming an image opens it from the deck's media folder with ctrl+g."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tui_helpers import wait_until

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.question import QuestionScreen

DECK = """deck: pictures
title: Pictures
language: en
post: intro
cards:
  - id: which-gpu
    type: recall
    prompt: "Which GPU is this? [image: h100.png]"
    answer: "H100"
"""


async def test_ctrl_g_opens_the_named_image(app_factory: Callable[..., StudyApp],
                                            tmp_path: Path) -> None:
    deck = tmp_path / "pictures.yaml"
    deck.write_text(DECK, encoding="utf-8")
    (tmp_path / "pictures.media").mkdir()
    (tmp_path / "pictures.media" / "h100.png").write_bytes(b"\x89PNG")
    app = app_factory(study={"deck": str(deck)})
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        assert screen.check_action("show_image", ())
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: bool(opened))
        assert opened == [(tmp_path / "pictures.media" / "h100.png").resolve().as_uri()]
