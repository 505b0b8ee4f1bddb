"""A drawn count of one reads as one: "one sequence", never "1 sequences" or "1 prompts"."""

from __future__ import annotations

import re

import pytest

from studyapp.questions.generators import registered_families

ONE_WITH_PLURAL = re.compile(
    r"(?<![\d.,×x] )(?<![\d.,])\b1 (sequences|prompts|users|nodes|chips|layers|requests"
    r"|secuencias|usuarios|nodos|capas|peticiones)\b")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_no_family_writes_one_with_a_plural_noun(lang: str) -> None:
    found: list[str] = []
    for name, family in registered_families().items():
        for seed in range(60):
            question = family.generate(seed, lang, {})
            texts = [question.prompt, question.explanation,
                     *(part.question.prompt for part in question.parts),
                     *(part.solution for part in question.parts if part.solution)]
            found += [f"{name} seed {seed}: {m.group(0)}" for text in texts
                      for m in ONE_WITH_PLURAL.finditer(text)]
    assert found == []


def test_the_bottleneck_family_draws_batch_one_and_says_one_sequence() -> None:
    family = registered_families()["bottleneck"]
    singles = [q for q in (family.generate(s, "en", {}) for s in range(200))
               if q.params.get("batch") == 1]
    assert singles, "batch 1 is among the draws"
    assert all("one sequence" in q.prompt or "one prompt" in q.prompt for q in singles)
