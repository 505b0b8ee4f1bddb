"""The formula language's values, operators and functions, each bounded.

Numbers stay finite and small (bounded powers, integer sizes and rounding);
catalog entries are read-only views with declared fields only.
"""

from __future__ import annotations

import ast
import difflib
import math
import operator as op
from collections.abc import Callable, Mapping
from typing import Any

from studyapp.decks.problems import ProblemMessage, as_written, problem_message
from studyapp.infra.units import DTYPE_BYTES as UNIT_DTYPE_BYTES

MAX_FORMULA_LENGTH = 500
MAX_FORMULA_NODES = 200
MAX_TEXT_LENGTH = 1_000
MAX_EXPONENT = 1_000
MAX_INT_BITS = 4_096
MAX_ROUND_DIGITS = 20
MAX_MAGNITUDE = 1e30
"""The largest size of any number a formula reads or makes, integer or float.

The largest figures of the field are training runs' compute, about 4e25
FLOPs; 1e30 leaves four orders of magnitude above that. Every value a
formula meets stays within it, so any format a template allows prints in a
few dozen characters, a float never overflows, and an integer is never
turned into thousands of digits."""

DTYPE_BYTES: Mapping[str, float] = UNIT_DTYPE_BYTES
"""Bytes per value of each dtype, as docs/architecture.md fixes them."""


class FormulaError(ValueError):
    """A formula or template that cannot be evaluated, in words a deck author reads.

    ``message`` says it in any language; ``str()`` is the English text.
    """

    def __init__(self, message: ProblemMessage | str) -> None:
        self.message = as_written(message) if isinstance(message, str) else message
        super().__init__(self.message.render("en"))


def _formula_error(name: str, /, **fields: object) -> FormulaError:
    return FormulaError(problem_message(f"formula.{name}", **fields))


class EntryView:
    """A catalog entry as a formula sees it: read-only fields, nothing else.

    Bound to a parameter (``gpu``), it answers ``gpu.memory_gb``; shown in a
    template (``{gpu}``) it prints the entry's name.
    """

    __slots__ = ("_fields", "_table")
    _table: str
    _fields: dict[str, Any]

    def __init__(self, table: str, fields: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_fields", dict(fields))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("catalog entries are read-only")

    @property
    def table(self) -> str:
        return str(self._table)

    @property
    def id(self) -> str:
        return str(self._fields.get("id", ""))

    def field_names(self) -> list[str]:
        return list(self._fields)

    def field(self, name: str) -> Any:
        """The value of field ``name``; ``FormulaError`` if missing or empty."""
        if name not in self._fields:
            close = difflib.get_close_matches(name, list(self._fields), n=3, cutoff=0.5)
            hint = problem_message("did_you_mean", names=", ".join(close)) if close else ""
            raise FormulaError(problem_message("unknown_field", table=self.table, field=name,
                                               hint=hint))
        value = self._fields[name]
        if value is None:
            raise _formula_error("no_value", table=self.table, id=self.id, field=name)
        return value

    def __str__(self) -> str:
        return str(self._fields.get("name") or self.id)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"EntryView({self.table!r}, {self.id!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EntryView) and other._fields == self._fields

    def __hash__(self) -> int:
        return hash((self._table, self.id))

    def __reduce__(self) -> tuple[type[EntryView], tuple[str, dict[str, Any]]]:
        """Pickled through ``__init__`` (the deck cache), never by setting attributes."""
        return EntryView, (self._table, self._fields)


Value = int | float | str | bool | EntryView


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def shown_number(value: int | float) -> str:
    """A number of any size in a few characters (``1e+1000``), for a message about it."""
    if isinstance(value, float) or abs(value) < 10**15:
        return f"{value:.6g}"
    digits = str(abs(value)) if value.bit_length() < 10_000 else ""
    if not digits:
        return f"{'-' if value < 0 else ''}2**{value.bit_length() - 1}"
    sign = "-" if value < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:6].rstrip('0') or '0'}e+{len(digits) - 1}"


def check_number(value: Any) -> Any:
    """``value`` if it is a finite real number within ``MAX_MAGNITUDE`` (or short text)."""
    if isinstance(value, complex):
        raise _formula_error("not_real")
    if isinstance(value, float) and not math.isfinite(value):
        raise _formula_error("not_finite")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise _formula_error("int_too_large")
    if is_number(value) and abs(value) > MAX_MAGNITUDE:
        raise _formula_error("too_large", value=shown_number(value), limit=f"{MAX_MAGNITUDE:g}")
    if isinstance(value, str) and len(value) > MAX_TEXT_LENGTH:
        raise _formula_error("text_too_long", limit=MAX_TEXT_LENGTH)
    return value


