"""Safe evaluation of deck formulas and ``{...}`` templates.

Formulas are arithmetic over a card's parameters, a fixed set of math
functions and catalog fields (``gpu.memory_gb``). They are evaluated with
``simpleeval`` restricted further: only the node types arithmetic needs,
no subscripts, no method calls, attribute access only on catalog entries
and only to their declared fields, bounded powers, numbers and text.
Nothing here calls ``eval`` or ``exec``.
"""

from __future__ import annotations

import ast
import difflib
import math
import operator as op
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from simpleeval import InvalidExpression, SimpleEval

from studyapp.decks.text import plain_text
from studyapp.infra.units import DTYPE_BYTES as UNIT_DTYPE_BYTES

MAX_FORMULA_LENGTH = 500
MAX_FORMULA_NODES = 200
MAX_TEXT_LENGTH = 1_000
MAX_EXPONENT = 1_000
MAX_INT_BITS = 4_096
MAX_ROUND_DIGITS = 20

DTYPE_BYTES: Mapping[str, float] = UNIT_DTYPE_BYTES
"""Bytes per value of each dtype, as DESIGN.md fixes them."""


class FormulaError(ValueError):
    """A formula or template that cannot be evaluated, in words a deck author reads."""


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
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise FormulaError(f"{self.table} entries have no field {name!r}{hint}")
        value = self._fields[name]
        if value is None:
            raise FormulaError(f"{self.table} entry {self.id!r} has no value for {name!r}")
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


