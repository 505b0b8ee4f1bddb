"""Ladders: a scenario's steps count for the one-step cards they exercise.

A scenario chains computations that one-step families also ask alone (its "KV
cache per user" step is a ``kv-cache-per-token`` card's computation). When a
learner answers a scenario in a study session, each step's family card that the
learner already has (answered at least once, not suspended) hears of it, as in
Math Academy's implicit repetition:

- **a right step** (or one right from the learner's own wrong earlier figure:
  carried forward, a right method) is a review of that card rated Good at that
  instant, scheduled by FSRS like any other review. It never brings the card
  sooner: when Good now would give an earlier due date than the card has, nothing
  is written. A card already answered (or counted) today is not counted twice.
- **a wrong step** is no lapse of the card: the learner may have slipped on a
  figure of the scenario, and FSRS would read a rating of Again as forgotten. So
  its memory (stability, difficulty, last review) stays as it is and only its due
  date comes forward, to the next study day (as Anki's "set due date" does), where
  the learner's own answer to it rates it.

Both are written to the review log as ``implicit`` (revision 0017): the log keeps
them, undo takes them back with the scenario, and neither counts as an answer to
that card (the class's item statistics, the reviews per hour, true retention).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TypeVar

from studyapp.i18n import t
from studyapp.questions.generators import registered_families
from studyapp.questions.model import Question
from studyapp.questions.scenario import PartVerdict
from studyapp.srs.calendar import day_bounds
from studyapp.srs.scheduler import CardStage, Memory, Rating, format_interval
from studyapp.study.changes import Changes
from studyapp.study.exam import ExamResult
from studyapp.study.held import memory_of
from studyapp.study.views import AnsweredCard

if TYPE_CHECKING:
    from studyapp.store.progress import CardRow, NewState
    from studyapp.study.curriculum import CurriculumCard
    from studyapp.study.ground import StudyGround

T = TypeVar("T")


class Recorder(Protocol):
    """What the credit needs of answering (``study.answering.Answering`` is one)."""

    def record_answer(self, answer: AnsweredCard) -> tuple[int, Memory]: ...

    def or_while_away(self, work: Callable[[], T], meanwhile: T) -> T: ...


class Studied(Protocol):
    """The cards the learner studies (``study.index.CardIndex`` is one)."""

    @property
    def active_cards(self) -> list[CurriculumCard]: ...


EXAM = "exam"
"""The key of a mock exam's answer counted as a review: the paper it was on."""
IMPLICIT = "implicit"
"""The key of an implicit review's params: the scenario card and the steps it came from."""


@dataclass(frozen=True)
class Counted:
    """What one scenario did to one family's card."""

    family: str
    deck_id: str
    card_key: str
    right: bool
    due: datetime
    """When the card comes next (after this, or as it was when nothing was written)."""
    log_id: int | None = None
    """The implicit review written (None: the card was answered today, or Good now would
    have brought it sooner)."""


class WithLadders(Protocol):
    """A study service: it holds the profile's ``Ladders``."""

    @property
    def ladders(self) -> Ladders: ...


def credit_steps(service: WithLadders, deck_id: str, card_key: str, question: Question,
                 parts: Sequence[PartVerdict]) -> tuple[Counted, ...]:
    """``StudyService.credit_steps``: a finished scenario's steps counted for the one-step
    cards they exercise (``Ladders.credit_steps``)."""
    return service.ladders.credit_steps(deck_id, card_key, question, parts)


def waits_for(family: str | None, present: Collection[str], seen: Collection[str]
              ) -> tuple[str, ...]:
    """The families a card of ``family`` waits for before it is new: those it builds on
    (a scenario: those its steps chain) that the learner's decks hold and the learner has
    not seen yet. A family missing from the decks holds nothing back."""
    known = registered_families().get(family) if family else None
    if known is None:
        return ()
    return tuple(p for p in known.prerequisites if p in present and p not in seen)


def step_families(question: Question, parts: Sequence[PartVerdict]) -> dict[str, bool]:
    """Each family the steps exercise → whether every one of its steps was right (a carried
    step is right for its own formula), in step order."""
    found: dict[str, bool] = {}
    for part, verdict in zip(question.parts, parts, strict=False):
        if part.exercises:
            right = bool(verdict.correct) or verdict.carried
            found[part.exercises] = found.get(part.exercises, True) and right
    return found


def short_name(family: str, lang: str) -> str:
    """A family as the learner reads it in one line: its description before any
    parenthesis ("KV cache per token")."""
    known = registered_families().get(family)
    if known is None:
        return family
    text = known.description.get(lang) or known.description.get("en", family)
    return text.split(" (", 1)[0]


def counted_line(counted: Iterable[Counted], now: datetime, lang: str) -> str:
    """"Counted for: KV cache per token (next in 12d); …", or "" when nothing was."""
    items = []
    for c in counted:
        key = "study.counted.right" if c.right else "study.counted.wrong"
        if c.due <= now:  # already due, not "next in 0s"
            key = "study.counted.due"
        items.append(t(key, lang, name=short_name(c.family, lang),
                       interval=format_interval(c.due - now, lang)))
    return t("study.counted.for", lang, cards="; ".join(items)) if items else ""


