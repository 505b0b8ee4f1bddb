"""Pilot: a card naming an image opens it from the deck's media folder with ctrl+g."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from recall_decks import write_pictures_deck
from tui_helpers import footer_label, wait_until

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.question import QuestionScreen


async def test_ctrl_g_opens_the_named_image(app_factory: Callable[..., StudyApp],
                                            tmp_path: Path) -> None:
    deck = write_pictures_deck(tmp_path)
    app = app_factory(study={"deck": str(deck)})
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        assert screen.check_action("aid", ())
        assert footer_label(screen, "ctrl+g") == "Image"  # one key, named for what it does
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: bool(opened))
        assert opened == [(tmp_path / "pictures.media" / "h100.png").resolve().as_uri()]


async def test_ctrl_g_refuses_an_image_that_is_not_one(app_factory: Callable[..., StudyApp],
                                                       tmp_path: Path) -> None:
    """A page named .png that reached the media folder (by hand, or before media were
    checked) is refused where it would be opened, with a line naming it."""
    deck = write_pictures_deck(tmp_path)
    (tmp_path / "pictures.media" / "h100.png").write_bytes(
        b"<html><script>fetch('http://127.0.0.1:9/')</script></html>")
    app = app_factory(study={"deck": str(deck)})
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: bool(list(app._notifications)))
        messages = [n.message for n in app._notifications]
        assert messages == ["Not opened: h100.png: its bytes are not a PNG, JPEG, GIF or WebP "
                            "image (an SVG or HTML file can run script in a browser, whatever "
                            "its name)."]
        assert opened == []
