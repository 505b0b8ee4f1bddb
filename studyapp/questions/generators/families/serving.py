"""Serving families: does a model fit on one GPU, on how many, with how long a context.

Weights plus KV cache against the usable HBM of the chips that serve them.
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
    max_tokens_that_fit,
    min_devices,
    usable_bytes,
    weights_bytes,
)
from studyapp.infra.shapes import kv_shape
from studyapp.infra.units import GB, KB
from studyapp.questions.formatting import format_quantity
from studyapp.questions.generators import Family
from studyapp.questions.generators.drawing import MARGIN, apart, draw_until, entries, redraw, values
from studyapp.questions.generators.families.terms import (
    BATCHES,
    GPU_IDS,
    MODEL_IDS,
    SERVE_DTYPES,
    capacity_fields,
    capacity_gb,
    contexts_within,
    dtype_name,
    has_dtype,
    kv_formula,
    kv_kb,
    model_fields,
    moe_note,
)
from studyapp.questions.generators.wording import (
    bytes_per,
    join_steps,
    label,
    num,
    shown,
    significant,
)
from studyapp.questions.model import Kind, Question, Tolerance

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
                         context=int(rng.choice(contexts_within(model, options))),
                         batch=rng.choice(batches))

    return draw


def serve_given(d: ServeDraw) -> dict[str, float]:
    """The figures a serving question states: they decide weights + KV against usable HBM."""
    return {"params_b": d.model.params_b, "bytes": dtype_bytes(d.dtype),
            "kv_kb": kv_kb(d.model, d.dtype), "context": d.context, "batch": d.batch,
            "total_gb": capacity_gb(d.gpu), "usable": DEFAULT_USABLE_FRACTION}


def serve_fields(d: ServeDraw, lang: str) -> dict[str, str]:
    result = fit(d.model.params, d.dtype, kv_shape(d.model), d.gpu.memory_bytes,
                 context=d.context, batch=d.batch)
    return {
        **model_fields(d.model, lang),
        "gpu": label(d.gpu.name),
        **capacity_fields(d.gpu, lang),
        "dtype": dtype_name(d.dtype),
        "bytes": num(dtype_bytes(d.dtype), lang),
        "bytes_word": bytes_per(dtype_bytes(d.dtype), lang),
        "kv_kb": shown(kv_kb(d.model, d.dtype), lang),
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
        yes_no=True,  # "Does it fit?"
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


def _approx(n: int, lang: str) -> str:
    """`` (≈ 1,530,000)`` as the grader shows the answer; from a million up the grader
    writes ``1.53M``, so the explanation does too."""
    if n >= 1e6:
        text = format_quantity(significant(n), "tokens", lang, 3, count_suffix=True)
        return f" (≈ {text.split()[0]})"
    return f" (≈ {shown(n, lang)})" if shown(n, lang) != num(n, lang, 9) else ""

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
                rng.choice(solve), int(rng.choice(contexts_within(model, options))))

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
        limit = min(d[0].context_length, d[0].sliding_window or d[0].context_length)
        return useful(d) and (d[4] == "batch" or answer(d) <= limit)

    d, ok = redraw(rng, draw, within_model)
    if not ok:
        d = draw_until(rng, draw, useful, "max-context-that-fits")
    model, gpu, dtype, batch, what, context = d
    n = answer(d)
    shape = kv_shape(model)
    per_token = kv_bytes_per_token(shape, dtype)
    avail = usable_bytes(gpu.memory_bytes)
    w = weights_bytes(model.params, dtype)
    exact = max(avail - w, 0.0) / (per_token * (batch if what == "context" else context))
    fields = {**model_fields(model, lang), "gpu": label(gpu.name),
              **capacity_fields(gpu, lang), "bytes_word": bytes_per(
                  dtype_bytes(dtype), lang), "kv_kb": shown(per_token / KB, lang),
              "approx": _approx(n, lang),
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
                "given": {"total_gb": capacity_gb(gpu), "usable": DEFAULT_USABLE_FRACTION,
                          "params_b": model.params_b, "bytes": dtype_bytes(dtype),
                          "kv_kb": per_token / KB,
                          **({"batch": batch} if what == "context" else {"context": context})}},
    )


_FIT_OPTIONS = {"models": MODEL_IDS, "gpus": GPU_IDS, "dtypes": "weight and KV dtypes",
                "contexts": "context lengths in tokens", "batches": "batch sizes"}

FITS_ON_GPU = Family(
    name="fits-on-gpu", post="h200", kind=Kind.TRUEFALSE,
    description={"es": "¿Caben los pesos y la KV cache de un modelo en una sola GPU?",
                 "en": "Do a model's weights and KV cache fit on one GPU?"},
    generate=fits_on_gpu,
    options=_FIT_OPTIONS,
)

MIN_GPUS = Family(
    name="min-gpus", post="hgx", kind=Kind.NUMERIC,
    description={"es": "Mínimo número de GPU para que quepan pesos y KV cache",
                 "en": "Fewest GPUs that hold the weights and KV cache"},
    generate=min_gpus,
    options=_FIT_OPTIONS,
)

MAX_CONTEXT_THAT_FITS = Family(
    name="max-context-that-fits", post="hbm-kv-cache", kind=Kind.NUMERIC,
    description={"es": "Contexto o lote más grande que aún cabe junto a los pesos",
                 "en": "Largest context or batch that still fits next to the weights"},
    generate=max_context,
    options={"models": MODEL_IDS, "gpus": GPU_IDS, "dtypes": "weight and KV dtypes",
             "batches": "batch sizes", "contexts": "context lengths",
             "solve_for": "context or batch"},
)
