"""Numbers as learners type them in English or Spanish, never silently misread."""

from __future__ import annotations

import math
import re
import unicodedata

from studyapp.questions.units.unit_errors import UnparsableAnswer

DECIMAL_MARK = {"en": ".", "es": ","}
_GROUP_SEP = " \u00a0\u2009\u202f_"
_SEP_CLASS = "[ \u00a0\u2009\u202f_]"
_NUMBER_RE = re.compile(
    rf"""
    (?P<sign>[+\-]?)\s*
    (?P<mant>(?:\d|[.,]\d)[\d.,]*(?:{_SEP_CLASS}\d{{3}}(?!\d)[\d.,]*)*)
    (?P<exp>
        [eE][+\-]?\d+
      | \s*[x×*·]\s*10\s*(?:\^|\*\*)\s*[+\-]?\d+
    )?
    """,
    re.VERBOSE,
)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPER_RE = re.compile(r"10([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_MAX_LEN = 200


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text).strip()
    text = text.replace("\u2212", "-").replace("\u2013", "-")
    text = _SUPER_RE.sub(lambda m: "10^" + m[1].translate(_SUPERSCRIPTS), text)
    return text.lstrip("~≈=").strip()


def _grouped(text: str, sep: str) -> bool:
    """True when ``text`` is digits grouped in threes by ``sep`` (``1.234.567``)."""
    return re.fullmatch(rf"\d{{1,3}}(?:{re.escape(sep)}\d{{3}})+", text) is not None


def _read_mantissa(mant: str, lang: str, scientific: bool) -> tuple[str, str | None]:
    """The number as plain ``digits.digits``, and the other reading if any.

    Strings, not floats, so the exponent is applied by one exact ``float()``.
    """
    groups = re.split(_SEP_CLASS, mant)
    if len(groups) > 1:
        # Spaces group thousands, so a mark in the last group is the decimal mark.
        head, *middle, last = groups
        tail = re.fullmatch(r"(\d{3})(?:[.,](\d*))?", last)
        if not (re.fullmatch(r"\d{1,3}", head) and tail):
            raise UnparsableAnswer(mant, "digits grouped in threes")
        if not all(re.fullmatch(r"\d{3}", g) for g in middle):
            raise UnparsableAnswer(mant, "digits grouped in threes")
        return f"{head}{''.join(middle)}{tail[1]}.{tail[2] or '0'}", None
    marks = [c for c in mant if c in ".,"]
    if not marks:
        return mant, None
    if len(set(marks)) == 2:
        dec = marks[-1]
        sep = "," if dec == "." else "."
        whole, _, frac = mant.rpartition(dec)
        if not _grouped(whole, sep) or not frac.isdigit():
            raise UnparsableAnswer(mant, "mixed separators")
        return f"{whole.replace(sep, '')}.{frac}", None
    mark = marks[0]
    if len(marks) > 1:
        if not _grouped(mant, mark):
            raise UnparsableAnswer(mant, "digits grouped in threes")
        return mant.replace(mark, ""), None
    whole, _, frac = mant.partition(mark)
    as_decimal = f"{whole or '0'}.{frac or '0'}"
    grouping_possible = len(frac) == 3 and whole and not whole.startswith("0") and len(whole) <= 3
    if scientific or not grouping_possible:
        return as_decimal, None
    as_thousands = whole + frac
    if mark == DECIMAL_MARK.get(lang, "."):
        return as_decimal, as_thousands
    return as_thousands, as_decimal


def parse_number(text: str, lang: str) -> tuple[float, float | None, str]:
    """Read the number at the start of ``text``: (value, other reading, rest of the text).

    Rules, chosen so that a number is never silently misread:

    * Spaces (also no-break and thin spaces) and ``_`` only group thousands:
      ``1 234,5`` = ``1 234.5`` = 1234.5; groups after the first have exactly
      three digits, or the answer is refused.
    * Both ``.`` and ``,`` present: the last one is the decimal mark and the
      other must group thousands (``1.234,5`` and ``1,234.5`` are 1234.5 in
      any language).
    * One mark repeated (``1.234.567``) groups thousands.
    * One mark once is a decimal mark unless it is followed by exactly three
      digits after a 1–3 digit group that does not start with 0: ``1,5`` and
      ``1.5`` are 1.5 in both languages, ``0,500`` is 0.5.
    * Followed by exactly three digits (``1.234``, ``1,234``) the language
      decides: the decimal mark of the language (``.`` in English, ``,`` in
      Spanish) is decimal, the other groups thousands; the other reading is
      returned too, so grading can ask instead of marking wrong.
    * Exponents: ``1.4e11``, ``1,4e11`` (Spanish), ``1.4 × 10^11``, ``1.4·10¹¹``;
      before an exponent a single mark is always decimal (``1.234e3`` = 1234).
    """
    cleaned = _clean(text)
    if len(cleaned) > _MAX_LEN:
        raise UnparsableAnswer(text[:40], "too long")
    m = _NUMBER_RE.match(cleaned)
    if not m:
        raise UnparsableAnswer(text)
    digits, other_digits = _read_mantissa(m["mant"], lang, bool(m["exp"]))
    exp = 0
    if m["exp"]:
        power = re.search(r"[+\-]?\d+$", m["exp"])
        assert power is not None
        exp = int(power[0])
        if abs(exp) > 400:
            raise UnparsableAnswer(text, "exponent out of range")
    sign = m["sign"] or ""
    value = float(f"{sign}{digits}e{exp}")
    other = None if other_digits is None else float(f"{sign}{other_digits}e{exp}")
    if not math.isfinite(value):
        raise UnparsableAnswer(text, "out of range")
    rest = cleaned[m.end() :].strip()
    if rest.endswith(".") and rest[:-1][-1:].isalpha():
        rest = rest[:-1]
    return value, other, rest
