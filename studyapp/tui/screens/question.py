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
at Hard); the worked chain comes after the last step. On any other card
ctrl+g opens the images the card names.

The screen holds the session and its ``Phase`` (``question_flow``); the card
(``question_card``) shows the question, and the answer widgets and the
ratings bar say what the learner did as messages the screen handles below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import Reactive, reactive
from textual.widget import Widget

from studyapp.questions.model import Kind, Question
from studyapp.srs.scheduler import Rating
from studyapp.tui.screens.card_images import card_texts, open_card_images
from studyapp.tui.screens.question_card import QuestionCard, QuestionHead
from studyapp.tui.screens.question_flow import (
    ANOTHER_KEY,
    CHOICE_LETTERS,
    KeyState,
    Phase,
    aid,
    allowed,
    move,
    picked,
)
from studyapp.tui.screens.question_leave import LeavingAQuestion
from studyapp.tui.widgets.answer_input import AnswerField, ChoiceList, RevealButton
from studyapp.tui.widgets.feedback import AnswerBar
from studyapp.tui.widgets.footer import SteadyFooter

if TYPE_CHECKING:
    from studyapp.study import Outcome, Presented, StudyService, StudySession

NARROW = 70
"""Below this width the four rating buttons take two rows."""


class QuestionScreen(LeavingAQuestion):
    """A study session: the service's ``StudySession`` driven from the keyboard."""

    CSS_PATH = Path(__file__).parent / "question.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "show_post", "tui.key.show_post", id="question.post"),
        # one key, two aids (question_flow.aid); the id keeps remaps of the image key working
        Binding("ctrl+g", "aid", "tui.key.aid", id="question.image"),
        Binding("ctrl+z", "undo", "tui.key.undo", id="question.undo"),
        Binding("escape", "escape", "tui.key.end", id="question.end"),
        Binding("i,exclamation_mark", "overrule", "tui.key.overrule", id="question.overrule"),
        # each key once: what it picks depends on the question (question_flow.picked)
        Binding("y,s,v", "pick('yes')", "tui.key.true", show=False, id="question.yes"),
        Binding("n", "pick('no')", "tui.key.false", show=False, id="question.no"),
        Binding("f", "pick('f')", "tui.key.false_or_f", show=False, id="question.letterf"),
        *(Binding(str(n), f"pick('{n}')", "tui.key.choice", show=False,
                  id=f"question.number{n}") for n in range(1, 10)),
        *(Binding(letter, f"pick('{letter}')", "tui.key.choice", show=False,
                  id=f"question.letter{letter}") for letter in CHOICE_LETTERS[:5]),
    ]

    phase: reactive[Phase] = reactive(Phase.LOADING, bindings=True, repaint=False)
    """Where the session stands; changed only through ``go`` (``question_flow.MOVES``)."""
    can_undo: reactive[bool] = reactive(False, bindings=True, repaint=False)
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    """As Textual's, without repainting the whole screen at each focus change: the
    widgets that gain and lose focus repaint themselves (every answer moves focus)."""

    def __init__(self, kind: str, *, post: str | None = None, deck: str | None = None,
                 limit: int | None = None, seed: int | None = None,
                 misconception: str | None = None) -> None:
        super().__init__(id="question-screen")
        self.kind = kind
        self.misconception = misconception
        self.post = post
        self.deck = deck
        self.limit = limit
        self.seed = seed
        self.session: StudySession | None = None
        self.presented: Presented | None = None
        self.outcome: Outcome | None = None
        self.busy = False
        self.can_another = False
        self.answered = 0
        self.correct = 0
        self.looked_at_post = False

    def compose(self) -> ComposeResult:
        """The header, the card (filled in by each question) and the ratings under it."""
        self.head = QuestionHead(self.lang)
        self.card, self.bar = QuestionCard(self.lang), AnswerBar(self.lang)
        yield self.head
        yield self.card
        yield self.bar  # the ratings, never scrolled out of sight
        yield SteadyFooter()

    def go(self, phase: Phase) -> None:
        """Move the session to ``phase`` (PhaseError if it cannot go there from here)."""
        self.phase = move(self.phase, phase)

    def on_mount(self) -> None:
        super().on_mount()
        self.set_class(self.app.size.width < NARROW, "-narrow")
        self.begin()

    def on_resize(self) -> None:
        self.set_class(self.app.size.width < NARROW, "-narrow")
        if self.presented is not None:  # the header was cut to the old width
            self.show_header(self.presented)

    # -- the session on the service thread -------------------------------------

    @work(group="session", exit_on_error=False)
    async def begin(self) -> None:
        kind, post, deck, limit, seed, lang = (self.kind, self.post, self.deck, self.limit,
                                               self.seed, self.lang)
        misconception = self.misconception

        def start(service: StudyService) -> StudySession:
            from studyapp.study import SessionKind

            if misconception is not None:  # a drill on one misconception's trap
                return service.drill(misconception, seed=seed, lang=lang)
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
        if self.phase is Phase.DONE:  # ended meanwhile: the summary is on its way
            return True
        presented, can_undo, self.answered, self.correct, notices = advanced
        self.can_another = False
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
        if self.phase is Phase.DONE:
            return
        self.go(Phase.DONE)
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
        if session is None or self.phase is not Phase.ASKING or self.busy:
            return
        with self.working():
            (outcome, can_undo, notices), self.can_another = await self.study_app.backend.call(
                lambda _: (session.respond(response), session.can_another))
            self.tell(notices)
            if self.phase is not Phase.ASKING or self.presented is None:
                return  # ended while the answer was graded
            verdict, question = outcome.verdict, self.presented.question
            if verdict.correct is None:
                self.card.show_retry(verdict.message)
                return
            if outcome.part is not None:
                self.card.add_step_line(question, outcome)
                if outcome.parts_left:
                    self.can_undo = can_undo
                    self.show_step(self.card.step + 1)
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
    async def draw_another(self) -> None:
        """``a`` after a miss on a method card: the same family with fresh numbers, practice."""
        session = self.session
        if session is None or self.busy or self.phase is not Phase.FEEDBACK:
            return
        with self.working():
            presented = await self.study_app.backend.call(lambda _: session.another())
            self.can_another = False
            self.presented, self.outcome = presented, None
            self.show_question(presented)

    @work(group="session", exit_on_error=False)
    async def next_question(self) -> None:
        if self.busy or self.phase is not Phase.FEEDBACK:
            return
        with self.working():
            await self.show_next()

    @work(group="session", exit_on_error=False)
    async def action_overrule(self) -> None:
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
        self.card.feedback.set_verdict(self.tr("tui.question.overruled"), True)
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
        if session is None or self.phase is not Phase.ASKING:
            return
        method = await self.study_app.backend.call(lambda _: session.show_method())
        if method:
            self.looked_at_post = True
            self.card.show_retry(self.tr("tui.question.method", method=method))
            self.app.notify(self.tr("tui.question.method_caps"))

    @work(group="session", exit_on_error=False)
    async def action_undo(self) -> None:
        session = self.session
        if session is None or self.busy:
            return
        with self.working():
            if await self.show_next(lambda session: session.undo()):
                self.app.notify(self.tr("tui.question.undone"))

    # -- what is on screen ---------------------------------------------------------

    def show_header(self, presented: Presented) -> None:
        practice = presented.practice or (self.session is not None and self.session.practice)
        self.head.show(presented, self.correct, self.answered, practice=practice)

    def show_question(self, presented: Presented) -> None:
        """Fill the question's parts in place: no widget is mounted or removed."""
        self.show_header(presented)
        self.go(Phase.ASKING)
        self.card.show_question(presented.question)
        self.asked()

    def current(self) -> Question | None:
        """The question now answered: the scenario's current step, or the question itself."""
        presented = self.presented
        return None if presented is None else self.card.current(presented.question)

    def show_step(self, index: int) -> None:
        """Step ``index`` of the scenario, under the steps already answered."""
        presented = self.presented
        assert presented is not None
        self.go(Phase.ASKING)
        self.card.show_step(presented.question, index)
        self.asked()

    def asked(self) -> None:
        """The answer widgets are up: the ratings go until the answer is graded."""
        self.bar.display = False
        self.refresh(layout=True, repaint=False)  # one layout of the screen, next frame

    def show_feedback(self, outcome: Outcome) -> None:
        """The verdict on the card and the ratings (or Continue) under it, focused."""
        presented = self.presented
        assert presented is not None
        self.go(Phase.FEEDBACK)
        recall = presented.question.kind is Kind.RECALL
        self.set_focus(self.bar.show(outcome, recall=recall), scroll_visible=False)
        self.card.show_feedback(presented.question, outcome, another=self.can_another)
        self.refresh(layout=True, repaint=False)  # one layout of the screen, next frame

    # -- input -----------------------------------------------------------------------

    def on_answer_field_answered(self, event: AnswerField.Answered) -> None:
        self.submit(event.response)

    def on_choice_list_chosen(self, event: ChoiceList.Chosen) -> None:
        self.choose(event.index)

    def on_reveal_button_revealed(self, event: RevealButton.Revealed) -> None:
        if self.phase is Phase.ASKING and self._kind() is Kind.RECALL:
            self.submit(self.card.field.value)

    def on_answer_bar_rated(self, event: AnswerBar.Rated) -> None:
        self.rate(event.rating)

    def on_answer_bar_continued(self, event: AnswerBar.Continued) -> None:
        self.next_question()

    def choose(self, index: int) -> None:
        question = self.current()
        if question is None or self.phase is not Phase.ASKING:
            return
        if question.kind is Kind.TRUEFALSE:
            self.submit("true" if index == 0 else "false")
        elif 0 <= index < len(question.choices):
            self.submit(str(index + 1))

    def _kind(self) -> Kind | None:
        question = self.current()
        return question.kind if question is not None else None

    def key_state(self) -> KeyState:
        """What ``question_flow.allowed`` needs to know to tell which keys work."""
        from studyapp.decks.media import named_images

        presented, outcome = self.presented, self.outcome
        return KeyState(
            self.phase, self._kind(),
            scenario=presented is not None and presented.question.kind is Kind.SCENARIO,
            has_card=presented is not None, can_undo=self.can_undo,
            names_image=bool(named_images(self.shown_texts())),
            graded=outcome is not None, can_overrule=outcome is not None and outcome.can_overrule,
            can_another=self.can_another)

    def binding_label(self, binding: Binding) -> str:
        """ctrl+g reads "Step method" on a scenario's step, "Image" elsewhere."""
        if binding.action == "aid":
            return "tui.key.method" if aid(self.key_state()) == "method" else "tui.key.image"
        return binding.description

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return allowed(action, self.key_state(), parameters)

    def action_pick(self, key: str) -> None:
        """An answer key: a choice while asking; after the answer a digit rates it."""
        if self.phase is Phase.ASKING:
            index = picked(key, self._kind())
            if index is not None:
                self.choose(index)
        elif self.phase is Phase.FEEDBACK and key == ANOTHER_KEY and self.can_another:
            self.draw_another()
        elif self.phase is Phase.FEEDBACK and self.outcome is not None and key.isdigit():
            number = int(key)
            if self.outcome.needs_rating and 1 <= number <= self.outcome.max_rating:
                self.rate(Rating(number))
            elif not self.outcome.needs_rating:
                self.next_question()

    def action_show_post(self) -> None:
        if self.presented is not None:
            if self.phase is Phase.ASKING:
                self.look_at_post()
            if self.presented.question.post:
                self.study_app.open_post(self.presented.question.post, from_question=True)
            else:  # a course deck's card: its deck's summary
                self.study_app.open_screen("course", self.presented.deck_id,
                                           from_question=True)

    def action_aid(self) -> None:
        """ctrl+g: a scenario step's method while it is asked, else the card's images."""
        if aid(self.key_state()) == "method":
            self.show_method()
        else:
            self.show_image()

    def shown_texts(self) -> list[str]:
        return card_texts(self.presented, graded=self.phase is Phase.FEEDBACK)

    @work(group="image", exit_on_error=False)
    async def show_image(self) -> None:
        """Open the images the card names (``[image: NAME]``) from the deck's media folder."""
        await open_card_images(self, self.presented, self.shown_texts())
