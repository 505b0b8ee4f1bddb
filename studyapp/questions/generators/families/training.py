"""Training and storage families: 6·N·D, Adam memory with ZeRO, checkpoints.

Training is where compute time, per-GPU memory and failure recovery meet:
how long a run takes, what each GPU must hold, and how often to save it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Model
from studyapp.infra import (
    checkpoint_bytes,
    cluster_mtbf_seconds,
    dtype_bytes,
    min_devices,
    training_flops,
    training_memory_bytes,
    training_seconds,
    transfer_seconds,
    usable_bytes,
    weights_bytes,
    young_daly_interval,
    zero_shares,
)
from studyapp.infra.compute import (
    ADAM_MIXED_BYTES_PER_PARAM,
    GRADIENT_BYTES_PER_PARAM,
    WEIGHT_BYTES_PER_PARAM,
)
from studyapp.infra.shapes import active_params
from studyapp.infra.storage import CHECKPOINT_BYTES_PER_PARAM
from studyapp.infra.units import GB, TB, TFLOPS
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext, drawn
from studyapp.questions.generators.drawing import draw_until, entries, values
from studyapp.questions.generators.families.terms import (
    RUNTIME_GB,
    budget_convention,
    capacity_fields,
    capacity_gb,
    model_phrase,
)
from studyapp.questions.generators.slips import (
    BITS,
    FORWARD_ONLY,
    MFU_LEFT_OUT,
    MOE_TOTAL_COMPUTE,
    SPARSE_TIME,
    WEIGHTS_ONLY_CHECKPOINT,
    dtype_size,
)
from studyapp.questions.generators.wording import join_steps, label, significant
from studyapp.questions.model import Kind, Question, Tolerance

TOKENS = (0.3e12, 1e12, 2e12, 5e12, 15e12)
CLUSTERS = (256, 512, 1024, 2048, 4096, 8192, 16384)
MFUS = (0.3, 0.35, 0.4, 0.5)


# --- training-days --------------------------------------------------------


def training_days(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """6·N·D FLOPs over K chips at an MFU, in days."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    models = entries(catalog.models, options, "models")
    default = catalog.pool("training")
    chips = entries(catalog.accelerators, {"gpus": default, **options}, "gpus")
    tokens_list = [float(x) for x in values(options, "tokens", TOKENS)]
    clusters = [int(x) for x in values(options, "gpu_counts", CLUSTERS)]
    mfus = [float(x) for x in values(options, "mfus", MFUS)]

    def draw(rng: random.Random) -> tuple[Model, Any, float, int, float]:
        return (rng.choice(models), rng.choice(chips), rng.choice(tokens_list),
                rng.choice(clusters), rng.choice(mfus))

    def days(d: tuple[Model, Any, float, int, float]) -> float:
        flops = training_flops(active_params(d[0]), d[2])
        return training_seconds(flops, d[1].bf16_dense_tflops * TFLOPS, d[3], d[4]) / 86400

    d = draw_until(rng, draw, lambda d: 1 <= days(d) <= 365, "training-days")
    model, chip, tokens, count, mfu = d
    n = active_params(model)
    flops = training_flops(n, tokens)
    answer = days(d)
    trillion = "gen.train.trillion_one" if tokens == 1e12 else "gen.train.trillion"
    fields = {"model": model_phrase(model, ctx), "params_b": ctx.num(n / 1e9, 5),
              "tokens": ctx.sci(tokens), "tokens_t": ctx.num(tokens / 1e12, 3),
              "tokens_words": ctx.t(trillion, n=ctx.num(tokens / 1e12, 3)),
              "gpu": label(chip.name), "count": ctx.num(count), "mfu": ctx.num(mfu * 100),
              "tflops": ctx.num(chip.bf16_dense_tflops, 5), "flops": ctx.sci(flops, 4),
              "rate": ctx.sci(chip.bf16_dense_tflops * TFLOPS * count * mfu, 4),
              "seconds": ctx.sci(answer * 86400), "day_s": ctx.num(86400),
              "days": ctx.shown(answer)}
    moe = ctx.t("gen.train.moe", model=label(model.name), active_b=ctx.num(n / 1e9, 5),
                total_b=ctx.num(model.params_b, 5)) if model.active_params_b else ""
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.train.prompt", **fields),
        explanation=join_steps(moe, ctx.t("gen.train.explain", **fields),
                               ctx.t("gen.train.why"), ctx.t("gen.convention.dense")),
        answer=significant(answer), unit="days", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "params": n, "tokens": tokens, "gpu": chip.id,
                "gpus": count, "mfu": mfu,
                "given": {"active_b": n / 1e9, "tokens_t": tokens / 1e12, "count": count,
                          "tflops": chip.bf16_dense_tflops, "mfu": mfu}},
    )