class Ladders:
    """The scenario → one-step card credit of one profile (a part of the study service)."""

    def __init__(self, ground: StudyGround, index: Studied, answering: Recorder) -> None:
        self._ground = ground
        self._index = index
        self._answering = answering

    def family_cards(self) -> dict[str, list[CurriculumCard]]:
        """The active generated cards of each family, in curriculum order."""
        found: dict[str, list[CurriculumCard]] = {}
        for card in self._index.active_cards:
            if card.generated:
                found.setdefault(card.template, []).append(card)
        return found

    def credit_steps(self, deck_id: str, card_key: str, question: Question,
                     parts: Sequence[PartVerdict]) -> tuple[Counted, ...]:
        """Count a finished scenario's steps for the family cards the learner has; what was
        done to each (nothing while the server of a class database is away)."""
        families = step_families(question, parts)
        if not families or self._ground.read_only:
            return ()
        nothing: tuple[Counted, ...] = ()
        counted = self._answering.or_while_away(
            lambda: self._credit(deck_id, card_key, families), nothing)
        if counted:
            self._ground.changed(Changes.SCHEDULE)
        return counted

    def count_exam(self, result: ExamResult) -> int:
        """A mock exam handed in with "count as reviews": each answered question is a
        review of its card at the hand-in (wholly right → Good, else Again), as in a study
        session; the cards recorded."""
        counted = 0
        lang = self._ground.config.lang
        if self._ground.read_only:
            return counted
        for mark in result.marks:
            if not mark.answered:
                continue
            right = mark.credit >= 1.0
            item = mark.item
            self._answering.record_answer(AnsweredCard(
                item.key[0], item.key[1], item.question,
                Rating.GOOD if right else Rating.AGAIN, right, result.handed_in_at,
                " | ".join(mark.responses), " | ".join(mark.expected), None,
                {EXAM: {"started_at": result.started_at.isoformat()}}, lang))
            counted += 1
        return counted

    def _credit(self, deck_id: str, card_key: str,
                families: dict[str, bool]) -> tuple[Counted, ...]:
        from studyapp.store.progress import Answer, NewState, card_states, record_answer

        ground = self._ground
        profile_id = ground.profile.id
        rows = card_states(ground.store, profile_id)
        cards = self.family_cards()
        now = ground.now()
        today, tomorrow = day_bounds(now, ground.settings.day_rollover_hour)
        counted: list[Counted] = []
        for family, right in families.items():
            row = _held_card(cards.get(family, ()), rows, deck_id)
            if row is None or (deck_id, card_key) == row.key:
                continue
            fields = self._good(row, now, today) if right else _sooner(row, tomorrow)
            if fields is None:
                counted.append(Counted(family, row.deck_id, row.card_key, right, row.due))
                continue
            answer = Answer(
                deck_id=row.deck_id, card_key=row.card_key, post=row.post,
                family=row.family, state=None, reviewed_at=now,
                rating=int(Rating.GOOD if right else Rating.AGAIN), correct=right,
                params={IMPLICIT: {"deck": deck_id, "card": card_key, "right": right}},
                lang=ground.config.lang, uid=uuid.uuid4().hex, implicit=True)
            written: list[NewState] = []

            def state_for(stored: CardRow | None, f: _Fields = fields, r: CardRow = row,
                          w: list[NewState] = written) -> NewState:
                w[:] = [NewState(*f(stored or r))]
                return w[0]

            log_id = record_answer(ground.store, profile_id, answer, state_for)
            counted.append(Counted(family, row.deck_id, row.card_key, right, written[0].due,
                                   log_id))
        return tuple(counted)

    def _good(self, row: CardRow, now: datetime, today: datetime) -> _Fields | None:
        """Good now, unless the card was answered today or Good would bring it sooner."""
        if row.last_review is not None and row.last_review >= today:
            return None
        scheduler = self._ground.scheduler
        after = scheduler.review(memory_of(row), Rating.GOOD, now)
        if after.due is None or after.due <= row.due:
            return None

        def fields(stored: CardRow) -> _Row:
            again = scheduler.review(memory_of(stored), Rating.GOOD, now)
            return (int(again.stage), again.step, again.stability, again.difficulty,
                    max(again.due or now, stored.due), again.last_review or now, again.reps,
                    again.lapses, scheduler.is_leech(again))

        return fields


_Row = tuple[int, int | None, float | None, float | None, datetime, datetime, int, int, bool]
"""A card's new state, field by field (``store.progress.NewState``)."""
_Fields = Callable[["CardRow"], _Row]


def _sooner(row: CardRow, tomorrow: datetime) -> _Fields | None:
    """Due on the next study day, its memory untouched (nothing when it is due sooner)."""
    if row.due <= tomorrow:
        return None

    def fields(stored: CardRow) -> _Row:
        return (stored.stage, stored.step, stored.stability, stored.difficulty,
                min(stored.due, tomorrow), stored.last_review or stored.due, stored.reps,
                stored.lapses, stored.leech)

    return fields


def _held_card(cards: Iterable[CurriculumCard], rows: dict[tuple[str, str], CardRow],
               deck_id: str) -> CardRow | None:
    """The family's card the learner has (answered, not suspended): the one in the
    scenario's own deck first, else the first in curriculum order."""
    held = [rows[c.key] for c in cards
            if c.key in rows and rows[c.key].stage != CardStage.NEW
            and not rows[c.key].suspended]
    return next((r for r in held if r.deck_id == deck_id), held[0] if held else None)


__all__ = ["EXAM", "IMPLICIT", "Counted", "Ladders", "counted_line", "credit_steps", "short_name",
           "step_families", "waits_for"]
