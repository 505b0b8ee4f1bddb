"""One term per concept: posts, decks and generated questions follow content/i18n/glossary.yaml.

The glossary was written after Spanish texts drifted ("batch" next to "lote",
"punto de inflexión" for the ridge point, "dispersidad" for sparsity). A
variant may still appear as a gloss in parentheses right after the chosen
term ("punto de equilibrio (ridge point)").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from module_caches import let_go_at_module_end

from studyapp.decks import load_deck
from studyapp.decks.deck_model import Deck
from studyapp.questions.generators import registered_families
from studyapp.questions.generators.drawing import instance_seed

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "content" / "i18n" / "glossary.yaml"
LANGS = ("es", "en")


@cache
def terms() -> tuple[dict[str, Any], ...]:
    data = yaml.safe_load(GLOSSARY.read_text(encoding="utf-8"))
    return tuple(data["terms"])


def problems(text: str, lang: str) -> list[str]:
    """The glossary variants a text uses instead of the chosen term."""
    found = []
    text = re.sub(r"\{[^{}]*\}", "", text)  # placeholders are code, not words
    text = re.sub(r"\s+", " ", text)  # a term may wrap across lines
    for term in terms():
        chosen = term[lang]
        cleaned = re.sub(rf"({re.escape(chosen)})\s*\([^)]*\)", r"\1", text, flags=re.I)
        for variant in term.get("avoid", {}).get(lang, []):
            if re.search(rf"(?<![\w-]){re.escape(variant)}(?![\w-])", cleaned, flags=re.I):
                found.append(f"{variant!r} instead of {chosen!r}")
    return found


def post_texts(lang: str) -> Iterator[tuple[str, str]]:
    for path in sorted((ROOT / "content" / "posts").glob(f"*.{lang}.md")):
        body = path.read_text(encoding="utf-8").split("\n---\n", 1)[-1]
        yield path.name, body


def _localized(value: Any, lang: str) -> str:
    if isinstance(value, dict):
        return str(value.get(lang) or "")
    return ""


@cache
def decks() -> tuple[tuple[Path, Deck], ...]:
    """The built-in decks, loaded once for both languages (the tests only read them)."""
    return tuple((path, load_deck(path)) for path in sorted((ROOT / "decks").glob("*/*.yaml")))


def deck_texts(lang: str) -> Iterator[tuple[str, str]]:
    for path, deck in decks():
        for card in deck.cards:
            parts = [_localized(card.prompt, lang), _localized(card.explanation, lang)]
            parts += [_localized(choice, lang) for choice in card.choices]
            yield f"{path.name}:{card.id}", "\n".join(parts)


def generator_texts(lang: str) -> Iterator[tuple[str, str]]:
    strings = yaml.safe_load((ROOT / "content" / "i18n" / f"generators.{lang}.yaml")
                             .read_text(encoding="utf-8"))
    for key, value in strings.items():
        yield key, str(value)
    for name, family in registered_families().items():
        for i in range(30):
            q = family.generate(instance_seed(7, i), lang, {})
            yield f"{name}#{i}", "\n".join([q.prompt, q.explanation, *q.choices])


def test_glossary_gives_both_languages_for_every_concept() -> None:
    assert len(terms()) >= 8
    concepts = {t["concept"].split(" (")[0] for t in terms()}
    assert {"batch", "ridge point", "structured sparsity", "scale-up", "per direction"} <= concepts
    for term in terms():
        assert term["es"] and term["en"], term
        for lang, variants in term.get("avoid", {}).items():
            assert lang in LANGS and term[lang] not in variants, term


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("source", ["posts", "decks", "generators"])
def test_texts_use_the_glossary_terms(source: str, lang: str) -> None:
    texts = {"posts": post_texts, "decks": deck_texts, "generators": generator_texts}[source]
    bad = [f"{where}: {p}" for where, text in texts(lang) for p in problems(text, lang)]
    assert not bad, "\n".join(bad[:20])


def test_a_variant_is_caught_and_a_gloss_is_allowed() -> None:
    assert problems("el punto de inflexión del roofline", "es")
    assert problems("con un batch de 8", "es")
    assert not problems("el punto de equilibrio (ridge point) y un lote", "es")
    assert problems("1 billones de tokens", "es")
    assert not problems("15 billones de tokens", "es")


_forget_decks = let_go_at_module_end(decks)