# --- training-memory ------------------------------------------------------

ZERO_STAGES = (0, 1, 2, 3)
TRAINING_GPUS = ("h100-sxm", "h200-sxm", "b200")
"""The GPUs a training question runs on by default (the HGX post's): each holds its share."""
DATA_PARALLEL = (8, 16, 64)
FEWEST_SHARE = 0.3
"""Share of training-memory questions that ask for the fewest GPUs (one cannot hold it)."""


def _fewest_gpus(rng: random.Random, ctx: DrawContext, models: list[Model],
                 gpus: list[Any]) -> Question:
    """A model whose training state one GPU cannot hold: the fewest GPUs that do, with
    ZeRO-3 sharding all 16 bytes per parameter."""

    def draw(r: random.Random) -> tuple[Model, Any]:
        return r.choice(models), r.choice(gpus)

    def too_big(d: tuple[Model, Any]) -> bool:
        return d[0].params * ADAM_MIXED_BYTES_PER_PARAM > usable_bytes(d[1].memory_bytes)

    model, gpu = draw_until(rng, draw, too_big, "training-memory")
    state = model.params * ADAM_MIXED_BYTES_PER_PARAM
    usable = usable_bytes(gpu.memory_bytes)
    count = min_devices(state, gpu.memory_bytes)
    fields = {"model": model_phrase(model, ctx), "params_b": ctx.num(model.params_b, 5),
              "gpu": gpu.name, **capacity_fields(gpu, ctx),
              "state_gb": ctx.num(state / GB, 5), "usable_gb": ctx.num(usable / GB, 5),
              "answer": ctx.num(count)}
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.trainmem.prompt_fewest", **fields),
        explanation=join_steps(ctx.t("gen.trainmem.bytes"),
                               ctx.t("gen.trainmem.explain_fewest", **fields),
                               ctx.t("gen.trainmem.why"), budget_convention(ctx)),
        answer=float(count), unit=None, tolerance=Tolerance(absolute=0),
        params={"model": model.id, "params": model.params, "zero_stage": 3, "ask": "fewest",
                "gpu": gpu.id, "bytes_per_param": ADAM_MIXED_BYTES_PER_PARAM,
                "given": {"params_b": model.params_b, "w_bytes": WEIGHT_BYTES_PER_PARAM,
                          "g_bytes": GRADIENT_BYTES_PER_PARAM,
                          "o_bytes": zero_shares(0, 1).optimizer,
                          "total_gb": capacity_gb(gpu), "usable": 0.9,
                          "runtime_gb": RUNTIME_GB}},
    )


