"""Another one now: after a miss on a method card, the same family with fresh numbers.

A method card (a generated computation, not a fact being learnt, not a
scenario) missed in a session can be asked again at once with other numbers,
as often as the learner wants: practice, never recorded or scheduled, and
the session goes on after it. Quiz users ask for it right after a miss
(PrairieLearn's "new variant", WeBWorK's "try another").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from studyapp.questions.grading import grade
from studyapp.questions.model import Kind, Question
from studyapp.study.draws import tests_a_fact
from studyapp.study.session_records import _Pending
from studyapp.study.showing import asked, showing
from studyapp.study.views import LEARNING_STAGES, Outcome, Presented

if TYPE_CHECKING:
    import random

    from studyapp.srs.queue import SessionQueue
    from studyapp.study.host import SessionHost

REDRAWS = 20
"""Fresh draws tried for numbers not asked yet this sitting."""


class AnotherDraws:
    """The part of a sitting that asks a missed method card again with other numbers."""

    service: SessionHost
    rng: random.Random
    lang: str
    stopwatch: Callable[[], float]
    queue: SessionQueue
    reached: int
    _shown: set[tuple[str, str]]
    _pending: _Pending | None
    _prompts: set[tuple[str, frozenset[str]]]
    _another_of: _Pending | None = None
    """The missed method card's showing that ``another`` draws again (None: none)."""
    _set_aside: dict[tuple[str, str], tuple[Question, int]]
    """Questions put back unanswered for ``another``, with their seeds: asked as shown."""
    _seeds: dict[tuple[str, str], int]
    extra_answered: int = 0
    extra_correct: int = 0

    def _answered(self, pending: _Pending) -> None:
        """An answer to a session question: ``another`` may draw its card again if it was a
        miss on a method card; any other answer ends the last miss's offer."""
        wrong = pending.verdict is not None and pending.verdict.correct is False
        self._another_of = pending if wrong and self._is_method(pending) else None

    def _is_method(self, pending: _Pending) -> bool:
        q = pending.presented.question
        if q.kind is Kind.SCENARIO or not q.family:
            return False
        try:
            spec = self.service.card(pending.presented.deck_id, pending.presented.card_key)
        except LookupError:
            return False
        return not tests_a_fact(spec)

    @property
    def can_another(self) -> bool:
        """A missed method card can be drawn again now: nothing is waiting, or only the
        question drawn after it, not answered yet (plain mode asks it at once)."""
        if self._another_of is None:
            return False
        pending = self._pending
        return (pending is None or (pending.extra and pending.verdict is not None)
                or self._untouched(pending))

    @staticmethod
    def _untouched(pending: _Pending) -> bool:
        return (not pending.extra and pending.verdict is None and not pending.parts
                and pending.held_id is None)

    def another(self) -> Presented:
        """The missed card's family with fresh numbers, in practice; answered with ``submit``.

        A question drawn after the miss and not answered yet goes back to its
        place in the queue first, to be asked after.
        """
        base = self._another_of
        if base is None or not self.can_another:
            raise RuntimeError("no missed method card to draw again")
        if self._pending is not None and self._untouched(self._pending):
            self._put_back(self._pending)
        spec = self.service.card(base.presented.deck_id, base.presented.card_key)
        question = showing(spec, self.rng.randrange(2**31), self.lang)
        for _ in range(REDRAWS):
            if asked(question) not in self._prompts:
                break
            question = showing(spec, self.rng.randrange(2**31), self.lang)
        self._prompts.add(asked(question))
        presented = replace(base.presented, question=question, returning=True, practice=True)
        self._pending = _Pending(presented, base.item, False, self.stopwatch(), extra=True)
        return presented

    def _put_back(self, pending: _Pending) -> None:
        """An unanswered question back where it came from, as if it had not been drawn."""
        item = pending.item
        if item.stage in LEARNING_STAGES and item.due is not None:
            self.queue.requeue(item, item.due)
        else:
            self.queue.main.insert(0, item)
        if pending.first:
            self.reached -= 1
            self._shown.discard(item.key)
        self._set_aside[item.key] = (pending.presented.question, self._seeds[item.key])
        self._pending = None

    def _submit_extra(self, pending: _Pending, response: str) -> Outcome:
        """Grade a drawn-again question: counted apart, never recorded or scheduled."""
        verdict = grade(pending.presented.question, response)
        if verdict.correct is None:
            return Outcome(verdict, recorded=False, needs_rating=False)
        pending.response, pending.verdict = response, verdict
        self.extra_answered += 1
        self.extra_correct += int(bool(verdict.correct))
        return Outcome(verdict, recorded=False, needs_rating=False)

    def _leave_extra(self) -> None:
        """Going on from a drawn-again question: the session's own queue comes next."""
        pending = self._pending
        if pending is not None and pending.extra and pending.verdict is not None:
            self._pending = None


__all__ = ["AnotherDraws"]
