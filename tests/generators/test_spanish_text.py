"""Spanish as a Spanish engineer writes it: no English left in a table or an explanation.

Walks every post's key-figures table in Spanish (headers and cells; the name
column holds product names) and a sample of every generated family in
Spanish (prompts, choices, explanations, the parts of a scenario), and fails
on:

- an English giveaway word ("bidirectional", "per-direction", "scale-out",
  "the", "with"...);
- "B" for billions next to "B" for bytes ("46,7B × 2 B" reads as bytes times
  bytes: Spanish writes "46,7 mil millones × 2 B");
- "1" before a plural ("1 prompts", "1 GPUs"), in either language.
"""

from __future__ import annotations

import functools
import re

import pytest
from module_caches import let_go_at_module_end

from studyapp.catalog.posts import figures_rows, list_posts, load_post
from studyapp.i18n import field_labels
from studyapp.questions.generators import registered_families
from studyapp.questions.model import Question

SEEDS = range(25)
"""Draws of each family read, pinned by seed."""

ENGLISH = re.compile(
    r"(?<![\w-])(bidirectional|per-direction|per direction|both directions|one way|"
    r"scale-out|scale-up|the|and|with|per|of|each|which|between|inside|outside|usable|"
    r"fits|weights|reads|about|times|sequences?|answer|rounded|needed)(?![\w-])",
    re.IGNORECASE)
"""English words a Spanish cell or explanation should not hold (product names aside)."""

BILLIONS = re.compile(r"(?<![\w.,-])\d+(?:[.,]\d+)?B(?=\s*(?:×|de parámetros|parámetros|activos))")
"""A figure with "B" for billions where bytes are about: "46,7B × 2 B", "70,55B parámetros"."""

ONE_PLURAL = re.compile(
    r"(?<![\d.,])1 (prompts|sequences|secuencias|GPUs|chips|users|usuarios|nodes|nodos|steps|"
    r"pasos|accelerators|aceleradores|layers|capas|cards|tarjetas|questions|preguntas)\b")


def _texts(question: Question) -> list[str]:
    texts = [question.prompt, question.explanation or "", *map(str, question.choices)]
    for part in question.parts:
        texts += [part.question.prompt, part.question.explanation or "", part.method or ""]
    return [t for t in texts if t]


@functools.cache
def _drawn(lang: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for name, family in sorted(registered_families().items()):
        for seed in SEEDS:
            found += [(f"{name}#{seed}", text)
                      for text in _texts(family.generate(seed, lang, {}))]
    return found


def _product_free(text: str) -> str:
    """The text without product and model names (Llama 3.1 70B, Qwen3 235B-A22B)."""
    return re.sub(r"\b(?:Llama|Qwen|Mistral|Mixtral|GPT|gpt|DeepSeek|Kimi)[\w.\- ]*?"
                  r"\d+(?:\.\d+)?B[\w-]*", "", text)


def test_every_key_figures_cell_is_spanish() -> None:
    labels = field_labels("es")
    english: list[str] = []
    for summary in list_posts("es"):
        post = load_post(summary.slug, "es")
        rows = figures_rows(post, labels=labels)
        for n, row in enumerate(rows):
            for cell in row if n == 0 else row[1:]:
                if ENGLISH.search(cell):
                    english.append(f"{post.slug}: {cell!r}")
    assert not english, english


def test_generated_spanish_has_no_english_left() -> None:
    found = sorted({f"{where}: {m.group(0)!r} in …{text[max(0, m.start() - 40):m.end() + 20]}…"
                    for where, text in _drawn("es")
                    if (m := ENGLISH.search(_product_free(text))) is not None})
    assert not found, found[:20]


def test_spanish_never_writes_billions_as_b_beside_bytes() -> None:
    found = sorted({f"{where}: {m.group(0)!r}" for where, text in _drawn("es")
                    if (m := BILLIONS.search(_product_free(text))) is not None})
    assert not found, found[:20]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_one_is_never_followed_by_a_plural(lang: str) -> None:
    found = sorted({f"{where}: {m.group(0)!r}" for where, text in _drawn(lang)
                    if (m := ONE_PLURAL.search(text)) is not None})
    assert not found, found[:20]


def test_the_checks_catch_what_they_name() -> None:
    assert ENGLISH.search("NVLink 4 (Hopper) | bidirectional")
    assert ENGLISH.search("el puerto de scale-out es el enlace estrecho")
    assert not ENGLISH.search("el puerto de escalado horizontal es el enlace estrecho")
    assert BILLIONS.search("46,7B × 2 B = 93,4 GB")
    assert BILLIONS.search("¿Cuánto ocupan los 70,55B parámetros en FP8?")
    assert not BILLIONS.search("46,7 mil millones × 2 B = 93,4 GB")
    assert not BILLIONS.search(_product_free("Llama 3.1 70B (70,55 mil millones de parámetros)"))
    assert ONE_PLURAL.search("hace el prefill de 1 prompts") and not ONE_PLURAL.search("11 GPUs")


_forget_draws = let_go_at_module_end(_drawn)
