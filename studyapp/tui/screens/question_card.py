"""The header and the card of the question screen.

The header is the session line and the score; the card, the prompt, a
scenario's steps, the answer widgets, why an answer was not graded, and the
feedback once it is.

Composed once per session and refilled in place at every question: no widget
is mounted or removed (a fresh tree per answer cost more than the rest of the
answer). The screen decides when; this widget decides what shows. Deck text
goes in as plain text only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Label, Static

from studyapp.catalog.posts import list_posts
from studyapp.i18n import t
from studyapp.questions.model import Kind, Question
from studyapp.study import numbered_choice
from studyapp.text import explains
from studyapp.tui.screens.question_format import answer_comparison, header_line
from studyapp.tui.text import plain
from studyapp.tui.widgets.answer_input import AnswerField, ChoiceList, RevealButton
from studyapp.tui.widgets.feedback import FeedbackView
from studyapp.tui.widgets.step_list import AnsweredStep, StepList

if TYPE_CHECKING:
    from studyapp.study import Outcome, Presented


class QuestionHead(Horizontal):
    """The question's header line (counts, post, kind) and the session's score."""

    def __init__(self, lang: str) -> None:
        super().__init__(id="question-head")
        self.lang = lang
        self.line = Label(t("tui.question.loading", lang), id="session-line")
        self.score = Label("", id="session-score")

    def compose(self) -> ComposeResult:
        yield from (self.line, self.score)

    def show(self, presented: Presented, correct: int, answered: int, *,
             practice: bool) -> None:
        """Fill in the header, cut to the window's width (shown again on resize)."""
        score = (t("tui.question.score", self.lang, correct=correct, answered=answered)
                 if answered else "")
        self.score.update(score)
        room = self.app.size.width - 2 - (len(score) + 2 if score else 0)
        slug = presented.question.post
        title = (next((p.title for p in list_posts(self.lang) if p.slug == slug), slug)
                 if slug else presented.place)
        self.line.update(Content(header_line(presented, title, room, self.lang,
                                             practice=practice)))


