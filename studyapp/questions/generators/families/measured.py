"""Predict, then check: the datasheet's figure first, then what someone measured.

Each family draws one published measurement (``content/measurements.yaml``) of its
kind and asks in steps: the figure the datasheet or the formula predicts (from
``studyapp.infra``, graded as any step), then, given the measurement and its
source, the share of the prediction it reached, and last the cause of the gap the
entry names (``gap:``). The worked chain sets theory, measurement, ratio and
source side by side: the habit a practitioner needs before trusting a spec sheet.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.measurements import Measurement
from studyapp.catalog.models import Accelerator
from studyapp.infra import decode, dtype_bytes, kv_bytes_per_token, per_direction, weights_bytes
from studyapp.infra.compute import prefill_seconds
from studyapp.infra.shapes import active_params, kv_shape
from studyapp.infra.units import GB, TFLOPS
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext, DrawFn, drawn
from studyapp.questions.generators.drawing import entries
from studyapp.questions.generators.families.terms import model_phrase
from studyapp.questions.generators.wording import bytes_per, label
from studyapp.questions.model import Kind, Question, Tolerance
from studyapp.questions.scenario import Step, build_parts, run_chain, worked_chain

RATIO_TOLERANCE = Tolerance(relative=0.02)
"""A share of the prediction, read off two stated figures: 2% of it."""

Shared = dict[str, Any]


@dataclass(frozen=True)
class Predict:
    """One predict-then-check family: which measurements it asks and how."""

    name: str
    texts: str
    """Its strings: ``scen.<texts>.*``."""
    kind: str
    """The measurement kind it draws."""
    causes: tuple[str, ...]
    """The gap causes it offers (the entry's own is always among them)."""
    shared: Callable[[Measurement], Shared]
    steps: tuple[Step, ...]
    fields: Callable[[DrawContext, Measurement, Mapping[str, Any]], dict[str, str]]
    fits: Callable[[Measurement], bool] = lambda m: True


def _chip(m: Measurement) -> Accelerator:
    return load_catalog().accelerators[str(m.chip)]


def pool(family: Predict, options: Mapping[str, Any] | None = None) -> list[Measurement]:
    """The measurements a family asks: its kind, read against a figure it can predict, on
    the chips the ``gpus`` option names (all by default)."""
    cat = load_catalog()
    found = [m for m in cat.measurements
             if m.kind == family.kind and m.gap in family.causes and family.fits(m)]
    default = sorted({str(m.chip) for m in found})
    chips = {c.id for c in entries(cat.accelerators, {"gpus": default, **(options or {})},
                                   "gpus")}
    return [m for m in found if m.chip in chips]


def source_label(m: Measurement, ctx: DrawContext) -> str:
    """``nccl-tests issue 290, 2025``: the project and thread a figure comes from, and when."""
    url = str(m.sources[0])
    year = m.date.year
    thread = re.match(r"https://github\.com/[^/]+/([^/]+)/(issues|pull)/(\d+)", url)
    if thread:
        key = "scen.source.issue" if thread[2] == "issues" else "scen.source.pull"
        return ctx.t(key, repo=thread[1], number=thread[3], year=year)
    repo = re.match(r"https://github\.com/[^/]+/([^/]+)/", url)
    if repo:
        return ctx.t("scen.source.repo", repo=repo[1], year=year)
    host = re.sub(r"^https?://", "", url).split("/")[0]
    return ctx.t("scen.source.site", site=host, year=year)


def _cause(e: Mapping[str, Any]) -> str:
    return str(e["cause_words"][e["gap"]])


def _efficiency(measured: str, theory: str) -> Step:
    return Step("efficiency", lambda e: e[measured] / e[theory] * 100, "%", uses=(theory,),
                tolerance=RATIO_TOLERANCE)


# --- all-reduce bus bandwidth over the scale-up link ---------------------------------

def _allreduce_shared(m: Measurement) -> Shared:
    chip = _chip(m)
    return {"link_gb_s": float(chip.scale_up_gb_s or 0.0), "measured": m.value}


def _algorithm(m: Measurement, ctx: DrawContext) -> str:
    """``NVLS, messages up to 8 GiB``: the run's algorithm and, where given, its largest message."""
    algorithm = str(m.setup.get("algorithm", "")) or ctx.t("scen.measured.default")
    largest = m.setup.get("largest_message", m.setup.get("message"))
    return algorithm if largest is None else ctx.t("scen.measured.up_to", algorithm=algorithm,
                                                   size=str(largest))


ALLREDUCE = Predict(
    name="measured-allreduce", texts="measured-allreduce", kind="allreduce-busbw",
    causes=("protocol-overhead", "in-switch-reduction", "latency", "clock-under-load"),
    shared=_allreduce_shared,
    fits=lambda m: m.nodes == 1 and m.theory is not None and bool(_chip(m).scale_up_gb_s),
    steps=(Step("theory", lambda e: per_direction(e["link_gb_s"], "bidirectional"), "GB/s"),
           _efficiency("measured", "theory")),
    fields=lambda ctx, m, e: {
        "gpu": label(_chip(m).name), "chips": ctx.num(m.chips),
        "link": str(_chip(m).scale_up), "link_gb_s": ctx.num(e["link_gb_s"], 5),
        "measured": ctx.num(m.value, 5), "tool": str(m.setup.get("tool", "nccl-tests")),
        "algorithm": _algorithm(m, ctx)},
)


# --- maximum achievable matmul --------------------------------------------------------

def _shape(m: Measurement) -> tuple[int, int, int]:
    mm, nn, kk = (int(x) for x in str(m.setup["best_shape"]).split("x"))
    return mm, nn, kk


def _peak_tflops(chip: Accelerator, dtype: str) -> float | None:
    return chip.fp8_dense_tflops if dtype == "fp8" else chip.bf16_dense_tflops


def _matmul_shared(m: Measurement) -> Shared:
    mm, nn, kk = _shape(m)
    dtype = str(m.setup.get("dtype", "bf16"))
    return {"m": mm, "n": nn, "k": kk, "dtype": dtype, "measured": m.value,
            "peak": float(_peak_tflops(_chip(m), dtype) or 0.0)}


def _matmul_us(e: Mapping[str, Any], tflops: float) -> float:
    """Time of the M×N×K matmul: 2·M·N·K FLOPs (a forward pass of N·K weights over M
    rows) at ``tflops``, in µs."""
    return prefill_seconds(e["n"] * e["k"], e["m"], tflops * TFLOPS, 1.0) * 1e6


def _software(m: Measurement) -> str:
    """``PyTorch 2.9.1+cu130``, ``CUDA 12.1``, ``ROCm 6.2``: the stack the sweep ran on,
    named (a bare version says nothing of what it versions)."""
    for key, name in (("torch", "PyTorch"), ("cuda", "CUDA"), ("rocm", "ROCm")):
        if m.setup.get(key):
            return f"{name} {m.setup[key]}"
    return "—"


MATMUL = Predict(
    name="measured-matmul", texts="measured-matmul", kind="matmul-tflops",
    causes=("clock-under-load", "software-stack", "tile-quantization", "none"),
    shared=_matmul_shared,
    fits=lambda m: "best_shape" in m.setup
    and _peak_tflops(_chip(m), str(m.setup.get("dtype", "bf16"))) is not None,
    steps=(Step("ideal_us", lambda e: _matmul_us(e, e["peak"]), "µs"),
           Step("efficiency", lambda e: e["measured"] / e["peak"] * 100, "%",
                tolerance=RATIO_TOLERANCE),
           Step("measured_us", lambda e: e["ideal_us"] / (e["efficiency"] / 100), "µs",
                uses=("ideal_us", "efficiency"), tolerance=RATIO_TOLERANCE)),
    fields=lambda ctx, m, e: {
        "gpu": label(_chip(m).name), "dtype": str(e["dtype"]).upper(),
        "m": f"{e['m']}", "n": f"{e['n']}", "k": f"{e['k']}",
        "peak": ctx.num(e["peak"], 5), "measured": ctx.num(m.value, 5),
        "flops": ctx.sci(2.0 * e["m"] * e["n"] * e["k"], 4),
        "software": _software(m)},
)


# --- KV cache a serving engine allocates ----------------------------------------------

def _fraction(m: Measurement) -> float:
    value = m.setup.get("gpu_memory_utilization", m.setup.get("mem_fraction_static"))
    return float(value) if isinstance(value, int | float) else 0.0


def _kv_dtype(m: Measurement) -> str:
    """The KV cache in the weights' 16-bit type (the engines' default), else BF16 for
    weights quantised below 16 bits."""
    weights = str(m.setup["weights"])
    return weights if weights in ("fp16", "bf16") else "bf16"


def _placement(ctx: DrawContext, m: Measurement, tp: int) -> dict[str, str]:
    gpu = label(_chip(m).name)
    if tp == 1:
        return {"placement": ctx.t("scen.measured-kv.on_one", gpu=gpu), "split": ""}
    return {"placement": ctx.t("scen.measured-kv.on_many", gpu=gpu, tp=ctx.num(tp)),
            "split": ctx.t("scen.measured-kv.split", tp=ctx.num(tp))}


def _kv_shared(m: Measurement) -> Shared:
    cat = load_catalog()
    model = cat.models[str(m.setup["model"])]
    tp = int(m.setup.get("tensor_parallel", m.chips))
    return {"memory_gb": _chip(m).memory_bytes / GB, "fraction": _fraction(m), "tp": tp,
            "weights_gb": weights_bytes(model.params, str(m.setup["weights"])) / GB,
            "kv_per_token": kv_bytes_per_token(kv_shape(model), _kv_dtype(m)),
            "measured": m.value}


KV = Predict(
    name="measured-kv-capacity", texts="measured-kv", kind="kv-cache-tokens",
    causes=("serving-memory", "reserved-memory", "datasheet-rounding", "software-stack"),
    shared=_kv_shared,
    fits=lambda m: {"model", "weights"} <= set(m.setup) and _fraction(m) > 0
    and str(m.setup["model"]) in load_catalog().models,
    steps=(Step("free_gb", lambda e: e["fraction"] * e["memory_gb"] - e["weights_gb"] / e["tp"],
                "GB"),
           Step("tokens", lambda e: e["free_gb"] * GB * e["tp"] / e["kv_per_token"], "tokens",
                uses=("free_gb",)),
           _efficiency("measured", "tokens")),
    fields=lambda ctx, m, e: {
        "gpu": label(_chip(m).name), "tp": ctx.num(e["tp"]), **_placement(ctx, m, e["tp"]),
        "model": model_phrase(load_catalog().models[str(m.setup["model"])], ctx),
        "wdtype": str(m.setup["weights"]).upper(), "kvdtype": _kv_dtype(m).upper(),
        "software": str(m.setup["software"]),
        "memory_gb": ctx.num(e["memory_gb"], 5), "fraction": ctx.num(e["fraction"], 3),
        "weights_gb": ctx.num(e["weights_gb"], 5), "per_token": ctx.num(e["kv_per_token"], 6),
        "params_b": ctx.num(load_catalog().models[str(m.setup["model"])].params_b, 5),
        "wbytes": ctx.num(dtype_bytes(str(m.setup["weights"]))),
        "measured": ctx.num(m.value, 6)},
)


# --- one stream's decode rate ---------------------------------------------------------

def _decode_shared(m: Measurement) -> Shared:
    model = load_catalog().models[str(m.setup["model"])]
    active = active_params(model)
    return {"active": active, "dtype": str(m.setup["weights"]),
            "bandwidth": _chip(m).bandwidth_bytes_s, "tp": int(m.setup.get("tensor_parallel",
                                                                           m.chips)),
            "measured": m.value}


def _ceiling(e: Mapping[str, Any]) -> float:
    """Tokens a second when every step reads each active weight once across the group."""
    return decode(e["read_gb"] * GB, 0.0, e["bandwidth"] * e["tp"]).tokens_per_s_per_sequence


def _served(ctx: DrawContext, m: Measurement) -> str:
    """The model the engine served, by its own name (``served``) where the catalog computes
    it through another of the same architecture (Llama 3.3 70B through Llama 3.1 70B)."""
    phrase = model_phrase(load_catalog().models[str(m.setup["model"])], ctx)
    served = m.setup.get("served")
    return phrase if not served else ctx.t("scen.measured-decode.served",
                                           served=str(served), model=phrase)


DECODE = Predict(
    name="measured-decode", texts="measured-decode", kind="decode-throughput",
    causes=("step-overhead", "clock-under-load", "in-switch-reduction", "serving-memory"),
    shared=_decode_shared,
    fits=lambda m: {"model", "weights"} <= set(m.setup) and m.setup.get("concurrency") == 1,
    steps=(Step("read_gb", lambda e: weights_bytes(e["active"], e["dtype"]) / GB, "GB"),
           Step("ceiling", _ceiling, "tokens/s", uses=("read_gb",)),
           _efficiency("measured", "ceiling")),
    fields=lambda ctx, m, e: {
        "gpu": label(_chip(m).name), "tp": ctx.num(e["tp"]),
        "model": _served(ctx, m), "active_b": ctx.num(e["active"] / 1e9, 5),
        "wdtype": str(e["dtype"]).upper(),
        "bytes": ctx.num(dtype_bytes(e["dtype"])),
        "bytes_word": bytes_per(dtype_bytes(e["dtype"]), ctx.lang),
        "software": str(m.setup["software"]),
        "bandwidth": ctx.num(e["bandwidth"] / 1e12, 4), "measured": ctx.num(m.value, 5),
        "input": ctx.num(int(m.setup.get("input_tokens", 0))),
        "output": ctx.num(int(m.setup.get("output_tokens", 0)))},
)

PREDICTS = (ALLREDUCE, MATMUL, KV, DECODE)
BY_NAME = {p.name: p for p in PREDICTS}


# --- building the question ----------------------------------------------------------

def question_of(family: Predict, ctx: DrawContext, m: Measurement) -> Question:
    """The predict-then-check scenario of one measurement: the family's steps, then the
    gap's cause among the family's causes."""
    causes = {c: ctx.t(f"scen.gap.{c}") for c in family.causes}
    order = list(causes.values())
    random.Random(ctx.seed).shuffle(order)  # the right cause is not always in one place
    cause = Step("cause", _cause, choices=tuple(order))
    steps = (*family.steps, cause)
    shared = {**family.shared(m), "gap": m.gap, "cause_words": causes}
    env = run_chain(steps, shared)
    words = {**family.fields(ctx, m, env), "source": source_label(m, ctx),
             "url": str(m.sources[0]), "why": ctx.t(f"scen.gap.{m.gap}.why"),
             **{s.name: ctx.shown(float(env[s.name])) for s in family.steps},
             "cause": _cause(env)}
    key = f"scen.{family.texts}"
    prompts = {s.name: ctx.t(f"{key}.{s.name}", **words) for s in steps}
    methods = {s.name: ctx.t(f"{key}.{s.name}.method", **words) for s in steps}
    solutions = {s.name: ctx.t(f"{key}.{s.name}.solution", **words) for s in steps}
    parts, _ = build_parts(steps, shared, seed=ctx.seed, lang=ctx.lang, prompts=prompts,
                           methods=methods, solutions=solutions)
    question = ctx.question(
        kind=Kind.SCENARIO, prompt=ctx.t(f"{key}.setup", **words), explanation="",
        answer=str(len(parts)), parts=parts,
        params={"measurement": m.id, "gpu": m.chip, "gap": m.gap,
                "steps": {p.name: p.question.answer for p in parts
                          if p.question.kind is Kind.NUMERIC}})
    return replace(question, explanation=worked_chain(question))


def _drawer(family: Predict) -> DrawFn:
    def draw(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
        measurements = pool(family, options)
        if not measurements:
            raise LookupError(f"no {family.kind} measurement of these chips fits "
                              f"{family.name}")
        return question_of(family, ctx, random.Random(ctx.seed).choice(measurements))

    draw.__doc__ = f"Predict, then check against a published {family.kind} measurement."
    return draw


def pool_size(name: str, options: Mapping[str, Any] | None = None) -> int | None:
    """How many measurements a predict-then-check family draws from with these options
    (None: not such a family)."""
    family = BY_NAME.get(name)
    if family is None:
        return None
    try:
        return len(pool(family, options))
    except LookupError:
        return 0


def _family(predict: Predict, post: str, es: str, en: str) -> Family:
    return Family(name=predict.name, post=post, kind=Kind.SCENARIO,
                  description={"es": es, "en": en}, generate=drawn(_drawer(predict)),
                  options={"gpus": "accelerator ids"})


MEASURED_ALLREDUCE = _family(
    ALLREDUCE, "nvlink-infiniband",
    "Predice y comprueba: bus bandwidth de un all-reduce frente al NVLink de la ficha",
    "Predict, then check: an all-reduce's bus bandwidth against the datasheet's NVLink")
MEASURED_MATMUL = _family(
    MATMUL, "h100",
    "Predice y comprueba: una multiplicación de matrices al pico frente a la medida (MAMF)",
    "Predict, then check: a matmul at the datasheet peak against the measured MAMF")
MEASURED_KV = _family(
    KV, "hbm-kv-cache",
    "Predice y comprueba: tokens de KV cache que caben frente a los que reserva el motor",
    "Predict, then check: the KV cache tokens that fit against what the engine allocates")
MEASURED_DECODE = _family(
    DECODE, "h100",
    "Predice y comprueba: tokens/s de un flujo en decode frente a lo medido",
    "Predict, then check: one stream's decode tokens/s against the measured rate")

MEASURED: Sequence[Family] = (MEASURED_ALLREDUCE, MEASURED_MATMUL, MEASURED_KV,
                              MEASURED_DECODE)
