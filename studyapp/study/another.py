"""Another one now: after a miss on a method card, the same family with fresh numbers.

A method card (a generated computation, not a fact being learnt, not a
scenario) missed in a session can be asked again at once with other numbers,
as often as the learner wants: practice, never recorded or scheduled, and
the session goes on after it. Quiz users ask for it right after a miss
(PrairieLearn's "new variant", WeBWorK's "try another").
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from studyapp.questions.grading import grade
from studyapp.questions.model import Kind
from studyapp.study.draws import tests_a_fact
from studyapp.study.model import Outcome, Presented
from studyapp.study.session_records import _Pending
from studyapp.study.showing import asked, showing

if TYPE_CHECKING:
    import random

    from studyapp.study.host import SessionHost

REDRAWS = 20
"""Fresh draws tried for numbers not asked yet this sitting."""


class AnotherDraws:
    """The part of a sitting that asks a missed method card again with other numbers."""

    service: SessionHost
    rng: random.Random
    lang: str
    _pending: _Pending | None
    _prompts: set[tuple[str, frozenset[str]]]
    _another_of: _Pending | None = None
    """The missed method card's showing that ``another`` draws again (None: none)."""
    extra_answered: int = 0
    extra_correct: int = 0

    def _missed(self, pending: _Pending) -> None:
        """A wrong answer was recorded: ``another`` may draw its card again if it is a method."""
        self._another_of = pending if self._is_method(pending) else None

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
        """A missed method card can be drawn again now (nothing else is waiting)."""
        pending = self._pending
        waiting = pending is not None and not (pending.extra and pending.verdict is not None)
        return self._another_of is not None and not waiting

    def another(self) -> Presented:
        """The missed card's family with fresh numbers, in practice; answered with ``submit``."""
        base = self._another_of
        if base is None or not self.can_another:
            raise RuntimeError("no missed method card to draw again")
        spec = self.service.card(base.presented.deck_id, base.presented.card_key)
        question = showing(spec, self.rng.randrange(2**31), self.lang)
        for _ in range(REDRAWS):
            if asked(question) not in self._prompts:
                break
            question = showing(spec, self.rng.randrange(2**31), self.lang)
        self._prompts.add(asked(question))
        presented = replace(base.presented, question=question, returning=True, practice=True)
        self._pending = _Pending(presented, base.item, False, time.monotonic(), extra=True)
        return presented

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
