"""The feedback under a graded answer and the ratings bar, built once per session.

Both are composed with the question screen and refilled at every answer:
mounting a fresh tree of widgets per answer cost more than everything else
the answer does (each new widget is styled, laid out and focused anew).
Hidden parts take no room, so the screen looks as if only the shown parts
were there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Label, Static

from studyapp.i18n import t
from studyapp.srs.scheduler import Rating, format_interval
from studyapp.tui.text import plain

if TYPE_CHECKING:
    from studyapp.study import Outcome

RATED = (Rating.AGAIN, Rating.HARD, Rating.GOOD, Rating.EASY)
"""After a right answer all four: Again reads "I guessed" (a lucky guess is a lapse)."""


class FeedbackView(Vertical):
    """Right or wrong, the answer beside the expected one, and the worked explanation."""

    def __init__(self, lang: str) -> None:
        super().__init__(id="feedback", classes="-right")
        self.lang = lang
        self.display = False

    def compose(self) -> ComposeResult:
        yield Label("", id="verdict")
        yield Static("", id="comparison")
        yield Static("", id="verdict-message")
        yield Label(t("tui.question.explanation", self.lang), id="explanation-heading",
                    classes="subheading")
        yield Static("", id="explanation")

    def show(self, mark: str, right: bool, comparison: Content, message: str,
             explanation: str) -> None:
        """Fill in one answer's feedback; deck text goes in as plain text.

        An empty ``explanation`` (a card whose only explanation is its answer) hides the
        explanation and its heading."""
        self.set_verdict(mark, right)
        shown = self.query_one("#comparison", Static)
        shown.update(comparison)
        shown.display = bool(comparison.plain)  # a scenario's steps are compared above
        note = self.query_one("#verdict-message", Static)
        note.update(plain(message))
        note.display = bool(message)
        shown = self.query_one("#explanation", Static)
        shown.update(plain(explanation))
        shown.display = bool(explanation)
        self.query_one("#explanation-heading", Label).display = bool(explanation)
        self.display = True

    def set_verdict(self, mark: str, right: bool) -> None:
        """The verdict line and the colour of the bar beside it (an overrule turns it right)."""
        self.query_one("#verdict", Label).update(mark)
        if self.has_class("-right") != right:  # a class change restyles the whole view
            self.set_classes("-right" if right else "-wrong")


class AnswerBar(Vertical):
    """The ratings with their next intervals (Enter = Good), or Continue after a wrong answer.

    Docked under the card, so it stays in sight however long the explanation. A pressed
    button comes out as ``Rated`` or ``Continued``.
    """

    class Rated(Message):
        """The learner rated the answer."""

        def __init__(self, rating: Rating) -> None:
            super().__init__()
            self.rating = rating

    class Continued(Message):
        """The learner moved on from an answer that takes no rating."""

    def __init__(self, lang: str) -> None:
        super().__init__(id="answer-bar")
        self.lang = lang

    def compose(self) -> ComposeResult:
        buttons = [Button("", id=f"rate-{rating.name.lower()}", compact=True,
                          variant="primary" if rating is Rating.GOOD else "default")
                   for rating in RATED]
        buttons.append(Button(t("tui.question.continue", self.lang), id="continue",
                              variant="primary", compact=True))
        for button in buttons:
            # A pressed button stays "active" for a moment and ignores keys meanwhile;
            # these are hidden at once and shown again at the next answer, which may
            # come sooner: a rating typed ahead must not be lost.
            button.active_effect_duration = 0
        yield Horizontal(*buttons, id="ratings")
        yield Label(t("tui.question.capped", self.lang), id="rating-capped")

    def show(self, outcome: Outcome, *, recall: bool = False) -> Button:
        """Offer what this outcome allows; returns the button that takes Enter.

        On a self-graded (recall) card Again reads Again: the learner forgot."""
        lang = self.lang
        for rating in RATED:
            button = self.query_one(f"#rate-{rating.name.lower()}", Button)
            offered = outcome.needs_rating and rating <= outcome.max_rating
            if offered:
                interval = (format_interval(outcome.intervals[rating], lang)
                            if rating in outcome.intervals else "")  # unknown: server away
                name = t("tui.rating.guessed" if rating is Rating.AGAIN and not recall
                         else f"tui.rating.{rating.name.lower()}", lang)
                button.label = Content.assemble((f"{int(rating)} ", "bold"), name,
                                                (f" {interval}" if interval else "", "dim"))
                # A new label does not lay the row out again by itself: "10m" after
                # "6m" would wrap the interval onto a line the button does not show.
                button.refresh(layout=True)
            button.display = offered
        self.query_one("#continue", Button).display = not outcome.needs_rating
        capped = self.query_one("#rating-capped", Label)
        capped.update(t("tui.question.capped_by_step" if outcome.capped_by_step
                        else "tui.question.capped_by_method" if outcome.capped_by_method
                        else "tui.question.capped", lang))
        capped.display = outcome.needs_rating and outcome.max_rating < Rating.GOOD
        self.display = True
        if not outcome.needs_rating:
            return self.query_one("#continue", Button)
        best = "#rate-good" if outcome.max_rating >= Rating.GOOD else "#rate-hard"
        return self.query_one(best, Button)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button.id or ""
        if button == "continue":
            self.post_message(self.Continued())
        elif button.startswith("rate-"):
            self.post_message(self.Rated(Rating[button.removeprefix("rate-").upper()]))

    def offered(self) -> list[str]:
        """Ids of the buttons on show, left to right."""
        return [button.id or "" for button in self.query("#ratings Button").results(Button)
                if button.display]
