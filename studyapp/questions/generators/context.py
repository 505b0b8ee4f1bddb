"""One draw of a family: its seed, its language, and the wording bound to that language.

A family's draw function takes a :class:`DrawContext` and the options, and
reads the language only through it: ``ctx.num(x, 5)``, ``ctx.t(key, **fields)``,
``ctx.shown(x)``. Its question comes from ``ctx.question(...)``, which fills in
the seed and the language; the family's registration fills in its name and post.
:func:`drawn` turns such a function into the ``generate(seed, lang, options)``
every caller uses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

from studyapp.i18n import t
from studyapp.questions.generators import wording
from studyapp.questions.model import Part, Question

Q = TypeVar("Q", Question, Part)

_FIELDS = {kind: frozenset(f.name for f in fields(kind)) for kind in (Question, Part)}


def revised(value: Q, **changes: Any) -> Q:
    """``dataclasses.replace`` for a question or a scenario's part, without running
    ``__init__`` again: neither has ``__post_init__`` nor a field outside ``__init__``, so
    copying the fields gives the same value, several times cheaper (every draw revises
    its question a few times: labels, name and post, seed)."""
    names = _FIELDS.get(type(value))
    if names is None:  # a subclass may check its fields in __post_init__
        return replace(value, **changes)
    unknown = changes.keys() - names
    if unknown:
        raise TypeError(f"{type(value).__name__} has no field {sorted(unknown)}")
    new = object.__new__(type(value))
    new.__dict__.update(value.__dict__)
    new.__dict__.update(changes)
    return new


GenerateFn = Callable[[int, str, Mapping[str, Any]], Question]
"""``generate(seed, lang, options) -> Question``: what a registered family offers."""


@dataclass(frozen=True)
class DrawContext:
    """The seed and language of one draw, with the formatters of ``wording`` bound to it."""

    seed: int
    lang: str

    def t(self, key: str, **fields: Any) -> str:
        """The string ``key`` in the draw's language, filled with ``fields``."""
        return t(key, self.lang, **fields)

    def num(self, value: float, digits: int = 3) -> str:
        return wording.num(value, self.lang, digits)

    def sci(self, value: float, digits: int = 3) -> str:
        return wording.sci(value, self.lang, digits)

    def pct(self, fraction: float) -> str:
        return wording.pct(fraction, self.lang)

    def shown(self, value: float) -> str:
        return wording.shown(value, self.lang)

    def result(self, value: float) -> str:
        return wording.result(value, self.lang)

    def yes_no(self, value: bool) -> str:
        return wording.yes_no(value, self.lang)

    def bytes_per(self, value: float) -> str:
        return wording.bytes_per(value, self.lang)

    def question(self, **fields: Any) -> Question:
        """The drawn question, with this draw's seed and language.

        Its family and post are left for the registration to fill in (see
        ``generators.register``), so no family writes them twice."""
        return Question(post="", seed=self.seed, lang=self.lang, **fields)


DrawFn = Callable[[DrawContext, Mapping[str, Any]], Question]
"""A family's draw: ``draw(ctx, options) -> Question``."""


def drawn(draw: DrawFn) -> GenerateFn:
    """``generate(seed, lang, options)`` of a family written as ``draw(ctx, options)``."""

    def generate(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
        return draw(DrawContext(seed, lang), options)

    generate.__doc__ = draw.__doc__
    generate.__name__ = generate.__qualname__ = draw.__name__
    return generate
