"""Accelerator families: decode ceilings, precision and efficiency.

What a chip's datasheet numbers mean for a model: bandwidth bounds decode,
lower precisions raise the peak only where the chip has the units, and
efficiency is work per watt.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, Model
from studyapp.infra import (
    decode,
    decode_flops,
    dtype_bytes,
    moe_params_read,
    usable_bytes,
    weights_bytes,
)
from studyapp.infra.shapes import active_params
from studyapp.infra.units import GB
from studyapp.questions.generators import FACT, Family
from studyapp.questions.generators.context import DrawContext, drawn
from studyapp.questions.generators.drawing import (
    MARGIN,
    apart,
    draw_until,
    entries,
    factual,
    shuffled_choices,
    values,
)
from studyapp.questions.generators.families.terms import (
    DRAWN_PRECISIONS,
    GPU_IDS,
    chip_fields,
    dense_models,
    dense_tflops,
    dtype_name,
    has_dtype,
    model_fields,
    model_phrase,
)
from studyapp.questions.generators.slips import dtype_size
from studyapp.questions.generators.wording import (
    join_steps,
    label,
    significant,
)
from studyapp.questions.model import Kind, Question, Tolerance

# --- decode-ceiling -------------------------------------------------------


def decode_ceiling(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Batch-1 decode reads every weight once per token: tokens/s ≤ bandwidth / weights."""
    rng = random.Random(ctx.seed)
    models = entries(load_catalog().models, options, "models")
    chips = entries(load_catalog().accelerators, options, "gpus")
    dtypes = [str(d) for d in values(options, "dtypes", DRAWN_PRECISIONS)]

    def draw(rng: random.Random) -> tuple[Model, Accelerator, str]:
        chip = rng.choice(chips)
        return rng.choice(models), chip, rng.choice([d for d in dtypes if has_dtype(chip, d)]
                                                    or ["bf16"])

    def fits(d: tuple[Model, Accelerator, str]) -> bool:
        return weights_bytes(d[0].params, d[2]) <= usable_bytes(d[1].memory_bytes)

    (model, chip, dtype) = draw_until(rng, draw, fits, "decode-ceiling")
    # the calculator's decode model: at batch 1 a mixture of experts reads its active
    # parameters, and the compute time (2 × active × batch FLOPs) is checked against it
    active = active_params(model)
    read = moe_params_read(model.params, active, 1, model.experts, model.experts_per_token)
    w = weights_bytes(read, dtype)
    peak = dense_tflops(chip, dtype) or chip.bf16_dense_tflops
    step = decode(w, 0.0, chip.bandwidth_bytes_s, batch=1,
                  flops_per_step=decode_flops(active, 1), flops=peak * 1e12)
    fields = {**model_fields(model, ctx), **chip_fields(chip, ctx), "dtype": dtype_name(dtype),
              "bytes": ctx.num(dtype_bytes(dtype)),
              "bytes_word": ctx.bytes_per(dtype_bytes(dtype)),
              "read_b": ctx.num(read / 1e9, 5),
              "weights_gb": ctx.num(w / GB, 4),
              "step_ms": ctx.num(step.step_seconds * 1e3, 3),
              "compute_us": ctx.num((step.compute_seconds or 0) * 1e6, 3),
              "tflops": ctx.num(peak, 5),
              "peak_precision": dtype_name(dtype if dense_tflops(chip, dtype) else "bf16"),
              "tokens_s": ctx.shown(step.tokens_per_s),
              "intensity": ctx.num(2 / dtype_bytes(dtype))}
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.decode.prompt", **fields),
        given=(ctx.t("gen.decode.given", **fields),),
        explanation=join_steps(ctx.t("gen.decode.moe_read", **fields)
                               if model.active_params_b else "",
                               ctx.t("gen.decode.explain", **fields),
                               ctx.t("gen.decode.compute_step", **fields),
                               ctx.t("gen.decode.why", **fields),
                               ctx.t("gen.convention.decode")),
        answer=significant(step.tokens_per_s), unit="tokens/s",
        tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "gpu": chip.id, "dtype": dtype, "batch": 1, "context": 0,
                "bound": step.bound,
                "given": {("active_b" if model.active_params_b else "params_b"): read / 1e9,
                          "bytes": dtype_bytes(dtype),
                          "bandwidth_tb_s": chip.memory_bandwidth_tb_s}},
    )


# --- decode-compare -------------------------------------------------------



