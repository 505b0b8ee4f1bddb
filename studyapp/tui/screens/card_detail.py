"""One card: its memory state and the last answers exactly as they were asked.

Generated questions draw new values on every review, so each answer shows
the values and the prompt the learner saw, what they typed and what was
expected. All of that is deck text: it is shown as plain text, never markup.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.markup import escape
from textual.widgets import Label, Static

from studyapp.text import visible
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.progress_format import CSS, card_name, card_state_text
from studyapp.tui.text import plain
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.progress_plot import Palette, ProgressPlot, draw_curve

if TYPE_CHECKING:
    from studyapp.progress import CardDetail, LogLine
    from studyapp.progress.series import CardCurve

RATINGS = {1: "tui.rating.again", 2: "tui.rating.hard", 3: "tui.rating.good",
           4: "tui.rating.easy"}


def local_time(moment: datetime | None) -> str:
    return "—" if moment is None else moment.astimezone().strftime("%Y-%m-%d %H:%M")


SHOWN_CHOICES = "shown_choices"  # studyapp.study.SHOWN_CHOICES: the order the learner saw
SCENARIO_PARTS = "parts"  # studyapp.study.SCENARIO_PARTS: a scenario's steps
NOT_PARAMS = (SHOWN_CHOICES, SCENARIO_PARTS, "answer_slips", "answer_traps", "picked_choice")
"""Keys stored beside the params (studyapp.study: ANSWER_SLIPS, PICKED_CHOICE too)."""


def params_text(params: Any) -> str:
    """``a = 1, b = 2`` from the parameters stored with an answer."""
    if isinstance(params, dict):
        params = {k: v for k, v in params.items() if k not in NOT_PARAMS}
    if not params:
        return "—"
    if isinstance(params, dict):
        return ", ".join(f"{key} = {value}" for key, value in params.items())
    return str(params)


def shown_choices_text(params: Any) -> str | None:
    """``1) x  2) y`` in the order a past answer showed them, or None when none were stored."""
    choices = params.get(SHOWN_CHOICES) if isinstance(params, dict) else None
    if not isinstance(choices, list) or not choices:
        return None
    return "  ".join(f"{n}) {choice}" for n, choice in enumerate(choices, start=1))


class CardDetailScreen(StudyScreen):
    """Stability, difficulty, due date, lapses, flags and the latest answers."""

    CSS_PATH = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "suspend", "tui.key.suspend", id="card_detail.suspend"),
        Binding("escape", "back", "tui.key.back", id="card_detail.back"),
    ]

    def __init__(self, deck_id: str, card_key: str) -> None:
        super().__init__(id="card-detail-screen")
        self.deck_id = deck_id
        self.card_key = card_key
        self.detail: CardDetail | None = None
        self.curve: CardCurve | None = None
        """The card's forgetting curve, drawn under its facts."""
        self.desired = 0.9
        self.loaded = False

    @property
    def name_text(self) -> str:
        return visible(card_name(self.deck_id, self.card_key))

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.card.title", card=self.name_text), classes="screen-title",
                    markup=False)
        with VerticalScroll(id="card-body"):
            yield Static(self.tr("tui.stats.loading"), id="card-facts", markup=False)
            yield ProgressPlot(id="card-curve")
            yield Label(self.tr("tui.card.answers"), classes="subheading")
            yield Static("", id="card-answers", markup=False)
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#card-body").focus()
        self.load()

    @work(exclusive=True, group="card-detail", exit_on_error=False)
    async def load(self) -> None:
        from studyapp.progress import card_drilldown

        deck_id, card_key = self.deck_id, self.card_key
        from studyapp.progress.series import card_curve

        self.detail = await self.study_app.backend.call(
            lambda service: card_drilldown(service, deck_id, card_key, last=10))
        self.curve, self.desired = await self.study_app.backend.call(
            lambda service: (card_curve(service, deck_id, card_key),
                             service.settings.desired_retention))
        self.loaded = True
        self.fill()
        self.refresh_bindings()

    def after_language_change(self) -> None:
        if self.loaded:
            self.fill()

    def fill(self) -> None:
        facts = self.query_one("#card-facts", Static)
        answers = self.query_one("#card-answers", Static)
        if self.detail is None:
            facts.update(self.tr("tui.card.never"))
            answers.update("")
            return
        facts.update(self.facts_content(self.detail))
        self.draw_curve()
        logs = self.detail.logs
        answers.update(Content("\n\n").join([self.answer_content(log) for log in logs])
                       if logs else Content(self.tr("tui.card.never")))

    def draw_curve(self) -> None:
        """Recall per study day from the card's answers, in the theme's colours."""
        plot = self.query_one("#card-curve", ProgressPlot)
        curve = self.curve
        plot.display = curve is not None and bool(curve.points)
        if curve is None or not curve.points:
            plot.show(None)
            return
        months, lang, desired = self.tr("tui.stats.months").split(","), self.lang, self.desired

        def drawing(plt: Any, palette: Palette) -> None:
            draw_curve(plt, curve, self.tr, months, lang, palette, desired)

        plot.show(drawing)

    def facts_content(self, detail: CardDetail) -> Content:
        card, tr = detail.card, self.tr
        flags = [tr("tui.stats.suspended")] if card.suspended else []
        if card.leech:
            flags.append(tr("tui.stats.leech"))
        rows = [
            ("tui.card.post", visible(card.post)),
            ("tui.card.deck", visible(card.deck_id)),
            ("tui.card.state", card_state_text(card.stage, False, False, self.lang)),
            ("tui.card.stability", "—" if card.stability is None else tr(
                "tui.card.stability_days", days=f"{card.stability:.1f}")),
            ("tui.card.difficulty", "—" if card.difficulty is None
             else f"{card.difficulty:.2f} / 10"),
            ("tui.card.due", local_time(card.due)),
            ("tui.card.last_review", local_time(card.last_review)),
            ("tui.card.answers_count", tr("tui.card.answers_value", reviews=detail.reviews,
                                          correct=detail.correct, lapses=card.lapses)),
            ("tui.card.flags", " · ".join(flags) if flags else tr("tui.card.active")),
        ]
        labels = [tr(key) for key, _ in rows]
        width = max(len(label) for label in labels) + 2
        lines = [Content.assemble((f"{label:<{width}}", "bold"), Content(value))
                 for label, (_, value) in zip(labels, rows, strict=True)]
        return Content("\n").join(lines)

    def answer_content(self, log: LogLine) -> Content:
        tr = self.tr
        verdict = tr("tui.card.right" if log.correct else "tui.card.wrong")
        head = [local_time(log.reviewed_at), tr(RATINGS.get(log.rating, "tui.rating.good")),
                verdict]
        if log.duration_ms is not None:
            head.append(tr("tui.card.seconds", seconds=f"{log.duration_ms / 1000:.0f}"))
        if log.overridden:
            head.append(tr("tui.card.overridden"))
        if log.looked_at_post:
            head.append(tr("tui.card.looked_at_post"))
        style = "$success" if log.correct else "$error"
        lines = [Content(" · ".join(head)).stylize(f"bold {style}")]
        rows = [("tui.card.params", params_text(log.params)),
                ("tui.card.prompt", log.prompt or "—")]
        choices = shown_choices_text(log.params)
        if choices is not None:
            rows.append(("tui.card.choices", choices))
        from studyapp.study.phrases import logged_choice, logged_parts  # loaded by now

        steps = logged_parts(log.params, self.lang)
        if steps:
            rows.append(("tui.card.steps", "\n".join(steps)))
        for key, value in (*rows,
                           ("tui.card.answered", log.response or "—"),
                           ("tui.card.expected",
                            logged_choice(log.expected, log.params) or "—")):
            lines.append(Content.assemble((tr(key) + " ", "$text-muted"), plain(value)))
        return Content("\n").join(lines)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "suspend":
            return self.detail is not None
        return True

    def action_suspend(self) -> None:
        if self.detail is not None:
            self.toggle_suspended(not self.detail.card.suspended)

    @work(group="suspend", exit_on_error=False)
    async def toggle_suspended(self, suspend: bool) -> None:
        deck_id, card_key = self.deck_id, self.card_key
        changed = await self.study_app.backend.call(
            lambda service: service.set_suspended(deck_id, card_key, suspend))
        if not changed or self.detail is None:
            return
        self.detail = replace(self.detail, card=replace(self.detail.card, suspended=suspend))
        self.fill()
        self.notify(self.tr("tui.stats.suspended_now" if suspend else "tui.stats.resumed_now",
                            card=self.name_text), markup=False)

    def action_back(self) -> None:
        self.dismiss(None)

    def palette_commands(self) -> Iterable[SystemCommand]:
        """Suspend or resume this card from the command palette."""
        if self.detail is None:
            return
        key = "tui.cmd.unsuspend" if self.detail.card.suspended else "tui.cmd.suspend"
        yield SystemCommand(self.tr(key, card=escape(self.name_text)),
                            self.tr("tui.cmd.suspend_help"), self.action_suspend)
