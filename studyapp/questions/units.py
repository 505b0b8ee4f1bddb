"""Units and numbers the way a learner types them, read without surprises.

A small explicit table instead of a general units library: general
libraries read ``Gb`` as gilbert and ``B`` as bel, while here ``Gb`` must be
a gigabit and ``B`` a byte. Every value is stored in the base unit of its
dimension (byte, byte/s, second, FLOP, FLOP/s, watt, joule, one token, one
parameter, one item, ratio 1).

Unit rules (the case of a letter matters only where it must):

* ``B`` is a byte and ``b`` a bit: ``GB`` gigabyte, ``Gb`` gigabit,
  ``GiB`` gibibyte. Decimal prefixes are powers of 1000 (``KB`` = ``kB`` =
  1000 B), binary ones powers of 1024.
* An all-lowercase ``gb``, ``mb``, ``kb``… could be either, so it is
  refused with :class:`AmbiguousUnit` rather than guessed. ``bps`` is bits
  per second in any case of the prefix (``gbps`` = ``Gbps``); ``GBps`` is
  bytes per second.
* ``FLOP`` is an amount, ``FLOPS`` and ``FLOP/s`` a rate; ``FLOPs`` (and
  any other casing, like ``tflops``) is read by context: a rate where the
  question asks for a rate, an amount otherwise.
* Rates compose with ``/``, ``per`` or ``por``: ``GB/s``, ``tokens/s``,
  ``tokens per second``, ``TFLOP/s``.
* Counts (tokens, parameters, plain items) take multipliers ``K``/``k``,
  ``M``, ``B``/``bn``, ``T`` and words (``thousand``, ``million``,
  ``billion`` = 10⁹; Spanish ``mil``, ``millón``, ``mil millones`` = 10⁹,
  ``billón`` = 10¹²). A bare ``70B`` is 70 gigaparameters only when a count
  is expected; otherwise ``B`` is a byte.
* Any other letter case is tried only when it leaves a single meaning
  (``MS`` = ``ms``, ``KW`` = ``kW``); ``mw`` (mW or MW) is refused.

Number rules are in :func:`parse_number`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

# ---------------------------------------------------------------- errors


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
        self.expected = expected


# ---------------------------------------------------------------- table

SIZE = "size"
BANDWIDTH = "bandwidth"
TIME = "time"
FLOP = "flop"
FLOP_RATE = "flop_rate"
POWER = "power"
ENERGY = "energy"
TOKENS = "tokens"
TOKEN_RATE = "token_rate"
PARAMS = "params"
COUNT = "count"
RATIO = "ratio"
INTENSITY = "intensity"  # arithmetic intensity, FLOP per byte (roofline)

DIMENSIONS = (
    SIZE, BANDWIDTH, TIME, FLOP, FLOP_RATE, POWER, ENERGY,
    TOKENS, TOKEN_RATE, PARAMS, COUNT, RATIO, INTENSITY,
)  # fmt: skip

#: Dimensions whose numbers take count multipliers (70B, 1.5T, 3M).
COUNT_DIMENSIONS = frozenset({TOKENS, TOKEN_RATE, PARAMS, COUNT})

#: numerator dimension / time → rate dimension.
_RATES = {SIZE: BANDWIDTH, FLOP: FLOP_RATE, TOKENS: TOKEN_RATE}


@dataclass(frozen=True)
class Unit:
    """One unit: its canonical symbol, dimension and size in the base unit."""

    symbol: str
    dimension: str
    factor: float


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


_EXACT: dict[str, list[Unit]] = {}


def _add(names: str | tuple[str, ...], unit: Unit) -> None:
    for name in (names,) if isinstance(names, str) else names:
        bucket = _EXACT.setdefault(name, [])
        if unit not in bucket:
            bucket.append(unit)


_DECIMAL = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}
_WORD_PREFIX = {"kilo": "K", "mega": "M", "giga": "G", "tera": "T", "peta": "P", "exa": "E"}
_BIN_WORD = {"kibi": "Ki", "mebi": "Mi", "gibi": "Gi", "tebi": "Ti", "pebi": "Pi"}


def _build_data_units() -> None:
    byte = Unit("B", SIZE, 1.0)
    bit = Unit("b", SIZE, 0.125)
    _add(("B", "byte", "bytes", "Byte", "Bytes"), byte)
    _add(("b", "bit", "bits"), bit)
    _add(("B/s", "Bps"), Unit("B/s", BANDWIDTH, 1.0))
    _add(("b/s", "bps"), Unit("b/s", BANDWIDTH, 0.125))
    prefixes = {**_DECIMAL, **_BINARY}
    for p, f in prefixes.items():
        sym_b, sym_bit = f"{p}B", f"{p}b"
        by = Unit(sym_b, SIZE, f)
        bi = Unit(sym_bit, SIZE, f / 8)
        _add((sym_b, f"{p}Byte", f"{p}Bytes", f"{p}byte", f"{p}bytes"), by)
        _add((sym_bit, f"{p}bit", f"{p}bits"), bi)
        _add(f"{p}Bps", Unit(f"{sym_b}/s", BANDWIDTH, f))
        _add((f"{p}bps", f"{p}bit/s"), Unit(f"{sym_bit}/s", BANDWIDTH, f / 8))
        # "bps" is bits per second whatever the prefix case: kbps, mbps, gbps.
        _add(f"{p.lower()}bps", Unit(f"{sym_bit}/s", BANDWIDTH, f / 8))
    # SI spells kilo with a small k.
    _add(("kB", "kbyte", "kbytes"), Unit("KB", SIZE, 1e3))
    _add(("kbit", "kbits"), Unit("Kb", SIZE, 1e3 / 8))
    _add(("kiB",), Unit("KiB", SIZE, 2.0**10))
    _add("kBps", Unit("KB/s", BANDWIDTH, 1e3))
    for word, p in _WORD_PREFIX.items():
        f = _DECIMAL[p]
        _add((f"{word}byte", f"{word}bytes"), Unit(f"{p}B", SIZE, f))
        _add((f"{word}bit", f"{word}bits"), Unit(f"{p}b", SIZE, f / 8))
    for word, p in _BIN_WORD.items():
        f = _BINARY[p]
        _add((f"{word}byte", f"{word}bytes"), Unit(f"{p}B", SIZE, f))
        _add((f"{word}bit", f"{word}bits"), Unit(f"{p}b", SIZE, f / 8))


def _build_other_units() -> None:
    time = {
        ("ns", "nanosecond", "nanoseconds", "nanosegundo", "nanosegundos"): ("ns", 1e-9),
        ("µs", "μs", "us", "microsecond", "microseconds", "microsegundo", "microsegundos"): (
            "µs",
            1e-6,
        ),
        ("ms", "millisecond", "milliseconds", "milisegundo", "milisegundos"): ("ms", 1e-3),
        ("s", "sec", "secs", "second", "seconds", "seg", "segundo", "segundos"): ("s", 1.0),
        ("min", "mins", "minute", "minutes", "minuto", "minutos"): ("min", 60.0),
        ("h", "hr", "hrs", "hour", "hours", "hora", "horas"): ("h", 3600.0),
        ("d", "day", "days", "día", "días", "dia", "dias"): ("day", 86400.0),
        ("wk", "wks", "week", "weeks", "semana", "semanas"): ("week", 7 * 86400.0),
        ("yr", "yrs", "year", "years", "año", "años"): ("year", 365 * 86400.0),
    }
    for names, (sym, f) in time.items():
        _add(names, Unit(sym, TIME, f))

    flop_prefix = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
    flop_prefix["Z"] = 1e21
    flop_prefix["Y"] = 1e24
    for p, f in flop_prefix.items():
        amount = Unit(f"{p}FLOP", FLOP, f)
        rate = Unit(f"{p}FLOP/s", FLOP_RATE, f)
        _add(f"{p}FLOP", amount)
        _add(f"{p}FLOPS", rate)
        # "FLOPs" is written for both; context decides, amount first.
        _add(f"{p}FLOPs", amount)
        _add(f"{p}FLOPs", rate)
    pf_day = Unit("PFLOP/s-day", FLOP, 1e15 * 86400)
    _add(("PFLOP/s-day", "PFLOP/s-days", "PF-day", "PF-days", "pfs-day", "pfs-days"), pf_day)
    _add(("petaflop/s-day", "petaflop/s-days", "petaflop-day", "petaflop-days"), pf_day)

    for names, (sym, f) in {
        ("mW", "milliwatt", "milliwatts"): ("mW", 1e-3),
        ("W", "watt", "watts", "vatio", "vatios"): ("W", 1.0),
        ("kW", "kilowatt", "kilowatts", "kilovatio", "kilovatios"): ("kW", 1e3),
        ("MW", "megawatt", "megawatts", "megavatio", "megavatios"): ("MW", 1e6),
        ("GW", "gigawatt", "gigawatts", "gigavatio", "gigavatios"): ("GW", 1e9),
    }.items():
        _add(names, Unit(sym, POWER, f))
    for names, (sym, f) in {
        ("J", "joule", "joules", "julio", "julios"): ("J", 1.0),
        ("kJ",): ("kJ", 1e3),
        ("MJ",): ("MJ", 1e6),
        ("GJ",): ("GJ", 1e9),
        ("Wh",): ("Wh", 3600.0),
        ("kWh",): ("kWh", 3.6e6),
        ("MWh",): ("MWh", 3.6e9),
        ("GWh",): ("GWh", 3.6e12),
    }.items():
        _add(names, Unit(sym, ENERGY, f))

    _add(("token", "tokens", "tok", "toks"), Unit("tokens", TOKENS, 1.0))
    _add(("tok/s", "tps"), Unit("tokens/s", TOKEN_RATE, 1.0))
    params = ("param", "params", "parameter", "parameters", "parámetro", "parámetros")
    _add((*params, "parametro", "parametros"), Unit("params", PARAMS, 1.0))

    _add(("x", "×", "times", "veces"), Unit("x", RATIO, 1.0))
    _add(("%", "percent", "por ciento", "pct"), Unit("%", RATIO, 0.01))
    _add("ratio", Unit("ratio", RATIO, 1.0))
    intensity = Unit("FLOP/byte", INTENSITY, 1.0)
    _add(("FLOP/byte", "FLOP/B", "FLOPs/byte", "FLOPs/B", "FLOP/bytes", "FLOP per byte",
          "FLOPs per byte", "FLOP por byte"), intensity)


_build_data_units()
_build_other_units()


def _fold(text: str) -> str:
    return text.casefold()


_FOLDED: dict[str, list[Unit]] = {}
for _name, _units in _EXACT.items():
    for _u in _units:
        _bucket = _FOLDED.setdefault(_fold(_name), [])
        if _u not in _bucket:
            _bucket.append(_u)

#: Count multipliers, longest first so "mil millones" wins over "mil".
_MULTIPLIERS: dict[str, float] = {
    "mil millones": 1e9,
    "thousand": 1e3,
    "thousands": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "trillion": 1e12,
    "trillions": 1e12,
    "mil": 1e3,
    "millón": 1e6,
    "millon": 1e6,
    "millones": 1e6,
    "billón": 1e12,
    "billon": 1e12,
    "billones": 1e12,
    "bn": 1e9,
    "K": 1e3,
    "k": 1e3,
    "M": 1e6,
    "B": 1e9,
    "T": 1e12,
}
_MULT_RE = re.compile(
    r"(?P<mult>"
    + "|".join(re.escape(m) for m in sorted(_MULTIPLIERS, key=len, reverse=True))
    + r")(?:\s+de)?\s*(?P<rest>.*)",
    re.DOTALL,
)
_PER_RE = re.compile(r"\s+(?:per|por|each|cada)\s+", re.IGNORECASE)
_SPACES_RE = re.compile(r"\s+")


def _normalise_unit(text: str) -> str:
    text = unicodedata.normalize("NFC", text).strip()
    text = _SPACES_RE.sub(" ", text)
    text = re.sub(r"\s*/\s*", "/", text)
    return text


def _lookup(text: str) -> list[Unit]:
    """Every unit ``text`` could mean (empty when none)."""
    if text in _EXACT:
        return list(_EXACT[text])
    rated = _PER_RE.sub("/", text)
    if rated != text and rated in _EXACT:
        return list(_EXACT[rated])
    if "/" in rated:
        num, _, den = rated.rpartition("/")
        times = [u for u in _lookup(den) if u.dimension == TIME]
        if num and times:
            out: list[Unit] = []
            for u in _lookup(num):
                rate = _RATES.get(u.dimension)
                if rate is None:
                    continue
                t = times[0]
                out.append(Unit(f"{u.symbol}/{t.symbol}", rate, u.factor / t.factor))
            if out:
                return out
    m = _MULT_RE.fullmatch(text)
    if m and m["rest"]:
        counts = [u for u in _lookup(m["rest"]) if u.dimension in COUNT_DIMENSIONS]
        if counts:
            f = _MULTIPLIERS[m["mult"]]
            return [Unit(f"{m['mult']} {u.symbol}", u.dimension, u.factor * f) for u in counts]
    return list(_FOLDED.get(_fold(text), []))


def _distinct(units: list[Unit]) -> list[Unit]:
    seen: dict[tuple[str, str], Unit] = {}
    for u in units:
        seen.setdefault((u.symbol, u.dimension), u)
    return list(seen.values())


def resolve_unit(unit: str, expect: str | None = None) -> Unit:
    """The single unit ``unit`` names, using the expected dimension to settle ties.

    Raises :class:`UnknownUnit` or :class:`AmbiguousUnit`. When no candidate
    has the expected dimension the first one is returned, so the caller can
    tell the learner which dimension they gave.
    """
    text = _normalise_unit(unit)
    candidates = _distinct(_lookup(text))
    if not candidates:
        raise UnknownUnit(unit.strip())
    if len(candidates) == 1:
        return candidates[0]
    if expect is not None:
        matching = [u for u in candidates if u.dimension == expect]
        if len(matching) == 1:
            return matching[0]
        if not matching:
            return candidates[0]
        candidates = matching
    raise AmbiguousUnit(unit.strip(), tuple(u.symbol for u in candidates))


def dimension_of(unit: str) -> str:
    """The dimension of ``unit`` (``"size"`` for ``GB``); raises like :func:`resolve_unit`."""
    return resolve_unit(unit).dimension


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """``value`` in ``from_unit`` expressed in ``to_unit`` (``convert(50, "GB/s", "Gb/s")``)."""
    target = resolve_unit(to_unit)
    source = resolve_unit(from_unit, target.dimension)
    if source.dimension != target.dimension:
        raise DimensionMismatch(source.dimension, target.dimension)
    return value * source.factor / target.factor


def multiplier_of(text: str) -> float | None:
    """The factor of a bare count multiplier (``"B"`` → 1e9), or None."""
    return _MULTIPLIERS.get(_normalise_unit(text))


# ---------------------------------------------------------------- numbers

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


_NOUN_RE = re.compile(r"[^\W\d_][\w\-]*(?: [^\W\d_][\w\-]*)*")


def parse_quantity(text: str, lang: str, expect: str | None = None) -> Quantity:
    """Read an answer such as ``140 GB``, ``1,5 s`` or ``70B params``.

    ``expect`` is the dimension the question asks for; it settles units that
    context must decide (``70B`` as a count, ``TFLOPs`` as a rate). When it is
    ``count``, an unknown word after the number (``8 GPUs``) is taken as the
    thing counted. Raises :class:`UnparsableAnswer`, :class:`UnknownUnit` or
    :class:`AmbiguousUnit`; never anything else for any input text.
    """
    value, other, rest = parse_number(text, lang)
    if not rest:
        return _quantity(value, None, "", other, 1.0)
    if rest[0].isdigit():
        raise UnparsableAnswer(text)
    unit_text = _normalise_unit(rest)
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
            m = _MULT_RE.fullmatch(unit_text)
            spaced = m is not None and " " in unit_text[: m.end("mult") + 1]
            if m and spaced and _NOUN_RE.fullmatch(m["rest"]):
                factor = _MULTIPLIERS[m["mult"]]
                return _quantity(value, COUNT, rest, other, factor)
            if _NOUN_RE.fullmatch(unit_text):
                return _quantity(value, COUNT, rest, other, 1.0)
        raise
    return _quantity(value, unit.dimension, rest, other, unit.factor)


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