def decode_compare(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Same model, two chips: the batch-1 decode speed-up is the bandwidth ratio."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    default = catalog.pool("decode-compare")
    chips = entries(catalog.accelerators, {"gpus": default, **options}, "gpus")
    models = dense_models(options)
    anchors = [c for c in chips if c.id in (values(options, "anchor", []) or [])]

    def draw(rng: random.Random) -> tuple[Accelerator, Accelerator, Model]:
        if anchors:
            first = rng.choice(anchors)
            fast, slow = first, rng.choice([c for c in chips if c.id != first.id])
        else:
            fast, slow = rng.sample(chips, 2)
        if fast.memory_bandwidth_tb_s < slow.memory_bandwidth_tb_s:
            fast, slow = slow, fast
        return fast, slow, rng.choice(models)

    def clear(d: tuple[Accelerator, Accelerator, Model]) -> bool:
        fits = weights_bytes(d[2].params, "bf16") <= usable_bytes(
            min(d[0].memory_bytes, d[1].memory_bytes))
        return fits and apart(d[0].bandwidth_bytes_s, d[1].bandwidth_bytes_s, MARGIN)

    (fast, slow, model) = draw_until(rng, draw, clear, "decode-compare")
    w = weights_bytes(model.params, "bf16")
    flops = decode_flops(model.params, 1)  # batch 1: memory bound on every chip here
    fast_tps = decode(w, 0.0, fast.bandwidth_bytes_s, flops_per_step=flops,
                      flops=fast.bf16_dense_tflops * 1e12).tokens_per_s
    slow_tps = decode(w, 0.0, slow.bandwidth_bytes_s, flops_per_step=flops,
                      flops=slow.bf16_dense_tflops * 1e12).tokens_per_s
    ratio = fast_tps / slow_tps
    fields = {**model_fields(model, ctx), "fast": label(fast.name), "slow": label(slow.name),
              "fast_bw": ctx.num(fast.memory_bandwidth_tb_s, 4),
              "slow_bw": ctx.num(slow.memory_bandwidth_tb_s, 4),
              "fast_bw_gb": ctx.num(fast.memory_bandwidth_tb_s * 1e3, 4),
              "slow_bw_gb": ctx.num(slow.memory_bandwidth_tb_s * 1e3, 4),
              "weights_gb": ctx.num(w / GB, 4), "fast_tps": ctx.num(fast_tps, 4),
              "slow_tps": ctx.num(slow_tps, 4), "ratio": ctx.shown(ratio)}
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.decodecmp.prompt", **fields),
        explanation=join_steps(ctx.t("gen.decodecmp.explain", **fields),
                               ctx.t("gen.decodecmp.why"), ctx.t("gen.convention.decode")),
        answer=significant(ratio), unit="x", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "fast_gpu": fast.id, "slow_gpu": slow.id, "dtype": "bf16",
                "given": {"fast_bw": fast.memory_bandwidth_tb_s,
                          "slow_bw": slow.memory_bandwidth_tb_s}},
    )


# --- low-precision-speedup ------------------------------------------------

SPEEDUPS = (1.0, 2.0, 4.0)

LACKS_FP8 = ("a100-80gb", "tpu-v5e")
"""Chips without FP8 matrix units (Ampere; TPU v5e runs INT8 instead).

A chip with no dense FP8 figure that does run FP8 is never asked as lacking it, so
"no figure" never teaches that it cannot; Gaudi 2's FP8 figure is estimated, so it is
not asked as a fact either (``drawing.factual``).
"""

LOWP_PROMPTS = (2048, 8192, 32768)
LOWP_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b")


def lowp_speedup(chip: Accelerator, precision: str) -> float | None:
    """Dense low-precision rate over dense BF16: 1, 2 or 4 when within 10% of one of them,
    else the ratio itself (two significant figures); None when the chip has no such rate."""
    low = dense_tflops(chip, precision)
    if low is None:
        return None
    ratio = low / chip.bf16_dense_tflops
    return next((s for s in SPEEDUPS if abs(ratio - s) <= 0.1 * s), float(f"{ratio:.2g}"))


