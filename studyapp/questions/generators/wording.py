"""Numbers and small phrases as a reader of each language expects them.

Spanish writes a decimal comma and groups thousands with a no-break space;
English writes a decimal point and groups with commas. Questions show the
same figure in both, so one function formats it for either.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from studyapp.i18n import t
from studyapp.questions.formatting import format_number

NBSP = "\u00a0"


def significant(value: float, digits: int = 6) -> float:
    """``value`` rounded to ``digits`` significant figures (answers stay readable in JSON)."""
    if value == 0 or not math.isfinite(value):
        return value
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    return round(value, decimals)


@lru_cache(maxsize=8192)
def num(value: float, lang: str, digits: int = 3) -> str:
    """``value`` to ``digits`` significant figures (integer digits kept), no trailing zeros.

    Remembered: draws write the same catalog figures over and over."""
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    rounded = round(value, decimals)
    text = f"{rounded:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if lang == "es":
        whole, _, frac = text.partition(".")
        digits_only = whole.replace(",", "")
        # Spanish groups only from five digits on (RAE): 8192, 131 072
        whole = whole.replace(",", NBSP) if len(digits_only.lstrip("-")) > 4 else digits_only
        text = whole + ("," + frac if frac else "")
    return text


def sci(value: float, lang: str, digits: int = 3) -> str:
    """Very large or small numbers as ``6,3 × 10^24``; plain ``num`` in between."""
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    if -3 <= exponent <= 6:
        return num(value, lang, digits)
    mantissa = value / 10**exponent
    return f"{num(mantissa, lang, digits)} × 10^{exponent}"


def pct(fraction: float, lang: str) -> str:
    """A fraction as a percentage: ``90 %`` in Spanish, ``90%`` in English."""
    return num(fraction * 100, lang, 3) + ("\u00a0%" if lang == "es" else "%")


def yes_no(value: bool, lang: str) -> str:
    return t("gen.word.yes" if value else "gen.word.no", lang)


def join_steps(*parts: str) -> str:
    """Explanation lines, one step per line."""
    return "\n".join(part for part in parts if part)


@lru_cache(maxsize=8192)
def shown(value: float, lang: str) -> str:
    """A final answer as the grader shows it (three significant figures), for explanations.

    Rounded first as ``significant`` rounds the stored answer, so 505.4999… ms shows
    as the grader's "506 ms", not "505 ms". Remembered, as ``num`` is."""
    return format_number(significant(value), lang, 3).replace("\u202f", NBSP)


def bytes_per(value: float, lang: str) -> str:
    """``1 byte``, ``2 bytes``, ``0.5 bytes``: the word agrees with the number."""
    word = "byte" if value == 1 else "bytes"
    return f"{num(value, lang)} {word}"


def model_label(name: str) -> str:
    """A model's name without its own parentheses, so a figure can follow in parentheses."""
    return name.replace(" (", " ").replace(")", "")


_ALIAS = re.compile(r"\s*\([^)]*\)")


def label(name: str) -> str:
    """A chip or system name without its parenthesised alias: ``Google TPU7x (Ironwood)``
    reads ``Google TPU7x`` where a figure follows in parentheses."""
    return _ALIAS.sub("", name).strip()


def result(value: float, lang: str) -> str:
    """An exact product and, when the grader shows it rounded, the rounded value too."""
    exact, rounded = num(value, lang, 9), shown(value, lang)
    return exact if exact == rounded else f"{exact} ≈ {rounded}"
