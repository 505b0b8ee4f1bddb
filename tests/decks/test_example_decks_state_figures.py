"""Example decks state every figure their questions depend on.

A template card's answer formula reads catalog fields (``model.layers``,
``gpu.memory_gb``); each one it reads must be written in the prompt, in
both languages, so the learner is never asked to know a figure by heart
that the question needs ("Mistral 7B on an A100" without its layers or KV
heads). A card's name field (``model.name``) stands for the entry itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from studyapp import locations
from studyapp.decks import load_deck

EXAMPLES = sorted((locations.builtin_decks_dir() / "examples").glob("*.yaml"))
FIELD = re.compile(r"\b([a-z_]+)\.([a-z_0-9]+)\b")


def needed(card) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    formula = str(card.answer)
    return {(entry, attr) for entry, attr in FIELD.findall(formula)
            if entry in card.params and attr != "name"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_figure_an_answer_reads_is_in_the_prompt(path: Path) -> None:
    missing = []
    for card in load_deck(path).cards:
        if card.type == "generated" or not card.params:
            continue
        for lang in ("en", "es"):
            prompt = card.text(card.prompt, lang)
            for entry, attr in sorted(needed(card)):
                if not re.search(r"\{" + entry + r"\." + attr + r"\b", prompt):
                    missing.append(f"{card.id} ({lang}): {entry}.{attr}")
            for name in re.findall(r"bytes\((\w+)\)", str(card.answer)):
                if "{" + name not in prompt:
                    missing.append(f"{card.id} ({lang}): {name}")
    assert not missing, missing
