"""Formulas of a card checked over its parameters' values, and the texts they sit in.

A card's formulas are evaluated over every combination of the values its
parameters can take (up to ``MAX_FORMULA_CHECKS`` for a deck); the first
combination that fails each formula is reported with the values drawn.
Cards written from one pattern are worked out once (``sample_key``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from studyapp.decks.deck_model import Localized, ParamSpec, bool_words, numeric_answer, truth
from studyapp.decks.field_checks import check_combinations, combination_count
from studyapp.decks.formula import (
    FormulaError,
    Value,
    format_value,
    parse_formula,
    parse_template,
    render,
)
from studyapp.decks.problems import ProblemMessage, problem_message
from studyapp.decks.schema import ByLanguage
from studyapp.decks.yaml_source import PathKey

GENERATOR_CHECK_SEEDS = (0, 1, 2)
"""Seeds a generated card or a scenario is drawn with, in each language, when checked."""


@dataclass(frozen=True)
class TextAt:
    """One language's text of a field, and where it is written."""

    lang: str
    text: str
    path: PathKey


def variants(value: str | ByLanguage, path: PathKey, language: str) -> list[TextAt]:
    if isinstance(value, str):
        return [TextAt(language, value, path)]
    found = [(lang, getattr(value, lang)) for lang in ("es", "en")]
    return [TextAt(lang, text, (*path, lang)) for lang, text in found if text is not None]


def localized(value: str | ByLanguage, language: str) -> Localized:
    return {v.lang: v.text for v in variants(value, (), language)}


def exact(value: Any) -> Any:
    """A value with its type, so 1, 1.0 and true never stand for each other in a key."""
    return (type(value), value)


def sample_key(card_type: str, answer_source: Any, params: Mapping[str, ParamSpec],
                path: PathKey, texts: list[TextAt]) -> Hashable | None:
    """What the sampled outcome depends on; None when some part cannot be a key."""
    key = (
        card_type, exact(answer_source),
        tuple((name, spec.kind, exact(spec.start), exact(spec.stop), exact(spec.step),
               spec.integral, tuple(exact(v) for v in spec.values))
              for name, spec in params.items()),
        tuple((text.path[len(path):], text.lang, text.text) for text in texts),
    )
    try:
        hash(key)
    except TypeError:  # a list or mapping among picked values
        return None
    return key


def checks_needed(card_type: str, answer_source: Any, params: Mapping[str, ParamSpec],
                   path: PathKey, texts: list[TextAt]) -> int:
    """How many formula evaluations ``sample_problems`` makes for these arguments."""

    def over(used: frozenset[str]) -> int:
        return combination_count({n: spec for n, spec in params.items() if n in used})

    answer_names: frozenset[str] = frozenset()
    total = 0
    if isinstance(answer_source, str) and card_type in ("numeric", "numeric-signed",
                                                        "truefalse"):
        try:
            answer_names = parse_formula(answer_source).names
        except FormulaError:
            return 0
        total += over(answer_names)
    for text in texts:
        try:
            used = frozenset(n for f in parse_template(text.text).formulas for n in f.names)
        except FormulaError:
            continue
        if text.path[len(path)] == "explanation" and "answer" in used:
            used = used | answer_names
        total += over(used)
    return total


def sample_problems(card_type: str, answer_source: Any, params: Mapping[str, ParamSpec],
                     path: PathKey, texts: list[TextAt]) -> list[tuple[PathKey, ProblemMessage]]:
    """(place within the card, message) of the first failing combination of each formula."""
    found: list[tuple[PathKey, ProblemMessage]] = []
    seen: set[PathKey] = set()

    def report(where: PathKey, exc: FormulaError, names: Mapping[str, Value]) -> None:
        if where in seen:  # the first failing combination says enough
            return
        seen.add(where)
        drawn = ", ".join(f"{k}={format_value(v)}" for k, v in names.items()
                          if k != "answer")  # fmt: skip
        found.append((where, problem_message("with_values", detail=exc.message, values=drawn)
                      if drawn else exc.message))

    words = {lang: bool_words(lang) for lang in {text.lang for text in texts}}
    answer_names: frozenset[str] = frozenset()
    if isinstance(answer_source, str) and card_type in ("numeric", "numeric-signed",
                                                        "truefalse"):
        answer_names = parse_formula(answer_source).names

    def answer_for(names: Mapping[str, Value]) -> Value | None:
        if card_type in ("numeric", "numeric-signed"):
            return numeric_answer(answer_source, names, signed=card_type == "numeric-signed")
        if card_type == "truefalse":
            return truth(answer_source, names)
        return None

    def over(used: frozenset[str]) -> Iterator[dict[str, Value]]:
        return check_combinations({n: spec for n, spec in params.items() if n in used})

    answer_failed = False
    for names in over(answer_names):
        try:
            answer_for(names)
        except FormulaError as exc:
            report(("answer",), exc, names)
            answer_failed = True
            break
    for text in texts:
        used = frozenset(n for f in parse_template(text.text).formulas for n in f.names)
        explains = text.path[len(path)] == "explanation"
        if explains and "answer" in used:
            used = used | answer_names
        for names in over(used):
            bound: dict[str, Value] = dict(names)
            if explains:
                try:
                    answer = None if answer_failed else answer_for(names)
                except FormulaError:
                    answer = None
                bound["answer"] = answer if answer is not None else ""
            try:
                render(text.text, bound, words[text.lang], text.lang)
            except FormulaError as exc:
                report(text.path[len(path):], exc, names)
                break
    return found
