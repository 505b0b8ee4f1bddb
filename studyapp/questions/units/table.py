"""The table of units: dimensions, symbols and their size in base units.

The unit rules are in the package docstring (:mod:`studyapp.questions.units`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from studyapp.questions.units.unit_errors import AmbiguousUnit, DimensionMismatch, UnknownUnit

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
USD = "usd"  # money: each currency is its own dimension (no exchange rate is assumed)
EUR = "eur"
USD_RATE = "usd_rate"  # money per unit of time: "$6/h", "€2 per hour"
EUR_RATE = "eur_rate"
REQUESTS = "requests"
REQUEST_RATE = "request_rate"
USERS = "users"

DIMENSIONS = (
    SIZE, BANDWIDTH, TIME, FLOP, FLOP_RATE, POWER, ENERGY,
    TOKENS, TOKEN_RATE, PARAMS, COUNT, RATIO, INTENSITY,
    USD, EUR, REQUESTS, REQUEST_RATE, USERS, USD_RATE, EUR_RATE,
)  # fmt: skip

#: Dimensions whose numbers take count multipliers (70B, 1.5T, 3M, $2M).
COUNT_DIMENSIONS = frozenset({TOKENS, TOKEN_RATE, PARAMS, COUNT, USD, EUR, REQUESTS,
                              REQUEST_RATE, USERS})

#: Things counted that a plain count (no unit) also accepts: "64 users" for "how many?".
COUNTED_THINGS = frozenset({REQUESTS, USERS})

#: Currency symbols a learner may write before the number (``$3``, ``€1,5``).
CURRENCY_PREFIXES = ("US$", "$", "€")

#: numerator dimension / time → rate dimension.
_RATES = {SIZE: BANDWIDTH, FLOP: FLOP_RATE, TOKENS: TOKEN_RATE, REQUESTS: REQUEST_RATE,
          USD: USD_RATE, EUR: EUR_RATE}

#: a currency rate → its currency: "$6" answers "what does it cost an hour, in dollars?"
CURRENCY_OF_RATE = {USD_RATE: USD, EUR_RATE: EUR}


@dataclass(frozen=True)
class Unit:
    """One unit: its canonical symbol, dimension and size in the base unit."""

    symbol: str
    dimension: str
    factor: float


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

    _add(("$", "US$", "USD", "usd", "dollar", "dollars", "dólar", "dólares", "dolar", "dolares"),
         Unit("$", USD, 1.0))
    _add(("€", "EUR", "eur", "euro", "euros"), Unit("€", EUR, 1.0))
    _add(("request", "requests", "req", "reqs", "petición", "peticiones", "peticion",
          "solicitud", "solicitudes"), Unit("requests", REQUESTS, 1.0))
    _add(("req/s", "rps", "QPS", "qps"), Unit("requests/s", REQUEST_RATE, 1.0))
    _add(("user", "users", "usuario", "usuarios"), Unit("users", USERS, 1.0))

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
COUNT_MULTIPLIERS: dict[str, float] = {
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
MULTIPLIER_RE = re.compile(
    r"(?P<mult>"
    + "|".join(re.escape(m) for m in sorted(COUNT_MULTIPLIERS, key=len, reverse=True))
    + r")(?:\s+de)?\s*(?P<rest>.*)",
    re.DOTALL,
)
_PER_RE = re.compile(r"\s+(?:per|por|a la|an?|each|cada)\s+", re.IGNORECASE)
_SPACES_RE = re.compile(r"\s+")


def normalise_unit(text: str) -> str:
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
    m = MULTIPLIER_RE.fullmatch(text)
    if m and m["rest"]:
        counts = [u for u in _lookup(m["rest"]) if u.dimension in COUNT_DIMENSIONS]
        if counts:
            f = COUNT_MULTIPLIERS[m["mult"]]
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
    text = normalise_unit(unit)
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


@dataclass(frozen=True)
class UnitEntry:
    """One unit of the table as a listing shows it: its symbol, dimension and other names."""

    symbol: str
    dimension: str
    aliases: tuple[str, ...]


def unit_entries() -> list[UnitEntry]:
    """Every unit of the table with the names it is read from, by dimension then size."""
    names: dict[Unit, list[str]] = {}
    for name, units in _EXACT.items():
        for unit in units:
            names.setdefault(unit, []).append(name)
    merged: dict[tuple[str, str], tuple[float, list[str]]] = {}
    for unit, spelled in names.items():
        _, known = merged.setdefault((unit.symbol, unit.dimension), (unit.factor, []))
        known.extend(n for n in spelled if n not in known)
    order = {dimension: i for i, dimension in enumerate(DIMENSIONS)}
    entries = sorted(merged.items(), key=lambda item: (order[item[0][1]], item[1][0], item[0][0]))
    return [UnitEntry(symbol, dimension, tuple(n for n in spelled if n != symbol))
            for (symbol, dimension), (_, spelled) in entries]


def multiplier_of(text: str) -> float | None:
    """The factor of a bare count multiplier (``"B"`` → 1e9), or None."""
    return COUNT_MULTIPLIERS.get(normalise_unit(text))
