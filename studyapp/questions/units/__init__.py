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
* Money and counted things are units of their own: ``$`` (``USD``,
  ``dollars``), ``€`` (``EUR``, ``euros``), ``requests`` (and ``requests/s``),
  ``users``; ``tokens`` and ``params`` as above. Each currency is its own
  dimension (no exchange rate is assumed), and a currency symbol may come
  before the number (``$3.5M``). Money over time is a rate of its currency
  (``$6/h``, ``6 USD/h``, ``6 dólares a la hora``), and a bare amount (``$6``)
  answers a question that already names the period ("what does it cost an
  hour, in dollars?"). ``64 users`` still answers a plain "how many".
* Any other letter case is tried only when it leaves a single meaning
  (``MS`` = ``ms``, ``KW`` = ``kW``); ``mw`` (mW or MW) is refused.

Number rules are in :func:`parse_number`.
"""

from studyapp.questions.units.quantity import Quantity, parse_quantity
from studyapp.questions.units.table import (
    BANDWIDTH,
    COUNT,
    COUNT_DIMENSIONS,
    CURRENCY_OF_RATE,
    DIMENSIONS,
    ENERGY,
    EUR,
    EUR_RATE,
    FLOP,
    FLOP_RATE,
    INTENSITY,
    PARAMS,
    POWER,
    RATIO,
    REQUEST_RATE,
    REQUESTS,
    SIZE,
    TIME,
    TOKEN_RATE,
    TOKENS,
    USD,
    USD_RATE,
    USERS,
    Unit,
    UnitEntry,
    convert,
    dimension_of,
    multiplier_of,
    resolve_unit,
    unit_entries,
)
from studyapp.questions.units.typed_numbers import DECIMAL_MARK, parse_number
from studyapp.questions.units.unit_errors import (
    AmbiguousUnit,
    DimensionMismatch,
    UnitError,
    UnknownUnit,
    UnparsableAnswer,
)

__all__ = [
    "BANDWIDTH", "COUNT", "COUNT_DIMENSIONS", "CURRENCY_OF_RATE", "DECIMAL_MARK", "DIMENSIONS",
    "ENERGY", "EUR", "EUR_RATE", "FLOP", "FLOP_RATE", "INTENSITY", "PARAMS", "POWER", "RATIO",
    "REQUESTS", "REQUEST_RATE", "SIZE", "TIME", "TOKENS", "TOKEN_RATE", "USD", "USD_RATE",
    "USERS",
    "AmbiguousUnit", "DimensionMismatch", "Quantity", "Unit", "UnitEntry", "UnitError",
    "UnknownUnit", "UnparsableAnswer", "convert", "dimension_of", "multiplier_of",
    "parse_number", "parse_quantity", "resolve_unit", "unit_entries",
]
