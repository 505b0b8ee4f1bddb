"""What a wrong number shows: the slip it sits on, or how far off it is.

A slip is named only when it is true: the card declares it (a family's or a
step's ``slips``, a deck's authored ones) or it is a global one that fits the
quantity (the sign; a unit prefix for a measured quantity; bits for bytes and
binary for decimal units only for quantities in bytes or bits), and the answer
sits on that slip's value alone, closer than a near miss would by chance. When
two slips give the same value, or none fits, the feedback says how far off the
answer is without naming a cause.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from studyapp.i18n import t
from studyapp.questions.formatting import format_number
from studyapp.questions.model import DEFAULT_TOLERANCE, Question, Tolerance
from studyapp.questions.units import (
    BANDWIDTH,
    COUNT,
    RATIO,
    SIZE,
    AmbiguousUnit,
    Unit,
    UnknownUnit,
    resolve_unit,
)


@dataclass(frozen=True)
class Target:
    """What a numeric question asks for: its unit (or a counted noun) and value."""

    unit: str | None
    dimension: str
    factor: float
    value: float
    tolerance: Tolerance


def unit_scale(unit: str | None) -> tuple[str, float]:
    """The dimension and factor of a question's unit (a count for none or a counted noun)."""
    dimension, factor = COUNT, 1.0
    if unit is not None:
        try:
            resolved: Unit = resolve_unit(unit)
            dimension, factor = resolved.dimension, resolved.factor
        except AmbiguousUnit as exc:
            # A deck should not use an ambiguous unit; read it as its first meaning.
            resolved = resolve_unit(exc.candidates[0])
            dimension, factor = resolved.dimension, resolved.factor
        except UnknownUnit:
            pass  # a counted noun such as "GPUs" or "layers"
    return dimension, factor


def target_of(question: Question) -> Target:
    """The unit, dimension, value and tolerance a numeric question asks for."""
    unit = question.unit or None
    dimension, factor = unit_scale(unit)
    answer = question.answer
    value = float(answer) if isinstance(answer, int | float) else math.nan
    tolerance = question.tolerance or DEFAULT_TOLERANCE
    return Target(unit, dimension, factor, value, tolerance)


def factor_text(ratio: float, lang: str) -> str:
    """How far off, always as a factor above 1 (×2 whether doubled or halved)."""
    return format_number(max(ratio, 1 / ratio), lang, 4, grouping=False)


MATCH_WINDOW = 0.005
"""The widest a wrong answer may miss a slip's value and still be read as that slip (0.5%)."""
MATCH_SHARE = 1 / 20
"""A slip close to the right answer must be matched closer still: within a twentieth of its
distance from it (KiB for KB, 2.4% away: within 0.12%), so a near miss from rounding is
not read as a cause by chance."""

_BYTE_DIMENSIONS = frozenset({SIZE, BANDWIDTH})
"""Quantities measured in bytes or bits: the only ones a unit slip (KB/KiB, GB/GiB, bits
for bytes) can explain."""


@dataclass(frozen=True)
class SlipCandidate:
    """A slip that could explain a wrong answer: its key, the factor it leaves, and the
    author's own words for it (else ``grading.slip.<key>``)."""

    key: str
    ratio: float
    message: str | None = None


def _window(ratio: float, target: Target) -> float:
    """How closely (log distance) an answer must sit on a slip's value to be read as it."""
    window = min(MATCH_WINDOW, abs(math.log(abs(ratio))) * MATCH_SHARE)
    tolerance = target.tolerance
    if tolerance.absolute is None and tolerance.relative:
        window = min(window, tolerance.relative / 2)
    return window


def _declared_candidates(question: Question) -> list[SlipCandidate]:
    found = []
    for slip in question.slips:
        assert not callable(slip.ratio)
        ratio = slip.ratio
        if not math.isfinite(ratio) or ratio <= 0:
            continue
        for r in (ratio, 1 / ratio) if slip.symmetric else (ratio,):
            found.append(SlipCandidate(slip.key, r, slip.message))
    return found


