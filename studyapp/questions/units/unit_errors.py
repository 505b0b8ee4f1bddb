"""Errors of the units table: each says what the learner typed and why it cannot be read."""

from __future__ import annotations


class UnitError(ValueError):
    """An answer or a unit the table cannot read; never a crash for the learner."""


class UnparsableAnswer(UnitError):
    """The text does not start with a number we can read unambiguously."""

    def __init__(self, text: str, reason: str = "") -> None:
        super().__init__(f"cannot read {text!r} as a number{': ' + reason if reason else ''}")
        self.text = text
        self.reason = reason


class UnknownUnit(UnitError):
    """The unit is not in the table."""

    def __init__(self, unit: str) -> None:
        super().__init__(f"unknown unit {unit!r}")
        self.unit = unit


class AmbiguousUnit(UnitError):
    """The unit has several meanings (``gb``: GB or Gb) and context does not pick one."""

    def __init__(self, unit: str, candidates: tuple[str, ...]) -> None:
        super().__init__(f"ambiguous unit {unit!r}: {' or '.join(candidates)}")
        self.unit = unit
        self.candidates = candidates


class DimensionMismatch(UnitError):
    """Converting between units of different dimensions (a bandwidth into a size)."""

    def __init__(self, given: str, expected: str) -> None:
        super().__init__(f"cannot convert {given} to {expected}")
        self.given = given