def low_precision_speedup(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """FP8 doubles BF16 on Hopper and Blackwell, not everywhere; some chips have no such units."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    chips = entries(catalog.accelerators, options, "gpus")
    precisions = [str(p) for p in values(options, "precisions", ("fp8", "fp8", "fp4"))]

    def draw(rng: random.Random) -> tuple[Accelerator, str]:
        return rng.choice(chips), rng.choice(precisions)

    def usable(d: tuple[Accelerator, str]) -> bool:
        low_field = f"{'fp8' if d[1] in ('fp8', 'int8') else 'fp4'}_dense_tflops"
        if not factual(d[0], "bf16_dense_tflops") or (
                getattr(d[0], low_field) is not None and not factual(d[0], low_field)):
            return False  # the speed-up is asked as a fact
        b = lowp_speedup(*d)
        if d[1] == "fp4" and b is None:
            return d[0].vendor in ("nvidia", "amd")  # their older parts simply lack FP4
        if d[1] == "fp8" and b is None:
            return d[0].id in LACKS_FP8
        return True  # any published ratio has a right answer, 1×, 2×, 4× or its own

    (chip, precision) = draw_until(rng, draw, usable, "low-precision-speedup")
    speedup = lowp_speedup(chip, precision)
    low = dense_tflops(chip, precision)
    p = dtype_name(precision)
    labels: dict[float | None, str] = {
        1.0: ctx.t("gen.lowp.same"), 2.0: ctx.t("gen.lowp.twice"),
        4.0: ctx.t("gen.lowp.four"), None: ctx.t("gen.lowp.none", precision=p)}
    keys: list[float | None] = [1.0, 2.0, 4.0, None]
    if speedup is not None and speedup not in labels:
        # a ratio that is none of 1×, 2×, 4× (Blackwell Ultra FP4): the ratio itself is right
        labels[speedup] = ctx.t("gen.lowp.other", ratio=ctx.num(speedup, 2))
        keys = [2.0, 4.0, speedup, None] if speedup < 8 else [1.0, 4.0, speedup, None]
    correct = labels[speedup]
    choices = shuffled_choices(rng, correct, [labels[k] for k in keys])
    # the model's BF16 weights fit on the chip: the prefill runs where the question says
    def fits(model_id: str) -> bool:
        return (weights_bytes(catalog.models[model_id].params, "bf16")
                <= usable_bytes(chip.memory_bytes))

    model_ids = ([m for m in LOWP_MODELS if m in catalog.models and fits(m)]
                 or sorted(m.id for m in catalog.models if fits(m.id)))
    model = catalog.models[rng.choice(model_ids)] if model_ids else None
    tokens = rng.choice(LOWP_PROMPTS)
    fields = {"gpu": chip.name, "precision": p, "bf16": ctx.num(chip.bf16_dense_tflops, 5),
              "low": ctx.num(low or 0, 5), "tokens": ctx.num(tokens),
              "model": model_phrase(model, ctx) if model else "",
              "ratio": ctx.num((low or 0) / chip.bf16_dense_tflops, 3)}
    step = (ctx.t("gen.lowp.ratio", **fields) if low is not None
            else ctx.t("gen.lowp.missing", **fields))
    key = "gen.lowp.prompt_prefill" if model else "gen.lowp.prompt"
    return ctx.question(
        kind=Kind.CHOICE, prompt=ctx.t(key, **fields),
        explanation=join_steps(step, ctx.t("gen.lowp.why"), ctx.t("gen.convention.dense")),
        answer=correct, choices=choices,
        params={"gpu": chip.id, "precision": precision, "bf16_tflops": chip.bf16_dense_tflops,
                "low_tflops": low, "speedup": speedup, "tokens": tokens,
                "model": model.id if model else None},
    )


# --- perf-per-watt --------------------------------------------------------

EFFICIENCY_METRICS = ("tflops", "bandwidth")


def chip_figure(chip: Accelerator, metric: str) -> float:
    """The figure a per-watt comparison divides: dense BF16 TFLOPS or GB/s of HBM bandwidth."""
    return float(chip.bf16_dense_tflops if metric == "tflops" else chip.bandwidth_bytes_s / GB)


def perf_per_watt(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Which of four chips does the most per watt; chips without a published TDP are skipped."""
    rng = random.Random(ctx.seed)
    chips = [c for c in entries(load_catalog().accelerators, options, "gpus") if c.tdp_w]
    metrics = [str(m) for m in values(options, "metrics", EFFICIENCY_METRICS)]
    anchors = [c for c in chips if c.id in (values(options, "anchor", []) or [])]

    def per_watt(chip: Accelerator, metric: str) -> float:
        tdp = chip.tdp_w or math.inf
        if metric == "tflops":
            return chip.bf16_dense_tflops / tdp
        return chip.bandwidth_bytes_s / GB / tdp

    def draw(rng: random.Random) -> tuple[list[Accelerator], str]:
        group = rng.sample(chips, min(4, len(chips)))
        if anchors and not any(c in anchors for c in group):
            group[0] = rng.choice(anchors)
        return group, rng.choice(metrics)

    def clear(d: tuple[list[Accelerator], str]) -> bool:
        scores = sorted((per_watt(c, d[1]) for c in d[0]), reverse=True)
        names = {c.name for c in d[0]}
        figure = "bf16_dense_tflops" if d[1] == "tflops" else "memory_bandwidth_tb_s"
        return (len(scores) >= 2 and len(names) == len(d[0]) and apart(scores[0], scores[1])
                and all(factual(c, figure, "tdp_w") for c in d[0]))  # asked as a fact

    (group, metric) = draw_until(rng, draw, clear, "perf-per-watt")
    best = max(group, key=lambda c: per_watt(c, metric))
    rng.shuffle(group)
    unit = "TFLOPS/W" if metric == "tflops" else "GB/s/W"
    lines, given = [], []
    for chip in group:
        figure = (ctx.num(chip.bf16_dense_tflops, 5) if metric == "tflops"
                  else ctx.num(chip.bandwidth_bytes_s / GB, 5))
        # the figures are given: the card teaches the per-watt comparison, not recall
        given.append(ctx.t("gen.ppw.given", gpu=chip.name, figure=figure,
                           unit="TFLOPS" if metric == "tflops" else "GB/s",
                           tdp=ctx.num(chip.tdp_w or 0)))
        lines.append(ctx.t("gen.ppw.line", gpu=chip.name, figure=figure,
                           unit="TFLOPS" if metric == "tflops" else "GB/s",
                           tdp=ctx.num(chip.tdp_w or 0), score=ctx.num(per_watt(chip, metric), 3),
                           score_unit=unit))
    choices = shuffled_choices(rng, best.name, [c.name for c in group])
    anchor = next((c for c in group if c in anchors), None)
    prefix = ctx.t("gen.compare.prefix", gpu=anchor.name) + " " if anchor else ""
    return ctx.question(
        kind=Kind.CHOICE, prompt=prefix + ctx.t(f"gen.ppw.prompt_{metric}"),
        given=tuple(given),
        explanation=join_steps(*lines, ctx.t("gen.ppw.verdict", gpu=best.name),
                               ctx.t("gen.ppw.why"),
                               ctx.t("gen.convention.dense" if metric == "tflops"
                                     else "gen.convention.gb")),
        answer=best.name, choices=choices,
        params={"gpus": [c.id for c in group], "metric": metric, "best": best.id,
                "per_watt": {c.id: significant(per_watt(c, metric), 4) for c in group},
                "given": {f"{c.id}.{key}": value for c in group for key, value in (
                    ("figure", chip_figure(c, metric)), ("tdp_w", float(c.tdp_w or 0)))}},
    )



DECODE_CEILING = Family(
    name="decode-ceiling", post="h200", kind=Kind.NUMERIC,
    description={"es": "Techo de tokens/s en decodificación con lote 1 (ancho de banda / pesos)",
                 "en": "Batch-1 decode tokens/s ceiling (bandwidth / weights)"},
    generate=drawn(decode_ceiling),
    options={"models": "model ids (default: dense models)", "gpus": GPU_IDS, "dtypes": "dtypes"},
    slips=dtype_size("dtype"),
)

DECODE_COMPARE = Family(
    name="decode-compare", post="mi350", kind=Kind.NUMERIC,
    description={"es": "Cuántas veces más rápido decodifica un chip que otro",
                 "en": "How many times faster one chip decodes than another"},
    generate=drawn(decode_compare),
    options={"models": "model ids (default: dense models)", "gpus": GPU_IDS,
             "anchor": "chip ids one of which every comparison includes"},
)

LOW_PRECISION_SPEEDUP = Family(
    name="low-precision-speedup", post="blackwell", kind=Kind.CHOICE,
    teaches=FACT,  # a fact about a chip: kept while it is learnt
    description={"es": "Aceleración de FP8 o FP4 frente a BF16 (y chips sin cifra)",
                 "en": "FP8 or FP4 speed-up over BF16 (and chips without a figure)"},
    generate=drawn(low_precision_speedup), options={"gpus": GPU_IDS, "precisions": "fp8, fp4"},
)

PERF_PER_WATT = Family(
    name="perf-per-watt", post="gaudi", kind=Kind.CHOICE,
    teaches=FACT,  # a fact about a chip: kept while it is learnt
    description={"es": "Qué chip rinde más por vatio (TFLOPS/W o GB/s por W)",
                 "en": "Which chip does the most per watt (TFLOPS/W or GB/s per W)"},
    generate=drawn(perf_per_watt),
    options={"gpus": GPU_IDS, "metrics": "tflops, bandwidth",
             "anchor": "chip ids one of which every group includes"},
)
