"""Numbers and quantities shown to the learner, in their language.

The numbers themselves come from :mod:`studyapp.numbers`, the formatter every
face shares; this module adds units and count suffixes. Everything formatted
here reads back to the same value through
:func:`studyapp.questions.units.parse_quantity` in the same language, so a
learner can type exactly what they were shown.
"""

from __future__ import annotations

import math

from studyapp.i18n import strings, t, unit_label
from studyapp.numbers import THIN_SPACE, format_number
from studyapp.questions.units import COUNT, COUNT_DIMENSIONS, UnitError, resolve_unit

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
        "users": "usuarios",
        "requests": "peticiones",
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
        "usuarios": "users",
        "peticiones": "requests",
    },
}

#: Count suffixes, largest first (70B params, 1.5T tokens).
_COUNT_SUFFIXES = (("T", 1e12), ("B", 1e9), ("M", 1e6))


def display_unit(unit: str, lang: str) -> str:
    """The unit as shown in ``lang`` (``days`` → ``días``, a thing counted by its
    ``unit.say`` name: ``sequences`` → ``secuencias``); symbols stay as written."""
    named = _UNIT_NAMES.get(lang, {}).get(unit)
    if named is not None:
        return named
    try:
        resolve_unit(unit)
    except UnitError:
        return unit_label(unit, lang)  # a counted noun: "8 nodos"
    return unit


def unit_after(number: str, unit: str, lang: str) -> str:
    """``unit`` as written after ``number`` (a number as shown): the singular after exactly
    one ("1 GPU", "1 día"), the plural otherwise ("2 GPUs"; in Spanish "2 GPU", an acronym
    Spain leaves unchanged in the plural). ``unit.one.<unit>`` keys, by the English plural."""
    shown = display_unit(unit, lang)
    if number.lstrip("-−") != "1":
        return shown
    key = f"unit.one.{_UNIT_NAMES['en'].get(unit, unit)}"
    return t(key, lang) if key in strings(lang) else shown


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
    return f"{number} {unit_after(number, unit, lang)}"


__all__ = ["THIN_SPACE", "display_unit", "format_number", "format_quantity", "unit_after"]
