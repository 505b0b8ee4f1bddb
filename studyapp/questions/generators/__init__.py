"""Built-in question families, registered by name.

A family draws its parameters from the catalog with a seeded RNG, computes
the answer with ``studyapp.infra`` and writes a worked explanation. Each
module in this package registers its families with ``@register``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from studyapp.questions.model import Kind, Question

GenerateFn = Callable[[int, str, Mapping[str, Any]], Question]


@dataclass(frozen=True)
class Family:
    """One generator family: ``generate(seed, lang, options) -> Question``."""

    name: str
    post: str
    kind: Kind
    description: Mapping[str, str]  # by language
    generate: GenerateFn
    options: Mapping[str, str]  # accepted option names -> what they take
    fact: str | None = None
    """Every card of families sharing a fact tests one skill (both directions of a
    conversion): once one is answered, the others wait until the next study day."""


_REGISTRY: dict[str, Family] = {}


def register(family: Family) -> Family:
    if family.name in _REGISTRY:
        raise ValueError(f"family {family.name!r} registered twice")
    _REGISTRY[family.name] = family
    return family


def _load_all() -> None:
    """Import the family modules (they register themselves).

    ``from . import families`` would return the function below instead of
    importing the subpackage, and importing the subpackage rebinds the package
    attribute ``families``; so import it by name and put the function back.
    """
    import importlib

    listing = families
    importlib.import_module("studyapp.questions.generators.families")
    globals()["families"] = listing


def families() -> dict[str, Family]:
    """All families by name, in registration order."""
    if not _REGISTRY:
        _load_all()
    return dict(_REGISTRY)


def get_family(name: str) -> Family:
    """A family by name; ``UnknownIdError`` lists close names."""
    from studyapp.catalog import UnknownIdError

    table = families()
    if name not in table:
        raise UnknownIdError("generator", name, list(table))
    return table[name]
