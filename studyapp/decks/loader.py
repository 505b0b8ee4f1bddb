"""Read a deck file and check everything, reporting each problem at its position.

Order of work: size limit → decode → safe YAML composition (positions kept)
→ pydantic shape checks (errors mapped back to ``line:col``) → checks that
need the catalog, the generator registry or formula evaluation. Every stage
reports all it finds; a deck is returned only when nothing was found.
"""

from __future__ import annotations

import difflib
import itertools
import keyword
import math
import random
import re
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from studyapp.catalog.posts import POST_SLUGS
from studyapp.decks.formula import (
    RESERVED_NAMES,
    EntryView,
    Formula,
    FormulaError,
    Value,
    format_value,
    parse_formula,
    parse_template,
    render,
)
from studyapp.decks.model import (
    CardSpec,
    Deck,
    DeckSource,
    Localized,
    ParamSpec,
    bool_words,
    numeric_answer,
    truth,
)
from studyapp.decks.problems import DeckError, Problem, sorted_unique
from studyapp.decks.schema import (
    CARD_TYPES,
    UNION_TAGS,
    ByLanguage,
    CardModel,
    CatalogDraw,
    ChoiceCard,
    DeckFile,
    GeneratedCard,
    NumericCard,
    RangeParam,
    TextCard,
    TrueFalseCard,
)
from studyapp.decks.yaml_source import PathKey, SourceMap, parse_yaml, position_of
from studyapp.questions.model import DEFAULT_TOLERANCE, Tolerance

if TYPE_CHECKING:
    from studyapp.catalog import Catalog

MAX_DECK_BYTES = 5_000_000
"""5 MB (10^6 bytes, as everywhere in studyapp): larger files are refused unread."""
MAX_FORMULA_SAMPLES = 50
MAX_RANGE_VALUES = 1_000_000
GENERATOR_CHECK_SEEDS = (0, 1, 2)
DECK_SUFFIXES = (".yaml", ".yml")

_CARD_ADAPTER: TypeAdapter[Any] = TypeAdapter(CardModel)
_CATALOG_TABLES = ("accelerators", "interconnects", "systems", "models")
_TOLERANCE = re.compile(r"^\s*((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(%|[^\s\d%.].*?)?\s*$")


class _DeckHeader(DeckFile):
    """The deck's own fields; cards are checked one by one so one bad card hides nothing."""

    cards: list[Any] = Field(min_length=1)  # type: ignore[assignment]


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


def _suggest(wanted: str, known: Iterable[str]) -> str:
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
                hint = _suggest(key, known)
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
        hint = _suggest(wanted, CARD_TYPES) if isinstance(wanted, str) else ""
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


@dataclass(frozen=True)
class _TextAt:
    """One language's text of a field, and where it is written."""

    lang: str
    text: str
    path: PathKey


def _variants(value: str | ByLanguage, path: PathKey, language: str) -> list[_TextAt]:
    if isinstance(value, str):
        return [_TextAt(language, value, path)]
    found = [(lang, getattr(value, lang)) for lang in ("es", "en")]
    return [_TextAt(lang, text, (*path, lang)) for lang, text in found if text is not None]


def _localized(value: str | ByLanguage, language: str) -> Localized:
    return {v.lang: v.text for v in _variants(value, (), language)}


