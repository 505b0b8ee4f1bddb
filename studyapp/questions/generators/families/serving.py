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
from studyapp.infra import (
    DEFAULT_USABLE_FRACTION,
    dtype_bytes,
    fit,
    kv_bytes_per_token,
    kv_tokens_per_layer,
    max_tokens_that_fit,
    min_devices,
    usable_bytes,
    weights_bytes,
)
from studyapp.infra.shapes import kv_shape
from studyapp.infra.units import GB, KB
from studyapp.questions.formatting import format_quantity
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext, drawn
from studyapp.questions.generators.drawing import (
    MARGIN,
    DrawError,
    apart,
    draw_until,
    entries,
    redraw,
    values,
)
from studyapp.questions.generators.families.terms import (
    BATCHES,
    CONTEXTS,
    GPU_IDS,
    MODEL_IDS,
    RUNTIME_GB,
    SERVE_DTYPES,
    budget_convention,
    capacity_fields,
    capacity_gb,
    contexts_within,
    dtype_name,
    has_dtype,
    kv_formula,
    kv_kb,
    kv_models,
    model_fields,
    moe_note,
    shape_given,
)
from studyapp.questions.generators.slips import KV_LEFT_OUT, KV_PAIR_ROOM, WEIGHTS_LEFT_OUT
from studyapp.questions.generators.wording import (
    join_steps,
    label,
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

    @property
    def kv_tokens(self) -> float:
        """Mean tokens a layer keeps (gpt-oss: only 18 of 36 layers stop at 128)."""
        m = self.model
        return kv_tokens_per_layer(self.context, m.sliding_window, m.sliding_window_layers,
                                   m.layers)

    @property
    def windowed(self) -> bool:
        """Some layers, not all, keep only a window: the question says so."""
        return bool(self.model.sliding_window_layers) and self.kv_tokens != self.context

    def required(self) -> float:
        return fit(self.model.params, self.dtype, kv_shape(self.model), self.gpu.memory_bytes,
                   context=self.kv_tokens, batch=self.batch).required_bytes


def _serve_contexts(model: Model, options: Mapping[str, Any]) -> list[int]:
    """Contexts a serving question may ask: within the window where every layer keeps only
    it; up to the model's context where only some layers do (the question states them)."""
    if model.sliding_window_layers:
        allowed = [int(c) for c in values(options, "contexts", CONTEXTS)]
        return [c for c in allowed if c <= model.context_length]
    return contexts_within(model, options)


def _serve_drawer(options: Mapping[str, Any], what: str) -> Any:
    catalog = load_catalog()
    models = [m for m in entries(catalog.models, options, "models")
              if _serve_contexts(m, options)]
    if not models:
        raise DrawError(f"{what}: no model keeps its whole KV cache at the asked contexts "
                        "(a sliding window is shorter); widen the model or context pools")
    gpus = entries(catalog.accelerators, options, "gpus")
    dtypes = [str(d) for d in values(options, "dtypes", SERVE_DTYPES)]
    batches = [int(b) for b in values(options, "batches", BATCHES)]

    def draw(rng: random.Random) -> ServeDraw:
        model = rng.choice(models)
        gpu = rng.choice(gpus)
        dtype = rng.choice([d for d in dtypes if has_dtype(gpu, d)] or ["bf16"])
        return ServeDraw(model=model, gpu=gpu, dtype=dtype,
                         context=int(rng.choice(_serve_contexts(model, options))),
                         batch=rng.choice(batches))

    return draw


def serve_given(d: ServeDraw) -> dict[str, float]:
    """The figures a serving question states: they decide weights + KV against usable HBM."""
    given = {"params_b": d.model.params_b, "bytes": dtype_bytes(d.dtype),
             "kv_kb": kv_kb(d.model, d.dtype), "context": d.context, "batch": d.batch,
             "total_gb": capacity_gb(d.gpu), "usable": DEFAULT_USABLE_FRACTION,
             "runtime_gb": RUNTIME_GB}
    if d.windowed:  # the audit recomputes the kept tokens from what the prompt states
        assert d.model.sliding_window and d.model.sliding_window_layers
        given.update(window=d.model.sliding_window, window_layers=d.model.sliding_window_layers,
                     layers=d.model.layers)
    return given


def serve_fields(d: ServeDraw, ctx: DrawContext) -> dict[str, str]:
    result = fit(d.model.params, d.dtype, kv_shape(d.model), d.gpu.memory_bytes,
                 context=d.kv_tokens, batch=d.batch)
    shown = {"window_layers": ctx.num(d.model.sliding_window_layers or 0),
             "layers": ctx.num(d.model.layers), "window": ctx.num(d.model.sliding_window or 0)}
    return {
        **shown,
        "window_note": ctx.t("gen.fit.window_note", **shown) if d.windowed else "",
        "kept": ctx.num(d.kv_tokens, 6),
        **model_fields(d.model, ctx),
        "gpu": label(d.gpu.name),
        **capacity_fields(d.gpu, ctx),
        "dtype": dtype_name(d.dtype),
        "bytes": ctx.num(dtype_bytes(d.dtype)),
        "bytes_word": ctx.bytes_per(dtype_bytes(d.dtype)),
        "kv_kb": ctx.shown(kv_kb(d.model, d.dtype)),
        "per_token": ctx.num(kv_bytes_per_token(kv_shape(d.model), d.dtype), 6),
        "context": ctx.num(d.context),
        "batch": ctx.num(d.batch),
        "weights_gb": ctx.num(result.weights_bytes / GB, 4),
        "kv_gb": ctx.num(result.kv_cache_bytes / GB, 3),
        "required_gb": ctx.num(result.required_bytes / GB, 4),
        "available_gb": ctx.num(result.available_bytes / GB, 4),
        "fraction": ctx.num(DEFAULT_USABLE_FRACTION),
        "headroom_gb": ctx.num(abs(result.headroom_bytes) / GB, 3),
        "min_devices": ctx.num(result.min_devices),
    }


def fits_on_gpu(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Weights + KV cache against vLLM's budget on one GPU (90% of it less the activation
    peak and non-torch memory), kept at least 10% from the line."""
    rng = random.Random(ctx.seed)
    draw = _serve_drawer(options, "fits-on-gpu")
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
    fields = serve_fields(d, ctx)
    verdict = ctx.t("gen.fit.verdict_yes" if fits else "gen.fit.verdict_no", **fields)
    explanation = join_steps(
        ctx.t("gen.fit.weights_step", **fields),
        moe_note(d.model, ctx),
        kv_formula(d.model, d.dtype, ctx),
        ctx.t("gen.fit.kv_step_window" if d.windowed else "gen.fit.kv_step", **fields),
        ctx.t("gen.fit.available_step", **fields),
        verdict,
        "" if ok else ctx.t("gen.fit.borderline"),
        budget_convention(ctx),
    )
    return ctx.question(
        kind=Kind.TRUEFALSE, prompt=ctx.t("gen.fit.prompt", **fields), explanation=explanation,
        answer=fits, given=shape_given(d.model, d.dtype, ctx),
        yes_no=True,  # "Does it fit?"
        params={"model": d.model.id, "gpu": d.gpu.id, "dtype": d.dtype, "kv_dtype": d.dtype,
                "context": d.context, "batch": d.batch,
                "usable_fraction": DEFAULT_USABLE_FRACTION, "margin_kept": ok,
                "decision_ratio": significant(required / avail, 4), "given": serve_given(d)},
    )


# --- min-gpus -------------------------------------------------------------


def min_gpus(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Fewest GPUs whose usable memory holds weights + KV cache (memory only)."""
    rng = random.Random(ctx.seed)
    draw = _serve_drawer(options, "min-gpus")

    def ratio(d: ServeDraw) -> float:
        return d.required() / usable_bytes(d.gpu.memory_bytes)

    def clear(d: ServeDraw) -> bool:
        # not barely over a whole number of GPUs, and more than one GPU needed
        x = ratio(d)
        return 1.1 <= x <= 64 and x - math.floor(x) >= MARGIN

    d, ok = redraw(rng, draw, clear)
    devices = min_devices(d.required(), d.gpu.memory_bytes)
    fields = {**serve_fields(d, ctx), "ratio": ctx.num(ratio(d), 4),
              "per_gpu_gb": ctx.num(usable_bytes(d.gpu.memory_bytes) / GB, 4),
              "devices": ctx.num(devices)}
    explanation = join_steps(
        ctx.t("gen.fit.weights_step", **fields),
        kv_formula(d.model, d.dtype, ctx),
        ctx.t("gen.fit.kv_step_window" if d.windowed else "gen.fit.kv_step", **fields),
        ctx.t("gen.min.step", **fields),
        "" if ok else ctx.t("gen.fit.borderline"),
        ctx.t("gen.min.note"),
        budget_convention(ctx),
    )
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.min.prompt", **fields), explanation=explanation,
        given=shape_given(d.model, d.dtype, ctx), answer=float(devices), unit=None,
        tolerance=Tolerance(relative=None, absolute=0),
        params={"model": d.model.id, "gpu": d.gpu.id, "dtype": d.dtype, "context": d.context,
                "batch": d.batch, "usable_fraction": DEFAULT_USABLE_FRACTION,
                "given": serve_given(d)},
    )