def training_memory(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Mixed-precision Adam keeps 16 B/param; ZeRO shards 12, then 2 more, then the last 2."""
    rng = random.Random(ctx.seed)
    models = entries(load_catalog().models, options, "models")
    gpus = entries(load_catalog().accelerators, options, "gpus",
                   keep=lambda c: c.id in TRAINING_GPUS or "gpus" in options)

    def draw(r: random.Random) -> tuple[Model, int, int, Any]:
        return (r.choice(models), int(r.choice(values(options, "zero_stages", ZERO_STAGES))),
                int(r.choice(values(options, "gpu_counts", DATA_PARALLEL))), r.choice(gpus))

    def holds(d: tuple[Model, int, int, Any]) -> bool:
        """Each GPU can hold its share: no per-GPU state larger than the GPU it runs on."""
        per = training_memory_bytes(d[0].params, ADAM_MIXED_BYTES_PER_PARAM, d[1], d[2])
        return per <= usable_bytes(d[3].memory_bytes)

    if rng.random() < FEWEST_SHARE and 3 in map(int, values(options, "zero_stages", ZERO_STAGES)):
        return _fewest_gpus(rng, ctx, models, gpus)
    model, stage, devices, gpu = draw_until(rng, draw, holds, "training-memory")
    per_device = training_memory_bytes(model.params, ADAM_MIXED_BYTES_PER_PARAM, stage, devices)
    shares = zero_shares(stage, devices)
    fields = {**{"model": model_phrase(model, ctx), "params_b": ctx.num(model.params_b, 5)},
              "stage": stage, "devices": ctx.num(devices),
              "w": ctx.num(shares.weights, 3), "g": ctx.num(shares.grads, 3),
              "o": ctx.num(shares.optimizer, 3), "per_param": ctx.num(shares.per_param, 4),
              "answer": ctx.shown(per_device / GB), "gpu": gpu.name,
              "memory_gb": ctx.num(gpu.memory_gb, 5)}
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.trainmem.prompt", **fields),
        explanation=join_steps(ctx.t("gen.trainmem.bytes"),
                               ctx.t(f"gen.trainmem.zero{stage}", **fields),
                               ctx.t("gen.trainmem.explain", **fields),
                               ctx.t("gen.trainmem.why"), budget_convention(ctx)),
        answer=significant(per_device / GB), unit="GB", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "params": model.params, "zero_stage": stage,
                "devices": devices, "gpu": gpu.id, "bytes_per_param": ADAM_MIXED_BYTES_PER_PARAM,
                "given": {"params_b": model.params_b, "w_bytes": WEIGHT_BYTES_PER_PARAM,
                          "g_bytes": GRADIENT_BYTES_PER_PARAM,
                          "o_bytes": zero_shares(0, 1).optimizer, "stage": stage,
                          "devices": devices}},
    )


# --- checkpoint-write -----------------------------------------------------

WRITE_GB_S = (5, 10, 20, 50, 100, 200, 500)


def checkpoint_write(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Weights + FP32 master + Adam m and v = 14 B/param; size / bandwidth = write time."""
    rng = random.Random(ctx.seed)
    model = rng.choice(entries(load_catalog().models, options, "models"))
    bandwidth = float(rng.choice(values(options, "write_gb_s", WRITE_GB_S)))
    ask = str(rng.choice(values(options, "ask", ("size", "time", "time"))))
    size = checkpoint_bytes(model.params, CHECKPOINT_BYTES_PER_PARAM)
    seconds = transfer_seconds(size, bandwidth * GB)
    in_minutes = seconds >= 300
    time_value = seconds / 60 if in_minutes else seconds
    in_tb = size >= 1 * TB
    size_value = size / TB if in_tb else size / GB
    fields = {"model": model_phrase(model, ctx), "params_b": ctx.num(model.params_b, 5),
              "write": ctx.num(bandwidth), "size": ctx.shown(size_value),
              "size_unit": "TB" if in_tb else "GB", "size_gb": ctx.num(size / GB, 5),
              "size_tb": (f" = {ctx.shown(size_value)} TB" if in_tb
                          else f" ≈ {ctx.shown(size_value)} GB"
                          if ctx.shown(size_value) != ctx.num(size / GB, 5) else ""),
              "unit_def": "1 TB = 10^12 bytes" if in_tb else "1 GB = 10^9 bytes",
              "seconds": ctx.num(seconds, 4) if in_minutes else ctx.shown(seconds),
              "time": ctx.shown(time_value),
              "time_unit": "min" if in_minutes else "s",
              "time_word": ctx.t("gen.word.min" if in_minutes else "gen.word.s")}
    if ask == "size":
        answer, unit, prompt = size_value, fields["size_unit"], "gen.ckpt.size_prompt"
    else:
        answer, unit, prompt = time_value, fields["time_unit"], "gen.ckpt.time_prompt"
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t(prompt, **fields),
        explanation=join_steps(ctx.t("gen.ckpt.size_step", **fields),
                               "" if ask == "size" else ctx.t("gen.ckpt.time_step", **fields),
                               ctx.t("gen.ckpt.time_minutes", **fields)
                               if ask != "size" and in_minutes else "",
                               ctx.t("gen.ckpt.why"), ctx.t("gen.convention.gb")),
        answer=significant(answer), unit=unit, tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "params": model.params,
                "bytes_per_param": CHECKPOINT_BYTES_PER_PARAM, "write_gb_s": bandwidth,
                "ask": ask,
                "given": {"params_b": model.params_b, "bytes": CHECKPOINT_BYTES_PER_PARAM,
                          **({"write_gb_s": bandwidth} if ask != "size" else {})}},
    )


