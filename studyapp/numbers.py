"""Figures written for people, in English or Spanish: the one number formatter.

Every face writes its numbers here: the questions (``questions.formatting``
adds units on top), ``studyapp calc``'s plain text and the calculator screen.
Spanish uses a decimal comma and thin-space thousands from five digits on
(``184 319``, ``2,68``, ``4,42e6``); English a decimal point and comma
thousands (``184,319``, ``2.68``, ``4.42e+06``). This module imports nothing
from studyapp, so every layer may use it, and costs nothing to import (the
questions' units, which ``questions.formatting`` adds, load a table).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

#: U+202F NARROW NO-BREAK SPACE: a thin space that never wraps a number.
THIN_SPACE = "\u202f"

#: Positional notation inside this range, ``1.4e11`` outside it.
_POSITIONAL = (1e-3, 1e9)


def _group(digits: str, lang: str) -> str:
    """Thousands grouping: ``1,234,567`` in English; ``1 234 567`` (thin) in
    Spanish from five digits on, as the RAE recommends (``1234`` stays whole)."""
    if lang == "es":
        if len(digits) < 5:
            return digits
        sep = THIN_SPACE
    else:
        if len(digits) < 4:
            return digits
        sep = ","
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return sep.join(parts)


def round_significant(value: float, sig: int) -> float:
    """``value`` to ``sig`` significant figures, halves away from zero, as the
    learner rounds the number they read: 70.55 → 70.6, never the binary float's
    70.5 (70.55 is stored as 70.5499…, so ``f"{70.55:.3g}"`` gives 70.5).
    """
    exact = Decimal(repr(value))
    step = Decimal(1).scaleb(exact.adjusted() - sig + 1)
    rounded = float(exact.quantize(step, rounding=ROUND_HALF_UP))
    return rounded if math.isfinite(rounded) else value


def format_number(value: float, lang: str, sig: int = 3, *, grouping: bool = True) -> str:
    """``value`` rounded to ``sig`` significant figures, trailing zeros dropped.

    Spanish uses a decimal comma and thin-space thousands; English a decimal
    point and comma thousands. Very large or small magnitudes use ``1.4e11``
    (``1,4e11``), which both the learner and the parser read easily.
    """
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    sig = max(1, min(sig, 17))
    rounded = round_significant(value, sig)
    mark = "," if lang == "es" else "."
    magnitude = abs(rounded)
    if not (_POSITIONAL[0] <= magnitude < _POSITIONAL[1]):
        mantissa, _, power = f"{rounded:.{sig - 1}e}".partition("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa.replace('.', mark)}e{int(power)}"
    decimals = max(0, sig - 1 - math.floor(math.log10(magnitude)))
    text = f"{magnitude:.{decimals}f}"
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    if grouping:
        whole = _group(whole, lang)
    sign = "-" if rounded < 0 else ""
    return f"{sign}{whole}{mark + frac if frac else ''}"


def format_figure(value: float, lang: str, *, whole_from: float = 1000,
                  scientific_from: float = 1e6) -> str:
    """A computed figure for reading: three significant figures below
    ``whole_from`` (``9.49``, ``180``), the whole number, grouped, up to
    ``scientific_from`` (``4,320``; ``184 319``), scientific above it and below
    1e-3 (``4.42e+06``, ``0.000328``; ``4,42e6``, ``3,28e-4``).

    ``studyapp calc`` writes whole numbers from 1,000 and scientific from a
    million (the defaults); the calculator screen from 100 and ten million.
    """
    if value == 0:
        return "0"
    magnitude = abs(value)
    if whole_from <= magnitude < scientific_from:
        # to the unit, halves away from zero (2,500.5 → 2,501, not round()'s even 2,500)
        return format_number(value, lang, sig=len(str(int(magnitude))))
    if 1e-3 <= magnitude < whole_from or (lang == "es" and magnitude < 1e-3):
        return format_number(value, lang)
    if math.isfinite(value):
        value = round_significant(value, 3)
    mantissa, _, power = f"{value:.3g}".partition("e")
    if lang != "es" or not power:  # not power: inf and nan, written as Python writes them
        return f"{value:.3g}"
    return f"{mantissa.replace('.', ',')}e{int(power)}"


def format_count(value: int, lang: str, *, grouping: bool = True) -> str:
    """A whole count: ``8,192`` in English (``8192`` without ``grouping``),
    ``8192`` and ``131 072`` in Spanish (grouped from five digits on)."""
    if lang == "es":
        return format_number(value, lang, sig=17)
    return f"{value:,}" if grouping else str(value)


__all__ = ["THIN_SPACE", "format_count", "format_figure", "format_number", "round_significant"]
