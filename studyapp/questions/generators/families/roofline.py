"""Roofline families: the ridge point, compute- or memory-bound, prefill time.

FLOPS bound prefill, bandwidth bounds decode, and the ridge point says
which of the two rules at a given arithmetic intensity.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, Model
from studyapp.infra import (
    dtype_bytes,
    forward_flops,
    is_compute_bound,
    prefill_seconds,
    ridge_point,
    usable_bytes,
    weights_bytes,
)
from studyapp.infra.shapes import active_params
from studyapp.infra.units import TFLOPS
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext, drawn
from studyapp.questions.generators.drawing import MARGIN, apart, draw_until, entries, redraw, values
from studyapp.questions.generators.families.terms import (
    DRAWN_PRECISIONS,
    GPU_IDS,
    chip_fields,
    dense_tflops,
    dtype_name,
    model_fields,
)
from studyapp.questions.generators.slips import SPARSE_PEAK, SPARSE_TIME
from studyapp.questions.generators.wording import (
    join_steps,
    significant,
)
from studyapp.questions.model import Kind, Question, Tolerance

# --- ridge-point ----------------------------------------------------------

INTENSITIES = (4, 8, 16, 32, 64, 100, 128, 200)
"""FLOP per byte of kernels asked about below the ridge (attainable = intensity × bandwidth)."""


def _chips_with(options: Mapping[str, Any], precisions: list[str]) -> list[Accelerator]:
    chips = entries(load_catalog().accelerators, options, "gpus")
    return [c for c in chips if any(dense_tflops(c, p) for p in precisions)] or chips


def ridge(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Peak FLOP/s over bandwidth: the intensity where the roofline bends; below it,
    a kernel reaches only intensity × bandwidth."""
    rng = random.Random(ctx.seed)
    precisions = [str(p) for p in values(options, "precisions", DRAWN_PRECISIONS)]
    chips = _chips_with(options, precisions)
    asks = [str(a) for a in values(options, "ask", ("ridge", "ridge", "attainable"))]

    def draw(rng: random.Random) -> tuple[Accelerator, str]:
        return rng.choice(chips), rng.choice(precisions)

    (chip, precision) = draw_until(rng, draw, lambda d: dense_tflops(d[0], d[1]) is not None,
                                   "ridge-point")
    peak = dense_tflops(chip, precision) or chip.bf16_dense_tflops
    if dense_tflops(chip, precision) is None:
        precision = "bf16"
    point = ridge_point(peak * TFLOPS, chip.bandwidth_bytes_s)
    ask = rng.choice(asks)
    below = [i for i in INTENSITIES if i < 0.9 * point]
    fields = {**chip_fields(chip, ctx), "precision": dtype_name(precision),
              "tflops": ctx.num(peak, 5), "ridge": ctx.shown(point),
              "ridge_exact": ctx.num(point, 4)}
    given: dict[str, float] = {"tflops": peak, "bandwidth_tb_s": chip.memory_bandwidth_tb_s}
    if ask == "attainable" and below:
        intensity = float(rng.choice(below))
        attainable = intensity * chip.memory_bandwidth_tb_s
        fields.update(intensity=ctx.num(intensity), attainable=ctx.shown(attainable),
                      share=ctx.num(attainable / peak * 100, 3))
        given["intensity"] = intensity
        return ctx.question(
            kind=Kind.NUMERIC, prompt=ctx.t("gen.ridge.attainable_prompt", **fields),
            explanation=join_steps(ctx.t("gen.ridge.explain", **fields),
                                   ctx.t("gen.ridge.attainable_explain", **fields),
                                   ctx.t("gen.ridge.why"), ctx.t("gen.convention.dense")),
            answer=significant(attainable), unit="TFLOPS", tolerance=Tolerance(relative=0.02),
            params={"gpu": chip.id, "precision": precision, "tflops": peak,
                    "bandwidth_tb_s": chip.memory_bandwidth_tb_s, "ask": "attainable",
                    "intensity": intensity, "given": given},
        )
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.ridge.prompt", **fields),
        explanation=join_steps(ctx.t("gen.ridge.explain", **fields),
                               ctx.t("gen.ridge.why"), ctx.t("gen.convention.dense")),
        answer=significant(point), unit="FLOP/byte", tolerance=Tolerance(relative=0.02),
        params={"gpu": chip.id, "precision": precision, "tflops": peak,
                "bandwidth_tb_s": chip.memory_bandwidth_tb_s, "ask": "ridge", "given": given},
    )