# --- checkpoint-interval --------------------------------------------------

GPU_MTBF_HOURS = (25_000, 50_000, 100_000)
CHECKPOINT_SECONDS = (30, 60, 120, 300, 600)


def checkpoint_interval(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Young/Daly: checkpoint every sqrt(2·C·MTBF), with the cluster's MTBF = device MTBF / N."""
    rng = random.Random(ctx.seed)
    count = int(rng.choice(values(options, "gpu_counts", CLUSTERS)))
    device_hours = float(rng.choice(values(options, "device_mtbf_hours", GPU_MTBF_HOURS)))
    write = float(rng.choice(values(options, "checkpoint_seconds", CHECKPOINT_SECONDS)))
    mtbf = cluster_mtbf_seconds(device_hours * 3600, count)
    interval = young_daly_interval(write, mtbf)
    fields = {"count": ctx.num(count), "device_hours": ctx.num(device_hours),
              "write": ctx.num(write), "mtbf_h": ctx.num(mtbf / 3600, 4),
              "mtbf_s": ctx.num(mtbf, 5), "interval_s": ctx.num(interval, 4),
              "interval_min": ctx.shown(interval / 60)}
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.yd.prompt", **fields),
        explanation=join_steps(ctx.t("gen.yd.mtbf", **fields),
                               ctx.t("gen.yd.explain", **fields), ctx.t("gen.yd.why")),
        answer=significant(interval / 60), unit="min", tolerance=Tolerance(relative=0.02),
        params={"gpus": count, "device_mtbf_hours": device_hours, "checkpoint_seconds": write,
                "cluster_mtbf_seconds": mtbf,
                "given": {"count": count, "device_hours": device_hours, "write_s": write}},
    )


# --- weights-load-time ----------------------------------------------------

READ_GB_S = (5, 10, 13, 20, 40, 100)
"""Storage read bandwidths a server loads its weights from, in GB/s: 13 is a PCIe Gen5
enterprise NVMe drive's sequential read, the figure the storage post quotes (Samsung
PM1743: 13,000 MB/s read, 6,600 MB/s write,
https://www.clubic.com/pro/entreprises/samsung/actualite-400254-samsung-annonce-un-ssd-pci-5-0-atteignant-les-13-go-s-en-lecture-sequentielle.html);
the others are parameters of the problem."""
LOAD_DTYPES = ("bf16", "fp8")


def weights_load_time(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """A server starts by reading its weights: parameters × bytes / read bandwidth."""
    rng = random.Random(ctx.seed)
    models = entries(load_catalog().models, options, "models")
    dtypes = [str(d) for d in values(options, "dtypes", LOAD_DTYPES)]

    def draw(r: random.Random) -> tuple[Model, str, float]:
        return r.choice(models), r.choice(dtypes), float(r.choice(READ_GB_S))

    def seconds_of(d: tuple[Model, str, float]) -> float:
        return transfer_seconds(weights_bytes(d[0].params, d[1]), d[2] * GB)

    # a wait a learner notices: at least a second (a small model on fast storage is not)
    model, dtype, bandwidth = draw_until(rng, draw, lambda d: seconds_of(d) >= 1.0,
                                         "weights-load-time")
    size = weights_bytes(model.params, dtype)
    seconds = transfer_seconds(size, bandwidth * GB)
    fields = {"model": model_phrase(model, ctx), "params_b": ctx.num(model.params_b, 5),
              "dtype": dtype.upper(), "bytes": ctx.num(dtype_bytes(dtype)),
              "bytes_word": ctx.bytes_per(dtype_bytes(dtype)), "read": ctx.num(bandwidth),
              "size_gb": ctx.num(size / GB, 5), "seconds": ctx.shown(seconds)}
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.load.prompt", **fields),
        explanation=join_steps(ctx.t("gen.load.size_step", **fields),
                               ctx.t("gen.load.time_step", **fields),
                               ctx.t("gen.load.why"), ctx.t("gen.convention.gb")),
        answer=significant(seconds), unit="s", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "params": model.params, "dtype": dtype,
                "read_gb_s": bandwidth,
                "given": {"params_b": model.params_b, "bytes": dtype_bytes(dtype),
                          "read_gb_s": bandwidth}},
    )