Value = int | float | str | bool | EntryView


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_number(value: Any) -> Any:
    if isinstance(value, complex):
        raise FormulaError("the result is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise FormulaError("a number overflows or is not a number (inf/NaN)")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise FormulaError("a number in the formula is too large")
    if isinstance(value, str) and len(value) > MAX_TEXT_LENGTH:
        raise FormulaError(f"text longer than {MAX_TEXT_LENGTH} characters")
    return value


def _arith(name: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def apply(a: Any, b: Any) -> Any:
        if isinstance(a, EntryView) or isinstance(b, EntryView):
            raise FormulaError(
                f"a catalog entry cannot be used in {name}; use a field, like gpu.memory_gb"
            )
        if name != "+" and (isinstance(a, str) or isinstance(b, str)):
            raise FormulaError(f"text cannot be used in {name}")
        return _check_number(fn(a, b))

    return apply


def _power(a: Any, b: Any) -> Any:
    if not (_is_number(a) and _is_number(b)):
        raise FormulaError("** takes numbers")
    if abs(b) > MAX_EXPONENT:
        raise FormulaError(f"exponent {b} is larger than {MAX_EXPONENT}")
    if isinstance(a, int) and isinstance(b, int) and b > 0 and a.bit_length() * b > MAX_INT_BITS:
        raise FormulaError("the power is too large")
    return _check_number(a**b)


def _negate(a: Any) -> Any:
    if not _is_number(a):
        raise FormulaError("only numbers can be negated")
    return -a


def _plus(a: Any) -> Any:
    if not _is_number(a):
        raise FormulaError("unary + takes a number")
    return a


def _compare(fn: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def apply(a: Any, b: Any) -> bool:
        if isinstance(a, EntryView) or isinstance(b, EntryView):
            raise FormulaError("compare a catalog entry's fields, like gpu.vendor == 'nvidia'")
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
        if not _is_number(arg):
            raise FormulaError(f"{name}() takes numbers, got {_describe(arg)}")


def _describe(value: object) -> str:
    if isinstance(value, EntryView):
        return f"the {value.table} entry {value.id!r}"
    if isinstance(value, str):
        return f"text {value[:20]!r}"
    return repr(value)


def _numeric(name: str, fn: Callable[..., Any], arity: tuple[int, int]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        if not arity[0] <= len(args) <= arity[1]:
            raise FormulaError(f"{name}() takes {arity[0]}–{arity[1]} arguments")
        _numbers(name, args)
        return _check_number(fn(*args))

    return call


def _round(x: Any, digits: Any = None) -> Any:
    if digits is None:
        return round(x)
    if not isinstance(digits, int) or abs(digits) > MAX_ROUND_DIGITS:
        raise FormulaError(f"round() takes a whole number of digits up to {MAX_ROUND_DIGITS}")
    return round(x, digits)


def dtype_bytes(dtype: Any) -> float:
    """Bytes per value of ``dtype`` (``bytes("bf16") == 2``)."""
    if not isinstance(dtype, str) or dtype.lower() not in DTYPE_BYTES:
        known = ", ".join(DTYPE_BYTES)
        raise FormulaError(f"bytes() takes a dtype ({known}), got {_describe(dtype)}")
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

_ALLOWED_NODES = (
    ast.Expression, ast.Name, ast.Load, ast.Constant, ast.UnaryOp, ast.BinOp,
    ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.Attribute,
    ast.And, ast.Or, *OPERATORS,
)  # fmt: skip
_NODE_WORDS = {
    ast.Subscript: "indexing ([...])",
    ast.Lambda: "lambda",
    ast.ListComp: "comprehensions",
    ast.GeneratorExp: "generators",
    ast.NamedExpr: "assignment (:=)",
    ast.JoinedStr: "f-strings",
}


@dataclass(frozen=True)
class Formula:
    """A parsed, checked expression; ``names`` are the parameters it reads."""

    source: str
    tree: ast.Expression
    names: frozenset[str]
    fields: frozenset[tuple[str, str]]  # (parameter, field) read as param.field


@lru_cache(maxsize=8192)
def parse_formula(source: str) -> Formula:
    """Parse ``source`` and refuse anything beyond arithmetic on names and fields.

    Cached: a deck repeats the same formulas across cards and samples.
    """
    text = source.strip()
    if not text:
        raise FormulaError("empty formula")
    if len(text) > MAX_FORMULA_LENGTH:
        raise FormulaError(f"formula longer than {MAX_FORMULA_LENGTH} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"formula syntax error: {exc.msg} in {text!r}") from None
    except (ValueError, RecursionError, MemoryError):
        raise FormulaError(f"formula cannot be read: {text[:60]!r}") from None
    names: set[str] = set()
    fields: set[tuple[str, str]] = set()
    for count, node in enumerate(ast.walk(tree), start=1):
        if count > MAX_FORMULA_NODES:
            raise FormulaError(f"formula has more than {MAX_FORMULA_NODES} parts")
        if not isinstance(node, _ALLOWED_NODES):
            what = _NODE_WORDS.get(type(node), type(node).__name__)
            raise FormulaError(f"{what} is not allowed in a formula")
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, int | float | str | bool):
                raise FormulaError(f"constant {node.value!r} is not allowed in a formula")
            if isinstance(node.value, str) and len(node.value) > MAX_TEXT_LENGTH:
                raise FormulaError(f"text longer than {MAX_TEXT_LENGTH} characters")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise FormulaError(f"field {node.attr!r} is not allowed")
            if not isinstance(node.value, ast.Name):
                raise FormulaError("only a parameter's fields can be read, like gpu.memory_gb")
            fields.add((node.value.id, node.attr))
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise FormulaError(
                    f"only these functions can be called: {', '.join(FUNCTIONS)}"
                )
            if node.func.id not in FUNCTIONS:
                raise FormulaError(
                    f"function {node.func.id!r} is not available; use {', '.join(FUNCTIONS)}"
                )
            if node.keywords:
                raise FormulaError("functions take positional arguments only")
        elif isinstance(node, ast.Name):
            if node.id.startswith("_"):
                raise FormulaError(f"name {node.id!r} is not allowed")
            names.add(node.id)
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)
              and isinstance(n.func, ast.Name)}  # fmt: skip
    return Formula(text, tree, frozenset(names - called), frozenset(fields))


class _Evaluator(SimpleEval):  # type: ignore[misc]
    """simpleeval with our operators, functions and name/attribute rules only."""

    def __init__(self, names: Mapping[str, Value]) -> None:
        super().__init__(operators=OPERATORS, functions=FUNCTIONS, names=dict(names))
        allowed = {
            ast.Expression: lambda node: self._eval(node.body),
            ast.Name: self._eval_name,
            ast.Constant: self._eval_constant,
            ast.UnaryOp: self._eval_unaryop,
            ast.BinOp: self._eval_binop,
            ast.BoolOp: self._eval_boolop,
            ast.Compare: self._eval_compare,
            ast.IfExp: self._eval_ifexp,
            ast.Call: self._eval_call,
            ast.Attribute: self._eval_attribute,
        }
        self.nodes = allowed

    def _eval_name(self, node: ast.Name) -> Any:
        if node.id in self.names:
            return self.names[node.id]
        known = sorted(self.names)
        close = difflib.get_close_matches(node.id, known, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        listed = f" (known: {', '.join(known)})" if known else " (this card has no params)"
        raise FormulaError(f"unknown name {node.id!r}{hint}{listed}")

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        base = self._eval(node.value)
        if not isinstance(base, EntryView):
            name = node.value.id if isinstance(node.value, ast.Name) else "value"
            raise FormulaError(
                f"{name}.{node.attr}: only catalog draws ({{from: ...}}) have fields"
            )
        return base.field(node.attr)

    def _eval_call(self, node: ast.Call) -> Any:
        assert isinstance(node.func, ast.Name)  # parse_formula guarantees it
        func = self.functions[node.func.id]
        return func(*(self._eval(arg) for arg in node.args))


def evaluate(formula: Formula | str, names: Mapping[str, Value]) -> Any:
    """The value of ``formula`` with ``names`` bound; ``FormulaError`` on any failure."""
    parsed = parse_formula(formula) if isinstance(formula, str) else formula
    try:
        return _Evaluator(names).eval(parsed.source, previously_parsed=parsed.tree)
    except FormulaError:
        raise
    except ZeroDivisionError:
        raise FormulaError(f"division by zero in {parsed.source!r}") from None
    except OverflowError:
        raise FormulaError(f"a number overflows in {parsed.source!r}") from None
    except (InvalidExpression, ValueError, TypeError, ArithmeticError) as exc:
        raise FormulaError(f"{parsed.source!r} fails: {exc}") from None
    except RecursionError:
        raise FormulaError(f"formula nested too deeply: {parsed.source[:60]!r}") from None


def number(value: Any, what: str = "the answer") -> float:
    """``value`` as a finite float, or ``FormulaError`` saying why not."""
    if isinstance(value, bool) or not _is_number(value):
        raise FormulaError(f"{what} is {_describe(value)}, not a number")
    result = float(value)
    if math.isnan(result):
        raise FormulaError(f"{what} is not a number (NaN)")
    if math.isinf(result):
        raise FormulaError(f"{what} is infinite")
    return result


# --- templates: text with {expression} and {expression:format} ------------------

_FORMAT_SPEC_CHARS = frozenset("<>^=+- #0123456789,_.eEfFgGn%d")
MAX_FORMAT_WIDTH = 100


@dataclass(frozen=True)
class Template:
    """Text split into literal parts and ``{expression:spec}`` fields."""

    parts: tuple[str | tuple[Formula, str], ...]

    @property
    def formulas(self) -> Iterator[Formula]:
        for part in self.parts:
            if not isinstance(part, str):
                yield part[0]


def _split_spec(field: str) -> tuple[str, str]:
    """``expr:spec`` → (expr, spec), ignoring colons inside quoted text."""
    quote: str | None = None
    for index, char in enumerate(field):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == ":":
            return field[:index], field[index + 1:]
    return field, ""


def _check_spec(spec: str) -> None:
    if not spec:
        return
    if not set(spec) <= _FORMAT_SPEC_CHARS:
        raise FormulaError(f"format {spec!r} is not allowed; use forms like .1f, .3g or ,")
    digits = "".join(c if c.isdigit() else " " for c in spec).split()
    if any(int(d) > MAX_FORMAT_WIDTH for d in digits):
        raise FormulaError(f"format {spec!r} asks for more than {MAX_FORMAT_WIDTH} characters")


@lru_cache(maxsize=8192)
def parse_template(text: str) -> Template:
    """Split ``text``; ``{{`` and ``}}`` are literal braces (cached like formulas)."""
    parts: list[str | tuple[Formula, str]] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "{" and text.startswith("{{", i):
            literal.append("{")
            i += 2
        elif char == "}" and text.startswith("}}", i):
            literal.append("}")
            i += 2
        elif char == "}":
            raise FormulaError("a single } in text; write }} for a literal brace")
        elif char == "{":
            end = text.find("}", i + 1)
            if end < 0:
                raise FormulaError("a { is never closed; write {{ for a literal brace")
            field = text[i + 1:end]
            if "{" in field:
                raise FormulaError("nested { in text; write {{ for a literal brace")
            source, spec = _split_spec(field)
            _check_spec(spec)
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append((parse_formula(source), spec))
            i = end + 1
        else:
            literal.append(char)
            i += 1
    if literal:
        parts.append("".join(literal))
    return Template(tuple(parts))


_SPANISH_MARKS = str.maketrans({".": ",", ",": "."})


def format_value(
    value: Any, spec: str = "", words: Mapping[bool, str] | None = None, lang: str = "en"
) -> str:
    """How a value reads in a prompt: plain numbers, entry names, true/false words.

    Numbers take the language's decimal mark (``1,5`` in Spanish), as learners
    type them.
    """
    text = _format_value(value, spec, words)
    if lang == "es" and _is_number(value):
        return text.translate(_SPANISH_MARKS)
    return text


def _format_value(value: Any, spec: str, words: Mapping[bool, str] | None) -> str:
    if isinstance(value, bool):
        if spec:
            raise FormulaError("true/false values take no format")
        return (words or {True: "true", False: "false"})[value]
    if spec:
        try:
            return format(value, spec)
        except (ValueError, TypeError) as exc:
            raise FormulaError(f"format {spec!r} does not fit {_describe(value)}: {exc}") from None
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 1e16:
            return str(int(value))
        if not math.isfinite(value):
            return str(value)
        whole_digits = len(str(int(abs(value))))
        return f"{value:.{max(4, whole_digits + 2)}g}"
    return str(value)


def render(
    template: Template | str,
    names: Mapping[str, Value],
    words: Mapping[bool, str] | None = None,
    lang: str = "en",
) -> str:
    """The template's text with every field evaluated and formatted."""
    parsed = parse_template(template) if isinstance(template, str) else template
    out: list[str] = []
    for part in parsed.parts:
        if isinstance(part, str):
            out.append(part)
        else:
            formula, spec = part
            out.append(plain_text(format_value(evaluate(formula, names), spec, words, lang)))
    return "".join(out)
