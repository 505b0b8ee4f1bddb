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
        # every precision whose "with sparsity" figure is 2x dense is on the line; one
        # that is not (Blackwell Ultra's FP4, 4/3) is left off, or halving would mislead
        for precision in headlines:
            assert (precision.upper() in q.prompt) == (chip.sparsity(precision) == 2)
        assert prompt_numbers(str(q.answer), lang)[0] == q.params["dense_tflops"]


# -- every scenario physically possible ----------------------------------------------

def deck_options(family: str) -> list[dict]:
    """The family's default options and those of every built-in deck card that draws it."""
    from studyapp import locations
    from studyapp.decks import load_deck

    found: list[dict] = [{}]
    for path in sorted(locations.builtin_decks_dir().rglob("*.yaml")):
        found += [dict(c.options) for c in load_deck(path).cards if c.generator == family]
    return found


RUNS_ON_ONE_CHIP = {  # family: params naming the chips the model runs on, one each
    "prefill-time": ("gpu",),
    "low-precision-speedup": ("gpu",),
    "decode-ceiling": ("gpu",),
    "decode-compare": ("fast_gpu", "slow_gpu"),
}


@pytest.mark.parametrize("name", sorted(RUNS_ON_ONE_CHIP))
def test_a_model_fits_on_the_one_chip_it_runs_on(name: str) -> None:
    from studyapp.infra import usable_bytes, weights_bytes

    catalog = load_catalog()
    family = get_family(name)
    for options in deck_options(name):
        for seed in range(150):
            q = family.generate(seed, "en", options)
            model = q.params.get("model")
            if model is None:
                continue
            dtype = str(q.params.get("dtype") or "bf16")
            weights = weights_bytes(catalog.models[model].params, dtype)
            for key in RUNS_ON_ONE_CHIP[name]:
                chip = catalog.accelerators[q.params[key]]
                assert weights <= usable_bytes(chip.memory_bytes), (options, q.prompt)


def test_bottleneck_runs_what_fits_unless_capacity_is_the_answer() -> None:
    from studyapp.infra import kv_bytes_per_token, usable_bytes, weights_bytes
    from studyapp.infra.shapes import kv_shape

    catalog = load_catalog()
    family = get_family("bottleneck")
    for seed in range(200):
        q = family.generate(seed, "en", {})
        p = q.params
        model, chip = catalog.models[p["model"]], catalog.accelerators[p["gpu"]]
        need = (weights_bytes(model.params, "bf16")
                + kv_bytes_per_token(kv_shape(model), "bf16") * p["context"] * p["batch"])
        assert (need > usable_bytes(chip.memory_bytes)) == (p["binds"] == "capacity")


def test_training_memory_fits_the_gpu_it_names_or_asks_how_many_do() -> None:
    from studyapp.infra import usable_bytes

    catalog = load_catalog()
    family = get_family("training-memory")
    asked = 0
    for options in deck_options("training-memory"):
        for seed in range(200):
            q = family.generate(seed, "en", options)
            chip = catalog.accelerators[q.params["gpu"]]
            assert chip.name in q.prompt
            usable = usable_bytes(chip.memory_bytes)
            if q.params.get("ask") == "fewest":  # one GPU cannot hold it: how many do
                state = q.params["params"] * 16
                assert state > usable and (q.answer - 1) * usable < state <= q.answer * usable
                asked += 1
            else:
                assert float(q.answer) * 1e9 <= usable * 1.001, q.prompt
    assert asked, "no draw asks for the fewest GPUs"


def test_the_longest_context_is_one_the_model_can_run() -> None:
    """max-context-that-fits: the weights fit on the chip with room to spare, and a context
    asked for stays within the model's own window (more tokens would fit but never run)."""
    from studyapp.infra import usable_bytes, weights_bytes

    catalog = load_catalog()
    family = get_family("max-context-that-fits")
    contexts = 0
    for options in deck_options("max-context-that-fits"):
        for seed in range(150):
            q = family.generate(seed, "en", options)
            p = q.params
            model, chip = catalog.models[p["model"]], catalog.accelerators[p["gpu"]]
            assert weights_bytes(model.params, p["dtype"]) < usable_bytes(chip.memory_bytes)
            assert float(q.answer) >= 1, q.prompt
            if p["solve_for"] == "context":
                contexts += 1
                assert float(q.answer) <= model.context_length, (q.prompt, q.answer)
    assert contexts, "no draw asks for a context"
