"""Accelerator families: decode ceilings, rooflines, prefill, precision and efficiency.

What a chip's datasheet numbers mean for a model: bandwidth bounds decode,
FLOPS bound prefill, and the ridge point says which of the two rules.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, Model
from studyapp.i18n import t
from studyapp.infra import (
    decode,
    dtype_bytes,
    forward_flops,
    is_compute_bound,
    prefill_seconds,
    ridge_point,
    usable_bytes,
    weights_bytes,
)
from studyapp.infra.units import GB, TFLOPS
from studyapp.questions.generators import Family, register
from studyapp.questions.generators.drawing import (
    MARGIN,
    apart,
    entries,
    redraw,
    shuffled_choices,
    values,
)
from studyapp.questions.generators.families.memory import (
    dtype_name,
    has_dtype,
    model_fields,
    model_phrase,
)
from studyapp.questions.generators.slips import SPARSE_PEAK, SPARSE_TIME, dtype_size
from studyapp.questions.generators.wording import (
    bytes_per,
    join_steps,
    label,
    num,
    sci,
    shown,
    significant,
)
from studyapp.questions.model import Kind, Question, Tolerance

PRECISIONS = ("bf16", "fp8")


def dense_tflops(chip: Accelerator, precision: str) -> float | None:
    """The chip's dense peak in a precision, or None where the vendor gives none."""
    by_precision = {"bf16": chip.bf16_dense_tflops, "fp8": chip.fp8_dense_tflops,
                    "fp4": chip.fp4_dense_tflops}
    return by_precision[precision]


def chip_fields(chip: Accelerator, lang: str) -> dict[str, str]:
    return {"gpu": label(chip.name), "memory_gb": num(chip.memory_gb, lang, 5),
            "bandwidth_tb_s": num(chip.memory_bandwidth_tb_s, lang, 4),
            "bandwidth_gb_s": num(chip.memory_bandwidth_tb_s * 1e3, lang, 4)}


def dense_models(options: Mapping[str, Any]) -> list[Model]:
    """Dense models by default: an MoE decode step reads only the active experts."""
    return entries(load_catalog().models, options, "models",
                   keep=lambda m: m.active_params_b is None)


# --- decode-ceiling -------------------------------------------------------


