"""System families: node, rack, instance and pod totals from per-chip figures.

A system's headline numbers are per-chip figures times the chip count; the
learner multiplies, and learns which totals are sums (NVLink aggregate) and
not what one pair of GPUs can use.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, System
from studyapp.infra import min_devices, usable_bytes, weights_bytes
from studyapp.infra.units import GB, TB, TFLOPS
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext, GenerateFn, drawn
from studyapp.questions.generators.drawing import entries, values
from studyapp.questions.generators.families.terms import (
    RUNTIME_GB,
    budget_convention,
    capacity_fields,
    capacity_gb,
    model_phrase,
)
from studyapp.questions.generators.slips import SYSTEM_SLIPS
from studyapp.questions.generators.wording import (
    join_steps,
    label,
    significant,
)
from studyapp.questions.model import Kind, Question, Tolerance

QUANTITIES = ("memory", "bandwidth", "scale_up", "bf16")


def _total(chip: Accelerator, gpus: int, quantity: str) -> tuple[float, str, float, str]:
    """(total in the question's unit, unit, per-chip figure, the per-chip figure's unit).

    Memory is counted in its real unit: where a vendor's HBM "GB" is a GiB (Hopper,
    Blackwell, MI300) totals are in GiB; decimal figures (Blackwell Ultra, other memory)
    in TB of 10^12 bytes."""
    if quantity == "memory":
        if chip.memory_unit == "GiB":
            return chip.memory_gb * gpus, "GiB", chip.memory_gb, "GiB"
        return chip.nominal_memory_bytes * gpus / TB, "TB", chip.memory_gb, "GB"
    if quantity == "bandwidth":
        return (chip.bandwidth_bytes_s * gpus / TB, "TB/s", chip.memory_bandwidth_tb_s,
                "TB/s")
    if quantity == "scale_up":
        per = chip.scale_up_gb_s or 0
        return per * GB * gpus / TB, "TB/s", per, "GB/s"
    return (chip.bf16_dense_tflops * TFLOPS * gpus / 1e15, "PFLOPS", chip.bf16_dense_tflops,
            "TFLOPS")


def system_totals(keep: Callable[[System], bool], units: tuple[int, ...] = (1,)) -> GenerateFn:
    """A generator asking one total of one or several systems from their chip's figures."""

    def generate(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
        rng = random.Random(ctx.seed)
        catalog = load_catalog()
        systems = entries(catalog.systems, options, "systems", keep=keep)
        system = rng.choice(systems)
        chip = catalog.accelerators[system.accelerator]
        quantities = [q for q in values(options, "quantities", QUANTITIES)
                      if q != "scale_up" or chip.scale_up_gb_s]
        quantity = str(rng.choice(quantities))
        how_many = 1 if quantity == "scale_up" else int(rng.choice(
            values(options, "units", units)))
        count = system.gpus * how_many
        total, unit, per_chip, per_unit = _total(chip, count, quantity)
        name = label(system.name)
        holder = (ctx.t("gen.sys.one", system=name) if how_many == 1
                  else ctx.t("gen.sys.many", units=ctx.num(how_many), system=name))
        fields = {"system": label(system.name), "holder": holder, "gpus": ctx.num(count),
                  "gpu": label(chip.name), "per_chip": ctx.num(per_chip, 5),
                  "total": ctx.result(total), "product": ctx.result(total),
                  "total_base": ctx.num(per_chip * count, 7),
                  "half": ctx.num(per_chip / 2, 5), "unit": unit}
        note = ""
        if quantity == "scale_up":
            note = ctx.t("gen.sys.scale_up_note", **fields)
        elif quantity == "memory" and how_many == 1 and chip.memory_unit == "GiB":
            note = ctx.t("gen.sys.memory_note", listed=ctx.num(system.total_memory_gb, 6))
        key = "memory_gib" if unit == "GiB" else quantity
        return ctx.question(
            kind=Kind.NUMERIC, prompt=ctx.t(f"gen.sys.prompt_{key}", **fields),
            explanation=join_steps(ctx.t(f"gen.sys.explain_{key}", **fields), note,
                                   ctx.t("gen.convention.hbm" if quantity == "memory"
                                         else "gen.convention.gb" if quantity != "bf16"
                                         else "gen.convention.dense")),
            answer=significant(total), unit=unit, tolerance=Tolerance(relative=0.02),
            params={"system": system.id, "gpu": chip.id, "gpus": count, "systems": how_many,
                    "quantity": quantity, "per_chip_unit": per_unit,
                    "given": {"count": count, "per_chip": per_chip}},
        )

    return drawn(generate)


# --- tpu-pod --------------------------------------------------------------

POD_CHIPS = {"tpu-v5e": 256, "tpu-v5p": 8960, "tpu-v6e": 256, "tpu-v7": 9216}
"""Chips in one pod (Google Cloud TPU documentation, per generation)."""

POD_MODELS = ("llama-3.1-70b", "llama-3.1-405b", "deepseek-v3", "gpt-3-175b", "qwen2.5-72b")


def tpu_pod(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Pod totals, and how many chips of a generation just the weights of a big model need."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    chips = entries(catalog.accelerators, options, "gpus", keep=lambda c: c.id in POD_CHIPS)
    chip = rng.choice([c for c in chips if c.id in POD_CHIPS] or chips)
    pod = POD_CHIPS.get(chip.id, 256)
    variant = str(rng.choice(values(options, "ask", ("memory", "bf16", "chips", "chips"))))
    capacity = capacity_fields(chip, ctx)
    fields: dict[str, Any] = {"gpu": label(chip.name), "pod": ctx.num(pod),
                              "memory": capacity["capacity"], **capacity,
                              "tflops": ctx.num(chip.bf16_dense_tflops, 5)}
    if variant == "chips":
        default = [m for m in POD_MODELS if m in catalog.models]
        pool = entries(catalog.models, {"models": default, **options}, "models")
        bigger = [m for m in pool
                  if weights_bytes(m.params, "bf16") > usable_bytes(chip.memory_bytes)]
        model = rng.choice(bigger or pool)  # one chip would not be a question
        w = weights_bytes(model.params, "bf16")
        count = min_devices(w, chip.memory_bytes)
        fields.update(model=model_phrase(model, ctx), params_b=ctx.num(model.params_b, 5),
                      weights_gb=ctx.num(w / GB, 4),
                      usable_gb=ctx.num(usable_bytes(chip.memory_bytes) / GB, 4),
                      ratio=ctx.num(w / usable_bytes(chip.memory_bytes), 4),
                      answer=ctx.num(count))
        return ctx.question(
            kind=Kind.NUMERIC, prompt=ctx.t("gen.pod.prompt_chips", **fields),
            explanation=join_steps(ctx.t("gen.pod.explain_chips", **fields),
                                   ctx.t("gen.pod.why"), budget_convention(ctx)),
            answer=float(count), unit=None, tolerance=Tolerance(relative=None, absolute=0),
            params={"gpu": chip.id, "model": model.id, "dtype": "bf16",
                    "usable_fraction": 0.9, "pod_chips": pod, "ask": variant,
                    "given": {"params_b": model.params_b, "total_gb": capacity_gb(chip),
                              "usable": 0.9, "runtime_gb": RUNTIME_GB}},
        )
    quantity = "memory" if variant == "memory" else "bf16"
    total, unit, per_chip, per_unit = _total(chip, pod, quantity)
    fields.update(total=ctx.result(total), product=ctx.result(total), unit=unit,
                  per_chip=ctx.num(per_chip, 5),
                  total_base=ctx.num(per_chip * pod, 8),
                  total_pb=ctx.num(total * 2**30 / 1e15 if unit == "GiB" else total / 1e3, 3))
    key = "memory_gib" if unit == "GiB" else variant
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t(f"gen.pod.prompt_{key}", **fields),
        explanation=join_steps(ctx.t(f"gen.pod.explain_{key}", **fields),
                               ctx.t("gen.pod.why"),
                               ctx.t("gen.convention.hbm" if variant == "memory"
                                     else "gen.convention.dense")),
        answer=significant(total), unit=unit, tolerance=Tolerance(relative=0.02),
        params={"gpu": chip.id, "pod_chips": pod, "ask": variant, "per_chip_unit": per_unit,
                "given": {"count": pod, "per_chip": per_chip}},
    )


_SYSTEMS = "system ids from the catalog"
_QUANTITIES = "memory, bandwidth, scale_up, bf16"

HGX_NODE_TOTALS = Family(
    name="hgx-node-totals", post="hgx", kind=Kind.NUMERIC,
    description={"es": "Totales de un nodo de 8 GPU: memoria, ancho de banda, NVLink, TFLOPS",
                 "en": "8-GPU node totals: memory, bandwidth, NVLink, TFLOPS"},
    generate=system_totals(lambda s: s.post == "hgx"),
    options={"systems": _SYSTEMS, "quantities": _QUANTITIES},
    slips=SYSTEM_SLIPS,
)
NVL72_RACK_TOTALS = Family(
    name="nvl72-rack-totals", post="blackwell", kind=Kind.NUMERIC,
    description={"es": "Totales del rack GB200 NVL72 a partir de cada GPU",
                 "en": "GB200 NVL72 rack totals from each GPU's figures"},
    generate=system_totals(lambda s: s.post == "blackwell", units=(1, 2, 4, 8)),
    options={"systems": _SYSTEMS, "quantities": _QUANTITIES, "units": "racks counted"},
    slips=SYSTEM_SLIPS,
)
TRAINIUM_SERVER_TOTALS = Family(
    name="trainium-server-totals", post="trainium", kind=Kind.NUMERIC,
    description={"es": "Totales de una instancia Trn2 (16 Trainium2) o un Trn3 UltraServer "
                       "(64 o 144 Trainium3) unidos por NeuronLink",
                 "en": "Totals of a Trn2 instance (16 Trainium2) or a Trn3 UltraServer "
                       "(64 or 144 Trainium3) joined by NeuronLink"},
    generate=system_totals(lambda s: s.post == "trainium", units=(1, 2, 4, 8)),
    options={"systems": _SYSTEMS, "quantities": _QUANTITIES, "units": "instances counted"},
    slips=SYSTEM_SLIPS,
)
TPU_POD = Family(
    name="tpu-pod", post="tpu", kind=Kind.NUMERIC,
    description={"es": "Pods de TPU: memoria y TFLOPS totales, chips para los pesos de un modelo",
                 "en": "TPU pods: total memory and TFLOPS, chips for a model's weights"},
    generate=drawn(tpu_pod),
    options={"gpus": "TPU ids", "models": "model ids", "ask": "memory, bf16, chips"},
)