class _DeckCheck:
    """All the checks for one parsed file; collects problems, builds the Deck."""

    def __init__(self, path: Path, data: Any, source_map: SourceMap, source: DeckSource) -> None:
        self.path = path
        self.data = data
        self.map = source_map
        self.source = source
        self.problems: list[Problem] = []
        self._catalog: Catalog | None = None
        self._catalog_failed = False

    # reporting
    def at(self, path: PathKey, message: str, *, key: bool = False) -> None:
        if self.map.is_refused(path):
            return
        line, col = self.map.key(path) if key else self.map.value(path)
        self.problems.append(Problem(self.path, line, col, message))

    def catalog(self, path: PathKey) -> Catalog | None:
        if self._catalog is None and not self._catalog_failed:
            from studyapp.catalog import CatalogError, load_catalog

            try:
                self._catalog = load_catalog()
            except CatalogError as exc:
                self._catalog_failed = True
                self.at(path, f"the catalog cannot be loaded, so draws are not checked: {exc}")
        return self._catalog

    # the deck
    def run(self) -> Deck | None:
        data = self.data
        if not isinstance(data, dict):
            self.at((), "a deck is a mapping with keys deck, title, language, post and cards")
            return None
        header: _DeckHeader | None = None
        try:
            header = _DeckHeader.model_validate(data)
        except ValidationError as exc:
            for path, at_key, message in schema_problems(exc, data, (), self.map):
                self.at(path, message, key=at_key)
        raw_language, raw_post, raw_id = data.get("language"), data.get("post"), data.get("deck")
        language = raw_language if raw_language in ("es", "en") else "en"
        post = raw_post if isinstance(raw_post, str) else None
        if post is not None:
            self.check_post(post, ("post",))
        raw_cards = data.get("cards")
        cards: list[CardSpec] = []
        if isinstance(raw_cards, list):
            self.check_card_ids(raw_cards)
            deck_id = raw_id if isinstance(raw_id, str) else ""
            for index, raw in enumerate(raw_cards):
                card = self.card(raw, ("cards", index), deck_id, language, post or "intro")
                if card is not None:
                    cards.append(card)
        if self.problems or header is None:
            return None
        return Deck(
            id=header.deck,
            title=_localized(header.title, header.language),
            language=header.language,
            post=header.post,
            cards=tuple(cards),
            path=self.path,
            source=self.source,
        )

    def check_post(self, post: str, path: PathKey) -> None:
        if post not in POST_SLUGS:
            hint = _suggest(post, POST_SLUGS)
            self.at(path, f"unknown post {post!r}{hint} (posts: {', '.join(POST_SLUGS)})")

    def check_card_ids(self, raw_cards: list[Any]) -> None:
        first: dict[str, PathKey] = {}
        for index, raw in enumerate(raw_cards):
            if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
                continue
            path: PathKey = ("cards", index, "id")
            card_id = raw["id"]
            if card_id in first:
                line, col = self.map.value(first[card_id])
                self.at(path, f"duplicate card id {card_id!r} (first at line {line}, column {col})")
            else:
                first[card_id] = path

    # one card
    def card(
        self, raw: Any, path: PathKey, deck_id: str, language: str, deck_post: str
    ) -> CardSpec | None:
        before = len(self.problems)
        try:
            model = _CARD_ADAPTER.validate_python(raw)
        except ValidationError as exc:
            for where, at_key, message in schema_problems(exc, raw, path, self.map):
                self.at(where, message, key=at_key)
            model = _without_unknown_keys(exc, raw)
            if model is None:
                return None
        if model.post is not None:
            self.check_post(model.post, (*path, "post"))
        line, col = self.map.value(path)
        common: dict[str, Any] = {
            "id": model.id,
            "post": model.post or deck_post,
            "fact": model.fact,
            "deck": deck_id,
            "language": language,
            "path": self.path,
            "line": line,
            "col": col,
        }
        spec: CardSpec | None
        if isinstance(model, GeneratedCard):
            self.check_generated(model, path)
            spec = CardSpec(type="generated", generator=model.generator,
                            options=dict(model.options), **common)  # fmt: skip
        else:
            spec = self.authored(model, path, language, common)
        return spec if len(self.problems) == before else None

    def check_generated(self, model: GeneratedCard, path: PathKey) -> None:
        from studyapp.catalog import UnknownIdError

        try:
            from studyapp.questions.generators import get_family

            family = get_family(model.generator)
        except UnknownIdError as exc:
            hint = f"; did you mean {', '.join(exc.close)}?" if exc.close else ""
            known = f" (generators: {', '.join(exc.known)})" if exc.known else ""
            self.at((*path, "generator"), f"unknown generator {model.generator!r}{hint}{known}")
            return
        except ImportError as exc:
            self.at((*path, "generator"), f"the generator families cannot be loaded: {exc}")
            return
        accepted = list(family.options)
        unknown = [name for name in model.options if name not in family.options]
        for name in unknown:
            listed = ", ".join(accepted) if accepted else "none"
            self.at((*path, "options", name),
                    f"generator {family.name!r} has no option {name!r}"
                    f"{_suggest(name, accepted)} (options: {listed})", key=True)  # fmt: skip
        if unknown:
            return
        for seed, lang in itertools.product(GENERATOR_CHECK_SEEDS, ("en", "es")):
            try:
                family.generate(seed, lang, dict(model.options))
            except Exception as exc:  # a family's own error, shown to the deck author
                where = (*path, "options") if model.options else (*path, "generator")
                self.at(where, f"generator {family.name!r} fails with these options: {exc}")
                return

    def authored(
        self,
        model: ChoiceCard | TrueFalseCard | NumericCard | TextCard,
        path: PathKey,
        language: str,
        common: dict[str, Any],
    ) -> CardSpec | None:
        before = len(self.problems)
        params = self.params(model.params, (*path, "params"))
        declared = set(model.params)
        catalog_params = {n: p.values[0] for n, p in params.items() if p.kind == "catalog"}
        broken_params = declared - set(params)

        def check_formula(formula: Formula, where: PathKey, answer_known: bool) -> None:
            known = declared | ({"answer"} if answer_known else set())
            for name in sorted(formula.names - known):
                if name in broken_params:
                    continue
                listed = ", ".join(sorted(known)) or "none"
                self.at(where, f"unknown name {name!r}{_suggest(name, known)} in "
                               f"{formula.source!r} (params: {listed})")  # fmt: skip
            for name, field_name in sorted(formula.fields):
                if name not in declared or name in broken_params:
                    continue
                entry = catalog_params.get(name)
                if not isinstance(entry, EntryView):
                    self.at(where, f"{name}.{field_name}: {name!r} is not a catalog draw "
                                   "({from: ...}), so it has no fields")  # fmt: skip
                elif field_name not in entry.field_names():
                    self.at(where, f"{entry.table} entries have no field {field_name!r}"
                                   f"{_suggest(field_name, entry.field_names())}")  # fmt: skip

        # every text field with {...}, by language
        texts: list[tuple[_TextAt, bool]] = []
        texts += [(v, False) for v in _variants(model.prompt, (*path, "prompt"), language)]
        if model.explanation is not None:
            expl = _variants(model.explanation, (*path, "explanation"), language)
            texts += [(v, True) for v in expl]
        if isinstance(model, ChoiceCard):
            for i, choice in enumerate(model.choices):
                texts += [(v, False) for v in _variants(choice, (*path, "choices", i), language)]
        if isinstance(model, TextCard):
            texts += [(v, False) for v in _variants(model.answer, (*path, "answer"), language)]
            for i, accepted in enumerate(model.accept):
                texts += [(v, False) for v in _variants(accepted, (*path, "accept", i), language)]
        for variant, answer_known in texts:
            try:
                template = parse_template(variant.text)
            except FormulaError as exc:
                self.at(variant.path, str(exc))
                continue
            for formula in template.formulas:
                check_formula(formula, variant.path, answer_known)

        formulas_ok = len(self.problems) == before
        answer: Any = None
        extra: dict[str, Any] = {}
        if isinstance(model, TrueFalseCard | NumericCard) and isinstance(model.answer, str):
            try:
                check_formula(parse_formula(model.answer), (*path, "answer"), False)
            except FormulaError as exc:
                self.at((*path, "answer"), str(exc))
                formulas_ok = False
            formulas_ok = formulas_ok and len(self.problems) == before
        if formulas_ok:
            self.sample(model.type, model.answer, params, path, [v for v, _ in texts])
        if isinstance(model, ChoiceCard):
            answer = self.choice_answer(model, path, language)
            extra["choices"] = tuple(_localized(c, language) for c in model.choices)
        elif isinstance(model, NumericCard):
            answer = model.answer
            if not isinstance(answer, str):
                self.check_number(answer, (*path, "answer"))
        elif isinstance(model, TrueFalseCard):
            answer = model.answer
        else:
            answer = _localized(model.answer, language)
            extra["accept"] = tuple(_localized(a, language) for a in model.accept)
        if isinstance(model, NumericCard):
            extra["unit"] = self.unit(model.unit, (*path, "unit"))
            extra["tolerance"] = self.tolerance(model.tolerance, extra["unit"],
                                                (*path, "tolerance"))  # fmt: skip
        if len(self.problems) != before:
            return None
        return CardSpec(
            type=model.type,
            prompt=_localized(model.prompt, language),
            explanation=None if model.explanation is None
            else _localized(model.explanation, language),
            answer=answer,
            params=params,
            **extra,
            **common,
        )
    def choice_answer(self, model: ChoiceCard, path: PathKey, language: str) -> int | None:
        where: PathKey = (*path, "answer")
        options = [_localized(c, language) for c in model.choices]
        for lang in ("es", "en"):
            seen: dict[str, int] = {}
            for i, choice in enumerate(options):
                text = choice.get(lang)
                if text is None:
                    continue
                if text in seen:
                    self.at((*path, "choices", i),
                            f"choice {i} repeats choice {seen[text]} ({text!r})")  # fmt: skip
                seen.setdefault(text, i)
        if isinstance(model.answer, int):
            if 0 <= model.answer < len(options):
                return model.answer
            self.at(where, f"answer index {model.answer} is out of range: there are "
                           f"{len(options)} choices, numbered 0 to {len(options) - 1}")  # fmt: skip
            return None
        for i, choice in enumerate(options):
            if model.answer in choice.values():
                return i
        listed = list(dict.fromkeys(pick for c in options for pick in c.values()))
        self.at(where, f"answer {model.answer!r} is not among the choices"
                       f"{_suggest(model.answer, listed)} (write a choice's exact text "
                       "or its 0-based index)")  # fmt: skip
        return None

    def check_number(self, value: float, path: PathKey) -> None:
        if not math.isfinite(value):
            self.at(path, "the answer must be a finite number")
        elif value < 0:
            self.at(path, "the answer is negative; sizes, rates and times never are")

    def unit(self, unit: str | None, path: PathKey) -> str | None:
        """The card's unit, checked against the grading unit table."""
        if unit is None:
            return None
        from studyapp.questions.units import UnitError, resolve_unit

        cleaned = unit.strip()
        try:
            resolve_unit(cleaned)
        except UnitError as exc:
            self.at(path, f"{exc}; use a unit like GB, KB, GiB, GB/s, Gb/s, ms, s or tokens/s")
        return cleaned

    def tolerance(self, value: str | float | None, unit: str | None, path: PathKey) -> Tolerance:
        """``2%`` is relative; ``0.5 KB`` is absolute, converted into the card's unit."""
        if value is None:
            return DEFAULT_TOLERANCE
        if isinstance(value, int | float):
            if not math.isfinite(value) or value < 0:
                self.at(path, "a tolerance is a non-negative number, like 2% or 0.5 KB")
                return DEFAULT_TOLERANCE
            return Tolerance(relative=None, absolute=float(value))
        match = _TOLERANCE.match(value)
        if match is None:
            self.at(path, f"bad tolerance {value!r}: write a percentage like 2% "
                          "or an amount in the card's unit like 0.5 KB")  # fmt: skip
            return DEFAULT_TOLERANCE
        amount, suffix = float(match.group(1)), match.group(2)
        if suffix == "%":
            return Tolerance(relative=amount / 100, absolute=None)
        if suffix is None or suffix == unit:
            return Tolerance(relative=None, absolute=amount)
        if unit is None:
            self.at(path, f"the tolerance has a unit ({suffix}) but the card has none; "
                          "add unit: or drop the tolerance's unit")  # fmt: skip
            return DEFAULT_TOLERANCE
        from studyapp.questions.units import UnitError, convert

        try:
            return Tolerance(relative=None, absolute=convert(amount, suffix, unit))
        except UnitError as exc:
            self.at(path, f"tolerance {value!r} does not fit the card's unit {unit}: {exc}")
            return DEFAULT_TOLERANCE

    # parameters
    def params(self, raw: Mapping[str, Any], path: PathKey) -> dict[str, ParamSpec]:
        specs: dict[str, ParamSpec] = {}
        for name, value in raw.items():
            where: PathKey = (*path, name)
            if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
                self.at(where, f"parameter name {name!r} must be a plain identifier "
                               "like kv_heads", key=True)  # fmt: skip
                continue
            if name in RESERVED_NAMES:
                self.at(where, f"parameter name {name!r} is reserved (functions and 'answer')",
                        key=True)
                continue
            spec = self.param(value, where)
            if spec is not None:
                specs[name] = spec
        return specs

    def param(self, value: Any, where: PathKey) -> ParamSpec | None:
        if isinstance(value, list):
            return ParamSpec(kind="pick", values=tuple(value))
        if isinstance(value, RangeParam):
            return self.range_param(value, where)
        if isinstance(value, CatalogDraw):
            return self.catalog_param(value, where)
        return ParamSpec(kind="constant", values=(value,))

    def range_param(self, value: RangeParam, where: PathKey) -> ParamSpec | None:
        numbers = (value.min, value.max, value.step)
        if not all(math.isfinite(n) for n in numbers):
            self.at(where, "min, max and step must be finite numbers")
            return None
        if value.step <= 0:
            self.at((*where, "step"), "step must be greater than 0")
            return None
        if value.max < value.min:
            self.at((*where, "max"), f"max ({value.max}) is less than min ({value.min})")
            return None
        spec = ParamSpec(kind="range", start=value.min, stop=value.max, step=value.step,
                         integral=all(isinstance(n, int) for n in numbers))  # fmt: skip
        if spec.range_count > MAX_RANGE_VALUES:
            self.at(where, f"the range has more than {MAX_RANGE_VALUES} values; use a larger step")
            return None
        return spec

    def catalog_param(self, value: CatalogDraw, where: PathKey) -> ParamSpec | None:
        from studyapp.catalog import Accelerator, Interconnect, Model, System

        models: dict[str, type[BaseModel]] = {
            "accelerators": Accelerator, "interconnects": Interconnect,
            "systems": System, "models": Model,
        }  # fmt: skip
        table_name = value.from_
        if table_name not in models:
            self.at((*where, "from"), f"unknown catalog table {table_name!r}"
                                      f"{_suggest(table_name, _CATALOG_TABLES)} "
                                      f"(tables: {', '.join(_CATALOG_TABLES)})")  # fmt: skip
            return None
        fields = list(models[table_name].model_fields)
        bad = False
        for field_name in value.where:
            if field_name not in fields:
                bad = True
                self.at((*where, "where", field_name),
                        f"{table_name} entries have no field {field_name!r}"
                        f"{_suggest(field_name, fields)}", key=True)  # fmt: skip
        catalog = self.catalog((*where, "from"))
        if bad or catalog is None:
            return None
        entries = [
            EntryView(table_name, entry.model_dump(mode="json"))
            for entry in catalog.table(table_name)
            if _matches(entry, value.where)
        ]
        if not entries:
            self.at((*where, "where") if value.where else (*where, "from"),
                    f"no {table_name} entry matches {dict(value.where)}")  # fmt: skip
            return None
        return ParamSpec(kind="catalog", values=tuple(entries))

    # formulas over sampled parameter values
    def sample(
        self,
        card_type: str,
        answer_source: Any,
        params: Mapping[str, ParamSpec],
        path: PathKey,
        texts: list[_TextAt],
    ) -> None:
        seen: set[PathKey] = set()

        def report(where: PathKey, exc: FormulaError, names: Mapping[str, Value]) -> None:
            if where in seen:  # the first failing combination says enough
                return
            seen.add(where)
            drawn = ", ".join(f"{k}={format_value(v)}" for k, v in names.items()
                              if k != "answer")  # fmt: skip
            self.at(where, f"{exc} (with {drawn})" if drawn else str(exc))

        for names in sample_combinations(params):
            answer: Value | None = None
            try:
                if card_type == "numeric":
                    answer = numeric_answer(answer_source, names)
                elif card_type == "truefalse":
                    answer = truth(answer_source, names)
            except FormulaError as exc:
                report((*path, "answer"), exc, names)
                continue
            for text in texts:
                bound = dict(names)
                if text.path[len(path)] == "explanation":
                    bound["answer"] = answer if answer is not None else ""
                try:
                    render(text.text, bound, bool_words(text.lang), text.lang)
                except FormulaError as exc:
                    report(text.path, exc, names)


