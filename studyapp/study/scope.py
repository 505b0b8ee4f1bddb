"""What a post's session may ask: the ideas its post and the posts before it teach.

``content/concepts.yaml`` names each idea once, with the post that teaches it
and the words that post's summary uses for it in each language; each
generator family lists the ideas its questions need, and a drawn value may
bring one more (a model with MLA in a family that computes a KV cache). A
card is in scope for its post when every idea it needs is taught by that post
or an earlier one; a card that draws is narrowed to the values in scope, and
one with none left is not asked. A learner who opens the H200 session has
read about HBM and the H100, not about ZeRO-3.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any

import yaml

from studyapp import locations
from studyapp.catalog.errors import UnknownIdError
from studyapp.catalog.posts import POST_SLUGS

if TYPE_CHECKING:
    from studyapp.decks import CardSpec

CONCEPTS_FILE = "concepts.yaml"
NOWHERE = "none"
"""The post of an idea no post teaches yet: no session asks it."""


@dataclass(frozen=True)
class Concept:
    """One idea: the post that teaches it, its name and the words its post uses for it."""

    id: str
    post: str
    names: Mapping[str, str]
    keywords: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class DrawRule:
    """A drawn value that brings an idea: option ``option`` drawing an entry whose fields
    match ``where`` (``any``: the field is set), or one of ``values``; it matters only to
    families that need one of ``within`` (every family when empty)."""

    option: str
    concept: str
    where: Mapping[str, Any]
    values: tuple[Any, ...]
    within: frozenset[str]


@dataclass(frozen=True)
class ConceptMap:
    """``content/concepts.yaml``, read."""

    concepts: Mapping[str, Concept]
    families: Mapping[str, frozenset[str]]
    draws: tuple[DrawRule, ...]
    cards: Mapping[str, frozenset[str]]


def _strings(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    return tuple(str(item) for item in items if item is not None)


@cache
def concept_map() -> ConceptMap:
    """The shipped map of ideas (read once; a broken file is a broken install)."""
    path = locations.content_dir() / CONCEPTS_FILE
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    concepts = {}
    for key, entry in (raw.get("concepts") or {}).items():
        keywords = {lang: _strings(words) for lang, words in (entry.get("keywords") or {}).items()}
        concepts[key] = Concept(key, str(entry["post"]), dict(entry.get("name") or {}), keywords)
    families = {name: frozenset(_strings(ideas))
                for name, ideas in (raw.get("families") or {}).items()}
    draws = tuple(DrawRule(str(rule["option"]), str(rule["concept"]),
                           dict(rule.get("where") or {}), tuple(rule.get("values") or ()),
                           frozenset(_strings(rule.get("within") or [])))
                  for rule in raw.get("draws") or [])
    cards = {key: frozenset(_strings(ideas)) for key, ideas in (raw.get("cards") or {}).items()}
    return ConceptMap(concepts, families, draws, cards)


def post_order(post: str) -> int:
    """A post's place in the course (0 for the first); past the end for one not in it."""
    return POST_SLUGS.index(post) if post in POST_SLUGS else len(POST_SLUGS)


@cache
def in_scope_for(post: str) -> frozenset[str]:
    """The ideas a session of ``post`` may ask: those it or an earlier post teaches."""
    if post not in POST_SLUGS:
        return frozenset(c.id for c in concept_map().concepts.values() if c.post != NOWHERE)
    last = post_order(post)
    return frozenset(c.id for c in concept_map().concepts.values()
                     if c.post in POST_SLUGS and post_order(c.post) <= last)


# -- words ------------------------------------------------------------------------


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


@cache
def _pattern(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(_folded(word))}(?![\w-])")


def says(text: str, word: str) -> bool:
    """``word`` appears in ``text`` as a whole word (case and line breaks ignored)."""
    return _pattern(word).search(_folded(text)) is not None


@cache
def _any_word(langs: tuple[str, ...]) -> tuple[re.Pattern[str], Mapping[str, frozenset[str]]]:
    """One pattern for every idea's words in ``langs`` (longest first), and which ideas each
    word names: a card's text is read once, not once per word."""
    named: dict[str, set[str]] = {}
    for concept in concept_map().concepts.values():
        for lang in langs:
            for word in concept.keywords.get(lang, ()):
                named.setdefault(_folded(word), set()).add(concept.id)
    words = sorted(named, key=len, reverse=True)
    pattern = re.compile(rf"(?<![\w-])(?:{'|'.join(map(re.escape, words))})(?![\w-])")
    return pattern, {word: frozenset(ids) for word, ids in named.items()}