def _unit_prefix_power(target: Target) -> int:
    """The unit's power of 1000 (GB: 3, KB/s: 1; 0 for bytes or a unit without a prefix)."""
    if target.factor <= 0:
        return 0
    power = round(math.log10(target.factor) / 3)
    return power if math.isclose(target.factor, 1000.0**power, rel_tol=0.1) else 0


def global_candidates(target: Target) -> list[SlipCandidate]:
    """Slips any answer of its kind can show: the sign; a unit prefix for a measured
    quantity; and, for bytes or bits only, bits for bytes and binary for decimal units."""
    found = [SlipCandidate("sign", -1.0)]
    if target.unit is None or target.dimension in (COUNT, RATIO):
        return found
    for k in (1, 2, 3, 4):
        found += [SlipCandidate("prefix", 1000.0**k), SlipCandidate("prefix", 1000.0**-k)]
    if target.dimension not in _BYTE_DIMENSIONS:
        return found
    found += [SlipCandidate("bits", 8.0), SlipCandidate("bits", 1 / 8)]
    power = _unit_prefix_power(target)
    if power > 0:  # KB ~ KiB by 1.024, MB ~ MiB by 1.024², GB ~ GiB by 1.024³...
        key = "kib" if power == 1 else "binary"
        factor = 1.024**power
        found += [SlipCandidate(key, factor), SlipCandidate(key, 1 / factor)]
    return found


def slip_candidates(question: Question) -> tuple[list[SlipCandidate], list[SlipCandidate]]:
    """The slips a wrong answer to ``question`` may be read as: its own, and the global ones."""
    return _declared_candidates(question), global_candidates(target_of(question))


def _hits(given: float, target: Target,
          candidates: list[SlipCandidate]) -> dict[str, SlipCandidate]:
    """The slips whose value ``given`` sits on, by key."""
    hits: dict[str, SlipCandidate] = {}
    for candidate in candidates:
        slipped = target.value * candidate.ratio
        if slipped == 0 or given / slipped <= 0:
            continue
        if abs(math.log(given / slipped)) <= _window(candidate.ratio, target):
            hits.setdefault(candidate.key, candidate)
    return hits


def matched_slip(question: Question, given: float) -> SlipCandidate | None:
    """The one slip whose value ``given`` sits on: the question's own first, a global one
    (sign, prefix, unit) only when none of its own does; None when no slip does, or when
    two give that value (the answer cannot tell which was made)."""
    target = target_of(question)
    if not (math.isfinite(given) and math.isfinite(target.value)) or target.value == 0:
        return None
    own, common = slip_candidates(question)
    hits = _hits(given, target, own) or _hits(given, target, common)
    return next(iter(hits.values())) if len(hits) == 1 else None


def _off_text(ratio: float, lang: str) -> str:
    """What is off, without a cause: "2.4% low", "×2.1 too high"."""
    size = abs(ratio)
    sign = t("grading.off.sign", lang) if ratio < 0 else ""
    if 0.8 <= size <= 1.25:
        percent = format_number(abs(size - 1) * 100, lang, 2, grouping=False)
        key = "grading.off.low" if size < 1 else "grading.off.high"
        return (t(key, lang, percent=percent) + " " + sign).strip()
    key = "grading.off.times_low" if size < 1 else "grading.off.times_high"
    return (t(key, lang, factor=factor_text(size, lang)) + " " + sign).strip()


def diagnose(question: Question, given: float, target: Target) -> tuple[tuple[str, str], ...]:
    """The slip a wrong number shows, as ((key, message),), or ((``""``, what is off),)
    when no declared or global slip explains it alone."""
    expected = target.value
    if not (math.isfinite(given) and math.isfinite(expected)) or given == 0 or expected == 0:
        return ()
    lang = question.lang
    slip = matched_slip(question, given)
    if slip is None:
        return (("", _off_text(given / expected, lang)),)
    message = slip.message or t(f"grading.slip.{slip.key}", lang,
                                factor=factor_text(abs(slip.ratio), lang))
    return ((slip.key, message),)


__all__ = ["MATCH_SHARE", "MATCH_WINDOW", "SlipCandidate", "Target", "diagnose",
           "factor_text", "global_candidates", "matched_slip", "slip_candidates", "target_of",
           "unit_scale"]
