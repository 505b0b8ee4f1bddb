"""Announced and estimated figures are labelled wherever a question writes them, and
never asked as the answer of a fact question."""

from __future__ import annotations

import pytest

from studyapp.catalog import load_catalog
from studyapp.questions.generators import get_family
from studyapp.questions.generators.figures import drawn_entries, flagged_figures, label_text


@pytest.mark.parametrize(("lang", "shown"), [("en", "153.6 GB/s (announced)"),
                                             ("es", "153,6 GB/s (anunciado)")])
def test_an_announced_link_figure_is_labelled_in_a_drawn_question(lang: str, shown: str) -> None:
    # 153.6 GB/s per Infinity Fabric link on MI350: AMD's product page, not re-read here
    # (https://www.amd.com/en/products/accelerators/instinct/mi350.html)
    for seed in range(5):
        q = get_family("ring-allreduce").generate(seed, lang,
                                                  {"links": ["infinity-fabric-mi350"]})
        assert shown in q.prompt
        plain = shown.split(" (")[0]
        assert q.prompt.count(plain) == q.prompt.count(shown)  # every time it is written


def test_published_figures_carry_no_label() -> None:
    # H100 SXM 3.35 TB/s: https://www.nvidia.com/en-us/data-center/h100/
    q = get_family("decode-ceiling").generate(1, "en", {"gpus": ["h100-sxm"]})
    assert "3.35 TB/s of HBM bandwidth" in q.prompt
    assert "(announced)" not in q.prompt + q.explanation


def test_a_value_a_published_figure_shares_names_the_chip() -> None:
    # MI355X's 1,075 GB/s of Infinity Fabric is announced (AMD's figure, not re-read);
    # the same number written for another drawn chip is labelled with the chip it belongs to
    flagged, facts = flagged_figures(drawn_entries({"gpus": ["mi355x", "h100-sxm"]}))
    text = label_text("MI355X: 1,075 GB/s; H100: 3.35 TB/s.", "en", flagged, facts)
    assert "1,075 GB/s (announced" in text
    assert "3.35 TB/s (" not in text
    assert label_text("2 MI355X chips", "en", flagged, facts) == "2 MI355X chips"


def test_chip_ranking_never_ranks_on_an_announced_figure() -> None:
    chips = load_catalog().accelerators
    options = {"gpus": ["tpu-v7", "mi355x", "mi350x", "h100-sxm", "b200", "gaudi3"]}
    seen = set()
    for seed in range(60):
        q = get_family("chip-ranking").generate(seed, "en", options)
        metric = q.params["metric"]
        seen.add(metric)
        assert all(chips[c].is_fact(metric) for c in q.params["gpus"]), (seed, q.params)
    assert "memory_gb" in seen


def test_fact_families_draw_only_facts() -> None:
    chips = load_catalog().accelerators
    options = {"gpus": ["tpu-v7", "mi355x", "h100-sxm", "b200", "mi300x", "gaudi3"]}
    for seed in range(30):
        q = get_family("low-precision-speedup").generate(seed, "en", options)
        assert chips[q.params["gpu"]].is_fact("bf16_dense_tflops")
        q = get_family("dense-vs-sparse").generate(seed, "en", options)
        assert chips[q.params["gpu"]].is_fact(f"{q.params['precision']}_dense_tflops")
        assert "(announced)" not in q.prompt
