"""How prompts and explanations state a model, a chip and a dtype, for every family."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, Model
from studyapp.infra import (
    ACTIVATION_PEAK_BYTES,
    DEFAULT_USABLE_FRACTION,
    NON_TORCH_BYTES,
    RUNTIME_BYTES,
    dtype_bytes,
    kv_bytes_per_token,
    usable_bytes,
)
from studyapp.infra.shapes import kv_shape
from studyapp.infra.units import KB
from studyapp.questions.generators.context import DrawContext
from studyapp.questions.generators.drawing import DrawError, entries, values
from studyapp.questions.generators.wording import label, model_label

WEIGHT_DTYPES = ("fp32", "bf16", "int4")
"""FP8 is left out here: at 1 byte per parameter the answer would repeat the parameter count."""
SERVE_DTYPES = ("bf16", "fp8")
CONTEXTS = (2048, 4096, 8192, 16384, 32768, 65536, 131072)
BATCHES = (1, 2, 4, 8, 16, 32, 64)

MODEL_IDS = "model ids from the catalog (default: all)"
GPU_IDS = "accelerator ids from the catalog (default: all)"
"""What ``generate --option`` says of the common model and accelerator lists."""


def dtype_name(dtype: str) -> str:
    return dtype.upper()


def kv_formula(model: Model, kv_dtype: str, ctx: DrawContext) -> str:
    """The per-token KV cache sum with the model's numbers in it (GQA/MHA or MLA)."""
    per_token = kv_bytes_per_token(kv_shape(model), kv_dtype)
    fields = {
        "layers": model.layers,
        "kv_heads": model.kv_heads,
        "head_dim": model.head_dim,
        "bytes": ctx.num(dtype_bytes(kv_dtype)),
        "dtype": dtype_name(kv_dtype),
        "per_token": ctx.num(per_token, 6),
        "per_token_kb": ctx.shown(per_token / KB),
    }
    if model.attention == "mla" and model.index_head_dim:
        return ctx.t("gen.kv.formula_mla_indexer", rank=model.kv_lora_rank,
                     rope=model.qk_rope_head_dim, index_dim=model.index_head_dim,
                     index_bytes=ctx.num(kv_shape(model).index_bytes_per_layer()), **fields)
    if model.attention == "mla":
        return ctx.t("gen.kv.formula_mla", rank=model.kv_lora_rank,
                     rope=model.qk_rope_head_dim, **fields)
    return ctx.t("gen.kv.formula_gqa", attention=model.attention.upper(), **fields)


def model_fields(model: Model, ctx: DrawContext) -> dict[str, str]:
    """``model`` names the model with its parameter count (total and active for MoE)."""
    return {"model": model_phrase(model, ctx), "model_name": model_label(model.name),
            "params_b": ctx.num(model.params_b, 5)}


def model_phrase(model: Model, ctx: DrawContext) -> str:
    """``Llama 3.1 70B (70.55B parameters)``; a mixture of experts says total and active."""
    name = model_label(model.name)
    if model.active_params_b is None:
        return ctx.t("gen.model.dense", name=name, params_b=ctx.num(model.params_b, 5))
    return ctx.t("gen.model.moe", name=name, params_b=ctx.num(model.params_b, 5),
                 active_b=ctx.num(model.active_params_b, 5))


def capacity_gb(chip: Accelerator) -> float:
    """The chip's capacity as fits compare it: 10^9-byte GB of the driver-reported total
    (or of the vendor's figure read in its real unit), six significant figures."""
    return float(f"{chip.memory_bytes / 1e9:.6g}")


RUNTIME_GB = RUNTIME_BYTES / 1e9
"""vLLM's activation peak + non-torch memory per device in GB (questions write 3.275)."""


def budget_fields(ctx: DrawContext) -> dict[str, str]:
    """The serving budget's figures as every fit question words them: vLLM's
    gpu_memory_utilization, and the activation peak and non-torch memory it takes out."""
    return {"fraction": ctx.num(DEFAULT_USABLE_FRACTION),
            "fraction_pct": ctx.num(DEFAULT_USABLE_FRACTION * 100),
            "runtime_gb": ctx.num(RUNTIME_GB, 4),
            "activation_gib": ctx.num(ACTIVATION_PEAK_BYTES / 2**30, 3),
            "non_torch_gib": ctx.num(NON_TORCH_BYTES / 2**30, 3),
            "runtime_gib": ctx.num(RUNTIME_BYTES / 2**30, 3)}


def budget_convention(ctx: DrawContext) -> str:
    """The explanation's closing note: units, and the budget as vLLM splits it."""
    return ctx.t("gen.convention.gb_usable", **budget_fields(ctx))


def capacity_fields(chip: Accelerator, ctx: DrawContext) -> dict[str, str]:
    """``memory_gb`` as the vendor prints it, ``total_gb`` in 10^9 bytes, and ``capacity``:
    the phrase that says how one becomes the other (the driver's total where one is
    published, else the vendor's figure in its real unit). ``budget`` says how
    a serving engine splits it: ``budget_gb`` = total × utilization, less ``runtime_gb``
    leaves ``room_gb`` for weights and KV cache."""
    fields = {"memory_gb": ctx.num(chip.memory_gb, 5),
              "total_gb": ctx.num(capacity_gb(chip), 6),
              "memory_type": chip.memory_type}
    if chip.driver_memory_mib is not None:
        key = "gen.mem.capacity_driver"
        fields["driver_mib"] = ctx.num(chip.driver_memory_mib, 9)
    elif chip.memory_unit == "GB":
        key = "gen.mem.capacity_decimal"
    else:
        key = "gen.mem.capacity_binary"
    budget = budget_fields(ctx)
    return {**fields, **budget, "capacity": ctx.t(key, **fields),
            "budget": ctx.t("gen.budget.phrase", **budget),
            "budget_gb": ctx.num(capacity_gb(chip) * DEFAULT_USABLE_FRACTION, 4),
            "room_gb": ctx.num(usable_bytes(chip.memory_bytes) / 1e9, 4)}


