"""Pydantic's validation errors turned into deck problems an author can act on.

Each error's ``loc`` is split into the real path in the YAML data (so the
problem lands on the right ``line:col``) and the union branches tried; the
branches of one union are merged into one "expected X or Y" message.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from studyapp.deck_ids import DECK_ID_PATTERN
from studyapp.decks.problems import ProblemMessage, as_written, either, problem_message
from studyapp.decks.schema import (
    CARD_TYPES,
    UNION_TAGS,
    ByLanguage,
    CatalogDraw,
    ChoiceCard,
    DeckFile,
    GeneratedCard,
    NumericCard,
    RangeParam,
    RecallCard,
    TextCard,
    TrueFalseCard,
)
from studyapp.decks.yaml_source import PathKey, SourceMap

# --- mapping pydantic errors to positions ---------------------------------------

_KEYS_BY_TAG: dict[str | None, type[BaseModel]] = {
    None: DeckFile,
    "<by-language>": ByLanguage,
    "<range>": RangeParam,
    "<catalog>": CatalogDraw,
    "<choice>": ChoiceCard,
    "<truefalse>": TrueFalseCard,
    "<numeric>": NumericCard,
    "<text>": TextCard,
    "<generated>": GeneratedCard,
    "<recall>": RecallCard,
}
_TYPE_WORDS = {
    "str": problem_message("type.text"),
    "int": problem_message("type.number"),
    "float": problem_message("type.number"),
    "bool": problem_message("type.bool"),
    "list": problem_message("type.list"),
    "dict": problem_message("type.mapping"),
}
_ERROR_WORDS = {
    "string_type": problem_message("expected.text"),
    "int_type": problem_message("expected.whole_number"),
    "float_type": problem_message("expected.number"),
    "bool_type": problem_message("expected.bool"),
    "list_type": problem_message("expected.list"),
    "dict_type": problem_message("expected.mapping"),
    "model_type": problem_message("expected.mapping"),
    "model_attributes_type": problem_message("expected.mapping"),
    "string_pattern_mismatch": problem_message("id_pattern"),
}
_FIXED_WORDS = {  # studyapp's own custom errors (schema.py), said in every language
    "localized_text": problem_message("localized_text"),
    "param_spec": problem_message("param_spec"),
    "by_language_empty": problem_message("by_language_empty"),
}


def _field_names(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def suggest(wanted: str, known: Iterable[str]) -> ProblemMessage | str:
    """A "did you mean" hint for a misspelt name, or nothing ("")."""
    close = difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.6)
    if not close:
        return ""
    return problem_message("did_you_mean", names=either([repr(c) for c in close]))


def _describe_input(value: object) -> ProblemMessage:
    if value is None:
        return problem_message("input.null")
    if isinstance(value, bool):
        return problem_message("input.bool")
    if isinstance(value, int | float):
        return problem_message("input.number")
    if isinstance(value, str):
        return problem_message("input.text")
    if isinstance(value, list):
        return problem_message("input.list")
    if isinstance(value, dict):
        return problem_message("input.mapping")
    return as_written(type(value).__name__)


def _member_word(member: str | int) -> ProblemMessage:
    base = str(member).split("[", 1)[0].removeprefix("strict-")
    return _TYPE_WORDS.get(base) or as_written(base)


def _has(container: Any, segment: str | int) -> bool:
    if isinstance(container, dict):
        return segment in container
    if isinstance(container, list) and isinstance(segment, int):
        return 0 <= segment < len(container)
    return False


@dataclass
class _Resolved:
    path: PathKey
    members: list[str | int]
    tags: list[str]


def _resolve(loc: Sequence[str | int], data: Any) -> _Resolved:
    """Split an error's ``loc`` into the real path in the data and union branch names."""
    current = data
    path: list[str | int] = []
    members: list[str | int] = []
    tags: list[str] = []
    for segment in loc:
        if isinstance(segment, str) and segment in UNION_TAGS:
            tags.append(segment)
        elif not members and _has(current, segment):
            path.append(segment)
            current = current[segment]
        else:
            members.append(segment)
    return _Resolved(tuple(path), members, tags)


