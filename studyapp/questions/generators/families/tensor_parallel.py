"""tp-allreduce: the tensor-parallel communication of one decode step, α–β.

Megatron-style tensor parallelism all-reduces the activations twice in every layer. At
decode each call carries only batch × hidden × 2 bytes, so its fixed latency (about
10 µs inside an 8-GPU H100 node) outweighs its bytes until the batch is large: the
question makes the learner add both terms and see which dominates.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, Model
from studyapp.infra.collectives import (
    SCALE_UP_LATENCY_S,
    allreduce_time,
    ring_factor,
    scale_up_efficiency,
)
from studyapp.infra.network import TP_ALLREDUCES_PER_LAYER, tp_allreduce_bytes
from studyapp.infra.units import GB
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext, drawn
from studyapp.questions.generators.drawing import entries, values
from studyapp.questions.generators.families.terms import model_phrase
from studyapp.questions.generators.wording import join_steps, label, significant
from studyapp.questions.model import Kind, Question, Slip, Tolerance

TP_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-2-70b", "qwen2.5-72b", "llama-3.1-405b")
TP_GPUS = ("h100-sxm", "h200-sxm")
"""NVLink 4 nodes of 8, where the per-call latency was measured (H100)."""
TP_SIZES = (2, 4, 8)
TP_BATCHES = (1, 1, 8, 32, 64, 128)
MID_SIZE_BYTES = 256 * 1024
"""From about here to a few MB a call does not reach the large-message bus bandwidth:
1 MB measures 0.034–0.045 ms on 8 H100 (https://github.com/sgl-project/sglang/pull/2904)."""

LATENCY_LEFT_OUT = Slip("latency_left_out",
                        lambda p: p["bandwidth_s"] / p["seconds"] if p["bandwidth_s"] else None)
"""Only the bytes counted, as if a call had no fixed cost."""
ONE_PER_LAYER = Slip("one_allreduce_per_layer", 0.5)
"""One all-reduce per layer instead of two (after attention and after the MLP)."""


def switched_nvlink(chip: Accelerator) -> bool:
    """A chip on NVLink through NVSwitch (not a 2- or 4-way bridge), where NCCL's measured
    bus bandwidth and latency apply."""
    return bool(chip.scale_up_gb_s and re.fullmatch(r"NVLink \d", chip.scale_up or ""))


def tp_allreduce(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """calls × latency + calls × 2(n−1)/n × batch × hidden × 2 B / bus bandwidth."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    known = [m for m in TP_MODELS if m in catalog.models]
    models: list[Model] = entries(catalog.models, {"models": known, **options}, "models")
    chips = [c for c in entries(catalog.accelerators, {"gpus": list(TP_GPUS), **options},
                                "gpus") if switched_nvlink(c)]
    if not chips:
        raise LookupError("tp-allreduce needs GPUs joined by switched NVLink")
    model, chip = rng.choice(models), rng.choice(chips)
    tp = int(rng.choice(values(options, "gpu_counts", TP_SIZES)))
    batch = int(rng.choice(values(options, "batches", TP_BATCHES)))
    size = tp_allreduce_bytes(batch, model.hidden_size, 2)
    calls = TP_ALLREDUCES_PER_LAYER * model.layers
    bus = (chip.scale_up_gb_s or 0) * GB / 2 * scale_up_efficiency(chip.scale_up)
    time = allreduce_time(size, tp, bus, calls=calls, latency_s=SCALE_UP_LATENCY_S)
    fields = {"model": model_phrase(model, ctx), "gpu": label(chip.name),
              "link": chip.scale_up or "", "tp": ctx.num(tp), "batch": ctx.num(batch),
              "layers": ctx.num(model.layers), "hidden": ctx.num(model.hidden_size),
              "calls": ctx.num(calls), "bus": ctx.num(bus / GB, 3),
              "lat": ctx.num(SCALE_UP_LATENCY_S * 1e6, 3),
              "size_kb": ctx.num(size / 1e3, 4), "factor": ctx.num(ring_factor(tp), 4),
              "lat_ms": ctx.num(time.latency_seconds * 1e3, 4),
              "bw_ms": ctx.num(time.bandwidth_seconds * 1e3, 4),
              "answer": ctx.shown(time.seconds * 1e3)}
    why = "gen.tp.latency_wins" if time.dominant == "latency" else "gen.tp.bytes_win"
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.tp.prompt", **fields),
        explanation=join_steps(ctx.t("gen.tp.calls", **fields), ctx.t("gen.tp.size", **fields),
                               ctx.t("gen.tp.latency", **fields),
                               ctx.t("gen.tp.bandwidth", **fields),
                               ctx.t("gen.tp.total", **fields), ctx.t(why, **fields),
                               ctx.t("gen.tp.mid_size") if size >= MID_SIZE_BYTES else ""),
        answer=significant(time.seconds * 1e3), unit="ms", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "gpu": chip.id, "tp": tp, "batch": batch,
                "calls": calls, "size_bytes": size, "bus_bytes_s": bus,
                "latency_s": SCALE_UP_LATENCY_S, "seconds": time.seconds,
                "bandwidth_s": time.bandwidth_seconds, "dominant": time.dominant,
                "given": {"layers": model.layers, "hidden": model.hidden_size, "batch": batch,
                          "tp": tp, "bus_gb_s": bus / GB,
                          "latency_us": SCALE_UP_LATENCY_S * 1e6}},
    )


TP_ALLREDUCE = Family(
    name="tp-allreduce", post="nvlink-infiniband", kind=Kind.NUMERIC,
    description={"es": "Comunicación de un paso de decodificación con paralelismo de tensores: "
                       "latencia más bytes",
                 "en": "Tensor-parallel communication of one decode step: latency plus bytes"},
    generate=drawn(tp_allreduce),
    options={"models": "model ids", "gpus": "NVLink accelerator ids",
             "gpu_counts": "tensor-parallel sizes", "batches": "batch sizes"},
    slips=(LATENCY_LEFT_OUT, ONE_PER_LAYER),
)