# --- compute-or-memory-bound ----------------------------------------------

ROOFLINE_BATCHES = (1, 2, 4, 8, 16, 32, 64, 96, 128, 160, 192, 256, 320, 384, 448, 512, 640, 768,
           1024, 1536, 2048)


def compute_or_memory_bound(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """A batch-B matrix-vector product does 2·B FLOP per weight, so 2·B / bytes per byte."""
    rng = random.Random(ctx.seed)
    chips = entries(load_catalog().accelerators, options, "gpus")
    batches = [int(b) for b in values(options, "batches", ROOFLINE_BATCHES)]
    precisions = [str(p) for p in values(options, "precisions", ("bf16", "bf16", "fp8"))]
    want = rng.random() < 0.5

    def draw(rng: random.Random) -> tuple[Accelerator, int, str]:
        chip = rng.choice(chips)
        usable = [p for p in precisions if dense_tflops(chip, p)] or ["bf16"]
        return chip, rng.choice(batches), rng.choice(usable)

    def peak(d: tuple[Accelerator, int, str]) -> float:
        return dense_tflops(d[0], d[2]) or d[0].bf16_dense_tflops

    def point(d: tuple[Accelerator, int, str]) -> float:
        return ridge_point(peak(d) * TFLOPS, d[0].bandwidth_bytes_s)

    def intensity(d: tuple[Accelerator, int, str]) -> float:
        return 2.0 * d[1] / dtype_bytes(d[2])

    def bound(d: tuple[Accelerator, int, str]) -> bool:
        return is_compute_bound(intensity(d), peak(d) * TFLOPS, d[0].bandwidth_bytes_s)

    def clear(d: tuple[Accelerator, int, str]) -> bool:
        ratio = intensity(d) / point(d)
        return apart(intensity(d), point(d), MARGIN) and 0.5 <= ratio <= 2.0

    d, ok = redraw(rng, draw, lambda d: clear(d) and bound(d) == want)
    if not ok:
        d, ok = redraw(rng, draw, clear)
    chip, batch, precision = d
    answer = bound(d)
    fields = {**chip_fields(chip, ctx), "tflops": ctx.num(peak(d), 5),
              "ridge": ctx.num(point(d), 4), "batch": ctx.num(batch),
              "intensity": ctx.num(intensity(d)), "precision": dtype_name(precision),
              "bytes": ctx.num(dtype_bytes(precision)),
              "bytes_word": ctx.bytes_per(dtype_bytes(precision))}
    verdict = ctx.t("gen.bound.compute" if answer else "gen.bound.memory", **fields)
    return ctx.question(
        kind=Kind.TRUEFALSE, prompt=ctx.t("gen.bound.prompt", **fields),
        explanation=join_steps(ctx.t("gen.bound.intensity", **fields),
                               ctx.t("gen.ridge.explain", **{**fields,
                                                             "ridge": fields["ridge"]}),
                               verdict, "" if ok else ctx.t("gen.bound.borderline"),
                               ctx.t("gen.convention.dense")),
        answer=answer, yes_no=True,  # "Is that compute-bound?"
        params={"gpu": chip.id, "batch": batch, "intensity_flop_per_byte": intensity(d),
                "precision": precision, "decision_ratio": significant(intensity(d) / point(d), 4),
                "given": {"batch": batch, "bytes": dtype_bytes(precision), "tflops": peak(d),
                          "bandwidth_tb_s": chip.memory_bandwidth_tb_s}},
    )


# --- prefill-time ---------------------------------------------------------

PROMPTS = (512, 1024, 2048, 4096, 8192, 16384, 32768)
UTILISATIONS = (0.3, 0.4, 0.5, 0.6)


def prefill_time(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """A prompt is compute-bound: 2·N·T FLOPs at a fraction of dense peak."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    models = entries(catalog.models, options, "models")

    def fitting(chip: Accelerator) -> list[Model]:
        """The models whose BF16 weights fit on the one chip the prefill runs on."""
        return [m for m in models
                if weights_bytes(m.params, "bf16") <= usable_bytes(chip.memory_bytes)]

    chips = entries(catalog.accelerators, options, "gpus")
    chip = rng.choice([c for c in chips if fitting(c)] or chips)
    model = rng.choice(fitting(chip) or models)
    prompts = [int(p) for p in values(options, "prompts", PROMPTS)]
    tokens = int(rng.choice([p for p in prompts if p <= model.context_length] or [min(prompts)]))
    utilisation = float(rng.choice(values(options, "utilisations", UTILISATIONS)))
    active = active_params(model)
    peak = chip.bf16_dense_tflops * TFLOPS
    seconds = prefill_seconds(active, tokens, peak, utilisation)
    flops = forward_flops(active, tokens)
    in_ms = seconds < 2
    value = seconds * 1e3 if in_ms else seconds
    time = ctx.num(seconds, 4) + " s"
    if in_ms:
        time += f" = {ctx.shown(value)} ms"
    else:
        time = ctx.shown(seconds) + " s"
    fields = {**model_fields(model, ctx), **chip_fields(chip, ctx),
              "active_b": ctx.num(active / 1e9, 5), "tokens": ctx.num(tokens),
              "utilisation": ctx.num(utilisation * 100),
              "tflops": ctx.num(chip.bf16_dense_tflops, 5),
              "flops": ctx.sci(flops, 4), "rate": ctx.sci(peak * utilisation, 4),
              "time": time, "unit": "ms" if in_ms else "s",
              "unit_word": ctx.t("gen.word.ms" if in_ms else "gen.word.s"),
              "answer": ctx.shown(value)}
    moe = ""
    if model.active_params_b is not None:
        moe = ctx.t("gen.prefill.moe", **{**fields, "model": fields["model_name"]})
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.prefill.prompt", **fields),
        explanation=join_steps(moe, ctx.t("gen.prefill.explain", **fields),
                               ctx.t("gen.prefill.why"), ctx.t("gen.convention.dense")),
        answer=significant(value), unit="ms" if in_ms else "s",
        tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "gpu": chip.id, "tokens": tokens,
                "utilisation": utilisation, "params_active": active, "precision": "bf16",
                "given": {"active_b": active / 1e9, "tokens": tokens,
                          "tflops": chip.bf16_dense_tflops, "utilisation": utilisation}},
    )



RIDGE_POINT = Family(
    name="ridge-point", post="h100", kind=Kind.NUMERIC,
    description={"es": "Punto de equilibrio del roofline (FLOP por byte)",
                 "en": "Roofline ridge point (FLOP per byte)"},
    generate=drawn(ridge), options={"gpus": GPU_IDS, "precisions": "bf16, fp8, fp4",
                                    "ask": "ridge, attainable"},
    slips=(SPARSE_PEAK,),
)

COMPUTE_OR_MEMORY_BOUND = Family(
    name="compute-or-memory-bound", post="h100", kind=Kind.TRUEFALSE,
    description={"es": "¿Limitado por cálculo o por memoria para una intensidad aritmética?",
                 "en": "Compute-bound or memory-bound at an arithmetic intensity?"},
    generate=drawn(compute_or_memory_bound),
    options={"gpus": GPU_IDS, "batches": "batch sizes", "precisions": "bf16, fp8"},
)

PREFILL_TIME = Family(
    name="prefill-time", post="h100", kind=Kind.NUMERIC,
    description={"es": "Tiempo de prefill de un prompt con una utilización dada",
                 "en": "Prefill time of a prompt at a given utilisation"},
    generate=drawn(prefill_time),
    options={"models": "model ids", "gpus": GPU_IDS, "prompts": "prompt lengths in tokens",
             "utilisations": "fractions of dense peak"},
    slips=(SPARSE_TIME,),
)