def _without_unknown_keys(error: ValidationError, raw: Any) -> Any:
    """The card validated again without its unknown keys, so later checks still run."""
    items = error.errors(include_url=False)
    if not isinstance(raw, dict) or any(i["type"] != "extra_forbidden" for i in items):
        return None
    unknown = {i["loc"][-1] for i in items if len(i["loc"]) == 2}
    if len(unknown) != len(items):
        return None
    try:
        return _CARD_ADAPTER.validate_python({k: v for k, v in raw.items() if k not in unknown})
    except ValidationError:
        return None


def _matches(entry: BaseModel, where: Mapping[str, Any]) -> bool:
    for field_name, wanted in where.items():
        actual = getattr(entry, field_name, None)
        options = wanted if isinstance(wanted, list) else [wanted]
        if actual not in options:
            return False
    return True


def sample_combinations(
    params: Mapping[str, ParamSpec], limit: int = MAX_FORMULA_SAMPLES
) -> list[dict[str, Value]]:
    """Up to ``limit`` parameter combinations covering every value at least once.

    All combinations when there are few; otherwise combination ``i`` takes
    each parameter's ``i``-th value while it has one, then random values
    (fixed seed, so validation is repeatable).
    """
    rng = random.Random(0)
    candidates = {name: spec.candidates(limit, rng) for name, spec in params.items()}
    if math.prod(len(c) for c in candidates.values()) <= limit:
        return [dict(zip(candidates, combo, strict=True))
                for combo in itertools.product(*candidates.values())]  # fmt: skip
    return [
        {name: values[i] if i < len(values) else rng.choice(values)
         for name, values in candidates.items()}
        for i in range(limit)
    ]  # fmt: skip


