"""The mock exam: one question after another against the clock, verdicts only at the end.

The paper is drawn on the service thread; answers are checked here only for
being readable (the sheet says nothing about right or wrong) and the clock in
the header counts down each second. Handing it in, or the time running out,
shows the result: the score per post and per misconception, then every
question with its worked solution. The schedule stays unless the learner turns on
"count as reviews" (ctrl+r) before handing it in; the result is kept for the
progress screen (``StudyService.record_exam``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Input, Label, Static

from studyapp.questions.model import Kind
from studyapp.study.exam import DEFAULT_COUNT, DEFAULT_MINUTES, TimeUp, result_lines
from studyapp.text import visible
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.widgets.footer import SteadyFooter

if TYPE_CHECKING:
    from studyapp.questions.model import Question
    from studyapp.study.exam import ExamResult, ExamSheet


class ExamScreen(StudyScreen):
    """A timed paper; Enter answers (empty leaves it blank), ctrl+f (finish) hands it in."""

    CSS_PATH = Path(__file__).parent / "question.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+f", "hand_in", "tui.key.hand_in", id="exam.hand_in"),
        Binding("escape", "back", "tui.key.back", id="exam.back"),
        Binding("ctrl+r", "count_as_reviews", "tui.key.count_as_reviews",
                id="exam.count_as_reviews"),
    ]

    def __init__(self, posts: tuple[str, ...] | None = None, minutes: float = DEFAULT_MINUTES,
                 count: int = DEFAULT_COUNT, seed: int | None = None,
                 count_as_reviews: bool = False) -> None:
        super().__init__(id="exam-screen")
        self.count_as_reviews = count_as_reviews
        """Handing in records each answer as a review of its card (off: the schedule stays)."""
        self.posts = posts
        self.minutes = minutes
        self.count = count
        self.seed = seed
        self.sheet: ExamSheet | None = None
        self.result: ExamResult | None = None
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.exam.title"), classes="screen-title")
        yield Static(self.tr("tui.exam.drawing"), id="exam-status", markup=False)
        with VerticalScroll(id="exam-body"):
            yield Static("", id="exam-prompt", markup=False)
        yield Static("", id="exam-message", markup=False)
        yield Input(id="exam-answer", placeholder=self.tr("tui.exam.placeholder"))
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(Input).focus()
        self.draw()
        self.set_interval(1.0, self.tick)

    def now(self) -> datetime:
        clock = getattr(self.app, "clock", None)
        return clock() if clock is not None else datetime.now(UTC)

    @work(exclusive=True, group="exam", exit_on_error=False)
    async def draw(self) -> None:
        from studyapp.catalog.posts import POST_SLUGS

        posts = self.posts or POST_SLUGS
        minutes, count, seed = self.minutes, self.count, self.seed
        self.sheet = await self.study_app.backend.call(
            lambda service: service.exam(posts, count=count, minutes=minutes, seed=seed))
        self.refresh_bindings()
        if not self.sheet.items:
            self.query_one("#exam-prompt", Static).update(self.tr("tui.exam.empty"))
            return
        self.show()

    # -- the paper ------------------------------------------------------------------

    def question(self) -> Question | None:
        if self.sheet is None or self.index >= len(self.sheet.items):
            return None
        q = self.sheet.items[self.index].question
        if q.kind is Kind.SCENARIO:
            return q.parts[self.sheet.step(self.index)].question
        return q

    def show(self) -> None:
        sheet, asked = self.sheet, self.question()
        if sheet is None or asked is None:
            return
        item = sheet.items[self.index]
        lines = [self.tr("tui.exam.number", number=self.index + 1, total=len(sheet.items),
                         post=item.post), "", visible(item.question.prompt)]
        if item.question.kind is Kind.SCENARIO:
            lines += ["", self.tr("tui.exam.step", number=sheet.step(self.index) + 1,
                                  total=len(item.question.parts)), visible(asked.prompt)]
        if asked.kind is Kind.CHOICE:
            lines += [f"  {n}) {visible(choice)}" for n, choice in enumerate(asked.choices, 1)]
        elif asked.kind is Kind.NUMERIC and asked.unit:
            lines += ["", self.tr("tui.exam.unit", unit=asked.unit)]
        self.query_one("#exam-prompt", Static).update("\n".join(lines))
        self.query_one("#exam-body", VerticalScroll).scroll_home(animate=False)
        self.tick()

    def tick(self) -> None:
        sheet = self.sheet
        if sheet is None or self.result is not None:
            return
        left = sheet.left(self.now())
        if left.total_seconds() <= 0:
            self.hand_in(self.tr("tui.exam.time_up"))
            return
        minutes, seconds = divmod(int(left.total_seconds()), 60)
        counting = self.tr("tui.exam.counts" if self.count_as_reviews
                           else "tui.exam.counts_not")
        self.query_one("#exam-status", Static).update(self.tr(
            "tui.exam.status", left=f"{minutes}:{seconds:02d}",
            answered=sum(sheet.answered(i) for i in range(len(sheet.items))),
            total=len(sheet.items)) + " · " + counting)

    @on(Input.Submitted, "#exam-answer")
    def answer(self, event: Input.Submitted) -> None:
        event.stop()
        sheet, asked = self.sheet, self.question()
        if sheet is None or asked is None or self.result is not None:
            return
        text = event.value.strip()
        message = self.query_one("#exam-message", Static)
        if text:
            try:
                problem = sheet.answer(self.index, text, self.now())
            except TimeUp:
                self.hand_in(self.tr("tui.exam.time_up"))
                return
            if problem:
                message.update(visible(problem))
                return
            if not sheet.answered(self.index):  # a scenario's next step
                event.input.value = ""
                message.update("")
                self.show()
                return
        event.input.value = ""
        message.update("")
        self.index += 1
        if self.index >= len(sheet.items):
            self.hand_in("")
        else:
            self.show()

    # -- the end --------------------------------------------------------------------

    def action_count_as_reviews(self) -> None:
        """Turn "count as reviews" on or off until the paper is handed in."""
        if self.result is None:
            self.count_as_reviews = not self.count_as_reviews
            self.tick()

    def action_hand_in(self) -> None:
        if self.sheet is not None and self.result is None:
            self.hand_in("")

    def hand_in(self, why: str) -> None:
        assert self.sheet is not None
        self.result = self.sheet.hand_in(self.now())
        self.keep_result(self.result)
        lines = ([why, ""] if why else []) + result_lines(self.result, self.lang)
        self.query_one("#exam-prompt", Static).update("\n".join(lines))
        self.query_one("#exam-status", Static).update(self.tr(
            "tui.exam.handed_in_counted" if self.count_as_reviews else "tui.exam.handed_in"))
        self.query_one("#exam-message", Static).update("")
        answer = self.query_one(Input)
        answer.disabled = True
        answer.display = False
        body = self.query_one("#exam-body", VerticalScroll)
        body.scroll_home(animate=False)
        body.focus()
        self.refresh_bindings()

    @work(group="exam-kept", exit_on_error=False)
    async def keep_result(self, result: ExamResult) -> None:
        """Keep the handed-in paper on the service thread (a failed write is not shown)."""
        counting = self.count_as_reviews
        await self.study_app.backend.call(
            lambda service: service.record_exam(result, count_as_reviews=counting))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("hand_in", "count_as_reviews"):
            return self.sheet is not None and self.result is None
        return True

    def action_back(self) -> None:
        if self.result is None and self.sheet is not None:
            self.hand_in("")  # leaving hands the paper in: the result is shown first
            return
        self.app.pop_screen()
