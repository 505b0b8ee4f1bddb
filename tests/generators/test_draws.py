"""Draws worth asking: the question asks the skill, not a pattern the learner can spot.

- dense-vs-sparse shows a datasheet line whose figures carry the "with sparsity"
  footnote and asks which figure is the dense one; the right figure takes every
  rank among the four choices (smallest to largest), so its place gives nothing away.
"""

from __future__ import annotations

from collections import Counter

import pytest

from studyapp.catalog import load_catalog
from studyapp.questions.generators import get_family
from studyapp.questions.generators.drawing import prompt_numbers

DRAWS = range(400)


def rank_of_answer(choices: tuple[str, ...], answer: str, lang: str) -> int:
    values = [prompt_numbers(c, lang)[0] for c in choices]
    return sorted(values).index(prompt_numbers(answer, lang)[0])


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("options", [{}, {"gpus": ["b200", "gb200"]}])
def test_dense_vs_sparse_puts_the_answer_at_every_rank(lang: str, options: dict) -> None:
    family = get_family("dense-vs-sparse")
    ranks: Counter[int] = Counter()
    for seed in DRAWS:
        q = family.generate(seed, lang, options)
        assert len(q.choices) == 4, q.choices
        ranks[rank_of_answer(q.choices, str(q.answer), lang)] += 1
    assert set(ranks) == {0, 1, 2, 3}, ranks
    assert min(ranks.values()) >= len(DRAWS) * 0.03, ranks


@pytest.mark.parametrize("lang", ["en", "es"])
def test_dense_vs_sparse_reads_a_datasheet_line_with_its_footnote(lang: str) -> None:
    family = get_family("dense-vs-sparse")
    footnote = {"en": "* with sparsity", "es": "* con dispersión"}[lang]
    for seed in range(60):
        q = family.generate(seed, lang, {})
        chip = load_catalog().accelerators[q.params["gpu"]]
        assert footnote in q.prompt and "*" in q.prompt.split(footnote)[0]
        headlines = chip.sparse_headline_tflops or {}
        # every precision of the chip is on the line, the asked one among them
        for precision in headlines:
            assert precision.upper() in q.prompt
        assert prompt_numbers(str(q.answer), lang)[0] == q.params["dense_tflops"]
