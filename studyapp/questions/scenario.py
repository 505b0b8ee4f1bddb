"""Scenarios: a chain of graded steps, marked with error carried forward.

A scenario is one :class:`~studyapp.questions.model.Question` of kind
``scenario`` whose ``parts`` are numeric or choice questions of their own.
Each step is graded on its own (unit, tolerance, named slips). A step that
builds on earlier ones is also graded against the learner's own earlier
answers (Numbas' "error carried forward"): a right method on a wrong input
is told so, "right from your 42 GB; the true value was 43 GB". The scenario
as a whole passes only when every step is right against the true values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from studyapp.i18n import t
from studyapp.questions.grading import Verdict, expected_display, grade, numeric_value
from studyapp.questions.model import Kind, Part, Question, Slip, Tolerance

Value = float | bool | str
Compute = Callable[[Mapping[str, Any]], Value]


@dataclass(frozen=True)
class Step:
    """How one step of a scenario family is computed: from the shared params and earlier steps.

    ``compute`` reads an environment holding the shared numbers and every
    earlier step's value by name; the true chain runs it on the true values,
    error carried forward runs it on the learner's.
    """

    name: str
    compute: Compute
    unit: str | None = None
    uses: tuple[str, ...] = ()
    tolerance: Tolerance = field(default_factory=lambda: Tolerance(relative=0.02))
    choices: tuple[str, ...] = ()
    slips: tuple[Slip, ...] = ()
    like: str = ""
    """The one-step family this step computes as: it declares that family's slips, so a
    step names the same slips as the card that asks it alone."""
    rounding: Compute | None = None
    """The value a rounding rule the step states also gives (floor, then double: 138 where
    the exact floor is 139): accepted, with a note."""
    exercises: str | None = None
    """The one-step family whose computation this step asks (a right step is a review of
    that family's card, a wrong one brings it back); ``NO_FAMILY`` when no family asks it
    alone; None: not declared (a generator's scenario must declare every step)."""


NO_FAMILY = ""
"""A step no one-step family asks alone: it counts for no other card."""


def run_chain(steps: Sequence[Step], shared: Mapping[str, Any]) -> dict[str, Any]:
    """The true values: each step computed from the shared params and the true earlier steps."""
    env: dict[str, Any] = dict(shared)
    for step in steps:
        env[step.name] = step.compute(env)
    return env


class _Reading(dict[str, Any]):
    """A step's environment that notes every name its computation reads."""

    def __init__(self, env: Mapping[str, Any]) -> None:
        super().__init__(env)
        self.read: list[str] = []

    def __getitem__(self, key: str) -> Any:
        self.read.append(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.append(key)
        return super().get(key, default)


def step_inputs(step: Step, env: Mapping[str, Any], shared: Mapping[str, Any]) -> dict[str, float]:
    """The shared figures ``step`` computes from (earlier steps left out): what its prompt,
    the scenario's setup or its worked solution must state for the learner."""
    reading = _Reading(env)
    step.compute(reading)
    return {name: float(env[name]) for name in dict.fromkeys(reading.read)
            if name in shared and isinstance(env[name], int | float)
            and not isinstance(env[name], bool)}


def _recompute(step: Step, env: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], Value]:
    before = dict(env)

    def recompute(earlier: Mapping[str, Any]) -> Value:
        return step.compute({**before, **earlier})

    return recompute


def build_parts(steps: Sequence[Step], shared: Mapping[str, Any], *, post: str = "",
                family: str | None = None, seed: int | None, lang: str,
                prompts: Mapping[str, str], methods: Mapping[str, str],
                solutions: Mapping[str, str]) -> tuple[tuple[Part, ...], dict[str, Any]]:
    """The scenario's parts from its steps, and the true chain's values by step name.

    A generator family leaves ``post`` and ``family`` out: its registration fills them in."""
    env: dict[str, Any] = dict(shared)
    parts = []
    for step in steps:
        inputs = step_inputs(step, env, shared)
        value = step.compute(env)
        recompute = _recompute(step, env)
        env[step.name] = value
        if step.choices:
            question = Question(kind=Kind.CHOICE, post=post, prompt=prompts[step.name],
                                explanation=solutions.get(step.name, ""), answer=str(value),
                                choices=step.choices, family=family, seed=seed, lang=lang,
                                params={"inputs": inputs})
        else:
            _check_like(step, env)
            question = Question(kind=Kind.NUMERIC, post=post, prompt=prompts[step.name],
                                explanation=solutions.get(step.name, ""),
                                answer=_rounded(float(value)), unit=step.unit,
                                tolerance=step.tolerance, family=family, seed=seed,
                                lang=lang, params={"inputs": inputs}, slips=tuple(
                                    s for s in (slip.resolve(env) for slip in step.slips)
                                    if s is not None))
        rounding = None if step.rounding is None else _recompute(
            replace(step, compute=step.rounding), env)
        parts.append(Part(name=step.name, question=question, uses=step.uses,
                          recompute=recompute, method=methods.get(step.name, ""),
                          solution=solutions.get(step.name, ""), like=step.like,
                          rounding=rounding, exercises=step.exercises or NO_FAMILY))
    return tuple(parts), env


def _check_like(step: Step, env: Mapping[str, Any]) -> None:
    """A step that computes as a one-step family has the params that family's slips read:
    a missing one would silently drop a slip the family names."""
    if not step.like:
        return
    for slip in step.slips:
        if callable(slip.ratio):
            try:
                slip.ratio(env)
            except KeyError as exc:
                raise KeyError(f"step {step.name!r} computes as {step.like!r} but lacks "
                               f"{exc.args[0]!r}, which its slip {slip.key!r} reads") from None


def _rounded(value: float, digits: int = 6) -> float:
    """An answer rounded to ``digits`` significant figures (readable JSON; far inside tolerance)."""
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


@dataclass(frozen=True)
class PartVerdict:
    """One step's outcome.

    ``correct`` is against the true value (None: not graded, ask again);
    ``carried`` is True when a wrong step is right from the learner's own
    earlier answers. ``value`` is what the learner answered, in the step's
    unit (a number) or the choice's text, for the steps that follow.
    """

    name: str
    index: int
    verdict: Verdict
    value: Value | None = None
    carried: bool = False
    hinted: bool = False
    rounded: bool = False
    """Right by the step's stated rounding rule, not its exact value."""
    like: str = ""
    """The one-step family the step computes as (empty for a deck's own step)."""

    @property
    def correct(self) -> bool | None:
        return self.verdict.correct

    @property
    def retry(self) -> bool:
        return self.verdict.retry

    def record(self, response: str) -> dict[str, Any]:
        """The step as a review log keeps it."""
        return {"name": self.name, "response": response, "given": self.verdict.given,
                "expected": self.verdict.expected, "correct": bool(self.verdict.correct),
                "carried": self.carried, "slips": list(self.verdict.slips),
                "hint": self.hinted, "rounded": self.rounded,
                **({"family": self.like} if self.like else {})}


def learner_value(part: Part, response: str, verdict: Verdict) -> Value | None:
    """What the learner answered, as a later step computes with it."""
    if part.question.kind is Kind.CHOICE:
        given = verdict.given
        for choice in part.question.choices:
            if given.endswith(f") {choice}"):
                return choice
        return None
    return numeric_value(part.question, response)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b)


def grade_part(question: Question, index: int, response: str,
               earlier: Sequence[PartVerdict], *, hinted: bool = False) -> PartVerdict:
    """Grade step ``index`` of a scenario, given the learner's verdicts on the steps before."""
    step = _grade_part(question, index, response, earlier, hinted=hinted)
    part = question.parts[index]
    if part.like:
        step = replace(step, like=part.like)
    if step.correct is False and part.rounding is not None:
        return _by_rounding(question, index, response, earlier, step)
    return step


def _mine(question: Question, earlier: Sequence[PartVerdict]) -> dict[str, Any]:
    return {p.name: v.value for p, v in zip(question.parts, earlier, strict=False)
            if v.value is not None}


def _by_rounding(question: Question, index: int, response: str,
                 earlier: Sequence[PartVerdict], step: PartVerdict) -> PartVerdict:
    """A wrong step that the step's own rounding rule gives (floor, then double) is right,
    with a note saying which figure the exact rule gives."""
    part = question.parts[index]
    assert part.rounding is not None
    try:
        value = part.rounding(_mine(question, earlier))
    except (ArithmeticError, ValueError, TypeError, KeyError):
        return step
    again = grade(replace(part.question, answer=value), response)
    if not again.correct:
        return step
    note = t("grading.rounding_rule", question.lang, given=again.given,
             expected=step.verdict.expected)
    verdict = replace(again, message=note, expected=step.verdict.expected)
    return replace(step, verdict=verdict, rounded=True)


def _grade_part(question: Question, index: int, response: str,
                earlier: Sequence[PartVerdict], *, hinted: bool = False) -> PartVerdict:
    part = question.parts[index]
    verdict = grade(part.question, response)
    if verdict.correct is None:
        return PartVerdict(part.name, index, verdict, hinted=hinted)
    value = learner_value(part, response, verdict)
    if verdict.correct or part.recompute is None or not part.uses:
        return PartVerdict(part.name, index, verdict, value, hinted=hinted)
    by_name = {p.name: (p, v) for p, v in zip(question.parts, earlier, strict=False)}
    mine = {name: v.value for name, (_, v) in by_name.items() if v.value is not None}
    differing = [name for name in part.uses if name in by_name
                 and name in mine and not _same(mine[name], by_name[name][0].question.answer)]
    if not differing:
        return PartVerdict(part.name, index, verdict, value, hinted=hinted)
    try:
        carried_answer = part.recompute(mine)
    except (ArithmeticError, ValueError, TypeError, KeyError):
        return PartVerdict(part.name, index, verdict, value, hinted=hinted)
    if isinstance(carried_answer, float) and not math.isfinite(carried_answer):
        return PartVerdict(part.name, index, verdict, value, hinted=hinted)
    carried_question = replace(part.question, answer=carried_answer)
    again = grade(carried_question, response)
    if not again.correct:
        return PartVerdict(part.name, index, verdict, value, hinted=hinted)
    if all(by_name[name][1].correct for name in differing):
        # the earlier steps were right within tolerance: so is this one, from them
        right = replace(again, expected=verdict.expected)
        return PartVerdict(part.name, index, right, value, hinted=hinted)
    lang = question.lang
    wrong = [name for name in differing if not by_name[name][1].correct]
    yours = ", ".join(by_name[name][1].verdict.given for name in wrong)
    true = ", ".join(expected_display(by_name[name][0].question) for name in wrong)
    key = "grading.carried" if len(wrong) == 1 else "grading.carried_many"
    message = t(key, lang, yours=yours, true=true, expected=verdict.expected)
    carried = replace(verdict, message=message, given=again.given)
    return PartVerdict(part.name, index, carried, value, carried=True, hinted=hinted)


def scenario_verdict(question: Question, parts: Sequence[PartVerdict],
                     responses: Sequence[str]) -> Verdict:
    """The whole scenario: right when every step is right against the true values, or when
    only one step in a few is wrong (``step_outcome``: then rated Hard at most)."""
    lang = question.lang
    right = sum(1 for p in parts if p.correct and not p.carried)
    every = right == len(question.parts)
    outcome = step_outcome(question, parts) if len(parts) == len(question.parts) else None
    correct = every or (outcome is not None and outcome.rating == HARD)
    key = "grading.scenario_right" if every else "grading.scenario_wrong"
    message = t(key, lang, right=right, total=len(question.parts))
    if outcome is not None and outcome.rating == HARD:
        numbers = [str(n) for n, part in enumerate(question.parts, 1)
                   if part.name in outcome.wrong]
        message += " " + t("grading.scenario_hard", lang, steps=", ".join(numbers))
    carried = sum(1 for p in parts if p.carried)
    if carried:
        message += " " + t("grading.scenario_carried", lang, count=carried)
    return Verdict(correct=correct, message=message,
                   given=" | ".join(p.verdict.given for p in parts),
                   expected=" | ".join(expected_display(p.question) for p in question.parts),
                   slips=tuple(s for p in parts for s in p.verdict.slips))


AGAIN, HARD, PASS = "again", "hard", "pass"


@dataclass(frozen=True)
class StepOutcome:
    """What the steps say about the card: ``pass`` (every step right: the learner rates it),
    ``hard`` (one step wrong, or fewer than half: Hard at most) or ``again`` (half the steps
    or more wrong). ``wrong`` names the wrong steps; ``weak`` the one-step families they
    compute as, to bring back sooner."""

    rating: str
    wrong: tuple[str, ...] = ()
    weak: tuple[str, ...] = ()
    rounded: tuple[str, ...] = ()

    def record(self) -> dict[str, Any]:
        return {"rating": self.rating, "wrong": list(self.wrong), "weak": list(self.weak),
                "rounded": list(self.rounded)}


def step_outcome(question: Question, parts: Sequence[PartVerdict]) -> StepOutcome:
    """Judge a finished scenario by its steps, each graded on its own.

    A step right from the learner's own wrong earlier answer (carried) is a right method:
    only the step that went wrong counts against the card.
    """
    wrong = tuple(p.name for p in parts if not p.correct and not p.carried)
    weak = tuple(dict.fromkeys(p.like for p in parts
                               if not p.correct and not p.carried and p.like))
    rounded = tuple(p.name for p in parts if p.rounded)
    total = len(question.parts)
    if not wrong:
        rating = PASS
    elif 2 * len(wrong) >= total:
        rating = AGAIN
    else:
        rating = HARD
    return StepOutcome(rating, wrong, weak, rounded)


def worked_chain(question: Question) -> str:
    """The worked solution of the whole chain, one numbered step a line."""
    lines = [f"{n}. {part.solution}" for n, part in enumerate(question.parts, 1)
             if part.solution]
    return "\n".join(lines)


__all__ = ["AGAIN", "HARD", "NO_FAMILY", "PASS", "PartVerdict", "Step", "StepOutcome",
           "build_parts", "grade_part", "learner_value", "run_chain", "scenario_verdict",
           "step_outcome", "worked_chain"]
