"""Every number a command takes is a real, finite number within a range.

Click's ``FloatRange(min=0)`` lets ``nan`` through (every comparison with
NaN is false) and ``inf`` too; an ``IntRange(min=1)`` with no top takes
``10**30``, which the store keeps as a float. ``guard_numbers`` wraps each
numeric option of a command (and of its subcommands) once, when the lazy
group loads it, so a new option is guarded without anyone remembering to.
"""

from __future__ import annotations

import math
from typing import Any

import click

FLOAT_LIMIT = 1e18
"""The largest magnitude a float option takes when it names no top of its own."""
INT_LIMIT = 2**53
"""The largest integer an option takes when it names no top: exact as a float and in JSON."""


class Bounded(click.ParamType[Any]):
    """A numeric type with the wrapped type's own checks, then finiteness and a top."""

    def __init__(self, inner: click.ParamType[Any]) -> None:
        self.inner = inner
        self.name = inner.name

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        return self.inner.get_metavar(param, ctx)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.strip().lower().lstrip("+-") in (
                "nan", "inf", "infinity"):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        number = self.inner.convert(value, param, ctx)
        if isinstance(number, float) and not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        limit = _top(self.inner)
        if isinstance(number, (int, float)) and limit is not None and abs(number) > limit:
            self.fail(f"{value!r} is past the largest value this option takes ({limit:g})",
                      param, ctx)
        return number

    def __repr__(self) -> str:
        return f"Bounded({self.inner!r})"


def _top(kind: click.ParamType[Any]) -> float | None:
    """The magnitude above which a value is refused (None: the type's own max decides)."""
    if isinstance(kind, (click.IntRange, click.FloatRange)) and kind.max is not None:
        return None
    if isinstance(kind, click.types.FloatParamType):
        return FLOAT_LIMIT
    if isinstance(kind, click.types.IntParamType):
        return INT_LIMIT
    return None


def guard_numbers(command: click.Command) -> click.Command:
    """Wrap every int and float parameter of ``command`` and its subcommands (idempotent)."""
    for param in command.params:
        kind = param.type
        if isinstance(kind, (click.types.IntParamType, click.types.FloatParamType)) \
                and not isinstance(kind, click.types.BoolParamType):
            param.type = Bounded(kind)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            guard_numbers(sub)
    return command
