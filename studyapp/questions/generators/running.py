"""Runs of a family: K instances from one seed, and their fixed JSON shape.

``studyapp generate`` and anything else that wants several instances use
these, so instance ``i`` of a run of seed ``s`` is the same question
everywhere (docs/architecture.md fixes the JSON keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studyapp.questions.generators import Family
from studyapp.questions.generators.drawing import instance_seed
from studyapp.questions.model import Kind, Part, Question, Tolerance


def generate_run(family: Family, seed: int, count: int, lang: str,
                 options: Mapping[str, Any] | None = None) -> list[Question]:
    """``count`` instances; instance ``i`` uses a seed derived from (seed, i)."""
    opts = options or {}
    return [family.generate(instance_seed(seed, index), lang, opts) for index in range(count)]


def tolerance_text(tolerance: Tolerance | None, unit: str | None) -> str | None:
    """``"2%"`` for a relative tolerance, ``"0.5 KB"`` for an absolute one."""
    if tolerance is None:
        return None
    if tolerance.absolute is not None:
        return f"{tolerance.absolute:g}" + (f" {unit}" if unit else "")
    return f"{(tolerance.relative or 0.0) * 100:g}%"


def as_record(question: Question) -> dict[str, Any]:
    """The JSON object of one instance (keys fixed by docs/architecture.md, plus ``seed`` and
    ``given``, the card's Given block: figures it states before it asks).

    A scenario's ``kind``, ``answer``, ``unit`` and ``tolerance`` are those of its last
    step (what the chain ends on), so every instance keeps the fixed kinds; its
    steps are under ``parts`` and the family's kind (``--list``) says ``scenario``.
    """
    final = question.parts[-1].question if question.kind is Kind.SCENARIO else question
    numeric = final.kind is Kind.NUMERIC
    return {
        "family": question.family,
        "post": question.post,
        "kind": str(final.kind),
        "prompt": question.prompt,
        "given": list(question.given),
        "choices": list(final.choices) if final.kind is Kind.CHOICE else None,
        "answer": final.answer,
        "unit": final.unit if numeric else None,
        "tolerance": tolerance_text(final.tolerance, final.unit) if numeric else None,
        "params": dict(question.params),
        "explanation": question.explanation,
        "seed": question.seed,
        **({"parts": _parts(question)} if question.kind is Kind.SCENARIO else {}),
    }


def _parts(question: Question) -> list[dict[str, Any]]:
    return [part_record(part) for part in question.parts]


def part_record(part: Part) -> dict[str, Any]:
    """One step as ``generate --json`` prints it."""
    q = part.question
    return {"name": part.name, "kind": str(q.kind), "prompt": q.prompt, "answer": q.answer,
            "choices": list(q.choices) if q.kind is Kind.CHOICE else None,
            "unit": q.unit if q.kind is Kind.NUMERIC else None,
            "tolerance": tolerance_text(q.tolerance, q.unit) if q.kind is Kind.NUMERIC else None,
            "uses": list(part.uses), "method": part.method, "solution": part.solution}

