"""Multiple-choice questions whose right choice does not stand out by its wording.

A learner who can pick the answer because it alone repeats a word of the
prompt, alone carries a gloss in parentheses, or alone is a round figure has
learnt nothing about the hardware. Checked in both languages over many draws.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from module_caches import let_go_at_module_end

from studyapp.catalog import load_catalog
from studyapp.questions.generators import registered_families
from studyapp.questions.generators.drawing import instance_seed
from studyapp.questions.model import Kind, Question

LANGS = ("es", "en")
RUNS = 300
CHOICE_FAMILIES = [name for name, family in registered_families().items()
                   if family.kind is Kind.CHOICE]
WORD = re.compile(r"[^\W\d_]{4,}")
COMMON = {"para", "with", "that", "this", "what", "which", "más", "menos", "cuál", "cuáles"}


@cache
def draws(name: str, lang: str) -> tuple[Question, ...]:
    family = registered_families()[name]
    return tuple(family.generate(instance_seed(9, i), lang, {}) for i in range(RUNS))


def words(text: str) -> set[str]:
    return {w.casefold() for w in WORD.findall(text)} - COMMON


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", CHOICE_FAMILIES)
def test_only_the_right_choice_never_echoes_the_prompt(name: str, lang: str) -> None:
    """"Intel Gaudi software" for the Gaudi 3, "between servers" after "between servers"."""
    for q in draws(name, lang):
        prompt = words(q.prompt)
        echoes = {choice: words(choice) & prompt for choice in q.choices}
        alone = echoes[str(q.answer)] and not any(
            shared for choice, shared in echoes.items() if choice != q.answer)
        assert not alone, (q.prompt, q.answer, q.choices)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", CHOICE_FAMILIES)
def test_choices_are_glossed_alike(name: str, lang: str) -> None:
    """"ICI (inter-chip interconnect)" beside bare "NVLink" marks itself out (a chip's own
    name, "NVIDIA GB200 (B200 GPU, NVL72)", is not a gloss)."""
    chip_names = {chip.name for chip in load_catalog().accelerators}
    for q in draws(name, lang):
        glossed = {"(" in choice for choice in q.choices if choice not in chip_names}
        assert len(glossed) <= 1, q.choices


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", CHOICE_FAMILIES)
def test_figures_among_the_choices_are_written_alike(name: str, lang: str) -> None:
    """A whole vendor figure beside a made-up "494.5" gives the made-up one away."""
    mark = "," if lang == "es" else "."
    for q in draws(name, lang):
        figures = [re.match(r"\d[\d\s.,]*", c) for c in q.choices]
        if not all(figures):
            continue
        decimals = {mark in f.group(0).rstrip(".,") for f in figures if f}
        assert len(decimals) == 1, q.choices


_forget_draws = let_go_at_module_end(draws)
