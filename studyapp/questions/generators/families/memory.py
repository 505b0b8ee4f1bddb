"""Memory families: weights, KV cache, fitting on one GPU, GB versus GiB.

The questions a learner must answer before running anything: how big are
the weights, how big is the KV cache, and does it all fit in HBM.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, Model
from studyapp.i18n import t
from studyapp.infra import (
    DEFAULT_USABLE_FRACTION,
    dtype_bytes,
    fit,
    kv_bytes_per_token,
    kv_cache_bytes,
    max_tokens_that_fit,
    min_devices,
    usable_bytes,
    weights_bytes,
)
from studyapp.infra.shapes import kv_shape
from studyapp.infra.units import GB, GIB, KB
from studyapp.questions.generators import Family, register
from studyapp.questions.generators.drawing import MARGIN, apart, entries, redraw, values
from studyapp.questions.generators.slips import GIB_SAME_NUMBER, GIB_WRONG_WAY, KV_PAIR, dtype_size
from studyapp.questions.generators.wording import (
    bytes_per,
    join_steps,
    label,
    model_label,
    num,
    shown,
    significant,
)
from studyapp.questions.model import Kind, Question, Tolerance

WEIGHT_DTYPES = ("fp32", "bf16", "int4")
"""FP8 is left out here: at 1 byte per parameter the answer would repeat the parameter count."""
SERVE_DTYPES = ("bf16", "fp8")
CONTEXTS = (2048, 4096, 8192, 16384, 32768, 65536, 131072)
BATCHES = (1, 2, 4, 8, 16, 32, 64)


def dtype_name(dtype: str) -> str:
    return dtype.upper()


def kv_formula(model: Model, kv_dtype: str, lang: str) -> str:
    """The per-token KV cache sum with the model's numbers in it (GQA/MHA or MLA)."""
    per_token = kv_bytes_per_token(kv_shape(model), kv_dtype)
    fields = {
        "layers": model.layers,
        "kv_heads": model.kv_heads,
        "head_dim": model.head_dim,
        "bytes": num(dtype_bytes(kv_dtype), lang),
        "dtype": dtype_name(kv_dtype),
        "per_token": num(per_token, lang, 6),
        "per_token_kb": shown(per_token / KB, lang),
    }
    if model.attention == "mla":
        return t("gen.kv.formula_mla", lang, rank=model.kv_lora_rank,
                 rope=model.qk_rope_head_dim, **fields)
    return t("gen.kv.formula_gqa", lang, attention=model.attention.upper(), **fields)


def model_fields(model: Model, lang: str) -> dict[str, str]:
    """``model`` names the model with its parameter count (total and active for MoE)."""
    return {"model": model_phrase(model, lang), "model_name": model_label(model.name),
            "params_b": num(model.params_b, lang, 5)}


def model_phrase(model: Model, lang: str) -> str:
    """``Llama 3.1 70B (70.55B parameters)``; a mixture of experts says total and active."""
    name = model_label(model.name)
    if model.active_params_b is None:
        return t("gen.model.dense", lang, name=name, params_b=num(model.params_b, lang, 5))
    return t("gen.model.moe", lang, name=name, params_b=num(model.params_b, lang, 5),
             active_b=num(model.active_params_b, lang, 5))


def has_dtype(chip: Accelerator, dtype: str) -> bool:
    """FP8 and FP4 only on chips with such units (Gaudi 2 runs FP8 without a published rate)."""
    if dtype in ("fp8", "int8"):
        return chip.fp8_dense_tflops is not None or chip.id == "gaudi2"
    if dtype in ("fp4", "int4"):
        return chip.fp4_dense_tflops is not None
    return True


def kv_kb(model: Model, kv_dtype: str) -> float:
    """KV cache per token in KB (10^3 bytes), as prompts state it."""
    return kv_bytes_per_token(kv_shape(model), kv_dtype) / KB