def _load_seconds(given: Mapping[str, float], question: Question) -> float:
    """The audit's second computation: the stated size over the stated read bandwidth."""
    return transfer_seconds(given["params_b"] * 1e9 * given["bytes"], given["read_gb_s"] * GB)


TRAINING_DAYS = Family(
    name="training-days", post="trainium", kind=Kind.NUMERIC,
    description={"es": "Días de entrenamiento: 6·N·D FLOP en K chips con un MFU",
                 "en": "Training days: 6·N·D FLOPs on K chips at an MFU"},
    generate=drawn(training_days),
    options={"models": "model ids", "gpus": "accelerator ids", "tokens": "training tokens",
             "gpu_counts": "cluster sizes", "mfus": "model FLOPs utilisations"},
    slips=(SPARSE_TIME, FORWARD_ONLY, MFU_LEFT_OUT, MOE_TOTAL_COMPUTE),
)
TRAINING_MEMORY = Family(
    name="training-memory", post="hgx", kind=Kind.NUMERIC,
    description={"es": "Memoria por GPU al entrenar con Adam (16 B/parámetro) y ZeRO",
                 "en": "Per-GPU training memory with Adam (16 B/param) and ZeRO"},
    generate=drawn(training_memory),
    options={"models": "model ids", "zero_stages": "0-3", "gpu_counts": "data-parallel GPUs",
             "gpus": "accelerator ids the GPUs are drawn from"},
)
CHECKPOINT_WRITE = Family(
    name="checkpoint-write", post="storage-checkpoints", kind=Kind.NUMERIC,
    description={"es": "Tamaño de un checkpoint de entrenamiento y tiempo de escritura",
                 "en": "Size of a training checkpoint and its write time"},
    generate=drawn(checkpoint_write),
    options={"models": "model ids", "write_gb_s": "storage write GB/s", "ask": "size or time"},
    slips=(WEIGHTS_ONLY_CHECKPOINT,),
)
CHECKPOINT_INTERVAL = Family(
    name="checkpoint-interval", post="storage-checkpoints", kind=Kind.NUMERIC,
    description={"es": "Intervalo óptimo entre checkpoints (Young/Daly)",
                 "en": "Optimal checkpoint interval (Young/Daly)"},
    generate=drawn(checkpoint_interval),
    options={"gpu_counts": "cluster sizes", "device_mtbf_hours": "MTBF per GPU in hours",
             "checkpoint_seconds": "seconds to write one checkpoint"},
)

WEIGHTS_LOAD_TIME = Family(
    name="weights-load-time", post="storage-checkpoints", kind=Kind.NUMERIC,
    description={"es": "Tiempo de carga de los pesos al arrancar un servidor",
                 "en": "Time to load the weights when a server starts"},
    generate=drawn(weights_load_time),
    options={"models": "model ids", "dtypes": "weight dtypes"},
    slips=(*dtype_size("dtype"), BITS),
    recompute=_load_seconds,
)

STORAGE_FAMILIES = (CHECKPOINT_WRITE, CHECKPOINT_INTERVAL, WEIGHTS_LOAD_TIME)
"""The storage post's families, registered in this order (``families.FAMILIES``): a new
one is added here."""