# --- files -----------------------------------------------------------------------


def _read_text(path: Path) -> tuple[str | None, list[Problem]]:
    """The file's text, refusing it unread when it is too large or not a regular file.

    A named pipe or a device would block or never end: it is refused before
    it is opened.
    """
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            return None, [Problem(path, 1, 1, "not a regular file (a pipe, device or "
                                              "folder); a deck must be a file")]  # fmt: skip
        size = info.st_size
        if size > MAX_DECK_BYTES:
            return None, [Problem(path, 1, 1, f"file is {size} bytes; decks over 5 MB "
                                              f"({MAX_DECK_BYTES} bytes) are refused")]  # fmt: skip
        with path.open("rb") as fh:
            raw = fh.read(MAX_DECK_BYTES + 1)
    except OSError as exc:
        return None, [Problem(path, 1, 1, f"cannot read the file: {exc.strerror or exc}")]
    if len(raw) > MAX_DECK_BYTES:
        return None, [Problem(path, 1, 1, f"decks over 5 MB ({MAX_DECK_BYTES} bytes) are refused")]
    try:
        return raw.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8-sig", errors="replace")
        prefix = raw[: exc.start].decode("utf-8-sig", errors="replace")
        line, col = position_of(prefix + "\0", len(prefix))
        problem = Problem(path, line, col, "the file is not UTF-8 text")
        return text, [problem]


