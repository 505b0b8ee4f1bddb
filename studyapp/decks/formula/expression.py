"""Formulas: parsed once into a checked tree, then evaluated with simpleeval.

Only the node types arithmetic needs are allowed: no subscripts, no method
calls, attribute access only on catalog entries. Nothing here calls ``eval``
or ``exec``.
"""

from __future__ import annotations

import ast
import difflib
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from simpleeval import InvalidExpression, SimpleEval

from studyapp.decks.formula.operations import (
    FUNCTIONS,
    MAX_FORMULA_LENGTH,
    MAX_FORMULA_NODES,
    MAX_TEXT_LENGTH,
    OPERATORS,
    EntryView,
    FormulaError,
    Value,
    describe,
    is_number,
)

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
    """simpleeval with our operators, functions and name/attribute rules only.

    Building one costs more than most evaluations, so each thread keeps one
    (``_evaluator``) and binds new names for every formula.
    """

    def __init__(self, names: Mapping[str, Value]) -> None:
        super().__init__(operators=OPERATORS, functions=FUNCTIONS, names=dict(names))
        self.busy = False
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


_THREAD = threading.local()


def _evaluator() -> _Evaluator:
    """This thread's evaluator, or a fresh one while it is in use."""
    evaluator: _Evaluator | None = getattr(_THREAD, "evaluator", None)
    if evaluator is None:
        evaluator = _THREAD.evaluator = _Evaluator({})
    return evaluator if not evaluator.busy else _Evaluator({})


def evaluate(formula: Formula | str, names: Mapping[str, Value]) -> Any:
    """The value of ``formula`` with ``names`` bound; ``FormulaError`` on any failure."""
    parsed = parse_formula(formula) if isinstance(formula, str) else formula
    evaluator = _evaluator()
    evaluator.names, evaluator.busy = names, True
    try:
        return evaluator.eval(parsed.source, previously_parsed=parsed.tree)
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
    finally:
        evaluator.names, evaluator.busy = {}, False


def number(value: Any, what: str = "the answer") -> float:
    """``value`` as a finite float, or ``FormulaError`` saying why not."""
    if isinstance(value, bool) or not is_number(value):
        raise FormulaError(f"{what} is {describe(value)}, not a number")
    result = float(value)
    if math.isnan(result):
        raise FormulaError(f"{what} is not a number (NaN)")
    if math.isinf(result):
        raise FormulaError(f"{what} is infinite")
    return result


# --- templates: text with {expression} and {expression:format} ------------------