def has_dtype(chip: Accelerator, dtype: str) -> bool:
    """FP8 and FP4 only on chips with a rate for them (Gaudi 2's FP8 rate is estimated,
    and labelled where a question writes it)."""
    if dtype in ("fp8", "int8"):
        return chip.fp8_dense_tflops is not None
    if dtype in ("fp4", "int4"):
        return chip.fp4_dense_tflops is not None
    return True


def kv_kb(model: Model, kv_dtype: str) -> float:
    """KV cache per token in KB (10^3 bytes), as prompts state it."""
    return kv_bytes_per_token(kv_shape(model), kv_dtype) / KB


def moe_note(model: Model, ctx: DrawContext) -> str:
    """MoE models keep every expert in memory even though few are active per token."""
    if model.active_params_b is None:
        return ""
    return ctx.t("gen.weights.moe_note", model=model_label(model.name),
                 active_b=ctx.num(model.active_params_b, 5), params_b=ctx.num(model.params_b, 5))


def kv_shape_fields(model: Model, kv_dtype: str, ctx: DrawContext) -> tuple[str, dict[str, float]]:
    """The model's KV shape as a prompt states it, and the figures it gives."""
    kv_bytes = dtype_bytes(kv_dtype)
    common = {"model": model_label(model.name), "layers": ctx.num(model.layers),
              "dtype": dtype_name(kv_dtype), "bytes_word": ctx.bytes_per(kv_bytes)}
    if model.attention == "mla":
        given = {"layers": model.layers, "rank": float(model.kv_lora_rank or 0),
                 "rope": float(model.qk_rope_head_dim or 0), "kv_bytes": kv_bytes}
        if model.index_head_dim:  # DeepSeek-V3.2: the indexer's FP8 key, a fixed size
            index_bytes = kv_shape(model).index_bytes_per_layer()
            text = ctx.t("gen.kv.shape_mla_indexer", rank=ctx.num(model.kv_lora_rank or 0),
                         rope=ctx.num(model.qk_rope_head_dim or 0),
                         index_dim=ctx.num(model.index_head_dim),
                         index_bytes=ctx.num(index_bytes), **common)
            return text, {**given, "index_bytes": index_bytes}
        text = ctx.t("gen.kv.shape_mla", rank=ctx.num(model.kv_lora_rank or 0),
                     rope=ctx.num(model.qk_rope_head_dim or 0), **common)
        return text, given
    text = ctx.t("gen.kv.shape_gqa", attention=model.attention.upper(),
                 kv_heads=ctx.num(model.kv_heads), head_dim=ctx.num(model.head_dim), **common)
    return text, {"layers": model.layers, "kv_heads": model.kv_heads,
                  "head_dim": model.head_dim, "kv_bytes": kv_bytes}


def shape_given(model: Model, kv_dtype: str, ctx: DrawContext) -> tuple[str, ...]:
    """The Given block of a card whose worked solution derives the KV cache per token: the
    model's shape, so every figure of that sum is stated before the question."""
    return (kv_shape_fields(model, kv_dtype, ctx)[0] + ".",)


def contexts_within(model: Model, options: Mapping[str, Any]) -> list[int]:
    """The asked contexts within the model's window (the smallest asked when none is).

    A sliding-window model keeps at most its window of KV cache, so contexts stop there:
    past it, context × bytes per token would overstate its cache. Where the window is
    shorter than every asked context (gpt-oss keeps 128 tokens in half its layers) the
    list is empty: such a model has no context at which that product is its cache."""
    allowed = [int(c) for c in values(options, "contexts", CONTEXTS)]
    limit = min(model.context_length, model.sliding_window or model.context_length)
    within = [c for c in allowed if c <= limit]
    if within or model.sliding_window:
        return within
    return [min(allowed)]


def kv_models(models: list[Model], options: Mapping[str, Any], what: str) -> list[Model]:
    """The models a family may draw with a context: those ``contexts_within`` allows.

    Leaves out a model whose window is shorter than every asked context instead of
    overstating its cache; raises DrawError (naming ``what``) when none is left."""
    kept = [m for m in models if contexts_within(m, options)]
    if not kept:
        raise DrawError(f"{what}: no model keeps its whole KV cache at the asked contexts "
                        "(a sliding window is shorter); widen the model or context pools")
    return kept


DRAWN_PRECISIONS = ("bf16", "fp8")


def dense_tflops(chip: Accelerator, precision: str) -> float | None:
    """The chip's dense peak in a precision, or None where the vendor gives none."""
    by_precision = {"bf16": chip.bf16_dense_tflops, "fp8": chip.fp8_dense_tflops,
                    "fp4": chip.fp4_dense_tflops}
    return by_precision[precision]


def chip_fields(chip: Accelerator, ctx: DrawContext) -> dict[str, str]:
    return {"gpu": label(chip.name), "memory_gb": ctx.num(chip.memory_gb, 5),
            "bandwidth_tb_s": ctx.num(chip.memory_bandwidth_tb_s, 4),
            "bandwidth_gb_s": ctx.num(chip.memory_bandwidth_tb_s * 1e3, 4)}


def dense_models(options: Mapping[str, Any]) -> list[Model]:
    """Dense models by default: an MoE decode step reads only the active experts."""
    return entries(load_catalog().models, options, "models",
                   keep=lambda m: m.active_params_b is None)