def schema_problems(
    error: ValidationError, data: Any, prefix: PathKey, source_map: SourceMap
) -> list[tuple[PathKey, bool, ProblemMessage]]:
    """Pydantic errors as (path, at_key, message), union branches merged into one."""
    out: list[tuple[PathKey, bool, ProblemMessage]] = []
    unions: dict[PathKey, tuple[list[ProblemMessage], Any]] = {}
    for item in error.errors(include_url=False):
        resolved = _resolve(item["loc"], data)
        path = prefix + resolved.path
        kind = item["type"]
        value = item.get("input")
        ctx = item.get("ctx") or {}
        last_tag = resolved.tags[-1] if resolved.tags else None
        if kind == "extra_forbidden":
            key = str(resolved.path[-1]) if resolved.path else "?"
            model = _KEYS_BY_TAG.get(last_tag, DeckFile)
            known = _field_names(model)
            if last_tag and last_tag.strip("<>") in CARD_TYPES and _belongs_to_other_card(key):
                message = problem_message("key_other_card", name=key,
                                          card_type=last_tag.strip("<>"))
            else:
                message = problem_message("unknown_key", name=key, hint=suggest(key, known),
                                          known=", ".join(known))
            out.append((path, True, message))
        elif kind == "missing":
            key = str(resolved.members[-1]) if resolved.members else "?"
            out.append((path, False, problem_message("missing_key", name=key)))
        elif kind == "card_type":
            out.append(_card_type_problem(value, path))
        elif resolved.members:
            words, _ = unions.setdefault(path, ([], value))
            word = _member_word(resolved.members[0])
            if word not in words:
                words.append(word)
        else:
            out.append((path, False, _error_message(kind, item["msg"], ctx, value)))
    for path, (words, value) in unions.items():
        out.append((path, False, problem_message("expected_got", expected=problem_message(
            "expected.any", types=either(words)), got=_describe_input(value))))
    return out


def _belongs_to_other_card(key: str) -> bool:
    return any(key in _field_names(m) for m in (ChoiceCard, TrueFalseCard, NumericCard,
                                                 TextCard, GeneratedCard, RecallCard))  # fmt: skip


def _options(expected: str) -> object:
    """Pydantic's "'a', 'b' or 'c'" with its "or" said in the reader's language."""
    head, sep, last = expected.rpartition(" or ")
    return either([head, last]) if sep else expected


def _card_type_problem(card: Any, path: PathKey) -> tuple[PathKey, bool, ProblemMessage]:
    types = ", ".join(CARD_TYPES)
    if isinstance(card, dict) and "type" in card:
        wanted = card["type"]
        hint = suggest(wanted, CARD_TYPES) if isinstance(wanted, str) else ""
        message = problem_message("unknown_card_type", value=repr(wanted), hint=hint, types=types)
        return (*path, "type"), False, message
    if isinstance(card, dict):
        return path, False, problem_message("missing_type", types=types)
    return path, False, problem_message("card_not_mapping", got=_describe_input(card))


def _error_message(kind: str, msg: str, ctx: Mapping[str, Any], value: Any) -> ProblemMessage:
    """The words for one pydantic error; pydantic's own (English) text when studyapp has none."""
    if kind in _ERROR_WORDS:
        text = _ERROR_WORDS[kind]
        if kind == "string_pattern_mismatch":  # a deck id, or a card's or a fact's
            return problem_message("deck_id_pattern") if ctx.get("pattern") == DECK_ID_PATTERN \
                else text
        return problem_message("expected_got", expected=text, got=_describe_input(value))
    if kind in _FIXED_WORDS:
        return _FIXED_WORDS[kind]
    if kind == "too_short":
        return problem_message("too_short", count=str(ctx.get("min_length")))
    if kind == "too_long":
        return problem_message("too_long", count=str(ctx.get("max_length")))
    if kind == "string_too_long":
        return problem_message("text_too_long", count=str(ctx.get("max_length")))
    if kind == "literal_error":
        return problem_message("literal", expected=_options(str(ctx.get("expected"))),
                               got=repr(value))
    return as_written(msg.removeprefix("Value error, "))


# --- the checks ----------------------------------------------------------------


describe_input = _describe_input
"""What a value is, in words ("a number", "text"), for other files' problems."""
error_message = _error_message
"""The words for one pydantic error, for other files checked against a schema (the catalog)."""
