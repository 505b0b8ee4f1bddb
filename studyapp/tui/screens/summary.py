"""The end of a session: answered, accuracy, time, and when the cards come back."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Button, Label, Static

from studyapp.study.phrases import slips_text, wait_text
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.progress_format import duration
from studyapp.tui.widgets.footer import SteadyFooter

if TYPE_CHECKING:
    from studyapp.study import SessionTally

BUCKETS = (timedelta(hours=1), timedelta(days=1), timedelta(days=7), timedelta(days=30))


def bucket(delta: timedelta) -> int:
    """Index in BUCKETS of the first limit the interval fits under (len → later)."""
    for index, limit in enumerate(BUCKETS):
        if delta <= limit:
            return index
    return len(BUCKETS)


class SummaryScreen(StudyScreen):
    """Shown in place of the question screen; Enter goes home."""

    CSS_PATH = Path(__file__).parent / "question.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape", "home", "tui.key.home", id="summary.home"),
        Binding("r", "review", "tui.key.review", id="summary.review"),
    ]
    # Textual focuses it once the screen is shown: a query in on_mount failed when the app
    # quit while the screen was still being mounted (its widgets already gone)
    AUTO_FOCUS = "#summary-home"

    def __init__(self, tally: SessionTally) -> None:
        super().__init__(id="summary-screen")
        self.tally = tally

    def compose(self) -> ComposeResult:
        tally = self.tally
        accuracy = round(100 * tally.correct / tally.answered) if tally.answered else 0
        with Vertical(id="summary-box"):
            yield Label(self.tr("tui.summary.title"), id="summary-title")
            yield Label(self.tr("tui.summary.session_heading"), classes="subheading")
            yield Label(self.tr("tui.summary.answered", answered=tally.answered,
                                correct=tally.correct), id="summary-answered")
            yield Label(self.tr("tui.summary.accuracy", percent=accuracy), id="summary-accuracy")
            yield Label(self.tr("tui.summary.time_studied",
                                time=duration(tally.time_studied_ms)), id="summary-time")
            if tally.misconceptions:
                yield Static("\n".join(slips_text(*made, self.lang)
                                       for made in tally.misconceptions),
                             id="summary-slips", markup=False)
            if tally.practice:
                yield Label(self.tr("tui.summary.practice"), classes="hint")
            elif tally.comes_back:
                yield Label(self.tr("tui.summary.session_comes_back"), classes="subheading")
                yield Static(self.comes_back_text(), id="summary-next")
            if not tally.practice and tally.coming_back:
                yield Label(self.tr("tui.summary.profile_heading"), classes="subheading")
                yield Static(tally.coming_back[:1].upper() + tally.coming_back[1:],
                             id="summary-profile")
            yield Button(self.tr("tui.summary.home_button"), id="summary-home", variant="primary",
                         compact=True)
        yield SteadyFooter()

    def comes_back_text(self) -> str:
        """This session's cards only, by when they are due (the profile's are apart)."""
        counts = Counter(bucket(delta) for delta in self.tally.comes_back)
        lines = []
        if self.tally.comes_back:
            # the same words as the profile's line below: "9 min", "under a minute"
            soonest = wait_text(min(self.tally.comes_back), self.lang)
            lines.append(self.tr("tui.summary.soonest", interval=soonest))
        for index in sorted(counts):
            lines.append(self.tr(f"tui.summary.bucket{index}", count=counts[index]))
        return "\n".join(lines)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_home()

    def action_home(self) -> None:
        self.dismiss(None)

    def action_review(self) -> None:
        self.dismiss(None)
        self.study_app.review_due()