def mentioned(texts: Iterable[str], langs: Iterable[str] = ("en", "es")) -> frozenset[str]:
    """The ideas whose words (in any of ``langs``) the texts use."""
    pattern, named = _any_word(tuple(langs))
    found: set[str] = set()
    for match in pattern.finditer(_folded("\n".join(texts))):
        found |= named[match.group(0)]
    return frozenset(found)


# -- cards ------------------------------------------------------------------------


def _written_texts(spec: CardSpec) -> list[str]:
    """A written card's prompt and its right choice (a wrong choice may name a later idea:
    telling it apart needs no more than the right one)."""
    texts: list[str] = [*spec.prompt.values()]
    if isinstance(spec.answer, int) and not isinstance(spec.answer, bool) \
            and 0 <= spec.answer < len(spec.choices):
        texts.extend(spec.choices[spec.answer].values())
    return texts


def card_concepts(spec: CardSpec) -> frozenset[str]:
    """The ideas a card needs: its family's for a drawn card, else those declared for it
    (``cards:``) and those its prompt and right choice name."""
    found = concept_map()
    declared = found.cards.get(f"{spec.deck}/{spec.id}", frozenset())
    if spec.type == "generated" and spec.generator:
        return declared | found.families.get(spec.generator, frozenset())
    return declared | mentioned(_written_texts(spec))


def value_concepts(family: str, option: str, value: Any) -> frozenset[str]:
    """The ideas drawing ``value`` for ``option`` brings to a card of ``family``."""
    found = concept_map()
    needs = found.families.get(family, frozenset())
    brought = set()
    for rule in found.draws:
        if rule.option != option or (rule.within and not rule.within & needs):
            continue
        if (rule.values and value in rule.values) or (
                rule.where and _entry_matches(option, str(value), rule.where)):
            brought.add(rule.concept)
    return frozenset(brought)


def _entry_matches(option: str, entry_id: str, where: Mapping[str, Any]) -> bool:
    from studyapp.catalog import load_catalog
    from studyapp.questions.generators.options import KINDS

    kind = KINDS.get(option)
    if kind is None or kind.table is None:
        return False
    try:
        entry = getattr(load_catalog(), kind.table)[entry_id]
    except (UnknownIdError, KeyError, AttributeError):
        return False
    for field, wanted in where.items():
        have = getattr(entry, field, None)
        if (have is None) if wanted == "any" else (have != wanted):
            return False
    return True


@cache
def _family(name: str) -> Any:
    from studyapp.questions.generators import get_family

    return get_family(name)


@cache
def _family_pools(family: str) -> Mapping[str, tuple[Any, ...]]:
    """What each option of ``family`` draws from by default (read from its draws)."""
    from studyapp.questions.generators.options import defaults

    return {key: tuple(pool) for key, pool in defaults(_family(family)).items()}


def _pool(spec: CardSpec, option: str) -> tuple[Any, ...]:
    given = spec.options.get(option)
    if given is not None:
        return tuple(given) if isinstance(given, list | tuple) else (given,)
    assert spec.generator is not None
    if option not in _family(spec.generator).options:
        return ()  # drawing the family's defaults (tens of draws) could only find nothing
    return _family_pools(spec.generator).get(option, ())


_SCOPED: dict[int, tuple[CardSpec, CardSpec | None]] = {}
"""``scoped`` worked out once per card object (decks live as long as the process)."""


def scoped(spec: CardSpec) -> CardSpec | None:
    """The card as its post's session draws it: each option narrowed to the values whose
    ideas are in scope (unchanged when all are), or None when the card is out of scope."""
    known = _SCOPED.get(id(spec))
    if known is not None and known[0] is spec:
        return known[1]
    result = _scoped(spec)
    _SCOPED[id(spec)] = (spec, result)
    return result


def in_scope(spec: CardSpec) -> bool:
    """The card's post (or an earlier one) teaches what it asks, for some draw at least."""
    return scoped(spec) is not None


def _scoped(spec: CardSpec) -> CardSpec | None:
    taught = in_scope_for(spec.post)
    needs = card_concepts(spec)
    if not needs <= taught:
        return None
    if spec.type != "generated" or not spec.generator:
        return spec
    family = spec.generator
    options = dict(spec.options)
    narrowed = {rule.option for rule in concept_map().draws
                if not rule.within or rule.within & needs}
    for option in sorted(narrowed):
        try:
            pool = _pool(spec, option)
        except (UnknownIdError, LookupError, ValueError):
            return spec
        kept = [value for value in pool if value_concepts(family, option, value) <= taught]
        if len(kept) == len(pool):
            continue
        if not kept:
            return None
        options[option] = kept
    return spec if options == dict(spec.options) else replace(spec, options=options)


__all__ = ["Concept", "ConceptMap", "DrawRule", "card_concepts", "concept_map", "in_scope",
           "in_scope_for", "mentioned", "post_order", "says", "scoped", "value_concepts"]