def decode_ceiling(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Batch-1 decode reads every weight once per token: tokens/s ≤ bandwidth / weights."""
    rng = random.Random(seed)
    models = dense_models(options)
    chips = entries(load_catalog().accelerators, options, "gpus")
    dtypes = [str(d) for d in values(options, "dtypes", PRECISIONS)]

    def draw(rng: random.Random) -> tuple[Model, Accelerator, str]:
        chip = rng.choice(chips)
        return rng.choice(models), chip, rng.choice([d for d in dtypes if has_dtype(chip, d)]
                                                    or ["bf16"])

    def fits(d: tuple[Model, Accelerator, str]) -> bool:
        return weights_bytes(d[0].params, d[2]) <= usable_bytes(d[1].memory_bytes)

    (model, chip, dtype), _ = redraw(rng, draw, fits)
    w = weights_bytes(model.params, dtype)
    step = decode(w, 0.0, chip.bandwidth_bytes_s, batch=1)
    fields = {**model_fields(model, lang), **chip_fields(chip, lang), "dtype": dtype_name(dtype),
              "bytes": num(dtype_bytes(dtype), lang),
              "bytes_word": bytes_per(dtype_bytes(dtype), lang),
              "weights_gb": num(w / GB, lang, 4),
              "step_ms": num(step.step_seconds * 1e3, lang, 3),
              "tokens_s": shown(step.tokens_per_s, lang),
              "intensity": num(2 / dtype_bytes(dtype), lang)}
    return Question(
        kind=Kind.NUMERIC, post="h200", family="decode-ceiling", seed=seed, lang=lang,
        prompt=t("gen.decode.prompt", lang, **fields),
        explanation=join_steps(t("gen.decode.explain", lang, **fields),
                               t("gen.decode.why", lang, **fields),
                               t("gen.convention.decode", lang)),
        answer=significant(step.tokens_per_s), unit="tokens/s",
        tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "gpu": chip.id, "dtype": dtype, "batch": 1, "context": 0,
                "given": {"params_b": model.params_b, "bytes": dtype_bytes(dtype),
                          "bandwidth_tb_s": chip.memory_bandwidth_tb_s}},
    )


# --- decode-compare -------------------------------------------------------

COMPARE_CHIPS = ("h100-sxm", "h200-sxm", "b200", "mi300x", "mi325x", "mi355x", "gaudi3",
                 "tpu-v7", "trainium2")


def decode_compare(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Same model, two chips: the batch-1 decode speed-up is the bandwidth ratio."""
    rng = random.Random(seed)
    catalog = load_catalog()
    default = [c for c in COMPARE_CHIPS if c in catalog.accelerators]
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

    (fast, slow, model), _ = redraw(rng, draw, clear)
    w = weights_bytes(model.params, "bf16")
    fast_tps = decode(w, 0.0, fast.bandwidth_bytes_s).tokens_per_s
    slow_tps = decode(w, 0.0, slow.bandwidth_bytes_s).tokens_per_s
    ratio = fast_tps / slow_tps
    fields = {**model_fields(model, lang), "fast": label(fast.name), "slow": label(slow.name),
              "fast_bw": num(fast.memory_bandwidth_tb_s, lang, 4),
              "slow_bw": num(slow.memory_bandwidth_tb_s, lang, 4),
              "fast_bw_gb": num(fast.memory_bandwidth_tb_s * 1e3, lang, 4),
              "slow_bw_gb": num(slow.memory_bandwidth_tb_s * 1e3, lang, 4),
              "weights_gb": num(w / GB, lang, 4), "fast_tps": num(fast_tps, lang, 4),
              "slow_tps": num(slow_tps, lang, 4), "ratio": shown(ratio, lang)}
    return Question(
        kind=Kind.NUMERIC, post="mi350", family="decode-compare", seed=seed, lang=lang,
        prompt=t("gen.decodecmp.prompt", lang, **fields),
        explanation=join_steps(t("gen.decodecmp.explain", lang, **fields),
                               t("gen.decodecmp.why", lang), t("gen.convention.decode", lang)),
        answer=significant(ratio), unit="x", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "fast_gpu": fast.id, "slow_gpu": slow.id, "dtype": "bf16",
                "given": {"fast_bw": fast.memory_bandwidth_tb_s,
                          "slow_bw": slow.memory_bandwidth_tb_s}},
    )


# --- ridge-point ----------------------------------------------------------

INTENSITIES = (4, 8, 16, 32, 64, 100, 128, 200)
"""FLOP per byte of kernels asked about below the ridge (attainable = intensity × bandwidth)."""


def _chips_with(options: Mapping[str, Any], precisions: list[str]) -> list[Accelerator]:
    chips = entries(load_catalog().accelerators, options, "gpus")
    return [c for c in chips if any(dense_tflops(c, p) for p in precisions)] or chips


