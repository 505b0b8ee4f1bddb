"""Numbers and quantities shown to the learner, in their language.

Everything formatted here reads back to the same value through
:func:`studyapp.questions.units.parse_quantity` in the same language, so a
learner can type exactly what they were shown.
"""

from __future__ import annotations

import math

from studyapp.questions.units import COUNT, COUNT_DIMENSIONS, UnitError, resolve_unit

#: U+202F NARROW NO-BREAK SPACE: a thin space that never wraps a number.
THIN_SPACE = "\u202f"

#: Positional notation inside this range, ``1.4e11`` outside it.
_POSITIONAL = (1e-3, 1e9)

#: Word units shown in the learner's language (singular forms stay as given).
_UNIT_NAMES = {
    "es": {
        "days": "días",
        "hours": "horas",
        "minutes": "minutos",
        "seconds": "segundos",
        "weeks": "semanas",
        "years": "años",
        "parameters": "parámetros",
    },
    "en": {
        "días": "days",
        "dias": "days",
        "horas": "hours",
        "minutos": "minutes",
        "segundos": "seconds",
        "semanas": "weeks",
        "años": "years",
        "parámetros": "parameters",
    },
}

#: Count suffixes, largest first (70B params, 1.5T tokens).
_COUNT_SUFFIXES = (("T", 1e12), ("B", 1e9), ("M", 1e6))


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
    rounded = float(f"{value:.{sig}g}")
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


def display_unit(unit: str, lang: str) -> str:
    """The unit as shown in ``lang`` (``days`` → ``días``); symbols stay as written."""
    return _UNIT_NAMES.get(lang, {}).get(unit, unit)


def _is_count_unit(unit: str | None) -> bool:
    if not unit:
        return True
    try:
        u = resolve_unit(unit, COUNT)
    except UnitError:
        return False
    return u.dimension in COUNT_DIMENSIONS and u.factor == 1.0


def format_quantity(
    value: float, unit: str | None, lang: str, sig: int = 3, *, count_suffix: bool = True
) -> str:
    """``value`` in ``unit`` for display: ``140 GB``, ``1,5 s``, ``70B params``.

    Counts of a million or more take a suffix (M, B, T) because ``7e10
    params`` is harder to read than ``70B params``; the parser reads it back.
    """
    suffix = ""
    magnitude = abs(value)
    if count_suffix and _is_count_unit(unit) and math.isfinite(value):
        for letter, factor in _COUNT_SUFFIXES:
            if factor <= float(f"{magnitude:.{max(1, min(sig, 17))}g}") < factor * 1000:
                value, suffix = value / factor, letter
                break
    number = format_number(value, lang, sig) + suffix
    if not unit:
        return number
    return f"{number} {display_unit(unit, lang)}"


__all__ = ["THIN_SPACE", "display_unit", "format_number", "format_quantity"]