def moe_note(model: Model, lang: str) -> str:
    """MoE models keep every expert in memory even though few are active per token."""
    if model.active_params_b is None:
        return ""
    return t("gen.weights.moe_note", lang, model=model_label(model.name),
             active_b=num(model.active_params_b, lang, 5), params_b=num(model.params_b, lang, 5))


# --- weights-size ---------------------------------------------------------


def weights_size(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Parameters × bytes per parameter, in GB."""
    rng = random.Random(seed)
    catalog = load_catalog()
    model = rng.choice(entries(catalog.models, options, "models"))
    dtype = str(rng.choice(values(options, "dtypes", WEIGHT_DTYPES)))
    size = weights_bytes(model.params, dtype)
    fields = {**model_fields(model, lang), "dtype": dtype_name(dtype),
              "bytes": num(dtype_bytes(dtype), lang),
              "bytes_word": bytes_per(dtype_bytes(dtype), lang),
              "weights_gb": shown(size / GB, lang)}
    explanation = join_steps(
        t("gen.weights.explain", lang, **fields),
        moe_note(model, lang),
        t("gen.convention.gb", lang),
    )
    return Question(
        kind=Kind.NUMERIC, post="intro", family="weights-size", seed=seed, lang=lang,
        prompt=t("gen.weights.prompt", lang, **fields), explanation=explanation,
        answer=significant(size / GB), unit="GB", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "params": model.params, "dtype": dtype,
                "given": {"params_b": model.params_b, "bytes": dtype_bytes(dtype)}},
    )


# --- gb-vs-gib ------------------------------------------------------------

GIB_SIZES = (16, 24, 32, 48, 64, 80, 96, 128, 144, 192, 256, 288)


def gb_vs_gib(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Vendors print GB (10^9) or GiB (2^30), tools print GiB: 141 GB is 131.3 GiB."""
    rng = random.Random(seed)
    catalog = load_catalog()
    ratio = num(GIB / GB, lang, 10)
    if rng.random() < 0.6:
        gpu = rng.choice(entries(catalog.accelerators, options, "gpus"))
        if gpu.vendor_memory_gib:
            # the vendor itself writes GiB: convert its figure to GB
            gib = gpu.vendor_memory_gib
            gb = gib * GIB / GB
            fields = {"gpu": label(gpu.name), "gib": num(gib, lang, 5), "gb": shown(gb, lang),
                      "ratio": ratio}
            return Question(
                kind=Kind.NUMERIC, post="hbm-kv-cache", family="gb-vs-gib", seed=seed,
                lang=lang, prompt=t("gen.gib.vendor_gib_prompt", lang, **fields),
                explanation=join_steps(t("gen.gib.to_gb_explain", lang, **fields),
                                       t("gen.gib.why", lang)),
                answer=significant(gb), unit="GB", tolerance=Tolerance(relative=0.005),
                params={"gpu": gpu.id, "size_gib": gib, "direction": "gib-to-gb",
                        "given": {"gib": gib}},
            )
        gib = gpu.memory_bytes / GIB
        fields = {"gpu": label(gpu.name), "gb": num(gpu.memory_gb, lang, 5),
                  "gib": shown(gib, lang),
                  "ratio": ratio}
        return Question(
            kind=Kind.NUMERIC, post="hbm-kv-cache", family="gb-vs-gib", seed=seed, lang=lang,
            prompt=t("gen.gib.to_gib_prompt", lang, **fields),
            explanation=join_steps(t("gen.gib.to_gib_explain", lang, **fields),
                                   t("gen.gib.why", lang)),
            answer=significant(gib), unit="GiB", tolerance=Tolerance(relative=0.005),
            params={"gpu": gpu.id, "memory_gb": gpu.memory_gb, "direction": "gb-to-gib",
                    "given": {"gb": gpu.memory_gb}},
        )
    size_gib = int(rng.choice(values(options, "sizes_gib", GIB_SIZES)))
    gb = size_gib * GIB / GB
    fields = {"gib": num(size_gib, lang), "gb": shown(gb, lang), "ratio": ratio}
    return Question(
        kind=Kind.NUMERIC, post="hbm-kv-cache", family="gb-vs-gib", seed=seed, lang=lang,
        prompt=t("gen.gib.to_gb_prompt", lang, **fields),
        explanation=join_steps(t("gen.gib.to_gb_explain", lang, **fields), t("gen.gib.why", lang)),
        answer=significant(gb), unit="GB", tolerance=Tolerance(relative=0.005),
        params={"size_gib": size_gib, "direction": "gib-to-gb", "given": {"gib": size_gib}},
    )


# --- kv-cache-per-token / kv-cache-total ----------------------------------


def kv_shape_fields(model: Model, kv_dtype: str, lang: str) -> tuple[str, dict[str, float]]:
    """The model's KV shape as a prompt states it, and the figures it gives."""
    kv_bytes = dtype_bytes(kv_dtype)
    common = {"model": model_label(model.name), "layers": num(model.layers, lang),
              "dtype": dtype_name(kv_dtype), "bytes_word": bytes_per(kv_bytes, lang)}
    if model.attention == "mla":
        text = t("gen.kv.shape_mla", lang, rank=num(model.kv_lora_rank or 0, lang),
                 rope=num(model.qk_rope_head_dim or 0, lang), **common)
        return text, {"layers": model.layers, "rank": float(model.kv_lora_rank or 0),
                      "rope": float(model.qk_rope_head_dim or 0), "kv_bytes": kv_bytes}
    text = t("gen.kv.shape_gqa", lang, attention=model.attention.upper(),
             kv_heads=num(model.kv_heads, lang), head_dim=num(model.head_dim, lang), **common)
    return text, {"layers": model.layers, "kv_heads": model.kv_heads,
                  "head_dim": model.head_dim, "kv_bytes": kv_bytes}


def kv_cache_per_token(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """What one token costs in every layer: GQA counts K and V per KV head; MLA one latent."""
    rng = random.Random(seed)
    catalog = load_catalog()
    model = rng.choice(entries(catalog.models, options, "models"))
    kv_dtype = str(rng.choice(values(options, "dtypes", SERVE_DTYPES)))
    per_token = kv_bytes_per_token(kv_shape(model), kv_dtype)
    shape_text, given = kv_shape_fields(model, kv_dtype, lang)
    explanation = join_steps(
        kv_formula(model, kv_dtype, lang),
        t("gen.kv.why_per_token", lang),
        t("gen.convention.kb", lang),
    )
    return Question(
        kind=Kind.NUMERIC, post="hbm-kv-cache", family="kv-cache-per-token", seed=seed,
        lang=lang, prompt=t("gen.kv.per_token_prompt", lang, shape=shape_text),
        explanation=explanation,
        answer=significant(per_token / KB), unit="KB", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "kv_dtype": kv_dtype, "attention": model.attention,
                "layers": model.layers, "kv_heads": model.kv_heads, "head_dim": model.head_dim,
                "kv_lora_rank": model.kv_lora_rank, "qk_rope_head_dim": model.qk_rope_head_dim,
                "given": given},
    )


def _contexts(model: Model, options: Mapping[str, Any]) -> list[int]:
    allowed = [int(c) for c in values(options, "contexts", CONTEXTS)]
    within = [c for c in allowed if c <= model.context_length]
    return within or [min(allowed)]


def kv_cache_total(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Per-token bytes × context × batch: the part of memory that grows with use."""
    rng = random.Random(seed)
    catalog = load_catalog()
    model = rng.choice(entries(catalog.models, options, "models"))
    kv_dtype = str(rng.choice(values(options, "dtypes", SERVE_DTYPES)))
    context = int(rng.choice(_contexts(model, options)))
    batch = int(rng.choice(values(options, "batches", BATCHES)))
    shape = kv_shape(model)
    total = kv_cache_bytes(shape, kv_dtype, context, batch)
    per_token = kv_bytes_per_token(shape, kv_dtype)
    fields = {"model": model_label(model.name), "dtype": dtype_name(kv_dtype),
              "context": num(context, lang), "batch": num(batch, lang),
              "per_token": num(per_token, lang, 6), "kv_kb": num(per_token / KB, lang, 6),
              "total_gb": shown(total / GB, lang)}
    one = "_one" if batch == 1 else ""  # "a batch of 1 sequences" reads wrong in both languages
    explanation = join_steps(
        kv_formula(model, kv_dtype, lang),
        t(f"gen.kv.total_explain{one}", lang, **fields),
        t("gen.convention.gb", lang),
    )
    return Question(
        kind=Kind.NUMERIC, post="hbm-kv-cache", family="kv-cache-total", seed=seed, lang=lang,
        prompt=t(f"gen.kv.total_prompt{one}", lang, **fields), explanation=explanation,
        answer=significant(total / GB), unit="GB", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "kv_dtype": kv_dtype, "context": context, "batch": batch,
                "given": {"kv_kb": per_token / KB, "context": context, "batch": batch}},
    )


# --- fits-on-gpu ----------------------------------------------------------


@dataclass(frozen=True)
class ServeDraw:
    """One serving setup: a model in a dtype on one kind of GPU, with context and batch."""

    model: Model
    gpu: Accelerator
    dtype: str
    context: int
    batch: int

    def required(self) -> float:
        return fit(self.model.params, self.dtype, kv_shape(self.model), self.gpu.memory_bytes,
                   context=self.context, batch=self.batch).required_bytes


def _serve_drawer(options: Mapping[str, Any]) -> Any:
    catalog = load_catalog()
    models = entries(catalog.models, options, "models")
    gpus = entries(catalog.accelerators, options, "gpus")
    dtypes = [str(d) for d in values(options, "dtypes", SERVE_DTYPES)]
    batches = [int(b) for b in values(options, "batches", BATCHES)]

    def draw(rng: random.Random) -> ServeDraw:
        model = rng.choice(models)
        gpu = rng.choice(gpus)
        dtype = rng.choice([d for d in dtypes if has_dtype(gpu, d)] or ["bf16"])
        return ServeDraw(model=model, gpu=gpu, dtype=dtype,
                         context=int(rng.choice(_contexts(model, options))),
                         batch=rng.choice(batches))

    return draw


def serve_given(d: ServeDraw) -> dict[str, float]:
    """The figures a serving question states: they decide weights + KV against usable HBM."""
    return {"params_b": d.model.params_b, "bytes": dtype_bytes(d.dtype),
            "kv_kb": kv_kb(d.model, d.dtype), "context": d.context, "batch": d.batch,
            "memory_gb": d.gpu.memory_gb, "usable": DEFAULT_USABLE_FRACTION}


def serve_fields(d: ServeDraw, lang: str) -> dict[str, str]:
    result = fit(d.model.params, d.dtype, kv_shape(d.model), d.gpu.memory_bytes,
                 context=d.context, batch=d.batch)
    return {
        **model_fields(d.model, lang),
        "gpu": label(d.gpu.name),
        "memory_gb": num(d.gpu.memory_gb, lang, 5),
        "dtype": dtype_name(d.dtype),
        "bytes": num(dtype_bytes(d.dtype), lang),
        "bytes_word": bytes_per(dtype_bytes(d.dtype), lang),
        "kv_kb": num(kv_kb(d.model, d.dtype), lang, 6),
        "per_token": num(kv_bytes_per_token(kv_shape(d.model), d.dtype), lang, 6),
        "context": num(d.context, lang),
        "batch": num(d.batch, lang),
        "weights_gb": num(result.weights_bytes / GB, lang, 4),
        "kv_gb": num(result.kv_cache_bytes / GB, lang, 3),
        "required_gb": num(result.required_bytes / GB, lang, 4),
        "available_gb": num(result.available_bytes / GB, lang, 4),
        "fraction": num(DEFAULT_USABLE_FRACTION, lang),
        "headroom_gb": num(abs(result.headroom_bytes) / GB, lang, 3),
        "min_devices": num(result.min_devices, lang),
    }


def fits_on_gpu(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Weights + KV cache against 90% of one GPU's HBM, kept at least 10% from the line."""
    rng = random.Random(seed)
    draw = _serve_drawer(options)
    want = rng.random() < 0.5

    def available(d: ServeDraw) -> float:
        return usable_bytes(d.gpu.memory_bytes)

    def clear(d: ServeDraw) -> bool:
        return apart(d.required(), available(d), MARGIN)

    def decisive(d: ServeDraw) -> bool:
        """Within 0.5-2x of the usable memory: the sum has to be done to answer."""
        return 0.5 <= d.required() / available(d) <= 2.0

    d, ok = redraw(rng, draw, lambda d: clear(d) and decisive(d)
                   and (d.required() <= available(d)) == want, attempts=400)
    if not ok:
        d, ok = redraw(rng, draw, lambda d: clear(d) and decisive(d), attempts=400)
    if not ok:
        d, ok = redraw(rng, draw, clear)
    required, avail = d.required(), available(d)
    fits = required <= avail
    fields = serve_fields(d, lang)
    verdict = t("gen.fit.verdict_yes" if fits else "gen.fit.verdict_no", lang, **fields)
    explanation = join_steps(
        t("gen.fit.weights_step", lang, **fields),
        moe_note(d.model, lang),
        kv_formula(d.model, d.dtype, lang),
        t("gen.fit.kv_step", lang, **fields),
        t("gen.fit.available_step", lang, **fields),
        verdict,
        "" if ok else t("gen.fit.borderline", lang),
        t("gen.convention.gb_usable", lang),
    )
    return Question(
        kind=Kind.TRUEFALSE, post="h200", family="fits-on-gpu", seed=seed, lang=lang,
        prompt=t("gen.fit.prompt", lang, **fields), explanation=explanation, answer=fits,
        params={"model": d.model.id, "gpu": d.gpu.id, "dtype": d.dtype, "kv_dtype": d.dtype,
                "context": d.context, "batch": d.batch,
                "usable_fraction": DEFAULT_USABLE_FRACTION, "margin_kept": ok,
                "decision_ratio": significant(required / avail, 4), "given": serve_given(d)},
    )


# --- min-gpus -------------------------------------------------------------


def min_gpus(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Fewest GPUs whose usable memory holds weights + KV cache (memory only)."""
    rng = random.Random(seed)
    draw = _serve_drawer(options)

    def ratio(d: ServeDraw) -> float:
        return d.required() / usable_bytes(d.gpu.memory_bytes)

    def clear(d: ServeDraw) -> bool:
        # not barely over a whole number of GPUs, and more than one GPU needed
        x = ratio(d)
        return 1.1 <= x <= 64 and x - math.floor(x) >= MARGIN

    d, ok = redraw(rng, draw, clear)
    devices = min_devices(d.required(), d.gpu.memory_bytes)
    fields = {**serve_fields(d, lang), "ratio": num(ratio(d), lang, 4),
              "per_gpu_gb": num(usable_bytes(d.gpu.memory_bytes) / GB, lang, 4),
              "devices": num(devices, lang)}
    explanation = join_steps(
        t("gen.fit.weights_step", lang, **fields),
        kv_formula(d.model, d.dtype, lang),
        t("gen.fit.kv_step", lang, **fields),
        t("gen.min.step", lang, **fields),
        "" if ok else t("gen.fit.borderline", lang),
        t("gen.min.note", lang),
        t("gen.convention.gb_usable", lang),
    )
    return Question(
        kind=Kind.NUMERIC, post="hgx", family="min-gpus", seed=seed, lang=lang,
        prompt=t("gen.min.prompt", lang, **fields), explanation=explanation,
        answer=float(devices), unit=None, tolerance=Tolerance(relative=None, absolute=0),
        params={"model": d.model.id, "gpu": d.gpu.id, "dtype": d.dtype, "context": d.context,
                "batch": d.batch, "usable_fraction": DEFAULT_USABLE_FRACTION,
                "given": serve_given(d)},
    )


# --- max-context-that-fits ------------------------------------------------


def max_context(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Memory left after the weights, divided by what one token (or sequence) costs."""
    rng = random.Random(seed)
    catalog = load_catalog()
    models = entries(catalog.models, options, "models")
    gpus = entries(catalog.accelerators, options, "gpus")
    dtypes = [str(d) for d in values(options, "dtypes", SERVE_DTYPES)]
    batches = [int(b) for b in values(options, "batches", (1, 4, 8, 16, 32))]
    solve = [str(s) for s in values(options, "solve_for", ("context", "batch"))]

    def draw(rng: random.Random) -> tuple[Model, Accelerator, str, int, str, int]:
        model = rng.choice(models)
        gpu = rng.choice(gpus)
        dtype = rng.choice([d for d in dtypes if has_dtype(gpu, d)] or ["bf16"])
        return (model, gpu, dtype, rng.choice(batches),
                rng.choice(solve), int(rng.choice(_contexts(model, options))))

    def answer(d: tuple[Model, Accelerator, str, int, str, int]) -> int:
        model, gpu, dtype, batch, what, context = d
        free = usable_bytes(gpu.memory_bytes) - weights_bytes(model.params, dtype)
        if what == "context":
            return max_tokens_that_fit(free, kv_shape(model), dtype, batch)
        return max_tokens_that_fit(free, kv_shape(model), dtype, context) if free > 0 else 0

    def useful(d: tuple[Model, Accelerator, str, int, str, int]) -> bool:
        n = answer(d)
        return n >= (1024 if d[4] == "context" else 2)

    def within_model(d: tuple[Model, Accelerator, str, int, str, int]) -> bool:
        return useful(d) and (d[4] == "batch" or answer(d) <= d[0].context_length)

    d, ok = redraw(rng, draw, within_model)
    if not ok:
        d, _ = redraw(rng, draw, useful)
    model, gpu, dtype, batch, what, context = d
    n = answer(d)
    shape = kv_shape(model)
    per_token = kv_bytes_per_token(shape, dtype)
    avail = usable_bytes(gpu.memory_bytes)
    w = weights_bytes(model.params, dtype)
    exact = max(avail - w, 0.0) / (per_token * (batch if what == "context" else context))
    fields = {**model_fields(model, lang), "gpu": label(gpu.name),
              "memory_gb": num(gpu.memory_gb, lang, 5), "bytes_word": bytes_per(
                  dtype_bytes(dtype), lang), "kv_kb": num(per_token / KB, lang, 6),
              "approx": (f" (≈ {shown(n, lang)})" if shown(n, lang) != num(n, lang, 9) else ""),
              "dtype": dtype_name(dtype), "batch": num(batch, lang), "context": num(context, lang),
              "available_gb": num(avail / GB, lang, 4), "weights_gb": num(w / GB, lang, 4),
              "free_gb": num((avail - w) / GB, lang, 4), "per_token": num(per_token, lang, 6),
              "per_sequence_gb": num(per_token * context / GB, lang, 4),
              "answer": num(n, lang), "exact": num(exact, lang, len(str(int(exact))) + 2),
              "max_context": num(model.context_length, lang),
              "fraction": num(DEFAULT_USABLE_FRACTION, lang)}
    key = "gen.maxctx.context" if what == "context" else "gen.maxctx.batch"
    cap = ""
    if what == "context" and n > model.context_length:
        cap = t("gen.maxctx.cap", lang, **fields)
    explanation = join_steps(
        t("gen.maxctx.free_step", lang, **fields),
        kv_formula(model, dtype, lang),
        t(f"{key}_step", lang, **fields),
        cap,
        t("gen.convention.gb_usable", lang),
    )
    return Question(
        kind=Kind.NUMERIC, post="hbm-kv-cache", family="max-context-that-fits", seed=seed,
        lang=lang, prompt=t(f"{key}_prompt", lang, **fields), explanation=explanation,
        answer=float(n), unit="tokens" if what == "context" else None,
        tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "gpu": gpu.id, "dtype": dtype, "kv_dtype": dtype,
                "solve_for": what, "batch": batch if what == "context" else None,
                "context": context if what == "batch" else None,
                "usable_fraction": DEFAULT_USABLE_FRACTION,
                "given": {"memory_gb": gpu.memory_gb, "usable": DEFAULT_USABLE_FRACTION,
                          "params_b": model.params_b, "bytes": dtype_bytes(dtype),
                          "kv_kb": per_token / KB,
                          **({"batch": batch} if what == "context" else {"context": context})}},
    )


_MODELS = "model ids from the catalog (default: all)"
_GPUS = "accelerator ids from the catalog (default: all)"

register(Family(
    name="weights-size", post="intro", kind=Kind.NUMERIC,
    description={"es": "Tamaño de los pesos de un modelo en un tipo de dato (GB)",
                 "en": "Size of a model's weights in a dtype (GB)"},
    generate=weights_size, options={"models": _MODELS, "dtypes": "weight dtypes"},
    slips=(dtype_size("dtype"),),
))
register(Family(
    name="fits-on-gpu", post="h200", kind=Kind.TRUEFALSE,
    description={"es": "¿Caben los pesos y la KV cache de un modelo en una sola GPU?",
                 "en": "Do a model's weights and KV cache fit on one GPU?"},
    generate=fits_on_gpu,
    options={"models": _MODELS, "gpus": _GPUS, "dtypes": "weight and KV dtypes",
             "contexts": "context lengths in tokens", "batches": "batch sizes"},
))
register(Family(
    name="min-gpus", post="hgx", kind=Kind.NUMERIC,
    description={"es": "Mínimo número de GPU para que quepan pesos y KV cache",
                 "en": "Fewest GPUs that hold the weights and KV cache"},
    generate=min_gpus,
    options={"models": _MODELS, "gpus": _GPUS, "dtypes": "weight and KV dtypes",
             "contexts": "context lengths in tokens", "batches": "batch sizes"},
))
register(Family(
    name="kv-cache-per-token", post="hbm-kv-cache", kind=Kind.NUMERIC,
    description={"es": "KV cache por token (GQA, MHA o MLA) en KB",
                 "en": "KV cache per token (GQA, MHA or MLA) in KB"},
    generate=kv_cache_per_token, options={"models": _MODELS, "dtypes": "KV cache dtypes"},
    slips=(KV_PAIR, dtype_size("kv_dtype")),
))
register(Family(
    name="kv-cache-total", post="hbm-kv-cache", kind=Kind.NUMERIC,
    description={"es": "KV cache total para un contexto y un lote (GB)",
                 "en": "Total KV cache for a context and a batch (GB)"},
    generate=kv_cache_total,
    options={"models": _MODELS, "dtypes": "KV cache dtypes", "contexts": "context lengths",
             "batches": "batch sizes"},
    slips=(KV_PAIR, dtype_size("kv_dtype")),
))
register(Family(
    name="max-context-that-fits", post="hbm-kv-cache", kind=Kind.NUMERIC,
    description={"es": "Contexto o lote más grande que aún cabe junto a los pesos",
                 "en": "Largest context or batch that still fits next to the weights"},
    generate=max_context,
    options={"models": _MODELS, "gpus": _GPUS, "dtypes": "weight and KV dtypes",
             "batches": "batch sizes", "contexts": "context lengths",
             "solve_for": "context or batch"},
))
register(Family(
    name="gb-vs-gib", post="hbm-kv-cache", kind=Kind.NUMERIC,
    description={"es": "GB (10^9) frente a GiB (2^30): convertir la memoria de un chip",
                 "en": "GB (10^9) versus GiB (2^30): convert a chip's memory"},
    generate=gb_vs_gib, options={"gpus": _GPUS, "sizes_gib": "sizes in GiB to convert"},
    fact="conversion:gb-vs-gib",  # both directions are one skill
    slips=(GIB_SAME_NUMBER, GIB_WRONG_WAY), conversion=True,
))