def ridge(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Peak FLOP/s over bandwidth: the intensity where the roofline bends; below it,
    a kernel reaches only intensity × bandwidth."""
    rng = random.Random(seed)
    precisions = [str(p) for p in values(options, "precisions", PRECISIONS)]
    chips = _chips_with(options, precisions)
    asks = [str(a) for a in values(options, "ask", ("ridge", "ridge", "attainable"))]

    def draw(rng: random.Random) -> tuple[Accelerator, str]:
        return rng.choice(chips), rng.choice(precisions)

    (chip, precision), _ = redraw(rng, draw, lambda d: dense_tflops(d[0], d[1]) is not None)
    peak = dense_tflops(chip, precision) or chip.bf16_dense_tflops
    if dense_tflops(chip, precision) is None:
        precision = "bf16"
    point = ridge_point(peak * TFLOPS, chip.bandwidth_bytes_s)
    ask = rng.choice(asks)
    below = [i for i in INTENSITIES if i < 0.9 * point]
    fields = {**chip_fields(chip, lang), "precision": dtype_name(precision),
              "tflops": num(peak, lang, 5), "ridge": shown(point, lang),
              "ridge_exact": num(point, lang, 4)}
    given: dict[str, float] = {"tflops": peak, "bandwidth_tb_s": chip.memory_bandwidth_tb_s}
    if ask == "attainable" and below:
        intensity = float(rng.choice(below))
        attainable = intensity * chip.memory_bandwidth_tb_s
        fields.update(intensity=num(intensity, lang), attainable=shown(attainable, lang),
                      share=num(attainable / peak * 100, lang, 3))
        given["intensity"] = intensity
        return Question(
            kind=Kind.NUMERIC, post="h100", family="ridge-point", seed=seed, lang=lang,
            prompt=t("gen.ridge.attainable_prompt", lang, **fields),
            explanation=join_steps(t("gen.ridge.explain", lang, **fields),
                                   t("gen.ridge.attainable_explain", lang, **fields),
                                   t("gen.ridge.why", lang), t("gen.convention.dense", lang)),
            answer=significant(attainable), unit="TFLOPS", tolerance=Tolerance(relative=0.02),
            params={"gpu": chip.id, "precision": precision, "tflops": peak,
                    "bandwidth_tb_s": chip.memory_bandwidth_tb_s, "ask": "attainable",
                    "intensity": intensity, "given": given},
        )
    return Question(
        kind=Kind.NUMERIC, post="h100", family="ridge-point", seed=seed, lang=lang,
        prompt=t("gen.ridge.prompt", lang, **fields),
        explanation=join_steps(t("gen.ridge.explain", lang, **fields),
                               t("gen.ridge.why", lang), t("gen.convention.dense", lang)),
        answer=significant(point), unit="FLOP/byte", tolerance=Tolerance(relative=0.02),
        params={"gpu": chip.id, "precision": precision, "tflops": peak,
                "bandwidth_tb_s": chip.memory_bandwidth_tb_s, "ask": "ridge", "given": given},
    )


# --- compute-or-memory-bound ----------------------------------------------

BATCHES = (1, 2, 4, 8, 16, 32, 64, 96, 128, 160, 192, 256, 320, 384, 448, 512, 640, 768,
           1024, 1536, 2048)


def compute_or_memory_bound(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """A batch-B matrix-vector product does 2·B FLOP per weight, so 2·B / bytes per byte."""
    rng = random.Random(seed)
    chips = entries(load_catalog().accelerators, options, "gpus")
    batches = [int(b) for b in values(options, "batches", BATCHES)]
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
    fields = {**chip_fields(chip, lang), "tflops": num(peak(d), lang, 5),
              "ridge": num(point(d), lang, 4), "batch": num(batch, lang),
              "intensity": num(intensity(d), lang), "precision": dtype_name(precision),
              "bytes": num(dtype_bytes(precision), lang),
              "bytes_word": bytes_per(dtype_bytes(precision), lang)}
    verdict = t("gen.bound.compute" if answer else "gen.bound.memory", lang, **fields)
    return Question(
        kind=Kind.TRUEFALSE, post="h100", family="compute-or-memory-bound", seed=seed,
        lang=lang, prompt=t("gen.bound.prompt", lang, **fields),
        explanation=join_steps(t("gen.bound.intensity", lang, **fields),
                               t("gen.ridge.explain", lang, **{**fields,
                                                              "ridge": fields["ridge"]}),
                               verdict, "" if ok else t("gen.bound.borderline", lang),
                               t("gen.convention.dense", lang)),
        answer=answer,
        params={"gpu": chip.id, "batch": batch, "intensity_flop_per_byte": intensity(d),
                "precision": precision, "decision_ratio": significant(intensity(d) / point(d), 4),
                "given": {"batch": batch, "bytes": dtype_bytes(precision), "tflops": peak(d),
                          "bandwidth_tb_s": chip.memory_bandwidth_tb_s}},
    )


# --- prefill-time ---------------------------------------------------------

PROMPTS = (512, 1024, 2048, 4096, 8192, 16384, 32768)
UTILISATIONS = (0.3, 0.4, 0.5, 0.6)


def prefill_time(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """A prompt is compute-bound: 2·N·T FLOPs at a fraction of dense peak."""
    rng = random.Random(seed)
    catalog = load_catalog()
    model = rng.choice(entries(catalog.models, options, "models"))
    chip = rng.choice(entries(catalog.accelerators, options, "gpus"))
    prompts = [int(p) for p in values(options, "prompts", PROMPTS)]
    tokens = int(rng.choice([p for p in prompts if p <= model.context_length] or [min(prompts)]))
    utilisation = float(rng.choice(values(options, "utilisations", UTILISATIONS)))
    active = (model.active_params_b or model.params_b) * 1e9
    peak = chip.bf16_dense_tflops * TFLOPS
    seconds = prefill_seconds(active, tokens, peak, utilisation)
    flops = forward_flops(active, tokens)
    in_ms = seconds < 2
    value = seconds * 1e3 if in_ms else seconds
    time = num(seconds, lang, 4) + " s"
    if in_ms:
        time += f" = {shown(value, lang)} ms"
    else:
        time = shown(seconds, lang) + " s"
    fields = {**model_fields(model, lang), **chip_fields(chip, lang),
              "active_b": num(active / 1e9, lang, 5), "tokens": num(tokens, lang),
              "utilisation": num(utilisation * 100, lang), "tflops": num(chip.bf16_dense_tflops,
                                                                          lang, 5),
              "flops": sci(flops, lang, 4), "rate": sci(peak * utilisation, lang, 4),
              "time": time, "unit": "ms" if in_ms else "s",
              "unit_word": t("gen.word.ms" if in_ms else "gen.word.s", lang),
              "answer": shown(value, lang)}
    moe = ""
    if model.active_params_b is not None:
        moe = t("gen.prefill.moe", lang, **{**fields, "model": fields["model_name"]})
    return Question(
        kind=Kind.NUMERIC, post="h100", family="prefill-time", seed=seed, lang=lang,
        prompt=t("gen.prefill.prompt", lang, **fields),
        explanation=join_steps(moe, t("gen.prefill.explain", lang, **fields),
                               t("gen.prefill.why", lang), t("gen.convention.dense", lang)),
        answer=significant(value), unit="ms" if in_ms else "s",
        tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "gpu": chip.id, "tokens": tokens,
                "utilisation": utilisation, "params_active": active, "precision": "bf16",
                "given": {"active_b": active / 1e9, "tokens": tokens,
                          "tflops": chip.bf16_dense_tflops, "utilisation": utilisation}},
    )


# --- low-precision-speedup ------------------------------------------------

SPEEDUPS = (1.0, 2.0, 4.0)

LACKS_FP8 = ("a100-80gb", "tpu-v5e")
"""Chips without FP8 matrix units (Ampere; TPU v5e runs INT8 instead).

Other chips with no dense FP8 figure in the catalog (Gaudi 2) do run FP8, only
without an official number, so "no figure" would teach that they cannot.
"""

LOWP_PROMPTS = (2048, 8192, 32768)
LOWP_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b")


def low_precision_speedup(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """FP8 doubles BF16 on Hopper and Blackwell, not everywhere; some chips have no such units."""
    rng = random.Random(seed)
    catalog = load_catalog()
    chips = entries(catalog.accelerators, options, "gpus")
    precisions = [str(p) for p in values(options, "precisions", ("fp8", "fp8", "fp4"))]

    def bucket(chip: Accelerator, precision: str) -> float | None:
        low = dense_tflops(chip, precision)
        if low is None:
            return None
        ratio = low / chip.bf16_dense_tflops
        return next((s for s in SPEEDUPS if abs(ratio - s) <= 0.1 * s), -1.0)

    def draw(rng: random.Random) -> tuple[Accelerator, str]:
        return rng.choice(chips), rng.choice(precisions)

    def usable(d: tuple[Accelerator, str]) -> bool:
        b = bucket(*d)
        if d[1] == "fp4" and b is None:
            return d[0].vendor in ("nvidia", "amd")  # their older parts simply lack FP4
        if d[1] == "fp8" and b is None:
            return d[0].id in LACKS_FP8
        return b != -1.0

    (chip, precision), _ = redraw(rng, draw, usable)
    speedup = bucket(chip, precision)
    p = dtype_name(precision)
    labels = {1.0: t("gen.lowp.same", lang), 2.0: t("gen.lowp.twice", lang),
              4.0: t("gen.lowp.four", lang), None: t("gen.lowp.none", lang, precision=p)}
    correct = labels.get(speedup, labels[None])
    choices = shuffled_choices(rng, correct, [labels[k] for k in (1.0, 2.0, 4.0, None)])
    low = dense_tflops(chip, precision)
    model_ids = [m for m in LOWP_MODELS if m in catalog.models]
    model = catalog.models[rng.choice(model_ids)] if model_ids else None
    tokens = rng.choice(LOWP_PROMPTS)
    fields = {"gpu": chip.name, "precision": p, "bf16": num(chip.bf16_dense_tflops, lang, 5),
              "low": num(low or 0, lang, 5), "tokens": num(tokens, lang),
              "model": model_phrase(model, lang) if model else "",
              "ratio": num((low or 0) / chip.bf16_dense_tflops, lang, 3)}
    step = (t("gen.lowp.ratio", lang, **fields) if low is not None
            else t("gen.lowp.missing", lang, **fields))
    key = "gen.lowp.prompt_prefill" if model else "gen.lowp.prompt"
    return Question(
        kind=Kind.CHOICE, post="blackwell", family="low-precision-speedup", seed=seed,
        lang=lang, prompt=t(key, lang, **fields),
        explanation=join_steps(step, t("gen.lowp.why", lang), t("gen.convention.dense", lang)),
        answer=correct, choices=choices,
        params={"gpu": chip.id, "precision": precision, "bf16_tflops": chip.bf16_dense_tflops,
                "low_tflops": low, "speedup": speedup, "tokens": tokens,
                "model": model.id if model else None},
    )


# --- perf-per-watt --------------------------------------------------------

EFFICIENCY_METRICS = ("tflops", "bandwidth")


def perf_per_watt(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Which of four chips does the most per watt; chips without a published TDP are skipped."""
    rng = random.Random(seed)
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
        return len(scores) >= 2 and len(names) == len(d[0]) and apart(scores[0], scores[1])

    (group, metric), _ = redraw(rng, draw, clear)
    best = max(group, key=lambda c: per_watt(c, metric))
    rng.shuffle(group)
    unit = "TFLOPS/W" if metric == "tflops" else "GB/s/W"
    lines = []
    for chip in group:
        figure = (num(chip.bf16_dense_tflops, lang, 5) if metric == "tflops"
                  else num(chip.bandwidth_bytes_s / GB, lang, 5))
        lines.append(t("gen.ppw.line", lang, gpu=chip.name, figure=figure,
                       unit="TFLOPS" if metric == "tflops" else "GB/s",
                       tdp=num(chip.tdp_w or 0, lang), score=num(per_watt(chip, metric), lang, 3),
                       score_unit=unit))
    choices = shuffled_choices(rng, best.name, [c.name for c in group])
    anchor = next((c for c in group if c in anchors), None)
    prefix = t("gen.compare.prefix", lang, gpu=anchor.name) + " " if anchor else ""
    return Question(
        kind=Kind.CHOICE, post="gaudi", family="perf-per-watt", seed=seed, lang=lang,
        prompt=prefix + t(f"gen.ppw.prompt_{metric}", lang),
        explanation=join_steps(*lines, t("gen.ppw.verdict", lang, gpu=best.name),
                               t("gen.ppw.why", lang),
                               t("gen.convention.dense" if metric == "tflops"
                                 else "gen.convention.gb", lang)),
        answer=best.name, choices=choices,
        params={"gpus": [c.id for c in group], "metric": metric, "best": best.id,
                "per_watt": {c.id: significant(per_watt(c, metric), 4) for c in group}},
    )


_GPUS = "accelerator ids from the catalog (default: all)"

register(Family(
    name="decode-ceiling", post="h200", kind=Kind.NUMERIC,
    description={"es": "Techo de tokens/s en decodificación con lote 1 (ancho de banda / pesos)",
                 "en": "Batch-1 decode tokens/s ceiling (bandwidth / weights)"},
    generate=decode_ceiling,
    options={"models": "model ids (default: dense models)", "gpus": _GPUS, "dtypes": "dtypes"},
    slips=(dtype_size("dtype"),),
))
register(Family(
    name="decode-compare", post="mi350", kind=Kind.NUMERIC,
    description={"es": "Cuántas veces más rápido decodifica un chip que otro",
                 "en": "How many times faster one chip decodes than another"},
    generate=decode_compare,
    options={"models": "model ids (default: dense models)", "gpus": _GPUS,
             "anchor": "chip ids one of which every comparison includes"},
))
register(Family(
    name="ridge-point", post="h100", kind=Kind.NUMERIC,
    description={"es": "Punto de equilibrio del roofline (FLOP por byte)",
                 "en": "Roofline ridge point (FLOP per byte)"},
    generate=ridge, options={"gpus": _GPUS, "precisions": "bf16, fp8, fp4",
                             "ask": "ridge, attainable"},
    slips=(SPARSE_PEAK,),
))
register(Family(
    name="compute-or-memory-bound", post="h100", kind=Kind.TRUEFALSE,
    description={"es": "¿Limitado por cálculo o por memoria para una intensidad aritmética?",
                 "en": "Compute-bound or memory-bound at an arithmetic intensity?"},
    generate=compute_or_memory_bound,
    options={"gpus": _GPUS, "batches": "batch sizes", "precisions": "bf16, fp8"},
))
register(Family(
    name="prefill-time", post="h100", kind=Kind.NUMERIC,
    description={"es": "Tiempo de prefill de un prompt con una utilización dada",
                 "en": "Prefill time of a prompt at a given utilisation"},
    generate=prefill_time,
    options={"models": "model ids", "gpus": _GPUS, "prompts": "prompt lengths in tokens",
             "utilisations": "fractions of dense peak"},
    slips=(SPARSE_TIME,),
))
register(Family(
    name="low-precision-speedup", post="blackwell", kind=Kind.CHOICE,
    description={"es": "Aceleración de FP8 o FP4 frente a BF16 (y chips sin cifra)",
                 "en": "FP8 or FP4 speed-up over BF16 (and chips without a figure)"},
    generate=low_precision_speedup, options={"gpus": _GPUS, "precisions": "fp8, fp4"},
))
register(Family(
    name="perf-per-watt", post="gaudi", kind=Kind.CHOICE,
    description={"es": "Qué chip rinde más por vatio (TFLOPS/W o GB/s por W)",
                 "en": "Which chip does the most per watt (TFLOPS/W or GB/s per W)"},
    generate=perf_per_watt,
    options={"gpus": _GPUS, "metrics": "tflops, bandwidth",
             "anchor": "chip ids one of which every group includes"},
))