class QuestionCard(VerticalScroll):
    """Every part of a question and its feedback, hidden until a question fills it in."""

    def __init__(self, lang: str) -> None:
        super().__init__(id="card")
        self.lang = lang
        self.step = 0
        """Index of the scenario step being asked (0 for any other card)."""
        # kept at hand: every answer refills them (a query per part costs more than the part)
        self.given = Static("", id="given")
        self.prompt, self.choices = Static("", id="prompt"), ChoiceList(id="choices")
        self.steps, self.step_prompt = StepList(id="steps"), Static("", id="step-prompt")
        self.field, self.hint = AnswerField(id="response"), Label("", classes="hint")
        self.reveal = RevealButton(self.tr("anki.recall.show"), id="show-answer", compact=True)
        self.retry, self.feedback = Label("", id="retry"), FeedbackView(lang)
        for widget in (self.given, self.prompt, self.steps, self.step_prompt, self.choices,
                       self.field, self.reveal, self.hint):
            widget.display = False

    def tr(self, key: str, **fields: Any) -> str:
        return t(key, self.lang, **fields)

    def compose(self) -> ComposeResult:
        yield from (self.given, self.prompt, self.steps, self.step_prompt, self.choices,
                    self.field, self.reveal, self.hint, self.retry, self.feedback)

    def show_question(self, question: Question) -> None:
        """A new card: its Given block, its prompt, no steps; a scenario starts at its first
        step."""
        self.show_given(question)
        self.prompt.update(plain(question.prompt))
        self.steps.clear()
        self.steps.display = self.step_prompt.display = False
        if question.kind is Kind.SCENARIO:
            self.prompt.display = True
            self.show_step(question, 0)
            return
        self.ask(question)

    def show_given(self, question: Question) -> None:
        """The figures and conventions the card states before it asks, as plain text (a
        deck's or a catalog's text is never read as markup); hidden when there are none."""
        self.given.display = bool(question.given)
        if question.given:
            lines = "\n".join(f"• {line}" for line in question.given)
            self.given.update(Content.assemble((self.tr("tui.question.given") + "\n", "bold"),
                                               plain(lines)))

    def current(self, question: Question) -> Question:
        """What is being answered on ``question``: its current step, or itself."""
        if question.kind is Kind.SCENARIO:
            return question.parts[min(self.step, len(question.parts) - 1)].question
        return question

    def show_step(self, scenario: Question, index: int) -> None:
        """Step ``index`` of the scenario, under the steps already answered."""
        self.step = index
        self.steps.display = bool(self.steps.answered)
        head = self.tr("tui.question.step", number=index + 1, total=len(scenario.parts))
        self.step_prompt.update(Content.assemble((head + " ", "bold"),
                                                 plain(scenario.parts[index].question.prompt)))
        self.step_prompt.display = True
        self.ask(scenario.parts[index].question, step=True)
        if self.steps.answered:
            self.call_after_refresh(self.scroll_to_widget, self.hint, animate=False)

    def add_step_line(self, scenario: Question, outcome: Outcome) -> None:
        """The step just answered, with what was typed and its verdict, above the next one."""
        step = outcome.part
        assert step is not None
        part = scenario.parts[step.index].question
        mark = "✓" if step.correct else ("↪" if step.carried else "✗")
        style = "$success" if step.correct else ("$warning" if step.carried else "$error")
        given = numbered_choice(part, step.verdict.given) if part.kind is Kind.CHOICE \
            else step.verdict.given
        self.steps.add(AnsweredStep(
            step.index + 1, plain(part.prompt), mark, style,
            Content.assemble(plain(given), "  ", plain(step.verdict.message))))

    def ask(self, question: Question, *, step: bool = False) -> None:
        """The answer widgets for a question (or a scenario's step), focused."""
        choices, field = self.choices, self.field
        field.value = ""  # the last answer typed, even when this one is a choice
        focus: Widget
        if question.kind in (Kind.CHOICE, Kind.TRUEFALSE):
            hint = choices.offer(question, self.tr)
            focus = choices
        else:
            hint = field.expect(question, self.tr, self.lang)
            focus = field
        if step:
            hint += "  " + self.tr("tui.question.hint_method")
        self.hint.update(hint)
        self.show_retry("", shown=False)
        focus.display = self.prompt.display = self.hint.display = True
        self.reveal.display = question.kind is Kind.RECALL
        self.screen.set_focus(focus)
        (field if focus is choices else choices).display = False
        self.feedback.display = False
        if not step:
            self.scroll_home(animate=False)

    def show_retry(self, message: str, shown: bool = True) -> None:
        """Why an answer was not graded (a unit of the wrong kind), under the answer."""
        self.retry.update(plain(message))
        self.retry.display = shown
        if shown:  # under a long scenario the card may end below the screen: bring it up
            self.call_after_refresh(self.retry.scroll_visible, animate=False)

    def show_feedback(self, question: Question, outcome: Outcome, *,
                      another: bool = False) -> None:
        """Hide the answer widgets and fill in the verdict (the ratings are the screen's);
        ``another``: say that ``a`` draws the missed family again."""
        verdict = outcome.verdict
        right = bool(verdict.correct)
        self.show_retry("", shown=False)  # a retry hint is moot once graded
        recall = question.kind is Kind.RECALL
        mark = self.tr("tui.question.right") if right else self.tr("tui.question.wrong")
        if outcome.recorded and not right:
            mark += "  " + self.tr("tui.question.recorded_again")
        if another:
            mark += "  " + self.tr("tui.question.another_hint")
        if question.kind is Kind.SCENARIO:
            comparison = Content("")
            self.steps.display = True
            self.step_prompt.display = False
        else:
            comparison = answer_comparison(question, verdict,
                                           max(12, self.app.size.width - 30), self.lang)
        if recall:  # the answer itself is the verdict line; the learner rates it
            mark, comparison = verdict.message, Content("")
        explanation = question.explanation
        message = "" if recall else verdict.message or ""
        if outcome.counted:  # the one-step cards a scenario's steps counted for
            message = f"{message}\n{outcome.counted}" if message else outcome.counted
        self.feedback.show(mark, right, comparison, message,
                           explanation if explains(explanation, verdict.expected) else "")
        # the answer widgets give their room to the feedback
        self.choices.display = self.field.display = self.hint.display = False
        self.reveal.display = False
        if question.kind is Kind.SCENARIO:
            # once the worked chain is laid out: the verdict and the chain at the top,
            # the steps above a scroll away
            self.set_timer(0.05, lambda: self.scroll_to_widget(self.feedback, top=True,
                                                               animate=False))
        else:
            self.scroll_home(animate=False)

    def typed(self) -> AnswerField | None:
        """The answer field while it shows and holds text."""
        field = self.field
        return field if field.display and field.value else None


__all__ = ["QuestionCard", "QuestionHead"]
