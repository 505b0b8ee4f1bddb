"""One sitting: ask, grade, rate, record, undo.

Recording and undo are in ``session_records`` (``SessionRecords``, which
``StudySession`` extends); a card's showing (its draw, its choices' order,
what its answer logs) in ``showing``, whose names are importable from here too.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING

from studyapp.questions.grading import Verdict, grade
from studyapp.questions.model import Kind, Question
from studyapp.questions.scenario import (
    HARD,
    PartVerdict,
    grade_part,
    scenario_verdict,
    step_outcome,
)
from studyapp.srs.queue import QueueItem, SessionQueue
from studyapp.srs.scheduler import Rating
from studyapp.study.another import AnotherDraws
from studyapp.study.draws import ShownDraws, kept_seed
from studyapp.study.drill import tells
from studyapp.study.phrases import coming_back_text
from studyapp.study.session_records import SessionRecords, _Overrulable, _Pending
from studyapp.study.showing import asked, showing, shuffle_choices
from studyapp.study.views import (
    LEARNING_STAGES,
    Advance,
    NoSuchItem,
    Outcome,
    Presented,
    Response,
    SessionKind,
    SessionTally,
)
from studyapp.text import typed_answer

if TYPE_CHECKING:
    from collections.abc import Callable

    from studyapp.study.host import SessionHost


__all__ = ["REDRAWS", "StudySession", "asked", "showing", "shuffle_choices"]

REDRAWS = 20
"""Fresh draws a card gets when its numbers repeat a prompt already asked this sitting."""


class StudySession(AnotherDraws, SessionRecords):
    """One sitting: ask, grade, rate, record; every answer committed at once.

    After each answer the next card is chosen as Anki does (``SessionQueue``):
    a learning card comes back when it is due, never earlier, unless nothing
    else waits and it is due within the learn-ahead limit. ``[n/N]``: N is the
    number of distinct cards planned when the session started and never
    grows (it shrinks when a card is put off a day with none to take its
    place); returning learning cards are counted apart.
    """

    def __init__(self, service: SessionHost, kind: SessionKind,
                 queue: SessionQueue | Sequence[QueueItem], *, limit: int | None,
                 seed: int | None, lang: str,
                 stopwatch: Callable[[], float] = time.monotonic) -> None:
        self.service = service
        self.stopwatch = stopwatch
        self.kind = kind
        if not isinstance(queue, SessionQueue):
            items = list(queue)
            waiting = [i for i in items if i.stage in LEARNING_STAGES and i.due is not None]
            queue = SessionQueue([i for i in items if i not in waiting], waiting)
        self.queue = queue
        self.limit = limit
        self.lang = lang
        self.rng = random.Random(seed)
        self._seeds: dict[tuple[str, str], int] = {}
        """The draw seed each card was last shown with this sitting."""
        self._set_aside: dict[tuple[str, str], tuple[Question, int]] = {}
        self._prompts: set[tuple[str, frozenset[str]]] = set()
        """Prompts asked this sitting: a drawn card is not asked with the same numbers twice."""
        self.drawn = ShownDraws()
        self.drill_slips: frozenset[str] = frozenset()  # a drill's slip keys (study.drill)
        """Exercises shown this sitting and (set by the service) this past week."""
        self.answered = 0
        self.correct = 0
        self.started_at = service.now()
        horizon = self.started_at + service.learn_ahead
        startable = [*queue.main, *(i for i in queue.learning
                                    if i.due is not None and i.due <= horizon)]
        count = len({i.key for i in startable})
        self._available = count
        """Distinct cards this sitting can still show first: less those put off a day."""
        self._planned_keys = {i.key for i in [*startable, *queue.reserve]}
        """Cards this sitting may show for the first time (the reserve fills in for cards
        put off a day)."""
        self.total = min(count, limit) if limit else count
        self.reached = 0  # planned cards shown at least once (n)
        self._shown: set[tuple[str, str]] = set()
        self._last: tuple[str, str] | None = None
        self._pending: _Pending | None = None
        self._last_log: int | None = None
        self._history: list[tuple[QueueItem, int | None, bool, bool, int]] = []
        self._slips: list[tuple[str, ...]] = []
        self._draws: list[object] = []
        """The random state before each answered showing: undo draws it again the same."""
        self.time_studied_ms = 0
        self._buried_by: dict[int, tuple[set[tuple[str, str]], list[QueueItem]]] = {}
        self._lost_by: dict[int, int] = {}
        self._counted_by: dict[int, tuple[int, ...]] = {}
        """Per answer: how many planned cards it put off with none to take their place."""
        """Per answer (its log id): the siblings it buried, and those it took out of the queue."""
        """Time spent answering, question shown to answer given, summed over this
        session's answers: the measure progress and ``stats`` call time studied."""
        self._overrulable: _Overrulable | None = None

    @cached_property
    def _flags(self) -> dict[tuple[str, str], int]:
        """The learner's flags on this profile's cards, read once, when the first card shows."""
        return self.service.card_flags()

    @property
    def planned(self) -> int:
        """N: distinct cards planned for the session (does not grow)."""
        return self.total

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.reached)

    def _is_return(self, item: QueueItem) -> bool:
        return item.key in self._shown or item.key not in self._planned_keys

    @property
    def learning_left(self) -> int:
        """Returning learning cards that may still be asked now: due within the learn-ahead
        limit (later ones wait for another sitting and are not counted)."""
        horizon = self.service.now() + self.service.learn_ahead
        return sum(1 for item in self.queue.learning
                   if self._is_return(item) and item.due is not None and item.due <= horizon)

    @property
    def shown(self) -> int:
        return self.reached

    def next(self) -> Presented | None:
        """The next question, or None when the session is over."""
        self._leave_extra()
        if self._pending is not None:
            return self._pending.presented
        if self.limit is not None and self.answered >= self.limit:
            return None
        now = self.service.now()
        while True:
            item = self.queue.pop(now, self.service.learn_ahead, self._last)
            if item is None:
                return None
            draws = (self.rng.getstate(), frozenset(self._prompts), frozenset(self.drawn.marks))
            seed = self.rng.randrange(2**31)
            try:
                spec = self.service.card(item.deck_id, item.card_key)
            except NoSuchItem:
                continue
            kept = kept_seed(item, spec, self._seeds, self.service)
            seed = seed if kept is None else kept  # a fact being learnt keeps its numbers
            aside = self._set_aside.pop(item.key, None)  # shown before "another": the same
            try:
                question = showing(spec, seed, self.lang) if aside is None else aside[0]
                seed = seed if aside is None else aside[1]
                for _ in range(REDRAWS if spec.is_template and kept is None and aside is None
                               else 0):
                    if (asked(question) not in self._prompts and not self.drawn.repeats(question)
                            and tells(question, self.drill_slips)):  # a drill: its trap named
                        break
                    seed = self.rng.randrange(2**31)  # asked already (this week): other numbers
                    question = showing(spec, seed, self.lang)
            except Exception as exc:  # a card that cannot be drawn is skipped
                self.service.card_failed(item.deck_id, item.card_key, exc)
                continue
            self._prompts.add(asked(question))
            self.drawn.note(question, now)
            self._seeds[item.key] = seed
            first = not self._is_return(item)
            if first:
                self.reached += 1
            self._shown.add(item.key)
            learning = self.learning_left + (0 if first else 1)
            early = (item.due - now if item.stage in LEARNING_STAGES and item.due is not None
                     and item.due > now else None)
            presented = Presented(self.reached, self.total, item.deck_id, item.card_key,
                                  question, item.stage, returning=not first, learning=learning,
                                  early_by=early, flag=self._flags.get(item.key, 0),
                                  place=question.post or self.service.deck_title_of(
                                      item.deck_id, self.lang))
            self._pending = _Pending(presented, item, first, self.stopwatch(), draws=draws)
            return presented

    def submit(self, response: str) -> Outcome:
        """Grade a response. Wrong → recorded as Again now; right → wait for a rating.

        A scenario takes one step per call, or several steps at once, one a line.
        """
        pending = self._pending
        if pending is None:
            raise RuntimeError("no question is waiting for an answer")
        response = typed_answer(response)  # as graded: what a paste left unseen is not kept
        if pending.extra:
            return self._submit_extra(pending, response)
        part: PartVerdict | None = None
        if pending.presented.question.kind is Kind.SCENARIO:
            remaining = len(pending.presented.question.parts) - len(pending.parts)
            lines = response.strip().splitlines()[:remaining] or [response]
            for line in lines[:-1]:  # several steps at once, one a line (scripts)
                early = self._grade_part(pending, line)
                if isinstance(early, Outcome) and early.verdict.retry:
                    return early
            step = self._grade_part(pending, lines[-1])
            if isinstance(step, Outcome):
                return step
            verdict, part = step
            response = " | ".join(pending.part_responses)
            question = pending.presented.question
            said = step_outcome(question, pending.parts)
            pending.step_missed, pending.weak = said.rating == HARD, said.weak
            self._count_steps(pending)
        else:
            verdict = grade(pending.presented.question, response)
            if verdict.correct is None:
                return Outcome(verdict, recorded=False, needs_rating=False)
        pending.response = response
        pending.verdict = verdict
        pending.duration_ms = int((self.stopwatch() - pending.started) * 1000)
        self._overrulable = None
        if not verdict.correct:
            self._overrulable = _Overrulable(pending, None)
        self._answered(pending)
        if self.practice:  # cramming: counted for the session, never scheduled
            self._record(Rating.GOOD if verdict.correct else Rating.AGAIN)
            return Outcome(verdict, recorded=False, needs_rating=False,
                           can_overrule=not verdict.correct, part=part)
        if not verdict.correct:
            intervals = self.intervals()  # Again's is the one applied; shown on Continue
            self._record(Rating.AGAIN)
            self._overrulable = _Overrulable(pending, self._last_log)
            return Outcome(verdict, recorded=True, needs_rating=False, can_overrule=True,
                           intervals=intervals, part=part, counted=pending.counted)
        intervals = self.intervals()
        if pending.presented.question.kind is not Kind.RECALL:  # a recall says nothing yet
            self._hold(pending)
        return Outcome(verdict, recorded=False, needs_rating=True,
                       intervals=intervals, max_rating=self.max_rating, part=part,
                       capped_by_step=pending.step_missed and not pending.looked_at_post,
                       capped_by_method=bool(pending.hinted),
                       counted=pending.counted)

    def _hold(self, pending: _Pending) -> None:
        """Keep the right answer in the store until it is rated, so no way out loses it."""
        answer = self._answer(pending, min(Rating.GOOD, self.max_rating), self.service.now())
        before, pending.held_id = pending.held_id, self.service.hold_answer(answer)
        if before is not None:  # a scenario's steps held as Again since a wrong step
            self.service.release_answer(before)

    def settle(self) -> Rating | None:
        """What the learner said about the question on screen is recorded as they leave it.

        Leaving the question, the end of plain input, closing the tab, ctrl+q
        and SIGTERM all come here. A right answer waiting for its rating is
        recorded as Enter would (Good, or Hard when the post was open). A
        scenario left after a wrong step is recorded as the steps answered:
        Again, with their answers and slips, as a finished scenario would be.
        A self-graded card whose answer was shown says nothing until it is
        rated (as in Anki): it is not recorded and stays due; nor is a
        scenario whose steps so far are all right. Returns the rating
        recorded, or None when nothing was.
        """
        pending = self._pending
        if pending is None:
            return None
        if pending.extra:  # drawn again after a miss: practice, nothing to record
            self._pending = None
            return None
        if pending.verdict is None:
            return self._settle_steps(pending)
        if not pending.verdict.correct:
            return None
        if pending.presented.question.kind is Kind.RECALL:
            return None
        rating = min(Rating.GOOD, self.max_rating)
        self._record(rating)
        return rating

    @property
    def unsaid(self) -> bool:
        """A wrong step of an unfinished scenario is waiting: leaving records it as Again."""
        pending = self._pending
        return (pending is not None and pending.verdict is None
                and any(not step.correct for step in pending.parts))

    def _steps_said(self, pending: _Pending) -> None:
        """The verdict, response and time of a scenario left at its current step."""
        question = pending.presented.question
        pending.verdict = scenario_verdict(question, pending.parts, pending.part_responses)
        pending.response = " | ".join(pending.part_responses)
        pending.duration_ms = int((self.stopwatch() - pending.started) * 1000)

    def _settle_steps(self, pending: _Pending) -> Rating | None:
        """An unfinished scenario with a wrong step: Again, logged as the steps answered."""
        if not self.unsaid:
            return None
        self._steps_said(pending)
        self._record(Rating.AGAIN)
        return Rating.AGAIN

    def _hold_steps(self, pending: _Pending) -> None:
        """Keep the steps answered, a wrong one among them, as the Again leaving would
        record, so a killed app loses them no more than a right answer (``store.held``)."""
        self._steps_said(pending)
        answer = self._answer(pending, Rating.AGAIN, self.service.now())
        pending.verdict = pending.response = pending.duration_ms = None
        before, pending.held_id = pending.held_id, self.service.hold_answer(answer)
        if before is not None:
            self.service.release_answer(before)

    def _grade_part(self, pending: _Pending,
                    response: str) -> Outcome | tuple[Verdict, PartVerdict]:
        """One step of a scenario: an Outcome while steps remain, else the whole verdict.

        A scenario is one card: nothing is recorded until its last step; then the
        steps judge it (``scenario.step_outcome``): all right, the learner rates it; one
        step in a few wrong, Hard at most; half the steps or more wrong, Again.
        """
        question = pending.presented.question
        index = len(pending.parts)
        step = grade_part(question, index, response, pending.parts,
                          hinted=index in pending.hinted)
        if step.retry:
            return Outcome(step.verdict, recorded=False, needs_rating=False, part=step,
                           parts_left=len(question.parts) - index)
        pending.parts.append(step)
        pending.part_responses.append(response)
        left = len(question.parts) - index - 1
        if left and self.unsaid and not self.practice:
            self._hold_steps(pending)
        if left:
            return Outcome(step.verdict, recorded=False, needs_rating=False, part=step,
                           parts_left=left)
        return scenario_verdict(question, pending.parts, pending.part_responses), step

    @property
    def part_index(self) -> int | None:
        """The scenario step now asked (0-based), or None when no scenario waits for one."""
        pending = self._pending
        if pending is None or pending.verdict is not None:
            return None
        if pending.presented.question.kind is not Kind.SCENARIO:
            return None
        return len(pending.parts)

    @property
    def parts_done(self) -> tuple[PartVerdict, ...]:
        """The steps of the scenario on screen graded so far."""
        pending = self._pending
        return tuple(pending.parts) if pending is not None else ()

    def show_method(self) -> str | None:
        """The method of the scenario step now asked; looking caps the rating at Hard."""
        index = self.part_index
        pending = self._pending
        if index is None or pending is None:
            return None
        pending.hinted.add(index)
        pending.looked_at_post = True
        return pending.presented.question.parts[index].method

    @property
    def max_rating(self) -> Rating:
        """Hard once the learner opened the post while the question was asked."""
        pending = self._pending
        capped = pending is not None and (pending.looked_at_post or pending.step_missed)
        return Rating.HARD if capped else Rating.EASY

    def look_at_post(self) -> bool:
        """The learner opened the post before answering: this answer is rated Hard at best.

        Looking is allowed (the post is there to learn from); it only caps the
        rating, so the schedule does not trust a recall the post supplied.
        Returns True when the cap applies (an unanswered question is waiting).
        """
        pending = self._pending
        if pending is None or pending.verdict is not None:
            return False
        pending.looked_at_post = True
        return True

    @property
    def can_overrule(self) -> bool:
        return self._overrulable is not None

    def overrule(self) -> bool:
        """"I was right": the last wrong answer becomes a right one rated Hard, marked overridden.

        As on a self-graded Anki card, the learner has the last word; the log
        keeps the flag, so reports can tell a graded answer from an overruled
        one. Only the answer just graded can be overruled: on its feedback, or
        (plain mode) at the next question's prompt, before that one is answered.
        """
        held = self._overrulable
        if held is None or held.pending.verdict is None:
            return False
        current = self._pending if self._pending is not held.pending else None
        if current is not None and current.verdict is not None:
            return False
        if held.log_id is not None and not self.service.undo_answer(held.log_id):
            return False
        self._overrulable = None
        if self._history:
            self._history.pop()
            self._slips.pop()
            self._draws.pop()
        self.answered -= 1
        self.time_studied_ms -= held.pending.duration_ms or 0
        key = (held.pending.presented.deck_id, held.pending.presented.card_key)
        self.queue.drop({key})
        verdict = held.pending.verdict
        held.pending.verdict = replace(verdict, correct=True)
        self._pending = held.pending
        buried = self._buried_by.pop(held.log_id, None) if held.log_id is not None else None
        self._record(Rating.GOOD if self.practice else Rating.HARD, overridden=True)
        if buried is not None and self._last_log is not None:  # the new answer buried them
            siblings, dropped = self._buried_by.get(self._last_log, (set(), []))
            self._buried_by[self._last_log] = (siblings | buried[0], dropped + buried[1])
            self._lost_by[self._last_log] = (self._lost_by.get(self._last_log, 0)
                                             + self._lost_by.pop(held.log_id or 0, 0))
        self._pending = current  # the question on screen stays asked
        return True

    def intervals(self) -> dict[Rating, timedelta]:
        """Next interval for each rating of the pending question."""
        pending = self._pending
        if pending is None:
            return {}
        return self.service.intervals(pending.presented.deck_id, pending.presented.card_key)

    def rate(self, rating: Rating = Rating.GOOD) -> None:
        """Record the learner's rating of a right answer (Again if they guessed)."""
        pending = self._pending
        if pending is None or pending.verdict is None or not pending.verdict.correct:
            raise RuntimeError("no right answer is waiting for a rating")
        if pending.presented.question.kind is Kind.RECALL and rating is Rating.AGAIN:
            pending.verdict = replace(pending.verdict, correct=False)  # forgot: a lapse
        self._record(min(rating, self.max_rating))

    # -- one call per intent: what a face sends to the service thread -----------

    def advance(self, first: Callable[[StudySession], object] | None = None) -> Advance | None:
        """``first(self)`` (a rating, an undo), then the next question, with the counts.

        A falsy result of ``first`` (nothing undone) returns None and asks nothing.
        """
        if first is not None and not first(self):
            return None
        presented = self.next()
        return Advance(presented, self.can_undo, self.answered, self.correct,
                       self.notices())

    def respond(self, response: str) -> Response:
        """Submit an answer: what it did, and whether undo may now take it back."""
        outcome = self.submit(response)
        return Response(outcome, self.can_undo, self.notices())

    def notices(self) -> tuple[str, ...]:
        """What the service has to say since the last call (the server away, answers sent)."""
        return tuple(self.service.take_notices())

    def finish(self) -> tuple[str, ...]:
        """The sitting is over: answers kept while the server was away are sent if it is
        back; the notices not said yet (how many were sent, or are still kept)."""
        if not self.practice:
            self.service.send_kept_answers(finishing=True)
        return self.notices()

    def tally(self, lang: str) -> SessionTally:
        """The summary of the sitting: counts, time, and when its cards come back."""
        notices = self.finish()
        waits = () if self.practice else self.comes_back()
        text = None if self.practice else coming_back_text(self.service.coming_back(), lang)
        return SessionTally(self.answered, self.correct, self.elapsed, waits, self.practice,
                            text, self.time_studied_ms, notices + self.notices(),
                            self.slips_made())
