"""Which numbers a card shows: facts converge, methods vary.

A generated card that tests a method (a KV cache, a ring all-reduce) draws new
numbers at every showing, so the learner practises the computation, not one
answer. A card that tests a fact (which memory a chip uses) keeps the chip it
is being learnt on while it is in learning or relearning (a lapse puts it
there): asking about eight chips in nine showings teaches none of them. Its
family says which (``Family.teaches``). A scenario step missed brings its
one-step family's cards forward in the sitting (``bring_forward``).

No exercise twice: a drawn card is drawn again while its family and figures,
or its family and answer, repeat one this profile was shown in the sitting or
in the last week (``draw_marks``, ``ShownDraws``): DeepSeek-V3.1 and Kimi K2 in
FP8 give the same KV cache per token, so once is enough.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from studyapp.catalog.errors import UnknownIdError
from studyapp.questions.generators import FACT, get_family
from studyapp.questions.model import Kind, Question
from studyapp.study.views import LEARNING_STAGES

if TYPE_CHECKING:
    from studyapp.decks import CardSpec
    from studyapp.srs.queue import QueueItem
    from studyapp.study.host import SessionHost


def tests_a_fact(spec: CardSpec) -> bool:
    """A generated card whose family tests a fact (``teaches="fact"``)."""
    if spec.type != "generated" or not spec.generator:
        return False
    try:
        return get_family(spec.generator).teaches == FACT
    except UnknownIdError:
        return False


def kept_seed(item: QueueItem, spec: CardSpec, shown: Mapping[tuple[str, str], int],
              host: SessionHost) -> int | None:
    """The seed to show a fact card with again (its last showing's, this sitting's first),
    or None when the card draws fresh numbers: a method, or a fact not being (re)learnt."""
    if item.stage not in LEARNING_STAGES or not tests_a_fact(spec):
        return None
    if item.key in shown:
        return shown[item.key]
    return host.last_seed(item.deck_id, item.card_key)


def bring_forward(main: list[QueueItem], families: Sequence[str]) -> list[QueueItem]:
    """The main queue with the cards of ``families`` first (in their order): a scenario step
    missed brings its one-step family's cards sooner in the same sitting."""
    wanted = set(families)
    ahead = [item for item in main if item.template in wanted]
    return [*ahead, *(item for item in main if item.template not in wanted)]


REPEAT_WINDOW = timedelta(days=7)
"""An exercise shown is not asked again within this long."""
SMALL_COUNT = 64
"""Whole answers up to this (a GPU count) recur by nature: they mark nothing alone."""


def _figure(value: Any) -> Any:
    """A figure as compared: floats to 4 significant digits, containers item by item."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        return float(f"{value:.4g}") if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): _figure(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_figure(v) for v in value]
    return str(getattr(value, "id", value))


def _answer_mark(question: Question) -> str | None:
    """The answer as a mark, when it tells the exercise apart: a measured number, a
    scenario's steps; not yes/no, a choice among few, or a small whole count."""
    if question.kind is Kind.SCENARIO:
        steps = [_answer_mark(part.question) or "" for part in question.parts]
        return "|".join(steps) if any(steps) else None
    if question.kind is not Kind.NUMERIC or not isinstance(question.answer, int | float):
        return None
    value = float(question.answer)
    if value.is_integer() and abs(value) <= SMALL_COUNT:
        return None
    return f"{value:.3g}"


def draw_marks(question: Question) -> frozenset[str]:
    """What makes two showings of a family the same exercise: the figures its prompt
    gives (``params["given"]``, else its prompt and choices), and its answer under any
    name."""
    family = question.family
    if not family:
        return frozenset()
    given = question.params.get("given") if isinstance(question.params, Mapping) else None
    figures = (json.dumps(_figure(given), sort_keys=True) if given
               else "\n".join([question.prompt, *sorted(question.choices)]))
    marks = {f"{family} given {figures}"}
    answer = _answer_mark(question)
    if answer is not None:
        marks.add(f"{family} answer {answer}")
    return frozenset(marks)


@dataclass
class ShownDraws:
    """The exercises this profile was shown lately (the sitting's among them)."""

    profile: str | None = None
    marks: set[str] = field(default_factory=set)

    @classmethod
    def lately(cls, profile: str, now: datetime) -> ShownDraws:
        """What ``profile`` was shown in the last week (``decks.draw_log``)."""
        from studyapp.decks.draw_log import shown_since

        return cls(profile, shown_since(profile, now - REPEAT_WINDOW))

    def repeats(self, question: Question) -> bool:
        return not self.marks.isdisjoint(draw_marks(question))

    def note(self, question: Question, when: datetime) -> None:
        """The question was shown: kept for the sitting, and logged for the week."""
        marks = draw_marks(question)
        self.marks |= marks
        if self.profile is not None:
            from studyapp.decks.draw_log import record_shown

            record_shown(self.profile, when, marks)


def repeated(questions: Iterable[Question]) -> list[tuple[Question, Question]]:
    """Pairs of questions that are the same exercise (for checks and tests)."""
    seen: dict[str, Question] = {}
    pairs = []
    for question in questions:
        for mark in draw_marks(question):
            if mark in seen:
                pairs.append((seen[mark], question))
                break
        for mark in draw_marks(question):
            seen.setdefault(mark, question)
    return pairs


__all__ = ["REPEAT_WINDOW", "ShownDraws", "bring_forward", "draw_marks", "kept_seed",
           "repeated", "tests_a_fact"]