def _arith(name: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def apply(a: Any, b: Any) -> Any:
        if isinstance(a, EntryView) or isinstance(b, EntryView):
            raise _formula_error("entry_in_arithmetic", operator=name)
        if name != "+" and (isinstance(a, str) or isinstance(b, str)):
            raise _formula_error("text_in_arithmetic", operator=name)
        return check_number(fn(a, b))

    return apply


def _power(a: Any, b: Any) -> Any:
    if not (is_number(a) and is_number(b)):
        raise _formula_error("power_numbers")
    if abs(b) > MAX_EXPONENT:
        raise _formula_error("exponent", exponent=b, limit=MAX_EXPONENT)
    if isinstance(a, int) and isinstance(b, int) and b > 0 and a.bit_length() * b > MAX_INT_BITS:
        raise _formula_error("power_too_large")
    return check_number(a**b)


def _negate(a: Any) -> Any:
    if not is_number(a):
        raise _formula_error("negate")
    return -a


def _plus(a: Any) -> Any:
    if not is_number(a):
        raise _formula_error("unary_plus")
    return a


def _compare(fn: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def apply(a: Any, b: Any) -> bool:
        if isinstance(a, EntryView) or isinstance(b, EntryView):
            raise _formula_error("compare_entry")
        return fn(a, b)

    return apply


OPERATORS: dict[type, Callable[..., Any]] = {
    ast.Add: _arith("+", op.add),
    ast.Sub: _arith("-", op.sub),
    ast.Mult: _arith("*", op.mul),
    ast.Div: _arith("/", op.truediv),
    ast.FloorDiv: _arith("//", op.floordiv),
    ast.Mod: _arith("%", op.mod),
    ast.Pow: _power,
    ast.USub: _negate,
    ast.UAdd: _plus,
    ast.Not: op.not_,
    ast.Eq: _compare(op.eq),
    ast.NotEq: _compare(op.ne),
    ast.Lt: _compare(op.lt),
    ast.LtE: _compare(op.le),
    ast.Gt: _compare(op.gt),
    ast.GtE: _compare(op.ge),
}


def _numbers(name: str, args: tuple[Any, ...]) -> None:
    for arg in args:
        if not is_number(arg):
            raise _formula_error("function_numbers", function=name, got=describe(arg))


def describe(value: object) -> ProblemMessage | str:
    if isinstance(value, EntryView):
        return problem_message("formula.entry", table=value.table, id=value.id)
    if isinstance(value, str):
        return problem_message("formula.text", text=value[:20])
    return repr(value)


def _numeric(name: str, fn: Callable[..., Any], arity: tuple[int, int]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        if not arity[0] <= len(args) <= arity[1]:
            raise _formula_error("arity", function=name, least=arity[0], most=arity[1])
        _numbers(name, args)
        return check_number(fn(*args))

    return call


def _round(x: Any, digits: Any = None) -> Any:
    if digits is None:
        return round(x)
    if not isinstance(digits, int) or abs(digits) > MAX_ROUND_DIGITS:
        raise _formula_error("round_digits", limit=MAX_ROUND_DIGITS)
    return round(x, digits)


def dtype_bytes(dtype: Any) -> float:
    """Bytes per value of ``dtype`` (``bytes("bf16") == 2``)."""
    if not isinstance(dtype, str) or dtype.lower() not in DTYPE_BYTES:
        known = ", ".join(DTYPE_BYTES)
        raise _formula_error("dtype", known=known, got=describe(dtype))
    return DTYPE_BYTES[dtype.lower()]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": _numeric("min", min, (1, 64)),
    "max": _numeric("max", max, (1, 64)),
    "round": _numeric("round", _round, (1, 2)),
    "ceil": _numeric("ceil", math.ceil, (1, 1)),
    "floor": _numeric("floor", math.floor, (1, 1)),
    "sqrt": _numeric("sqrt", math.sqrt, (1, 1)),
    "log": _numeric("log", math.log, (1, 2)),
    "log2": _numeric("log2", math.log2, (1, 1)),
    "log10": _numeric("log10", math.log10, (1, 1)),
    "exp": _numeric("exp", math.exp, (1, 1)),
    "abs": _numeric("abs", abs, (1, 1)),
    "bytes": dtype_bytes,
}
"""The only functions a formula may call."""

RESERVED_NAMES = frozenset(FUNCTIONS) | {"answer", "True", "False", "None"}

