"""Asking, grading and rating, one question at a time.

One layout per kind: a number with its unit, a choice by number or letter,
true/false by y/n, a short text. After an answer: right or wrong, the
learner's answer next to the expected one, the worked explanation, and
Hard/Good/Easy with the next interval of each (Enter = Good). A wrong answer
is recorded as Again by the service; the learner may overrule it ("I was
right", kept as Hard). Opening the post before answering caps the rating at
Hard. Deck text is shown as plain text only.

A scenario asks its steps one after another on the same card: the steps
answered so far stay above, each with its verdict, and the card scrolls when
they grow long; ctrl+g shows the current step's method (capping the rating
at Hard); the worked chain comes after the last step.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.reactive import Reactive, reactive
from textual.widget import Widget
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from studyapp.catalog.posts import list_posts
from studyapp.i18n import unit_label
from studyapp.questions.model import Kind, Question
from studyapp.srs.scheduler import Rating
from studyapp.study import numbered_choice
from studyapp.text import explains
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.question_format import answer_comparison, header_line
from studyapp.tui.text import plain
from studyapp.tui.widgets.feedback import AnswerBar, FeedbackView
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.step_list import AnsweredStep, StepList

if TYPE_CHECKING:
    from studyapp.study import Outcome, Presented, StudyService, StudySession

LETTERS = string.ascii_lowercase[:9]
NARROW = 70
"""Below this width the four rating buttons take two rows."""


class ChoiceList(OptionList):
    """Choices with nothing preselected: Enter alone never picks option a."""

    def __init__(self, *options: Option, id: str | None = None) -> None:
        super().__init__(*options, id=id)
        self.highlighted = None

    async def _on_click(self, event: events.Click) -> None:
        """A click picks a choice, a click on the picked one sends it (as Enter would).

        One click answering at once turned a slip of the mouse (or a tap in the
        browser) into a recorded wrong answer.
        """
        event.prevent_default()  # OptionList's own handler would select on the first click
        clicked: int | None = event.style.meta.get("option")
        if clicked is None or self.get_option_at_index(clicked).disabled:
            return
        if self.highlighted == clicked:
            self.action_select()
        else:
            self.highlighted = clicked


class QuestionScreen(StudyScreen):
    """A study session: the service's ``StudySession`` driven from the keyboard."""

    CSS_PATH = Path(__file__).parent / "question.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "show_post", "tui.key.show_post", id="question.post"),
        Binding("ctrl+g", "show_image", "tui.key.image", id="question.image"),
        Binding("ctrl+z", "undo", "tui.key.undo", id="question.undo"),
        Binding("escape", "escape", "tui.key.end", id="question.end"),
        Binding("i,exclamation_mark", "overrule", "tui.key.overrule", id="question.overrule"),
        Binding("ctrl+g", "method", "tui.key.method", id="question.method"),
        Binding("y,s,v", "truefalse(True)", "tui.key.true", show=False, id="question.yes"),
        Binding("n,f", "truefalse(False)", "tui.key.false", show=False, id="question.no"),
        *(Binding(str(n), f"number({n})", "tui.key.choice", show=False,
                  id=f"question.number{n}") for n in range(1, 10)),
        *(Binding(letter, f"letter({n})", "tui.key.choice", show=False,
                  id=f"question.letter{letter}") for n, letter in enumerate(LETTERS[:6])),
    ]

    phase: reactive[str] = reactive("loading", bindings=True, repaint=False)
    """loading → asking → feedback → asking … → done."""
    can_undo: reactive[bool] = reactive(False, bindings=True, repaint=False)
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    """As Textual's, without repainting the whole screen at each focus change: the
    widgets that gain and lose focus repaint themselves (every answer moves focus)."""

    def __init__(self, kind: str, *, post: str | None = None, deck: str | None = None,
                 limit: int | None = None, seed: int | None = None) -> None:
        super().__init__(id="question-screen")
        self.kind = kind
        self.post = post
        self.deck = deck
        self.limit = limit
        self.seed = seed
        self.session: StudySession | None = None
        self.presented: Presented | None = None
        self.outcome: Outcome | None = None
        self.busy = False
        self.answered = 0
        self.correct = 0
        self.looked_at_post = False
        self.step = 0

    def compose(self) -> ComposeResult:
        """Every part of a question and its feedback, hidden until a question fills it in."""
        # kept at hand: every answer refills them (a query per part costs more than the part)
        self.line, self.score = Label(self.tr("tui.question.loading"), id="session-line"), \
            Label("", id="session-score")
        self.prompt, self.choices = Static("", id="prompt"), ChoiceList(id="choices")
        self.steps, self.step_prompt = StepList(id="steps"), Static("", id="step-prompt")
        self.field, self.hint = Input(id="response"), Label("", classes="hint")
        self.reveal = Button(self.tr("anki.recall.show"), id="show-answer", compact=True)
        """A self-graded card's "Show answer", for a mouse or a tap in the browser."""
        self.retry, self.feedback = Label("", id="retry"), FeedbackView(self.lang)
        self.card, self.bar = VerticalScroll(id="card"), AnswerBar(self.lang)
        for widget in (self.prompt, self.steps, self.step_prompt, self.choices, self.field,
                       self.reveal, self.hint):
            widget.display = False
        yield Horizontal(self.line, self.score, id="question-head")
        with self.card:
            yield from (self.prompt, self.steps, self.step_prompt, self.choices, self.field,
                        self.reveal, self.hint, self.retry, self.feedback)
        yield self.bar  # the ratings, never scrolled out of sight
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.set_class(self.app.size.width < NARROW, "-narrow")
        self.begin()

    def on_resize(self) -> None:
        self.set_class(self.app.size.width < NARROW, "-narrow")
        if self.presented is not None:  # the header was cut to the old width
            score = (self.tr("tui.question.score", correct=self.correct, answered=self.answered)
                     if self.answered else "")
            self.show_header(self.presented, score)

    # -- the session on the service thread -------------------------------------

    @work(group="session", exit_on_error=False)
    async def begin(self) -> None:
        kind, post, deck, limit, seed, lang = (self.kind, self.post, self.deck, self.limit,
                                               self.seed, self.lang)

        def start(service: StudyService) -> StudySession:
            from studyapp.study import SessionKind

            return service.start(SessionKind(kind), post=post, deck=deck, limit=limit,
                                 seed=seed, lang=lang)

        try:
            self.session = await self.study_app.backend.call(start)
        except Exception:
            self.dismiss(None)
            raise
        await self.show_next()

    async def show_next(self, first: Callable[[StudySession], object] | None = None) -> bool:
        """The next question; ``first(session)`` runs before it in the same service call.

        One call, not two: each call waits for the service thread and back.
        A falsy result of ``first`` (nothing undone) leaves the screen as it is.
        """
        session = self.session
        assert session is not None
        advanced = await self.study_app.backend.call(lambda _: session.advance(first))
        if advanced is None:
            return False
        presented, can_undo, self.answered, self.correct, notices = advanced
        self.tell(notices)
        self.can_undo = can_undo
        self.presented = presented
        self.outcome = None
        self.looked_at_post = False
        if presented is None:
            self.finish()
            return True
        self.show_question(presented)
        return True

    def finish(self) -> None:
        """The summary replaces this screen; with nothing answered, straight home."""
        if self.phase == "done":
            return
        self.phase = "done"
        session = self.session
        if session is not None and self.presented is not None:  # left mid-question
            self.settle_then_finish(session)
            return
        if session is None or self.answered == 0:
            if self.presented is None and self.answered == 0:
                self.app.notify(self.tr("tui.question.nothing_to_study"))
            self.dismiss(None)
            return
        self.summarise(session)

    @work(exclusive=True, group="settle", exit_on_error=False)
    async def settle_then_finish(self, session: StudySession) -> None:
        """Leaving mid-question records what the learner said, and says so: a right answer
        not yet rated as Enter would, a scenario's steps with a wrong one as Again; a
        self-graded card shown but not rated is not recorded (it stays due)."""
        presented, outcome = self.presented, self.outcome
        rating = await self.study_app.backend.call(lambda service: session.settle())
        if rating is not None and outcome is None:  # a scenario left between its steps
            self.app.notify(self.tr("tui.question.settled_steps"), markup=False)
        elif rating is not None:
            self.app.notify(self.tr("tui.question.settled",
                                    rating=self.tr(f"tui.rating.{rating.name.lower()}")),
                            markup=False)
        elif (outcome is not None and outcome.needs_rating and presented is not None
              and presented.question.kind is Kind.RECALL):
            self.app.notify(self.tr("tui.question.unrated"), markup=False)
        self.answered = session.answered
        if self.answered == 0:
            self.dismiss(None)
            return
        self.summarise(session)

    @work(exclusive=True, group="summary", exit_on_error=False)
    async def summarise(self, session: StudySession) -> None:
        """The summary reads stored due times, on the service thread."""
        from studyapp.tui.screens.summary import SummaryScreen

        lang = self.lang
        result = await self.study_app.backend.call(lambda _: session.tally(lang))
        self.tell(result.notices)
        self.app.switch_screen(SummaryScreen(result))

    def tell(self, notices: tuple[str, ...]) -> None:
        """The service's one-line notices (the class database away, answers sent)."""
        for notice in notices:
            self.app.notify(notice, markup=False, timeout=8)

    @contextmanager
    def working(self) -> Iterator[None]:
        """One change to the card at a time: keys pressed meanwhile are dropped, so a
        rating key and Enter in one burst rate once (each worker checks ``busy``)."""
        self.busy = True
        try:
            yield
        finally:
            self.busy = False

    @work(group="session", exit_on_error=False)
    async def submit(self, response: str) -> None:
        session = self.session
        if session is None or self.phase != "asking" or self.busy:
            return
        with self.working():
            outcome, can_undo, notices = await self.study_app.backend.call(
                lambda _: session.respond(response))
            self.tell(notices)
            verdict = outcome.verdict
            if verdict.correct is None:
                self.show_retry(verdict.message)
                return
            if outcome.part is not None:
                self.add_step_line(outcome)
                if outcome.parts_left:
                    self.can_undo = can_undo
                    self.show_step(self.step + 1)
                    return
            self.outcome = outcome
            self.can_undo = can_undo
            if outcome.recorded:
                self.answered += 1
            self.show_feedback(outcome)

    @work(group="session", exit_on_error=False)
    async def rate(self, rating: Rating) -> None:
        session, outcome = self.session, self.outcome
        if session is None or outcome is None or not outcome.needs_rating or self.busy:
            return
        with self.working():  # until the next question is up: a second key never rates twice
            def record(session: StudySession) -> bool:
                session.rate(rating)
                return True

            await self.show_next(record)

    @work(group="session", exit_on_error=False)
    async def next_question(self) -> None:
        if self.busy or self.phase != "feedback":
            return
        with self.working():
            await self.show_next()

    @work(group="session", exit_on_error=False)
    async def overrule(self) -> None:
        """"I was right": the wrong verdict becomes a right answer rated Hard."""
        session, outcome = self.session, self.outcome
        if session is None or outcome is None or not outcome.can_overrule or self.busy:
            return
        with self.working():
            done = await self.study_app.backend.call(lambda _: session.overrule())
        if not done:
            return
        self.outcome = replace(outcome, can_overrule=False)
        self.correct += 1
        self.feedback.set_verdict(self.tr("tui.question.overruled"), True)
        self.refresh_bindings()

    @work(group="session", exit_on_error=False)
    async def look_at_post(self) -> None:
        """Opening the post before answering caps this answer at Hard."""
        session = self.session
        if session is None or self.looked_at_post:
            return
        self.looked_at_post = await self.study_app.backend.call(
            lambda _: session.look_at_post())
        if self.looked_at_post:
            self.app.notify(self.tr("tui.question.looked_at_post"))

    @work(group="session", exit_on_error=False)
    async def show_method(self) -> None:
        """A scenario step's method, under its prompt; the rating is then Hard at best."""
        session = self.session
        if session is None or self.phase != "asking":
            return
        method = await self.study_app.backend.call(lambda _: session.show_method())
        if method:
            self.looked_at_post = True
            self.show_retry(self.tr("tui.question.method", method=method))
            self.app.notify(self.tr("tui.question.method_caps"))

    @work(group="session", exit_on_error=False)
    async def undo(self) -> None:
        session = self.session
        if session is None or self.busy:
            return
        with self.working():
            if await self.show_next(lambda session: session.undo()):
                self.app.notify(self.tr("tui.question.undone"))

    # -- what is on screen ---------------------------------------------------------

    def post_title(self, slug: str) -> str:
        for post in list_posts(self.lang):
            if post.slug == slug:
                return post.title
        return slug

    def show_header(self, presented: Presented, score: str) -> None:
        """The question's header line, cut to the window's width (redrawn on resize)."""
        room = self.app.size.width - 2 - (len(score) + 2 if score else 0)
        practice = self.session is not None and self.session.practice
        title = (self.post_title(presented.question.post) if presented.question.post
                 else presented.place)
        line = header_line(presented, title, room, self.lang, practice=practice)
        self.line.update(Content(line))

    def show_question(self, presented: Presented) -> None:
        """Fill the question's parts in place: no widget is mounted or removed."""
        question = presented.question
        score = (self.tr("tui.question.score", correct=self.correct, answered=self.answered)
                 if self.answered else "")
        self.score.update(score)
        self.show_header(presented, score)
        self.prompt.update(plain(question.prompt))
        self.steps.clear()
        self.steps.display = self.step_prompt.display = False
        if question.kind is Kind.SCENARIO:
            self.prompt.display = True
            self.show_step(0)
            return
        self.ask(question)

    def current(self) -> Question | None:
        """The question now answered: the scenario's current step, or the question itself."""
        presented = self.presented
        if presented is None:
            return None
        question = presented.question
        if question.kind is Kind.SCENARIO:
            return question.parts[min(self.step, len(question.parts) - 1)].question
        return question

    def show_step(self, index: int) -> None:
        """Step ``index`` of the scenario, under the steps already answered."""
        presented = self.presented
        assert presented is not None
        scenario = presented.question
        self.step = index
        self.steps.display = bool(self.steps.answered)
        head = self.tr("tui.question.step", number=index + 1, total=len(scenario.parts))
        self.step_prompt.update(Content.assemble((head + " ", "bold"),
                                                 plain(scenario.parts[index].question.prompt)))
        self.step_prompt.display = True
        self.ask(scenario.parts[index].question, step=True)
        if self.steps.answered:
            self.call_after_refresh(self.card.scroll_to_widget, self.hint, animate=False)

    def add_step_line(self, outcome: Outcome) -> None:
        """The step just answered, with what was typed and its verdict, above the next one."""
        step = outcome.part
        presented = self.presented
        assert step is not None and presented is not None
        part = presented.question.parts[step.index].question
        mark = "✓" if step.correct else ("↪" if step.carried else "✗")
        style = "$success" if step.correct else ("$warning" if step.carried else "$error")
        given = numbered_choice(part, step.verdict.given) if part.kind is Kind.CHOICE \
            else step.verdict.given
        self.steps.add(AnsweredStep(
            step.index + 1, plain(part.prompt), mark, style,
            Content.assemble(plain(given), "  ", plain(step.verdict.message))))

    def ask(self, question: Question, *, step: bool = False) -> None:
        """The answer widgets for a question (or a scenario's step)."""
        choices, field = self.choices, self.field
        field.value = ""  # the last answer typed, even when this one is a choice
        focus: Widget
        if question.kind in (Kind.CHOICE, Kind.TRUEFALSE):
            if question.kind is Kind.CHOICE:
                options = [Option(Content(f"{n + 1}) ").append(plain(choice)), id=f"choice-{n}")
                           for n, choice in enumerate(question.choices)]
                hint = self.tr("tui.question.hint_choice", last=len(question.choices),
                               letter=LETTERS[min(len(question.choices), 6) - 1])
            else:
                yes, no = question.answer_words
                options = [Option(self.tr(f"tui.question.{yes}_option"), id="choice-true"),
                           Option(self.tr(f"tui.question.{no}_option"), id="choice-false")]
                hint = self.tr("tui.question.hint_yesno" if question.yes_no
                               else "tui.question.hint_truefalse")
            choices.set_options(options)
            focus = choices
        else:
            if question.kind is Kind.NUMERIC:
                hint = (self.tr("tui.question.hint_numeric",
                                unit=unit_label(question.unit, self.lang))
                        if question.unit else self.tr("tui.question.hint_number"))
                field.placeholder = self.tr("tui.question.placeholder_numeric",
                                            example=f"140 {question.unit or ''}".strip())
            elif question.kind is Kind.RECALL:  # self-graded: Enter shows the answer
                hint = self.tr("anki.recall.hint_tui")
                field.placeholder = self.tr("anki.recall.placeholder")
            else:
                hint = self.tr("tui.question.hint_text")
                field.placeholder = self.tr("tui.question.placeholder_text")
            focus = field
        if step:
            hint += "  " + self.tr("tui.question.hint_method")
        self.hint.update(hint)
        self.show_retry("", shown=False)
        self.phase = "asking"
        focus.display = self.prompt.display = self.hint.display = True
        self.reveal.display = question.kind is Kind.RECALL
        self.set_focus(focus)
        (field if focus is choices else choices).display = False
        self.feedback.display = self.bar.display = False
        if not step:
            self.card.scroll_home(animate=False)
        self.refresh(layout=True, repaint=False)  # one layout of the screen, next frame

    def show_retry(self, message: str, shown: bool = True) -> None:
        """Why an answer was not graded (a unit of the wrong kind), under the answer."""
        self.retry.update(plain(message))
        self.retry.display = shown
        if shown:  # under a long scenario the card may end below the screen: bring it up
            self.call_after_refresh(self.retry.scroll_visible, animate=False)

    def show_feedback(self, outcome: Outcome) -> None:
        """Hide the answer widgets, fill in the verdict and offer the ratings."""
        presented = self.presented
        assert presented is not None
        verdict = outcome.verdict
        right = bool(verdict.correct)
        self.show_retry("", shown=False)  # a retry hint is moot once graded
        recall = presented.question.kind is Kind.RECALL
        mark = self.tr("tui.question.right") if right else self.tr("tui.question.wrong")
        if outcome.recorded and not right:
            mark += "  " + self.tr("tui.question.recorded_again")
        if presented.question.kind is Kind.SCENARIO:
            comparison = Content("")
            self.steps.display = True
            self.step_prompt.display = False
        else:
            comparison = answer_comparison(presented.question, verdict,
                                           max(12, self.app.size.width - 30), self.lang)
        if recall:  # the answer itself is the verdict line; the learner rates it
            mark, comparison = verdict.message, Content("")
        explanation = presented.question.explanation
        self.feedback.show(mark, right, comparison, "" if recall else verdict.message or "",
                           explanation if explains(explanation, verdict.expected) else "")
        self.phase = "feedback"
        self.set_focus(self.bar.show(outcome, recall=recall), scroll_visible=False)
        # the answer widgets give their room to the feedback
        self.choices.display = self.field.display = self.hint.display = False
        self.reveal.display = False
        if presented.question.kind is Kind.SCENARIO:
            # once the worked chain is laid out: the verdict and the chain at the top,
            # the steps above a scroll away
            self.set_timer(0.05, lambda: self.card.scroll_to_widget(self.feedback, top=True,
                                                                    animate=False))
        else:
            self.card.scroll_home(animate=False)
        self.refresh(layout=True, repaint=False)  # one layout of the screen, next frame

    # -- input -----------------------------------------------------------------------

    @on(Input.Submitted, "#response")
    def on_response(self, event: Input.Submitted) -> None:
        if event.value.strip() or self._kind() is Kind.RECALL:
            self.submit(event.value)

    @on(OptionList.OptionSelected, "#choices")
    def on_choice(self, event: OptionList.OptionSelected) -> None:
        self.choose(event.option_index)

    def choose(self, index: int) -> None:
        question = self.current()
        if question is None or self.phase != "asking":
            return
        if question.kind is Kind.TRUEFALSE:
            self.submit("true" if index == 0 else "false")
        elif 0 <= index < len(question.choices):
            self.submit(str(index + 1))

    @on(Button.Pressed)
    def on_rating(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button == "continue":
            self.next_question()
        elif button == "show-answer":
            if self.phase == "asking" and self._kind() is Kind.RECALL:
                self.submit(self.field.value)
        elif button.startswith("rate-"):
            self.rate(Rating[button.removeprefix("rate-").upper()])

    def _kind(self) -> Kind | None:
        question = self.current()
        return question.kind if question is not None else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        kind = self._kind()
        if action == "undo":
            return self.can_undo and self.phase in ("asking", "feedback")
        if action == "show_post":
            return self.presented is not None
        if action == "show_image":  # only on a card that names an image: off the footer else
            from studyapp.decks.media import named_images

            return bool(named_images(self.shown_texts()))
        if action == "overrule":
            return self.phase == "feedback" and self.outcome is not None \
                and self.outcome.can_overrule
        if action == "method":
            return self.phase == "asking" and self.presented is not None \
                and self.presented.question.kind is Kind.SCENARIO
        if action == "truefalse":
            return self.phase == "asking" and kind is Kind.TRUEFALSE
        if action == "letter":
            return self.phase == "asking" and kind is Kind.CHOICE
        if action == "number":
            if self.phase == "asking":
                return kind in (Kind.CHOICE, Kind.TRUEFALSE)
            return self.phase == "feedback" and self.outcome is not None
        return True

    def action_truefalse(self, value: bool) -> None:
        self.choose(0 if value else 1)

    def action_letter(self, index: int) -> None:
        self.choose(index)

    def action_number(self, number: int) -> None:
        if self.phase == "asking":
            self.choose(number - 1)
        elif self.phase == "feedback" and self.outcome is not None:
            if self.outcome.needs_rating and 1 <= number <= self.outcome.max_rating:
                self.rate(Rating(number))
            elif not self.outcome.needs_rating:
                self.next_question()

    def action_show_post(self) -> None:
        if self.presented is not None:
            if self.phase == "asking":
                self.look_at_post()
            if self.presented.question.post:
                self.study_app.open_post(self.presented.question.post, from_question=True)
            else:  # a course deck's card: its deck's summary
                self.study_app.open_screen("course", self.presented.deck_id,
                                           from_question=True)

    def action_method(self) -> None:
        self.show_method()

    def action_overrule(self) -> None:
        self.overrule()

    def shown_texts(self) -> list[str]:
        """The card text on screen: the prompt, and after the answer its solution too."""
        presented = self.presented
        if presented is None:
            return []
        question = presented.question
        if self.phase == "feedback":
            return [question.prompt, str(question.answer), question.explanation]
        return [question.prompt]

    @work(group="image", exit_on_error=False)
    async def action_show_image(self) -> None:
        """Open the images the card names (``[image: NAME]``) from the deck's media folder."""
        from studyapp.decks.media import named_images

        presented = self.presented
        texts = self.shown_texts()
        names = named_images(texts)
        if presented is None or not names:
            self.app.notify(self.tr("anki.image.none"))
            return
        found = await self.study_app.backend.call(
            lambda service: service.card_images(presented.deck_id, presented.card_key, texts))
        for name, why in found.refused:  # not a raster image: a browser would run its script
            self.app.notify(self.tr("anki.image.refused", name=name, why=why.render(self.lang)),
                            severity="warning")
        if not found.shown:
            if not found.refused:
                self.app.notify(self.tr("anki.image.missing", names=", ".join(names)))
            return
        for image in found.shown:
            if self.app.is_web:  # the browser face: the checked bytes go to the tab, as checked
                import io

                self.app.deliver_binary(io.BytesIO(image.data), open_method="browser",
                                        save_filename=image.path.name,
                                        mime_type=image.mime_type)
            else:
                self.app.open_url(image.path.resolve().as_uri())
        self.app.notify(self.tr("anki.image.opened",
                                names=", ".join(i.path.name for i in found.shown)))

    def action_undo(self) -> None:
        self.undo()

    def typed(self) -> Input | None:
        """The answer field while it holds text."""
        if self.phase != "asking":
            return None
        field = self.field
        return field if field.display and field.value else None

    def action_escape(self) -> None:
        """Esc clears a typed answer first; with nothing typed it ends the session."""
        field = self.typed()
        if field is not None:
            field.value = ""
            return
        self.finish()

    def confirm_quit(self) -> bool:
        """ctrl+q with an answer typed asks first, as ending the session does; True if asked."""
        if self.typed() is None:
            return False
        from studyapp.tui.screens.message import ConfirmScreen

        def confirmed(quit_app: bool | None) -> None:
            if quit_app:
                self.app.exit()

        self.app.push_screen(ConfirmScreen(self.tr("tui.question.confirm_quit"),
                                           self.tr("tui.question.confirm_quit_yes"),
                                           self.tr("tui.question.confirm_no")), confirmed)
        return True

    def action_end(self) -> None:
        """Ending with an answer typed asks first; otherwise it just ends (answers are saved)."""
        if self.typed() is None:
            self.finish()
            return
        from studyapp.tui.screens.message import ConfirmScreen

        def confirmed(end: bool | None) -> None:
            if end:
                self.finish()

        self.app.push_screen(ConfirmScreen(self.tr("tui.question.confirm_end"),
                                           self.tr("tui.question.confirm_yes"),
                                           self.tr("tui.question.confirm_no")), confirmed)
