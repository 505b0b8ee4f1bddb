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
}
_TYPE_WORDS = {
    "str": "text",
    "int": "a number",
    "float": "a number",
    "bool": "true or false",
    "list": "a list",
    "dict": "a mapping",
}
_ERROR_WORDS = {
    "string_type": "expected text",
    "int_type": "expected a whole number",
    "float_type": "expected a number",
    "bool_type": "expected true or false",
    "list_type": "expected a list",
    "dict_type": "expected a mapping (key: value)",
    "model_type": "expected a mapping (key: value)",
    "model_attributes_type": "expected a mapping (key: value)",
    "string_pattern_mismatch": (
        "an id starts with a letter or digit and uses only letters, digits, '.', '_' and '-'"
    ),
}


def _field_names(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def suggest(wanted: str, known: Iterable[str]) -> str:
    """A "did you mean" hint for a misspelt name, or nothing."""
    close = difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def _describe_input(value: object) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _member_word(member: str | int) -> str:
    base = str(member).split("[", 1)[0].removeprefix("strict-")
    return _TYPE_WORDS.get(base, base)


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
) -> list[tuple[PathKey, bool, str]]:
    """Pydantic errors as (path, at_key, message), union branches merged into one."""
    out: list[tuple[PathKey, bool, str]] = []
    unions: dict[PathKey, tuple[list[str], Any]] = {}
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
                message = f"key {key!r} does not apply to {last_tag.strip('<>')} cards"
            else:
                hint = suggest(key, known)
                message = f"unknown key {key!r}{hint} (expected: {', '.join(known)})"
            out.append((path, True, message))
        elif kind == "missing":
            key = str(resolved.members[-1]) if resolved.members else "?"
            out.append((path, False, f"missing required key {key!r}"))
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
        out.append((path, False, f"expected {' or '.join(words)}, got {_describe_input(value)}"))
    return out


def _belongs_to_other_card(key: str) -> bool:
    return any(key in _field_names(m) for m in (ChoiceCard, TrueFalseCard, NumericCard,
                                                 TextCard, GeneratedCard))  # fmt: skip


def _card_type_problem(card: Any, path: PathKey) -> tuple[PathKey, bool, str]:
    types = ", ".join(CARD_TYPES)
    if isinstance(card, dict) and "type" in card:
        wanted = card["type"]
        hint = suggest(wanted, CARD_TYPES) if isinstance(wanted, str) else ""
        return (*path, "type"), False, f"unknown card type {wanted!r}{hint} (types: {types})"
    if isinstance(card, dict):
        return path, False, f"missing required key 'type' ({types})"
    return path, False, f"a card is a mapping with id, type, ... — got {_describe_input(card)}"


def _error_message(kind: str, msg: str, ctx: Mapping[str, Any], value: Any) -> str:
    if kind in _ERROR_WORDS:
        text = _ERROR_WORDS[kind]
        if kind == "string_pattern_mismatch":
            return text
        return f"{text}, got {_describe_input(value)}"
    if kind == "too_short":
        return f"needs at least {ctx.get('min_length')} item(s)"
    if kind == "too_long":
        return f"takes at most {ctx.get('max_length')} items"
    if kind == "string_too_long":
        return f"longer than {ctx.get('max_length')} characters"
    if kind == "literal_error":
        return f"expected {ctx.get('expected')}, got {value!r}"
    return msg.removeprefix("Value error, ")


# --- the checks ----------------------------------------------------------------
