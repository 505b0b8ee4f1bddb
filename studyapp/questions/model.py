"""What a question is once instantiated: plain frozen data, any language.

Static cards, deck templates and generator families all end up as a
``Question``; the UIs, grading and storage only ever see this shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    CHOICE = "choice"
    TRUEFALSE = "truefalse"
    NUMERIC = "numeric"
    TEXT = "text"


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

    def describe(self) -> str:
        if self.absolute is not None:
            return f"±{self.absolute:g}"
        return f"±{(self.relative or 0.0) * 100:g}%"


DEFAULT_TOLERANCE = Tolerance()


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

    @property
    def answer_index(self) -> int | None:
        """0-based index of the right choice, for choice questions."""
        if self.kind is Kind.CHOICE and isinstance(self.answer, str):
            return self.choices.index(self.answer)
        return None
