"""What a sitting records: answers written, siblings buried, and undo taking them back.

``StudySession`` asks and grades; the methods here record what it graded through
the service (``SessionHost``), bury the day's siblings, and undo the last answer
exactly (the same draw, the siblings back, the counts restored).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from studyapp.questions.grading import Verdict
from studyapp.questions.misconceptions import misconception_of
from studyapp.questions.model import Question
from studyapp.questions.scenario import PartVerdict, step_outcome
from studyapp.srs.deck_options import deck_rules
from studyapp.srs.queue import QueueItem, SessionQueue
from studyapp.srs.scheduler import CardStage, Rating
from studyapp.study.draws import ShownDraws, bring_forward
from studyapp.study.ladders import counted_line
from studyapp.study.showing import _logged_params, _wrong_answer_notes, avoided_traps
from studyapp.study.views import (
    ANSWER_TRAPS,
    LEARNING_STAGES,
    SCENARIO_OUTCOME,
    SCENARIO_PARTS,
    AnsweredCard,
    Presented,
    SessionKind,
)

if TYPE_CHECKING:
    from studyapp.study.host import SessionHost


def _slipped_into(pending: _Pending) -> tuple[str, ...]:
    """The misconceptions an answer showed: its first named slip, or each wrong step's."""
    verdict = pending.verdict
    if pending.parts:
        named = [p.verdict.slips[0] for p in pending.parts
                 if not p.correct and not p.carried and p.verdict.slips]
    else:
        named = list(verdict.slips[:1]) if verdict is not None and not verdict.correct else []
    return tuple(misconception_of(slip).key for slip in named)


@dataclass
class _Pending:
    presented: Presented
    item: QueueItem
    first: bool  # the first showing of a planned card (counted in n)
    started: float
    draws: object = None  # the session's random state before this showing was drawn
    response: str | None = None
    verdict: Verdict | None = None
    looked_at_post: bool = False
    duration_ms: int | None = None
    held_id: int | None = None
    """A right answer's copy in the store (``store.held``) until its rating is recorded."""
    parts: list[PartVerdict] = field(default_factory=list)
    """A scenario's steps graded so far, in order."""
    part_responses: list[str] = field(default_factory=list)
    hinted: set[int] = field(default_factory=set)
    """Steps whose method the learner looked at (each caps the rating at Hard)."""
    step_missed: bool = False
    """A finished scenario passed with a step wrong: rated Hard at most."""
    weak: tuple[str, ...] = ()
    """The one-step families of a finished scenario's wrong steps: asked sooner."""
    extra: bool = False
    """Drawn again after a miss (``another``): graded, never recorded."""
    counted: str = ""
    """What a finished scenario's steps counted for, as the faces show it."""
    counted_logs: tuple[int, ...] = ()
    """The reviews they gave other cards (``study.ladders``): undone with the scenario."""


@dataclass
class _Overrulable:
    """The last wrong answer, kept so the learner can say "I was right"."""

    pending: _Pending
    log_id: int | None


