"""Templates: text with ``{expression}`` and ``{expression:format}`` fields."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from studyapp.decks.formula.expression import Formula, evaluate, parse_formula
from studyapp.decks.formula.operations import (
    MAX_MAGNITUDE,
    FormulaError,
    Value,
    describe,
    is_number,
    shown_number,
)
from studyapp.decks.problems import as_written, problem_message
from studyapp.decks.text import plain_text

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
        raise FormulaError(problem_message("formula.format", spec=spec))
    digits = "".join(c if c.isdigit() else " " for c in spec).split()
    if any(int(d) > MAX_FORMAT_WIDTH for d in digits):
        raise FormulaError(problem_message("formula.format_width", spec=spec,
                                           limit=MAX_FORMAT_WIDTH))


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
            raise FormulaError(problem_message("formula.single_close"))
        elif char == "{":
            end = text.find("}", i + 1)
            if end < 0:
                raise FormulaError(problem_message("formula.never_closed"))
            field = text[i + 1:end]
            if "{" in field:
                raise FormulaError(problem_message("formula.nested_brace"))
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
    if lang == "es" and is_number(value):
        return text.translate(_SPANISH_MARKS)
    return text


def _format_value(value: Any, spec: str, words: Mapping[bool, str] | None) -> str:
    if isinstance(value, bool):
        if spec:
            raise FormulaError(problem_message("formula.bool_format"))
        return (words or {True: "true", False: "false"})[value]
    if is_number(value) and not abs(value) <= MAX_MAGNITUDE:
        return shown_number(value)  # a value a formula refuses, named in a few characters
    if spec:
        try:
            return format(value, spec)
        except (ValueError, TypeError) as exc:
            raise FormulaError(problem_message("formula.format_misfit", spec=spec,
                                               value=describe(value),
                                               detail=as_written(str(exc)))) from None
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
