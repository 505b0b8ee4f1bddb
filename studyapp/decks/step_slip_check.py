"""A scenario step's authored slips, checked against the step's own numbers.

A slip's ``factor`` is the wrong answer over the right one (counting only K of K
and V halves a cache: 0.5). Written the other way round it names nothing the
learner types, and grading then names a built-in slip, or none, in its place. So
each slip is evaluated with the deck's parameters, draw by draw: the wrong answer
its ``answer`` formula states (when given) must be ``factor`` times the right one,
the answer it predicts must be outside the step's tolerance, and no two slips of a
step may predict the same answer (a slip and another's reciprocal included).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from studyapp.decks.formula import FormulaError, Value, evaluate, format_value, number
from studyapp.decks.problems import ProblemMessage, problem_message
from studyapp.decks.schema import PartSlip
from studyapp.numbers import format_number
from studyapp.questions.formatting import unit_after
from studyapp.questions.model import Tolerance

SAME_FACTOR = 1e-6
"""Two factors this close (relatively) predict one answer."""


@dataclass(frozen=True)
class SlipAt:
    """One slip of a step as written, and its index among the step's slips."""

    index: int
    slip: PartSlip


def _figure(value: float, unit: str | None) -> str:
    shown = format_number(value, "en", sig=4, grouping=False)
    return f"{shown} {unit_after(shown, unit, 'en')}" if unit else shown


def _factor(value: float) -> str:
    return format_number(value, "en", sig=4, grouping=False)


def _drawn(names: Mapping[str, Value]) -> ProblemMessage | str:
    """" (with params_b=8, users=16)": the draw a problem was found with ("" for none)."""
    if not names:
        return ""
    return problem_message("slip_drawn",
                           values=", ".join(f"{k}={format_value(v)}" for k, v in names.items()))


def slip_ratios(slip: PartSlip) -> tuple[float, ...]:
    """The factors a slip names: its own, and the reciprocal when it goes either way."""
    factor = float(slip.factor)
    return (factor, 1 / factor) if slip.symmetric else (factor,)


def same_answer_problems(slips: Sequence[SlipAt]) -> list[tuple[int, ProblemMessage]]:
    """Slips of one step that predict one answer: grading could name neither."""
    found: list[tuple[int, ProblemMessage]] = []
    for later_at, later in enumerate(slips):
        for earlier in slips[:later_at]:
            if any(math.isclose(a, b, rel_tol=SAME_FACTOR)
                   for a in slip_ratios(later.slip) for b in slip_ratios(earlier.slip)):
                found.append((later.index, problem_message(
                    "slip_same_answer", key=later.slip.key, factor=_factor(later.slip.factor),
                    other=earlier.slip.key, other_factor=_factor(earlier.slip.factor))))
                break
    return found


def draw_problem(slip: PartSlip, right: float, env: Mapping[str, Value],
                 names: Mapping[str, Value], unit: str | None,
                 tolerance: Tolerance) -> ProblemMessage | None:
    """What is wrong with ``slip`` for one draw (``env``: params and every step's value)."""
    factor = float(slip.factor)
    if right == 0:
        return None  # no factor of 0 is a wrong answer; another draw tells
    if slip.answer is not None:
        try:
            wrong = number(evaluate(slip.answer, env))
        except FormulaError as exc:
            return problem_message("slip_answer_fails", detail=exc.message, values=_drawn(names))
        ratio = wrong / right
        if math.isclose(ratio, 1, rel_tol=1e-9):
            return problem_message("slip_answer_is_right", answer=slip.answer,
                                   value=_figure(wrong, unit), values=_drawn(names))
        if not math.isclose(ratio, factor, rel_tol=1e-3):
            fields = {"factor": _factor(factor), "wrong": _figure(wrong, unit),
                      "right": _figure(right, unit), "needed": _factor(ratio),
                      "values": _drawn(names)}
            if math.isclose(ratio, 1 / factor, rel_tol=1e-3):
                return problem_message("slip_wrong_way", **fields)
            return problem_message("slip_factor_mismatch", **fields)
    for ratio in slip_ratios(slip):
        slipped = right * ratio
        if tolerance.accepts(right, slipped):
            return problem_message("slip_within_tolerance", factor=_factor(ratio),
                                   wrong=_figure(slipped, unit), right=_figure(right, unit),
                                   tolerance=tolerance.describe("en"), values=_drawn(names))
    return None


__all__ = ["SlipAt", "draw_problem", "same_answer_problems", "slip_ratios"]
