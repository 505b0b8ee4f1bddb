"""Built-in question families, registered by name.

A family draws its parameters from the catalog with a seeded RNG, computes
the answer with ``studyapp.infra`` and writes a worked explanation. The
``families`` subpackage holds them and registers them in one explicit order.

A family is written as ``draw(ctx, options)`` over one
:class:`~studyapp.questions.generators.context.DrawContext` (the draw's seed and
language, with the formatters bound to it) and offered as ``generate(seed, lang,
options)``. Its registration writes its name and post on every question it draws
(and on a scenario's steps), so a question never carries another family's.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from studyapp.catalog.errors import UnknownIdError
from studyapp.questions.generators.context import (
    DrawContext,
    DrawFn,
    GenerateFn,
    drawn,
    revised,
)
from studyapp.questions.generators.drawing import without_echo
from studyapp.questions.generators.figures import label_figures
from studyapp.questions.model import Kind, Question, Slip
from studyapp.questions.scenario import Step


@dataclass(frozen=True)
class Family:
    """One generator family: ``generate(seed, lang, options) -> Question``."""

    name: str
    post: str
    kind: Kind
    description: Mapping[str, str]  # by language
    generate: GenerateFn
    options: Mapping[str, str | tuple[str, ...]]
    """Accepted option names -> what they take (a tuple: the values a closed option allows;
    ``generators.options`` knows each name's kind and reads the defaults from the draws)."""
    fact: str | None = None
    """Every card of families sharing a fact tests one skill (both directions of a
    conversion): once one is answered, the others wait until the next study day."""
    slips: tuple[Slip, ...] = ()
    """Likely slips next to the formula; grading names them when an answer shows one."""
    conversion: bool = False
    """The family asks to convert a quantity the prompt gives (bits → bytes, GB → GiB)."""
    teaches: str = "method"
    """``fact`` (which memory a chip uses: the card keeps its chip while it is being learnt
    or relearnt) or ``method`` (a computation: new numbers at every showing)."""
    recompute: Callable[[Mapping[str, float], Question], float] | None = None
    """The audit's second computation of a numeric or yes/no answer from the question's
    ``params["given"]`` through ``studyapp.infra``, declared beside the family (the older
    families have theirs in ``generators.recompute.RECOMPUTE``)."""
    builds_on: tuple[str, ...] = ()
    """Families whose cards this one builds on, beyond those its steps chain."""
    steps: tuple[Step, ...] = ()
    """A scenario's steps, each naming the one-step family it exercises."""

    @property
    def prerequisites(self) -> tuple[str, ...]:
        """The families to have seen before this one's cards are new: those it declares it
        builds on and, for a scenario, those its steps chain (in step order, once each)."""
        chained = (step.exercises for step in self.steps if step.exercises)
        return tuple(dict.fromkeys((*self.builds_on, *chained)))


FACT, METHOD = "fact", "method"
"""What a family's cards test (``Family.teaches``)."""

_REGISTRY: dict[str, Family] = {}


def _declaring(family: Family) -> GenerateFn:
    """``generate`` whose questions (and a scenario's steps) carry the family's name and
    post, the family's slips and conversion flag, and a label on each announced or
    estimated figure they write (``figures.label_figures``)."""
    generate = family.generate
    name, post = family.name, family.post

    def generate_declared(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
        question = label_figures(generate(seed, lang, options))
        slips = tuple(s for s in (slip.resolve(question.params) for slip in family.slips)
                      if s is not None)
        parts = tuple(
            part if (part.question.post, part.question.family) == (post, name)
            else revised(part, question=revised(part.question, post=post, family=name))
            for part in question.parts)
        return revised(question, post=post, family=name, parts=parts,
                       slips=question.slips + slips,
                       conversion=question.conversion or family.conversion)

    generate_declared.__doc__ = generate.__doc__
    return generate_declared


def register(family: Family) -> Family:
    """Add ``family`` to the registry: its questions carry its name, post, slips and flags,
    and are redrawn while the prompt gives the answer away."""
    if family.name in _REGISTRY:
        raise ValueError(f"family {family.name!r} registered twice")
    if family.teaches not in (FACT, METHOD):
        raise ValueError(f"family {family.name!r} teaches {family.teaches!r}: fact or method")
    family = replace(family, generate=without_echo(_declaring(family)))
    _REGISTRY[family.name] = family
    return family


def _load_all() -> None:
    """Import the ``families`` subpackage, which registers every family."""
    importlib.import_module("studyapp.questions.generators.families")


def registered_families() -> dict[str, Family]:
    """All families by name, in registration order."""
    if not _REGISTRY:
        _load_all()
    return dict(_REGISTRY)


def get_family(name: str) -> Family:
    """A family by name; ``UnknownIdError`` lists close names."""
    table = registered_families()
    if name not in table:
        raise UnknownIdError("generator", name, list(table))
    return table[name]


__all__ = ["FACT", "METHOD", "DrawContext", "DrawFn", "Family", "GenerateFn", "drawn",
           "get_family", "register", "registered_families"]
