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
    check_number,
    describe,
    is_number,
)
from studyapp.decks.problems import ProblemMessage, as_written, problem_message

_ALLOWED_NODES = (
    ast.Expression, ast.Name, ast.Load, ast.Constant, ast.UnaryOp, ast.BinOp,
    ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.Attribute,
    ast.And, ast.Or, *OPERATORS,
)  # fmt: skip
_NODE_WORDS: dict[type, ProblemMessage] = {
    ast.Subscript: problem_message("formula.node.subscript"),
    ast.Lambda: problem_message("formula.node.lambda"),
    ast.ListComp: problem_message("formula.node.comprehension"),
    ast.GeneratorExp: problem_message("formula.node.generator"),
    ast.NamedExpr: problem_message("formula.node.assignment"),
    ast.JoinedStr: problem_message("formula.node.f_string"),
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
        raise _error("empty")
    if len(text) > MAX_FORMULA_LENGTH:
        raise _error("too_long", limit=MAX_FORMULA_LENGTH)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise _error("syntax", detail=as_written(exc.msg), text=text) from None
    except (ValueError, RecursionError, MemoryError):
        raise _error("unreadable", text=text[:60]) from None
    names: set[str] = set()
    fields: set[tuple[str, str]] = set()
    for count, node in enumerate(ast.walk(tree), start=1):
        if count > MAX_FORMULA_NODES:
            raise _error("too_many_parts", limit=MAX_FORMULA_NODES)
        if isinstance(node, ast.RShift | ast.LShift):
            raise _error("bit_shift")
        if isinstance(node, ast.BitXor):  # 2^10 usually means a power
            raise _error("caret")
        if isinstance(node, ast.BitAnd | ast.BitOr | ast.Invert):
            raise _error("bitwise")
        if not isinstance(node, _ALLOWED_NODES):
            what = _NODE_WORDS.get(type(node)) or as_written(type(node).__name__)
            raise _error("not_allowed", what=what)
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, int | float | str | bool):
                raise _error("constant", value=repr(node.value))
            if isinstance(node.value, str) and len(node.value) > MAX_TEXT_LENGTH:
                raise _error("text_too_long", limit=MAX_TEXT_LENGTH)
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise _error("private_field", name=node.attr)
            if not isinstance(node.value, ast.Name):
                raise _error("field_of_param")
            fields.add((node.value.id, node.attr))
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise _error("callable", functions=", ".join(FUNCTIONS))
            if node.func.id not in FUNCTIONS:
                raise _error("unknown_function", name=node.func.id,
                             functions=", ".join(FUNCTIONS))
            if node.keywords:
                raise _error("keywords")
        elif isinstance(node, ast.Name):
            if node.id.startswith("_"):
                raise _error("private_name", name=node.id)
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

    def _eval_constant(self, node: ast.Constant) -> Any:
        return check_number(node.value)

    def _eval_name(self, node: ast.Name) -> Any:
        if node.id in self.names:
            return check_number(self.names[node.id])
        known = sorted(self.names)
        close = difflib.get_close_matches(node.id, known, n=3, cutoff=0.6)
        hint = problem_message("did_you_mean", names=", ".join(close)) if close else ""
        listed = (problem_message("formula.known", names=", ".join(known)) if known
                  else problem_message("formula.no_params"))  # fmt: skip
        raise _error("unknown_name", name=node.id, hint=hint, known=listed)

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        base = self._eval(node.value)
        if not isinstance(base, EntryView):
            name = node.value.id if isinstance(node.value, ast.Name) else "value"
            raise _error("field_of_value", name=name, field=node.attr)
        return check_number(base.field(node.attr))

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
        raise _error("division_by_zero", formula=parsed.source) from None
    except OverflowError:
        raise _error("overflow", formula=parsed.source) from None
    except (InvalidExpression, ValueError, TypeError, ArithmeticError) as exc:
        raise _error("fails", formula=parsed.source, detail=as_written(str(exc))) from None
    except RecursionError:
        raise _error("too_deep", formula=parsed.source[:60]) from None
    finally:
        evaluator.names, evaluator.busy = {}, False


def number(value: Any) -> float:
    """``value`` as a finite float (a card's answer), or ``FormulaError`` saying why not."""
    if isinstance(value, bool) or not is_number(value):
        raise _error("answer_not_number", value=describe(value))
    try:
        result = float(check_number(value))
    except OverflowError:
        raise _error("answer_infinite") from None
    if math.isnan(result):
        raise _error("answer_nan")
    if math.isinf(result):
        raise _error("answer_infinite")
    return result


def _error(name: str, /, **fields: object) -> FormulaError:
    return FormulaError(problem_message(f"formula.{name}", **fields))


# --- templates: text with {expression} and {expression:format} ------------------
