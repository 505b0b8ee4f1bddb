"""Memory families: the size of the weights, the KV cache, GB versus GiB.

The questions a learner must answer before running anything: how big are
the weights and how big is the KV cache.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.infra import dtype_bytes, kv_bytes_per_token, kv_cache_bytes, weights_bytes
from studyapp.infra.shapes import kv_shape
from studyapp.infra.units import GB, GIB, KB
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext, drawn
from studyapp.questions.generators.drawing import entries, values
from studyapp.questions.generators.families.terms import (
    BATCHES,
    GPU_IDS,
    MODEL_IDS,
    SERVE_DTYPES,
    WEIGHT_DTYPES,
    contexts_within,
    dtype_name,
    kv_formula,
    kv_models,
    kv_shape_fields,
    model_fields,
    moe_note,
    shape_given,
)
from studyapp.questions.generators.slips import (
    GIB_SAME_NUMBER,
    GIB_WRONG_WAY,
    KV_PAIR,
    MOE_ACTIVE_WEIGHTS,
    dtype_size,
)
from studyapp.questions.generators.wording import (
    join_steps,
    label,
    model_label,
    significant,
)
from studyapp.questions.model import Kind, Question, Tolerance

# --- weights-size ---------------------------------------------------------


def weights_size(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Parameters × bytes per parameter, in GB."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    model = rng.choice(entries(catalog.models, options, "models"))
    dtype = str(rng.choice(values(options, "dtypes", WEIGHT_DTYPES)))
    size = weights_bytes(model.params, dtype)
    # at one byte a parameter the size in GB is the parameter count in billions, which the
    # prompt states: asked in MB, the answer is not a number the learner can copy
    one_byte = dtype_bytes(dtype) == 1
    unit, scale = ("MB", 1e6) if one_byte else ("GB", GB)
    fields = {**model_fields(model, ctx), "dtype": dtype_name(dtype),
              "bytes": ctx.num(dtype_bytes(dtype)),
              "bytes_word": ctx.bytes_per(dtype_bytes(dtype)),
              "weights_gb": ctx.shown(size / GB), "weights_mb": ctx.shown(significant(size / 1e6))}
    explanation = join_steps(
        ctx.t("gen.weights.explain_mb" if one_byte else "gen.weights.explain", **fields),
        moe_note(model, ctx),
        ctx.t("gen.convention.gb"),
    )
    return ctx.question(
        kind=Kind.NUMERIC,
        prompt=ctx.t("gen.weights.prompt_mb" if one_byte else "gen.weights.prompt", **fields),
        explanation=explanation,
        answer=significant(size / scale), unit=unit, tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "params": model.params, "dtype": dtype,
                "given": {"params_b": model.params_b, "bytes": dtype_bytes(dtype)}},
    )


# --- gb-vs-gib ------------------------------------------------------------


def _decimal_hbm(ctx: DrawContext, gpu: Any) -> Question:
    """Blackwell Ultra: the vendor's HBM "GB" is decimal, and the driver's MiB say so."""
    mib = float(gpu.driver_memory_mib or 0)
    gb = mib * MIB / GB
    fields = {"gpu": label(gpu.name), "mib": ctx.num(mib, 9), "gb": ctx.shown(gb),
              "memory_gb": ctx.num(gpu.memory_gb, 5), "memory_type": gpu.memory_type,
              "gib": ctx.num(mib / 1024, 4),
              "gib_reading": ctx.num(gpu.memory_gb * GIB / GB, 4)}
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.gib.decimal_prompt", **fields),
        explanation=join_steps(ctx.t("gen.gib.decimal_explain", **fields),
                               ctx.t("gen.gib.why")),
        answer=significant(gb), unit="GB", tolerance=Tolerance(relative=0.005),
        params={"gpu": gpu.id, "direction": "mib-to-gb", "given": {"mib_gb": mib}},
    )


MIB = GIB / 1024
GIB_SIZES = (16, 24, 32, 48, 64, 80, 96, 128, 144, 192, 256, 288)
WEIGHT_SIZES_GB = (14.5, 16.1, 141.1, 145.4, 810.0, 1342.0)
"""Weights in decimal GB (parameters × bytes) a learner converts to the GiB tools print."""


def gb_vs_gib(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """The true story: a vendor's HBM "GB" is a GiB on Hopper, Blackwell and MI300 and
    decimal on Blackwell Ultra, as the driver's total (MiB) shows; weights are decimal GB
    (parameters × bytes)."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    ratio = ctx.num(GIB / GB, 10)
    roll = rng.random()
    hbm = [g for g in entries(catalog.accelerators, options, "gpus") if g.memory_unit == "GiB"]
    if hbm and roll < 0.45:
        gpu = rng.choice(hbm)
        gib = gpu.memory_gb
        gb = gib * GIB / GB
        fields = {"gpu": label(gpu.name), "gib": ctx.num(gib, 5), "gb": ctx.shown(gb),
                  "ratio": ratio, "memory_type": gpu.memory_type}
        driver = ""
        if gpu.driver_memory_mib is not None:
            driver = ctx.t("gen.gib.driver_note", gib=fields["gib"],
                           mib=ctx.num(gpu.driver_memory_mib, 9),
                           driver_gib=ctx.num(gpu.driver_memory_mib / 1024, 4),
                           driver_gb=ctx.num(gpu.memory_bytes / GB, 4))
        return ctx.question(
            kind=Kind.NUMERIC, prompt=ctx.t("gen.gib.hbm_prompt", **fields),
            explanation=join_steps(ctx.t("gen.gib.hbm_explain", **fields), driver,
                                   ctx.t("gen.gib.why")),
            answer=significant(gb), unit="GB", tolerance=Tolerance(relative=0.005),
            params={"gpu": gpu.id, "size_gib": gib, "direction": "gib-to-gb",
                    "given": {"gib": gib}},
        )
    decimal = [g for g in entries(catalog.accelerators, options, "gpus")
               if g.memory_unit == "GB" and g.driver_memory_mib is not None]
    if decimal and 0.45 <= roll < 0.55:
        return _decimal_hbm(ctx, rng.choice(decimal))
    drivers = [g for g in hbm if g.driver_memory_mib is not None]
    if drivers and roll < 0.65:
        gpu = rng.choice(drivers)
        mib = float(gpu.driver_memory_mib or 0)
        gib = mib / 1024
        fields = {"gpu": label(gpu.name), "mib": ctx.num(mib, 9), "gib": ctx.shown(gib),
                  "memory_gb": ctx.num(gpu.memory_gb, 5)}
        return ctx.question(
            kind=Kind.NUMERIC, prompt=ctx.t("gen.gib.driver_prompt", **fields),
            explanation=join_steps(ctx.t("gen.gib.driver_explain", **fields),
                                   ctx.t("gen.gib.why")),
            answer=significant(gib), unit="GiB", tolerance=Tolerance(relative=0.005),
            params={"gpu": gpu.id, "direction": "mib-to-gib", "given": {"mib": mib}},
        )
    if roll < 0.85:
        size_gb = float(rng.choice(values(options, "sizes_gb", WEIGHT_SIZES_GB)))
        gib = size_gb * GB / GIB
        fields = {"gb": ctx.num(size_gb, 5), "gib": ctx.shown(gib), "ratio": ratio}
        return ctx.question(
            kind=Kind.NUMERIC, prompt=ctx.t("gen.gib.weights_prompt", **fields),
            explanation=join_steps(ctx.t("gen.gib.to_gib_explain", **fields),
                                   ctx.t("gen.gib.why")),
            answer=significant(gib), unit="GiB", tolerance=Tolerance(relative=0.005),
            params={"size_gb": size_gb, "direction": "gb-to-gib", "given": {"gb": size_gb}},
        )
    size_gib = int(rng.choice(values(options, "sizes_gib", GIB_SIZES)))
    gb = size_gib * GIB / GB
    fields = {"gib": ctx.num(size_gib), "gb": ctx.shown(gb), "ratio": ratio}
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.gib.to_gb_prompt", **fields),
        explanation=join_steps(ctx.t("gen.gib.to_gb_explain", **fields), ctx.t("gen.gib.why")),
        answer=significant(gb), unit="GB", tolerance=Tolerance(relative=0.005),
        params={"size_gib": size_gib, "direction": "gib-to-gb", "given": {"gib": size_gib}},
    )


