"""A formula's worked line: the values put in, the result in its unit, rounded.

A scenario step (or a numeric card) without a written explanation showed its
formula and Python's float: ``6 * p * 1e9 * t * 1e12 = 719999999999999966445568
FLOP``. A learner reads the same computation with the numbers put in, a name
times a power of ten as a count (``70B``), earlier steps in their units, and the
result to three significant figures in the step's unit, a large one as a power
of ten: ``6 × 70B × 15T = 6.3 × 10²⁴ FLOP``.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping

from studyapp.decks.formula import EntryView, FormulaError, Value, parse_formula
from studyapp.numbers import format_number
from studyapp.questions.formatting import format_quantity

RESULT_FIGURES = 3
INPUT_FIGURES = 6
"""Given values are written as given (up to six figures); results to three."""
_COUNT_POWERS = {1e6: "M", 1e9: "B", 1e12: "T"}
_PRECEDENCE = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.FloorDiv: 2, ast.Mod: 2,
               ast.Pow: 4}
_SYMBOLS = {ast.Add: " + ", ast.Sub: " − ", ast.Mult: " × ", ast.Div: " / ",
            ast.FloorDiv: " // ", ast.Mod: " mod "}
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_SCIENTIFIC = re.compile(r"(?P<mantissa>-?\d+(?:[.,]\d+)?)e(?P<power>-?\d+)")


class _Unreadable(Exception):
    """A node the worked line does not write: the formula is shown as written."""


def powers_of_ten(text: str) -> str:
    """``6.3e24`` as ``6.3 × 10²⁴`` (the parser's ``e`` notation, for reading)."""
    def power(match: re.Match[str]) -> str:
        exponent = match["power"].translate(_SUPERSCRIPT)
        if match["mantissa"] in ("1", "-1"):
            return f"{match['mantissa'][:-1]}10{exponent}"
        return f"{match['mantissa']} × 10{exponent}"
    return _SCIENTIFIC.sub(power, text)


def result_text(value: float, unit: str | None, lang: str) -> str:
    """A step's result in its unit, three significant figures: ``6.3 × 10²⁴ FLOP``."""
    return powers_of_ten(format_quantity(value, unit, lang, RESULT_FIGURES))


class _Writer:
    def __init__(self, env: Mapping[str, Value], units: Mapping[str, str | None],
                 lang: str) -> None:
        self.env = env
        self.units = units
        self.lang = lang

    def number(self, value: object, figures: int = INPUT_FIGURES) -> str:
        if isinstance(value, bool) or not isinstance(value, int | float):
            if isinstance(value, EntryView):
                return str(value.field("name") if "name" in value.field_names() else value.id)
            if isinstance(value, str):
                return value
            raise _Unreadable
        return powers_of_ten(format_number(float(value), self.lang, figures))

    def name(self, name: str) -> str:
        if name not in self.env:
            raise _Unreadable
        if name in self.units:  # an earlier step: its value in its unit, as its line ends
            return result_text(float(str(self.env[name])), self.units[name], self.lang)
        return self.number(self.env[name])

    def factors(self, node: ast.expr) -> list[ast.expr]:
        """A product's factors, left to right (``6 * p * 1e9`` is ``[6, p, 1e9]``)."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            return [*self.factors(node.left), *self.factors(node.right)]
        return [node]

    def product(self, node: ast.BinOp) -> str:
        """A product, a given value times a power of ten written as a count (``70B``)."""
        words: list[str] = []
        factors = self.factors(node)
        for i, factor in enumerate(factors):
            before = factors[i - 1] if i else None
            given = isinstance(before, ast.Attribute) or (
                isinstance(before, ast.Name) and before.id not in self.units)
            if given and isinstance(factor, ast.Constant) \
                    and isinstance(factor.value, int | float) \
                    and not isinstance(factor.value, bool) \
                    and float(factor.value) in _COUNT_POWERS:
                words[-1] = f"{words[-1]}{_COUNT_POWERS[float(factor.value)]}"
                continue
            words.append(self.write(factor, 2))
        return " × ".join(words)

    def write(self, node: ast.expr, outer: int = 0, *, strict: bool = False) -> str:
        """``node`` written out; in parentheses when its operator binds less than the one
        around it (``outer``), or as tightly on the right of ``−`` or ``/`` (``strict``)."""
        if isinstance(node, ast.Constant):
            return self.number(node.value)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            entry = self.env.get(node.value.id)
            if not isinstance(entry, EntryView):
                raise _Unreadable
            return self.number(entry.field(node.attr))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"−{self.write(node.operand, 3)}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            args = ", ".join(self.write(arg) for arg in node.args)
            return f"{node.func.id}({args})"
        if not (isinstance(node, ast.BinOp) and type(node.op) in _PRECEDENCE):
            raise _Unreadable
        level = _PRECEDENCE[type(node.op)]
        if isinstance(node.op, ast.Mult):
            text = self.product(node)
        elif isinstance(node.op, ast.Pow):
            base = self.write(node.left, 5)
            exponent = node.right
            if isinstance(exponent, ast.Constant) and isinstance(exponent.value, int) \
                    and not isinstance(exponent.value, bool) and exponent.value >= 0:
                text = f"{base}{str(exponent.value).translate(_SUPERSCRIPT)}"
            else:
                text = f"{base}^{self.write(exponent, 5)}"
        else:
            tight = not isinstance(node.op, ast.Add)
            text = (f"{self.write(node.left, level)}{_SYMBOLS[type(node.op)]}"
                    f"{self.write(node.right, level, strict=tight)}")
        return f"({text})" if level < outer or (strict and level == outer) else text


def worked_line(formula: str | float, env: Mapping[str, Value], value: float,
                unit: str | None, lang: str,
                step_units: Mapping[str, str | None] | None = None) -> str:
    """``6 × 70B × 15T = 6.3 × 10²⁴ FLOP``: the formula with ``env``'s values put in
    (``step_units``: the earlier steps' units), then its result in ``unit``."""
    result = result_text(value, unit, lang)
    if not isinstance(formula, str):
        return result
    try:
        tree = parse_formula(formula).tree
        if isinstance(tree.body, ast.Constant):
            return result
        written = _Writer(env, step_units or {}, lang).write(tree.body)
    except (_Unreadable, FormulaError, ValueError, TypeError, KeyError):
        written = formula
    if written == result or not math.isfinite(value):
        return result
    return f"{written} = {result}"


__all__ = ["powers_of_ten", "result_text", "worked_line"]
