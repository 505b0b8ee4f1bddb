"""Safe evaluation of deck formulas and ``{...}`` templates.

Formulas are arithmetic over a card's parameters, a fixed set of math
functions and catalog fields (``gpu.memory_gb``). They are evaluated with
``simpleeval`` restricted further: only the node types arithmetic needs,
no subscripts, no method calls, attribute access only on catalog entries
and only to their declared fields, bounded powers, numbers and text.
Nothing here calls ``eval`` or ``exec``.

``operations`` holds the values, operators and functions; ``expression``
parses and evaluates one formula; ``template`` renders text with fields.
"""

from studyapp.decks.formula.expression import Formula, evaluate, number, parse_formula
from studyapp.decks.formula.operations import (
    DTYPE_BYTES,
    FUNCTIONS,
    MAX_EXPONENT,
    MAX_FORMULA_LENGTH,
    MAX_FORMULA_NODES,
    MAX_INT_BITS,
    MAX_MAGNITUDE,
    MAX_ROUND_DIGITS,
    MAX_TEXT_LENGTH,
    OPERATORS,
    RESERVED_NAMES,
    EntryView,
    FormulaError,
    Value,
    dtype_bytes,
)
from studyapp.decks.formula.template import (
    MAX_FORMAT_WIDTH,
    Template,
    format_value,
    parse_template,
    render,
)

__all__ = [
    "DTYPE_BYTES",
    "FUNCTIONS",
    "MAX_EXPONENT",
    "MAX_FORMAT_WIDTH",
    "MAX_FORMULA_LENGTH",
    "MAX_FORMULA_NODES",
    "MAX_INT_BITS",
    "MAX_MAGNITUDE",
    "MAX_ROUND_DIGITS",
    "MAX_TEXT_LENGTH",
    "OPERATORS",
    "RESERVED_NAMES",
    "EntryView",
    "Formula",
    "FormulaError",
    "Template",
    "Value",
    "dtype_bytes",
    "evaluate",
    "format_value",
    "number",
    "parse_formula",
    "parse_template",
    "render",
]
