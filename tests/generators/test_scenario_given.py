"""Serving and long-context scenarios state every figure their answers are built on.

A learner asked for "KV per user" must be able to compute 2 × layers × KV heads × head
dim × bytes from the setup: the model's shape, its parameters, the chip's capacity and
the budget convention (vLLM's gpu_memory_utilization, less the activation peak and
non-torch memory) are all in the prompt, and the worked solution derives each
intermediate before it uses it.
"""

from __future__ import annotations

import pytest

from studyapp.catalog import load_catalog
from studyapp.infra import dtype_bytes, kv_bytes_per_token
from studyapp.infra.shapes import kv_shape
from studyapp.questions.generators import registered_families
from studyapp.questions.generators.audit import states
from studyapp.questions.generators.families.scenarios import dense_flops
from studyapp.questions.generators.families.terms import RUNTIME_GB, capacity_gb
from studyapp.questions.model import Question

SEEDS = range(20)


def _figures(q: Question) -> dict[str, float]:
    """Every figure the chain's answers are computed from, by name."""
    cat = load_catalog()
    model = cat.models[str(q.params["model"])]
    chip = cat.accelerators[str(q.params["gpu"])]
    kv_dtype = str(q.params.get("dtype", "bf16"))
    figures: dict[str, float] = {"params_b": model.params_b, "total_gb": capacity_gb(chip),
                                 "utilization_pct": 90.0, "runtime_gb": RUNTIME_GB,
                                 "layers": model.layers, "kv_bytes": dtype_bytes(kv_dtype),
                                 "context": float(q.params["context"])}
    if model.attention == "mla":
        figures.update(rank=float(model.kv_lora_rank or 0),
                       rope=float(model.qk_rope_head_dim or 0))
    else:
        figures.update(kv_heads=model.kv_heads, head_dim=model.head_dim)
    if q.family == "scenario-serving":
        figures.update(active_b=model.active_params_b or model.params_b,
                       users=float(q.params["users"]),
                       bandwidth_tb_s=chip.memory_bandwidth_tb_s,
                       tflops=dense_flops(chip, kv_dtype) / 1e12,
                       weight_bytes=dtype_bytes(kv_dtype))
    else:
        figures["weight_bytes"] = dtype_bytes(str(q.params["weights_dtype"]))
    return figures


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("family", ["scenario-serving", "scenario-long-context"])
def test_every_figure_an_answer_uses_is_in_the_setup(family: str, lang: str) -> None:
    models = set()
    for seed in SEEDS:
        q = registered_families()[family].generate(seed, lang, {})
        models.add(q.params["model"])
        missing = {name: value for name, value in _figures(q).items()
                   if not states(q.prompt, value, lang)}
        assert not missing, (seed, missing, q.prompt)
    assert len(models) >= 3  # the walk meets several model shapes, not one


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("family", ["scenario-serving", "scenario-long-context"])
def test_the_worked_solution_derives_the_kv_bytes_per_token(family: str, lang: str) -> None:
    """"516,096 B × 32,768 tokens" only after 2 × 126 × 8 × 128 × 2 B = 516,096 B."""
    cat = load_catalog()
    from studyapp.questions.generators.context import DrawContext

    for seed in SEEDS:
        q = registered_families()[family].generate(seed, lang, {})
        model = cat.models[str(q.params["model"])]
        kv_dtype = str(q.params.get("dtype", "bf16"))
        ctx = DrawContext(seed, lang)
        per_token = ctx.num(kv_bytes_per_token(kv_shape(model), kv_dtype), 6)
        kv_step = q.parts[1 if family == "scenario-serving" else 0].solution
        product = ctx.num(model.layers)
        if model.attention != "mla":
            product = (f"{ctx.num(model.layers)} "
                       f"{'layers' if lang == 'en' else 'capas'} × {ctx.num(model.kv_heads)}")
        derived = kv_step.find(f"= {per_token} B")
        used = kv_step.find(f"{per_token} B", derived + len(per_token) + 3)
        assert product in kv_step, (seed, kv_step)
        # the product is worked out (… = 131,072 B) before it is multiplied by the context
        assert 0 <= derived < used, (seed, kv_step)
        assert kv_step.find(product) < derived


def test_the_long_context_solution_derives_the_weights_it_subtracts() -> None:
    for seed in SEEDS:
        q = registered_families()["scenario-long-context"].generate(seed, "en", {})
        free = next(p for p in q.parts if p.name == "free").solution
        assert free.startswith("Weights = ") and "B (" in free, free
        assert "× 0.9 − 3.275 GB" in free, free
