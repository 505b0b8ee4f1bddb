"""Narrow terminals: the verdict line over the feedback wraps at 60 columns instead of
cutting its hint ("✗ Wrong  (recorded as Again: it comes back soon)  a: try another" once
showed only "a"), and a post title cut short keeps its distance from the mastery."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Label
from tui_helpers import wait_until

import studyapp.tui.screens.question as question_screen
from studyapp.i18n import t
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.post import PostScreen
from studyapp.tui.widgets.feedback import FeedbackView


class Feedback(App[None]):
    """The feedback alone, styled as the question screen styles it."""

    CSS_PATH = Path(question_screen.__file__).parent / "question.tcss"

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        yield FeedbackView(self.lang)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("width", [60, 80])
async def test_the_wrong_answer_line_shows_its_whole_hint(lang: str, width: int) -> None:
    mark = "  ".join((t("tui.question.wrong", lang), t("tui.question.recorded_again", lang),
                      t("tui.question.another_hint", lang)))
    app = Feedback(lang)
    async with app.run_test(size=(width, 20)) as pilot:
        app.query_one(FeedbackView).show(mark, False, Content("1 GB vs 2 GB"), "", "")
        await pilot.pause()
        verdict = app.query_one("#verdict", Label)
        assert verdict.region.right <= width
        shown = " ".join(line.text.strip() for line in
                         verdict.render_lines(verdict.region.reset_offset))
        assert t("tui.question.another_hint", lang) in " ".join(shown.split()), shown


async def test_a_post_title_cut_short_keeps_a_space_before_its_mastery(
        app_factory: Callable[..., StudyApp]) -> None:
    """At 60 columns the post screen's head read "…hold up a m…Mastery 0%"."""
    app = app_factory()
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen)
                         and "%" in str(app.screen.query_one("#post-mastery", Label).render()))
        heading = app.screen.query_one("#post-heading", Label)
        mastery = app.screen.query_one("#post-mastery", Label)
        assert mastery.content_region.x > heading.region.right
