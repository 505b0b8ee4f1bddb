"""What a question is once instantiated: plain frozen data, any language.

Static cards, deck templates and generator families all end up as a
``Question``; the UIs, grading and storage only ever see this shape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from studyapp.numbers import format_number


class Kind(StrEnum):
    CHOICE = "choice"
    TRUEFALSE = "truefalse"
    NUMERIC = "numeric"
    TEXT = "text"
    RECALL = "recall"
    """Self-graded: the answer is shown and the learner rates their own recall."""
    SCENARIO = "scenario"


@dataclass(frozen=True)
class Tolerance:
    """How far a numeric answer may be from the expected value.

    ``relative`` is a fraction (0.02 = 2%); ``absolute`` is in the
    question's unit. Exactly one is set.
    """

    relative: float | None = 0.02
    absolute: float | None = None

    def accepts(self, expected: float, given: float) -> bool:
        if self.absolute is not None:
            return abs(given - expected) <= self.absolute * (1 + 1e-9)
        rel = self.relative or 0.0
        return abs(given - expected) <= abs(expected) * rel * (1 + 1e-9) + 1e-300

    def describe(self, lang: str = "en") -> str:
        """``±0.5%`` in English, ``±0,5 %`` in Spanish (decimal comma, space before %)."""

        if self.absolute is not None:
            return f"±{format_number(self.absolute, lang, sig=6)}"
        figure = format_number((self.relative or 0.0) * 100, lang, sig=6)
        return f"±{figure} %" if lang == "es" else f"±{figure}%"


DEFAULT_TOLERANCE = Tolerance()


SlipRatio = float | Callable[[Mapping[str, Any]], float | None]
"""A slip's answer over the right one: a number, or one computed from the instance's params
(None when the slip cannot happen for that instance, e.g. no K/V pair under MLA)."""


@dataclass(frozen=True)
class Slip:
    """A likely wrong turn and the factor it leaves in the answer (Numbas' alternative answers).

    ``ratio`` is the slipped answer divided by the right one (0.5: counted only
    K of K and V). ``symmetric`` also matches the inverse ratio, for slips that
    go either way (GB read as GiB or GiB as GB). ``key`` names the feedback:
    ``grading.slip.<key>`` in the i18n files.
    """

    key: str
    ratio: SlipRatio
    symmetric: bool = False
    message: str | None = None
    """A deck author's own words for this slip (else ``grading.slip.<key>``)."""

    def resolve(self, params: Mapping[str, Any]) -> Slip | None:
        """This slip with its ratio for one instance, or None when it does not apply."""
        try:
            ratio = self.ratio(params) if callable(self.ratio) else self.ratio
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            return None
        if ratio is None or not 0 < ratio < float("inf") or abs(ratio - 1) < 0.01:
            return None  # no slip shows as a factor of 1 (FP8 is 1 byte, a ring of 2)
        return Slip(self.key, float(ratio), self.symmetric, self.message)


Recompute = Callable[[Mapping[str, Any]], "float | bool | str"]
"""A step's answer from the scenario's shared params and the earlier steps' values by name."""


@dataclass(frozen=True)
class Part:
    """One graded step of a scenario: a numeric or choice question of its own.

    ``question.answer`` is the true value (computed from the true earlier
    steps); ``recompute`` gives the value this step takes from other earlier
    values, so a step built on the learner's own wrong result can be marked
    right from it (error carried forward). ``uses`` names the earlier steps
    it builds on; ``method`` is the step's hint, ``solution`` its worked line.
    """

    name: str
    question: Question
    uses: tuple[str, ...] = ()
    recompute: Recompute | None = field(default=None, compare=False)
    method: str = ""
    solution: str = ""
    like: str = ""
    """The one-step family this step computes as (its slips; brought back when it is missed)."""
    rounding: Recompute | None = field(default=None, compare=False)
    """The value a rounding rule the step states also gives, from the earlier values."""
    exercises: str = ""
    """The one-step family whose computation the step asks ("" none): a right step counts
    as a review of that family's card, a wrong one brings it back (``study.ladders``)."""


@dataclass(frozen=True)
class Question:
    """One instantiated question, ready to show and grade.

    ``answer`` by kind: numeric → float in ``unit``; choice → the text of the
    right choice (one of ``choices``); truefalse → bool; text → the canonical
    string (``accept`` lists more accepted strings).
    """

    kind: Kind
    post: str
    prompt: str
    explanation: str
    answer: float | bool | str
    choices: tuple[str, ...] = ()
    accept: tuple[str, ...] = ()
    unit: str | None = None
    tolerance: Tolerance | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    family: str | None = None
    seed: int | None = None
    lang: str = "en"
    conversion: bool = False
    """The question is a unit conversion (Gb/s → GB/s, GB → GiB): the answer must be
    written in ``unit`` (or as a bare number), never in the unit the prompt gives."""
    slips: tuple[Slip, ...] = ()
    """Slips this instance can show, ratios resolved (see :class:`Slip`)."""
    choice_feedback: tuple[tuple[str, str], ...] = ()
    """(choice text, what to tell a student who picks it): a deck's per-choice feedback."""
    yes_no: bool = False
    """A true/false question asked as a question ("Does it fit?"), not stated as a claim:
    its two answers read Yes and No rather than True and False."""

    given: tuple[str, ...] = ()
    """The card's Given block: lines of figures and conventions it states before it asks
    (a model's shape, a chip's figures, the convention in force), shown above the prompt."""

    parts: tuple[Part, ...] = ()
    """A scenario's graded steps, in order (``kind`` is ``scenario``); empty otherwise."""

    @property
    def answer_words(self) -> tuple[str, str]:
        """The words for a true/false question's two answers: ``yes``/``no`` or ``true``/``false``
        (the ends of the ``grading.*`` and ``tui.question.*_option`` string keys)."""
        return ("yes", "no") if self.yes_no else ("true", "false")

    @property
    def kind_name(self) -> str:
        """The kind as a learner reads it: a yes/no question is not "true or false"
        (the end of the ``kind.*`` and ``tui.kind.*`` string keys)."""
        return "yesno" if self.yes_no else self.kind.value

    @property
    def answer_index(self) -> int | None:
        """0-based index of the right choice, for choice questions."""
        if self.kind is Kind.CHOICE and isinstance(self.answer, str):
            return self.choices.index(self.answer)
        return None
