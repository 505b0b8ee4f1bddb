"""Grade a typed answer outside a session, exactly as a session grades it.

``studyapp generate FAMILY --try ANSWER`` and ``studyapp deck preview --try
CARD=ANSWER`` use this, so an author can see the verdict and the slip a
learner's answer gets before any learner sees the card. A scenario takes its
steps' answers separated by ``|`` (as the card history stores them) and is
graded step by step with error carried forward, then judged as a whole
(``scenario.step_outcome``); ``part`` grades one step alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from studyapp.questions.grading import Verdict, grade
from studyapp.questions.model import Kind, Question
from studyapp.questions.scenario import (
    PartVerdict,
    StepOutcome,
    grade_part,
    scenario_verdict,
    step_outcome,
)


class TryError(ValueError):
    """A ``--try`` that cannot be graded as asked (a step number out of range)."""


@dataclass(frozen=True)
class Tried:
    """The verdict on one tried answer; a scenario's steps under ``parts``."""

    response: str
    verdict: Verdict
    parts: tuple[PartVerdict, ...] = ()
    responses: tuple[str, ...] = ()
    outcome: StepOutcome | None = None
    part: int | None = None

    def record(self) -> dict[str, Any]:
        """The JSON object ``--try --json`` prints (``slip``: the one slip named, or null)."""
        record: dict[str, Any] = verdict_record(self.verdict)
        record["response"] = self.response
        if self.part is not None:
            record["part"] = self.part
        if self.parts:
            record["parts"] = [{**verdict_record(p.verdict), "name": p.name,
                                "response": text, "carried": p.carried}
                               for p, text in zip(self.parts, self.responses, strict=True)]
        if self.outcome is not None:
            record["outcome"] = self.outcome.record()
        return record


def verdict_record(verdict: Verdict) -> dict[str, Any]:
    """One verdict as JSON: right, wrong or ungraded (``correct`` null), message, slip."""
    return {"correct": verdict.correct, "retry": verdict.retry, "message": verdict.message,
            "given": verdict.given, "expected": verdict.expected,
            "slips": list(verdict.slips), "slip": verdict.slips[0] if verdict.slips else None}


def try_answer(question: Question, response: str, part: int | None = None) -> Tried:
    """Grade ``response`` to ``question``; ``part`` (1-based) grades one scenario step alone."""
    if question.kind is not Kind.SCENARIO:
        if part is not None:
            raise TryError("--part is for a scenario's steps")
        return Tried(response, grade(question, response))
    if part is not None:
        if not 1 <= part <= len(question.parts):
            raise TryError(f"--part takes 1 to {len(question.parts)}")
        step = grade_part(question, part - 1, response, [])
        return Tried(response, step.verdict, part=part)
    texts = [text.strip() for text in response.split("|")]
    done: list[PartVerdict] = []
    for index, text in enumerate(texts[:len(question.parts)]):
        step = grade_part(question, index, text, done)
        if step.retry:
            return Tried(response, step.verdict, tuple(done), tuple(texts[:len(done)]))
        done.append(step)
    answered = tuple(texts[:len(done)])
    if len(done) < len(question.parts):
        verdict = scenario_verdict(question, done, answered)
        return Tried(response, verdict, tuple(done), answered)
    return Tried(response, scenario_verdict(question, done, answered), tuple(done), answered,
                 step_outcome(question, done))


__all__ = ["Tried", "TryError", "try_answer", "verdict_record"]