def check_deck_file(path: Path, source: DeckSource = "file") -> tuple[Deck | None, list[Problem]]:
    """Everything wrong with ``path`` (empty if nothing), and the deck when it is usable."""
    text, problems = _read_text(path)
    if text is None:
        return None, problems
    parsed = parse_yaml(text)
    problems += [Problem(path, line, col, message) for line, col, message in parsed.problems]
    if parsed.data is None:
        return None, sorted_unique(problems)
    check = _DeckCheck(path, parsed.data, parsed.source_map, source)
    deck = check.run()
    problems = sorted_unique([*problems, *check.problems])
    return (None if problems else deck), problems


def load_deck(path: Path | str, source: DeckSource = "file") -> Deck:
    """The deck in ``path``; ``DeckError`` lists every problem if it has any."""
    deck, problems = check_deck_file(Path(path), source)
    if problems or deck is None:
        raise DeckError(problems or [Problem(Path(path), 1, 1, "invalid deck")])
    return deck


def deck_files(paths: Sequence[Path]) -> Iterator[Path]:
    """Deck files named directly, or found recursively in folders (*.yaml, *.yml)."""
    for path in paths:
        if path.is_dir():
            found = (p for p in path.rglob("*") if p.suffix.lower() in DECK_SUFFIXES)
            yield from sorted(p for p in found if p.is_file())
        else:
            yield path


def validate_paths(paths: Sequence[Path]) -> list[Problem]:
    """Every problem in every deck under ``paths``; ``[]`` when all are clean."""
    problems: list[Problem] = []
    for path in deck_files([Path(p) for p in paths]):
        if not path.exists():
            problems.append(Problem(path, 1, 1, "no such file or folder"))
            continue
        problems += check_deck_file(path)[1]
    return problems