# --- kv-cache-per-token / kv-cache-total ----------------------------------


def kv_cache_per_token(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """What one token costs in every layer: GQA counts K and V per KV head; MLA one latent."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    model = rng.choice(entries(catalog.models, options, "models"))
    kv_dtype = str(rng.choice(values(options, "dtypes", SERVE_DTYPES)))
    per_token = kv_bytes_per_token(kv_shape(model), kv_dtype)
    shape_text, given = kv_shape_fields(model, kv_dtype, ctx)
    explanation = join_steps(
        kv_formula(model, kv_dtype, ctx),
        ctx.t("gen.kv.why_per_token"),
        ctx.t("gen.convention.kb"),
    )
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.kv.per_token_prompt", shape=shape_text),
        explanation=explanation,
        answer=significant(per_token / KB), unit="KB", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "kv_dtype": kv_dtype, "attention": model.attention,
                "layers": model.layers, "kv_heads": model.kv_heads, "head_dim": model.head_dim,
                "kv_lora_rank": model.kv_lora_rank, "qk_rope_head_dim": model.qk_rope_head_dim,
                "given": given},
    )


def kv_cache_total(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Per-token bytes × context × batch: the part of memory that grows with use."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    model = rng.choice(kv_models(entries(catalog.models, options, "models"), options,
                                 "kv-cache-total"))
    kv_dtype = str(rng.choice(values(options, "dtypes", SERVE_DTYPES)))
    context = int(rng.choice(contexts_within(model, options)))
    batch = int(rng.choice(values(options, "batches", BATCHES)))
    shape = kv_shape(model)
    total = kv_cache_bytes(shape, kv_dtype, context, batch)
    per_token = kv_bytes_per_token(shape, kv_dtype)
    fields = {"model": model_label(model.name), "dtype": dtype_name(kv_dtype),
              "context": ctx.num(context), "batch": ctx.num(batch),
              "per_token": ctx.num(per_token, 6), "kv_kb": ctx.shown(per_token / KB),
              "total_gb": ctx.shown(total / GB)}
    one = "_one" if batch == 1 else ""  # "a batch of 1 sequences" reads wrong in both languages
    explanation = join_steps(
        kv_formula(model, kv_dtype, ctx),
        ctx.t(f"gen.kv.total_explain{one}", **fields),
        ctx.t("gen.convention.gb"),
    )
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t(f"gen.kv.total_prompt{one}", **fields),
        explanation=explanation, given=shape_given(model, kv_dtype, ctx),
        answer=significant(total / GB), unit="GB", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "kv_dtype": kv_dtype, "context": context, "batch": batch,
                "given": {"kv_kb": per_token / KB, "context": context, "batch": batch}},
    )



WEIGHTS_SIZE = Family(
    name="weights-size", post="intro", kind=Kind.NUMERIC,
    description={"es": "Tamaño de los pesos de un modelo en un tipo de dato (GB)",
                 "en": "Size of a model's weights in a dtype (GB)"},
    generate=drawn(weights_size), options={"models": MODEL_IDS, "dtypes": "weight dtypes"},
    slips=(*dtype_size("dtype"), MOE_ACTIVE_WEIGHTS),
)

KV_CACHE_PER_TOKEN = Family(
    name="kv-cache-per-token", post="hbm-kv-cache", kind=Kind.NUMERIC,
    description={"es": "KV cache por token (GQA, MHA o MLA) en KB",
                 "en": "KV cache per token (GQA, MHA or MLA) in KB"},
    generate=drawn(kv_cache_per_token), options={"models": MODEL_IDS, "dtypes": "KV cache dtypes"},
    slips=(KV_PAIR, *dtype_size("kv_dtype")),
)

KV_CACHE_TOTAL = Family(
    name="kv-cache-total", post="hbm-kv-cache", kind=Kind.NUMERIC,
    description={"es": "KV cache total para un contexto y un lote (GB)",
                 "en": "Total KV cache for a context and a batch (GB)"},
    generate=drawn(kv_cache_total),
    options={"models": MODEL_IDS, "dtypes": "KV cache dtypes", "contexts": "context lengths",
             "batches": "batch sizes"},
    slips=(KV_PAIR, *dtype_size("kv_dtype")),
)

GB_VS_GIB = Family(
    name="gb-vs-gib", post="hbm-kv-cache", kind=Kind.NUMERIC,
    description={"es": "GB (10^9) frente a GiB (2^30): convertir la memoria de un chip",
                 "en": "GB (10^9) versus GiB (2^30): convert a chip's memory"},
    generate=drawn(gb_vs_gib), options={"gpus": GPU_IDS, "sizes_gib": "sizes in GiB to convert",
                                        "sizes_gb": "weight sizes in GB to convert"},
    fact="conversion:gb-vs-gib",  # both directions are one skill
    slips=(GIB_SAME_NUMBER, GIB_WRONG_WAY), conversion=True,
)
