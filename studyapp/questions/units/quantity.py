"""An answer read as a number and a unit: ``140 GB``, ``1,5 s``, ``70B params``."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from studyapp.questions.units.table import (
    COUNT,
    COUNT_DIMENSIONS,
    COUNT_MULTIPLIERS,
    COUNTED_THINGS,
    CURRENCY_OF_RATE,
    CURRENCY_PREFIXES,
    MULTIPLIER_RE,
    TIME,
    multiplier_of,
    normalise_unit,
    resolve_unit,
)
from studyapp.questions.units.typed_numbers import parse_number
from studyapp.questions.units.unit_errors import UnitError, UnknownUnit, UnparsableAnswer


@dataclass(frozen=True)
class Quantity:
    """A parsed answer.

    ``value`` is in the base unit of ``dimension`` (bytes for a size); for a
    bare number (``dimension is None``) it is the number as typed and means
    "in the question's unit". ``unit`` is the unit as written. When the
    number's separators could be read two ways (``1.234`` in Spanish),
    ``alternative`` holds the value under the other reading. ``number`` is
    the number as typed and ``factor`` the unit's size in base units, so
    ``value == number * factor`` (kept apart to convert without rounding).
    """

    value: float
    dimension: str | None
    unit: str
    alternative: float | None = None
    number: float = 0.0
    factor: float = 1.0

    def in_unit(self, factor: float) -> float:
        """The value in a unit of ``factor`` base units; exact when it is the written unit."""
        if factor == self.factor:
            return self.number
        return self.number * (self.factor / factor)


_NOUN_RE = re.compile(r"[^\W\d_][\w\-]*(?: [^\W\d_][\w\-]*)*")


def parse_quantity(text: str, lang: str, expect: str | None = None) -> Quantity:
    """Read an answer such as ``140 GB``, ``1,5 s`` or ``70B params``.

    ``expect`` is the dimension the question asks for; it settles units that
    context must decide (``70B`` as a count, ``TFLOPs`` as a rate). When it is
    ``count``, an unknown word after the number (``8 GPUs``) is taken as the
    thing counted. Raises :class:`UnparsableAnswer`, :class:`UnknownUnit` or
    :class:`AmbiguousUnit`; never anything else for any input text.
    """
    text = _currency_last(text)
    value, other, rest = parse_number(text, lang)
    if not rest:
        return _quantity(value, None, "", other, 1.0)
    if rest[0].isdigit():
        raise UnparsableAnswer(text)
    unit_text = normalise_unit(rest)
    if expect in COUNT_DIMENSIONS:
        factor = multiplier_of(unit_text)
        if factor is not None:
            return _quantity(value, expect, rest, other, factor)
    compound = _compound_time(value, other, rest, lang)
    if compound is not None:
        return compound
    try:
        unit = resolve_unit(unit_text, expect)
    except UnknownUnit:
        if expect == COUNT:
            m = MULTIPLIER_RE.fullmatch(unit_text)
            spaced = m is not None and " " in unit_text[: m.end("mult") + 1]
            if m and spaced and _NOUN_RE.fullmatch(m["rest"]):
                factor = COUNT_MULTIPLIERS[m["mult"]]
                return _quantity(value, COUNT, rest, other, factor)
            if _NOUN_RE.fullmatch(unit_text):
                return _quantity(value, COUNT, rest, other, 1.0)
        raise
    dimension = unit.dimension
    if expect == COUNT and dimension in COUNTED_THINGS:
        dimension = COUNT  # "64 users" answers "how many" as it always did
    if expect is not None and CURRENCY_OF_RATE.get(expect) == dimension and unit.factor == 1.0:
        # "$6" answers "what does it cost an hour, in dollars?": the question sets the
        # period, so the amount is a number in the question's own unit
        return _quantity(value, None, "", other, 1.0)
    return _quantity(value, dimension, rest, other, unit.factor)


_CURRENCY_FIRST = re.compile(
    r"\s*(?P<sign>[-\u2212]?)\s*(?P<symbol>"
    + "|".join(re.escape(c) for c in CURRENCY_PREFIXES) + r")\s*(?P<rest>\d.*)", re.DOTALL)


_PERIOD_RE = re.compile(r"\s*/|\s+(?:per|por|a la|an?|each|cada)\s", re.IGNORECASE)


def _currency_last(text: str) -> str:
    """``$3.5M`` is read as ``3.5M $`` and ``$6/h`` as ``6 $/h``: a currency symbol
    may come before the number, and a period after it belongs to the currency."""
    m = _CURRENCY_FIRST.fullmatch(text)
    if m is None:
        return text
    rest = m["rest"].strip()
    period = _PERIOD_RE.search(rest)
    if period is None:
        return f"{m['sign']}{rest} {m['symbol']}"
    head, tail = rest[: period.start()], rest[period.start():].lstrip()
    joint = "" if tail.startswith("/") else " "
    return f"{m['sign']}{head} {m['symbol']}{joint}{tail}"


_COMPOUND_RE = re.compile(r"(?P<unit>[^\d\s,]+)\s*(?:,|and|y)?\s*(?P<more>\d.*)", re.DOTALL)


def _compound_time(number: float, other: float | None, rest: str, lang: str) -> Quantity | None:
    """``1 h 30 min`` and ``2 days 3 h``: a sum of times, or None when ``rest`` is not one."""
    m = _COMPOUND_RE.fullmatch(rest)
    if not m or other is not None:
        return None
    try:
        unit = resolve_unit(m["unit"], TIME)
        more = parse_quantity(m["more"], lang, TIME)
    except UnitError:
        return None
    if unit.dimension != TIME or more.dimension != TIME or more.alternative is not None:
        return None
    return _quantity(number * unit.factor + more.value, TIME, rest, None, 1.0)


def _quantity(
    number: float, dimension: str | None, unit: str, other: float | None, factor: float
) -> Quantity:
    alt = None if other is None else other * factor
    value = number * factor
    if not math.isfinite(value):
        raise UnparsableAnswer(f"{number} {unit}", "out of range")
    return Quantity(value, dimension, unit, alt, number, factor)