class SessionRecords:
    """The recording half of ``StudySession`` (its state is set up there)."""

    service: SessionHost
    kind: SessionKind
    queue: SessionQueue
    limit: int | None
    lang: str
    rng: random.Random
    started_at: datetime
    answered: int
    correct: int
    total: int
    reached: int
    time_studied_ms: int
    _prompts: set[tuple[str, frozenset[str]]]
    drawn: ShownDraws
    _available: int
    _shown: set[tuple[str, str]]
    _last: tuple[str, str] | None
    _pending: _Pending | None
    _another_of: _Pending | None
    _last_log: int | None
    _history: list[tuple[QueueItem, int | None, bool, bool, int]]
    _slips: list[tuple[str, ...]]
    """The misconceptions each recorded answer slipped into (in step with ``_history``)."""
    _draws: list[object]
    _buried_by: dict[int, tuple[set[tuple[str, str]], list[QueueItem]]]
    _lost_by: dict[int, int]
    _counted_by: dict[int, tuple[int, ...]]
    """Per recorded scenario (its log id): the reviews its steps gave other cards."""
    _overrulable: _Overrulable | None

    @property
    def practice(self) -> bool:
        return self.kind is SessionKind.PRACTICE

    def _unshow(self, item: QueueItem, first: bool) -> None:
        if first:
            self.reached -= 1
            self._shown.discard(item.key)

    def skip(self) -> None:
        """Put the pending question back at the end of the queue, unrecorded."""
        pending = self._pending
        if pending is None:
            return
        self._pending = None
        if pending.held_id is not None:
            self.service.release_answer(pending.held_id)
        self._uncount(pending.counted_logs)
        self._unshow(pending.item, pending.first)
        self.queue.main.append(pending.item)

    def _count_steps(self, pending: _Pending) -> None:
        """A finished scenario of a study session counts each step for the one-step card it
        exercises (practice and "another" count for nothing)."""
        if self.practice or pending.extra:
            return
        presented = pending.presented
        counted = self.service.credit_steps(presented.deck_id, presented.card_key,
                                            presented.question, pending.parts)
        pending.counted = counted_line(counted, self.service.now(), self.lang)
        pending.counted_logs = tuple(c.log_id for c in counted if c.log_id is not None)
        # a card just reviewed by a right step is no longer due: not asked again this sitting
        self.queue.drop({(c.deck_id, c.card_key) for c in counted
                         if c.right and c.log_id is not None})

    def _uncount(self, logs: tuple[int, ...]) -> None:
        for log_id in reversed(logs):
            self.service.undo_answer(log_id)

    def _answer(self, pending: _Pending, rating: Rating, now: datetime, *,
                overridden: bool = False) -> AnsweredCard:
        """What the service records for ``pending`` answered with ``rating`` at ``now``."""
        assert pending.verdict is not None
        presented = pending.presented
        question = presented.question
        params = {**_logged_params(question), **_wrong_answer_notes(question, pending.verdict)}
        if pending.parts:  # a scenario logs each step's answer, verdict and slip
            params = {**params, SCENARIO_PARTS: [
                step.record(text)
                for step, text in zip(pending.parts, pending.part_responses, strict=True)]}
            if len(pending.parts) == len(question.parts):
                params[SCENARIO_OUTCOME] = step_outcome(question, pending.parts).record()
        traps = avoided_traps(question, pending.verdict, pending.parts)
        if traps:
            params[ANSWER_TRAPS] = traps
        return AnsweredCard(presented.deck_id, presented.card_key, question, rating,
                            bool(pending.verdict.correct), now, pending.response,
                            pending.verdict.expected, pending.duration_ms, params, self.lang,
                            overridden, pending.looked_at_post, pending.held_id)

    def _record(self, rating: Rating, *, overridden: bool = False) -> None:
        pending = self._pending
        assert pending is not None and pending.verdict is not None
        correct = bool(pending.verdict.correct)
        self.answered += 1
        self.correct += int(correct)
        spent = pending.duration_ms or 0
        self.time_studied_ms += spent
        self._pending = None
        self._last = pending.item.key
        if self.practice:
            self._history.append((pending.item, None, correct, pending.first, spent))
            self._slips.append(_slipped_into(pending))
            self._draws.append(pending.draws)
            return
        answer = self._answer(pending, rating, self.service.now(), overridden=overridden)
        self._last_log, after = self.service.record_answer(answer)
        if pending.counted_logs:
            self._counted_by[self._last_log] = pending.counted_logs
        self._history.append((pending.item, self._last_log, correct, pending.first, spent))
        self._slips.append(_slipped_into(pending))
        self._draws.append(pending.draws)
        if after.stage in LEARNING_STAGES and after.due is not None:
            self.queue.requeue(pending.item._replace(stage=after.stage), after.due)
        else:
            self.queue.drop({pending.item.key})
        self._bury_siblings(pending.item, self._last_log, pending.presented.question)
        if pending.weak:  # a step's own kind of card comes next in this sitting
            self.queue.main = bring_forward(self.queue.main, pending.weak)

    def slips_made(self) -> tuple[tuple[str, int, int], ...]:
        """(misconception, slips, cards) for this sitting's answers, most slips first."""
        cards: dict[str, list[tuple[str, str]]] = {}
        for (item, *_), keys in zip(self._history, self._slips, strict=False):
            for key in keys:
                cards.setdefault(key, []).append(item.key)
        rows = [(key, len(on), len(set(on))) for key, on in cards.items()]
        return tuple(sorted(rows, key=lambda r: (-r[1], r[0])))

    def _bury_siblings(self, item: QueueItem, log_id: int, question: Question) -> None:
        """Cards sharing this one's fact wait until the next study day (not those in learning).

        So do new written cards whose answer a drawn question has just stated (its chip's
        "141 GB", in the prompt or the worked solution): the numbers come first, the
        written card on the same figure another day.
        """
        siblings = self.service.siblings(item.deck_id, item.card_key)
        rules = deck_rules(self.service.settings, item.deck_id)
        if siblings and not (rules.bury_new and rules.bury_reviews):  # the deck's bury options
            new = {i.key for i in self.queue.main if i.stage is CardStage.NEW}
            siblings = {key for key in siblings
                        if (rules.bury_new if key in new else rules.bury_reviews)}
        if item.generated:
            stated = self.service.given_away(item.deck_id,
                                             (question.prompt, question.explanation), self.lang)
            put_off = {i.key for i in self.queue.main
                       if i.key in stated and i.stage is CardStage.NEW}
            if put_off:
                self.service.put_off_today(put_off)  # never answered: no row to bury yet
                siblings |= put_off
        siblings -= {i.key for i in self.queue.learning}
        if not siblings:
            return
        self.service.bury_for_today(siblings)
        dropped = [i for i in self.queue.main if i.key in siblings]
        before = len(self.queue.main)
        self.queue.drop(siblings)
        self._buried_by[log_id] = (siblings, dropped)
        lost = before - len(self.queue.main)  # the reserve may have filled some places
        if lost:
            self._lost_by[log_id] = lost
            self._recount(-lost)

    def _recount(self, change: int) -> None:
        """N of ``[n/N]`` follows the cards the sitting can still show (never below n)."""
        self._available += change
        available = min(self._available, self.limit) if self.limit else self._available
        self.total = max(self.reached, available)

    def _unbury_siblings(self, log_id: int) -> None:
        """Undo of an answer: the siblings it buried are back today, and in this session."""
        siblings, dropped = self._buried_by.pop(log_id, (set(), []))
        self._recount(self._lost_by.pop(log_id, 0))
        if not siblings:
            return
        self.service.unbury(sorted(siblings))
        waiting = {i.key for i in self.queue}
        self.queue.main.extend(i for i in dropped if i.key not in waiting)

    @property
    def can_undo(self) -> bool:
        return bool(self._history) and (self._pending is None
                                        or self._pending.verdict is None)

    def undo(self) -> bool:
        """Take back the last recorded answer: its card state and log are restored."""
        if not self._history:
            return False
        self._overrulable = None
        self._another_of = None
        item, log_id, correct, first, spent = self._history[-1]
        if log_id is not None and not self.service.undo_answer(log_id):
            return False
        self._uncount(self._counted_by.pop(log_id or 0, ()))
        self._history.pop()
        self._slips.pop()
        draws = self._draws.pop()
        if log_id is not None:
            self._unbury_siblings(log_id)
        self.answered -= 1
        self.time_studied_ms -= spent
        self.correct -= int(correct)
        self.queue.drop({item.key})
        if self._pending is not None:
            pending = self._pending
            self._pending = None
            if pending.held_id is not None:  # an unfinished scenario's steps: asked again
                self.service.release_answer(pending.held_id)
            self._unshow(pending.item, pending.first)
            self.queue.main.insert(0, pending.item)
        self._unshow(item, first)
        if item.stage in LEARNING_STAGES and not first:
            self.queue.learning.insert(0, item)  # due again now: asked next
        else:
            self.queue.main.insert(0, item)
        if draws is not None:  # the same instance and choice order as when it was answered
            state, prompts, marks = cast(
                "tuple[Any, frozenset[tuple[str, frozenset[str]]], frozenset[str]]", draws)
            self.rng.setstate(state)
            self._prompts = set(prompts)  # the prompts asked before it, as then
            self.drawn.marks = set(marks)  # and the exercises shown before it
        self._last = None
        return True

    @property
    def elapsed(self) -> timedelta:
        return self.service.now() - self.started_at

    def comes_back(self) -> tuple[timedelta, ...]:
        """How long until each card answered in this session is due (stored due times)."""
        now = self.service.now()
        keys = dict.fromkeys(entry[0].key for entry in self._history if entry[1])
        return tuple(sorted(max(timedelta(0), due - now)
                            for due in self.service.due_times(keys)))
