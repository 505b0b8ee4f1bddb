"""Leaving a question with an answer typed: Esc clears it first, ending or quitting asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.question_flow import Phase

if TYPE_CHECKING:
    from studyapp.tui.screens.question_card import QuestionCard
    from studyapp.tui.widgets.answer_input import AnswerField


class LeavingAQuestion(StudyScreen):
    """The question screen's ways out, each keeping a typed answer from being lost."""

    phase: Phase
    card: QuestionCard

    def finish(self) -> None:
        """End the session (the question screen's own)."""
        raise NotImplementedError

    def typed(self) -> AnswerField | None:
        """The answer field while it holds text."""
        return self.card.typed() if self.phase is Phase.ASKING else None

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
        self.ask_first("tui.question.confirm_quit", "tui.question.confirm_quit_yes",
                       self.app.exit)
        return True

    def action_end(self) -> None:
        """Ending with an answer typed asks first; otherwise it just ends (answers are saved)."""
        if self.typed() is None:
            self.finish()
            return
        self.ask_first("tui.question.confirm_end", "tui.question.confirm_yes", self.finish)

    def ask_first(self, question: str, yes: str, then: Callable[[], object]) -> None:
        """A typed answer would be lost: ``then`` only once the learner says yes."""
        from studyapp.tui.screens.message import ConfirmScreen

        def confirmed(sure: bool | None) -> None:
            if sure:
                then()

        self.app.push_screen(ConfirmScreen(self.tr(question), self.tr(yes),
                                           self.tr("tui.question.confirm_no")), confirmed)
