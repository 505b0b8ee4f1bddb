"""The verdict line over the feedback wraps at 60 columns instead of cutting its hint:
"✗ Wrong  (recorded as Again: it comes back soon)  a: try another" once showed only "a"."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Label

import studyapp.tui.screens.question as question_screen
from studyapp.i18n import t
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