# --- max-context-that-fits ------------------------------------------------


def _approx(n: int, ctx: DrawContext) -> str:
    """`` (≈ 1,530,000)`` as the grader shows the answer; from a million up the grader
    writes ``1.53M``, so the explanation does too."""
    if n >= 1e6:
        text = format_quantity(significant(n), "tokens", ctx.lang, 3, count_suffix=True)
        return f" (≈ {text.split()[0]})"
    return f" (≈ {ctx.shown(n)})" if ctx.shown(n) != ctx.num(n, 9) else ""

def max_context(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Memory left after the weights, divided by what one token (or sequence) costs."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    models = kv_models(entries(catalog.models, options, "models"), options,
                       "max-context-that-fits")
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
    fields = {**model_fields(model, ctx), "gpu": label(gpu.name),
              **capacity_fields(gpu, ctx), "bytes_word": ctx.bytes_per(
                  dtype_bytes(dtype)), "kv_kb": ctx.shown(per_token / KB),
              "approx": _approx(n, ctx),
              "dtype": dtype_name(dtype), "batch": ctx.num(batch), "context": ctx.num(context),
              "bytes": ctx.num(dtype_bytes(dtype)),
              "available_gb": ctx.num(avail / GB, 4), "weights_gb": ctx.num(w / GB, 4),
              "free_gb": ctx.num((avail - w) / GB, 4), "per_token": ctx.num(per_token, 6),
              "per_sequence_gb": ctx.num(per_token * context / GB, 4),
              "answer": ctx.num(n), "exact": ctx.num(exact, len(str(int(exact))) + 2),
              "max_context": ctx.num(model.context_length),
              "fraction": ctx.num(DEFAULT_USABLE_FRACTION)}
    key = "gen.maxctx.context" if what == "context" else "gen.maxctx.batch"
    cap = ""
    if what == "context" and n > model.context_length:
        cap = ctx.t("gen.maxctx.cap", **fields)
    explanation = join_steps(
        ctx.t("gen.maxctx.free_step", **fields),
        kv_formula(model, dtype, ctx),
        ctx.t(f"{key}_step", **fields),
        cap,
        budget_convention(ctx),
    )
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t(f"{key}_prompt", **fields), explanation=explanation,
        given=shape_given(model, dtype, ctx), answer=float(n),
        unit="tokens" if what == "context" else None,
        tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "gpu": gpu.id, "dtype": dtype, "kv_dtype": dtype,
                "solve_for": what, "batch": batch if what == "context" else None,
                "context": context if what == "batch" else None,
                "usable_fraction": DEFAULT_USABLE_FRACTION,
                "given": {"total_gb": capacity_gb(gpu), "usable": DEFAULT_USABLE_FRACTION,
                          "runtime_gb": RUNTIME_GB,
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
    generate=drawn(fits_on_gpu),
    options=_FIT_OPTIONS,
)

MIN_GPUS = Family(
    name="min-gpus", post="hgx", kind=Kind.NUMERIC,
    description={"es": "Mínimo número de GPU para que quepan pesos y KV cache",
                 "en": "Fewest GPUs that hold the weights and KV cache"},
    generate=drawn(min_gpus),
    options=_FIT_OPTIONS,
    slips=(KV_LEFT_OUT,),
)

MAX_CONTEXT_THAT_FITS = Family(
    name="max-context-that-fits", post="hbm-kv-cache", kind=Kind.NUMERIC,
    description={"es": "Contexto o lote más grande que aún cabe junto a los pesos",
                 "en": "Largest context or batch that still fits next to the weights"},
    generate=drawn(max_context),
    options={"models": MODEL_IDS, "gpus": GPU_IDS, "dtypes": "weight and KV dtypes",
             "batches": "batch sizes", "contexts": "context lengths",
             "solve_for": "context or batch"},
    slips=(KV_PAIR_ROOM, WEIGHTS_LEFT_OUT),
)
