"""Scenario families of a training run: its FLOPs, days and memory, and its checkpoints."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, Model
from studyapp.infra import (
    checkpoint_bytes,
    checkpoint_overhead,
    cluster_mtbf_seconds,
    min_devices,
    training_flops,
    training_memory_bytes,
    training_seconds,
    transfer_seconds,
    usable_bytes,
    young_daly_interval,
)
from studyapp.infra.compute import ADAM_MIXED_BYTES_PER_PARAM
from studyapp.infra.shapes import active_params
from studyapp.infra.storage import CHECKPOINT_BYTES_PER_PARAM
from studyapp.infra.units import GB, TFLOPS
from studyapp.questions.generators.context import DrawContext
from studyapp.questions.generators.drawing import draw_until, entries
from studyapp.questions.generators.families.scenario_kit import (
    CLUSTER_WRITE_GB_S,
    EXACT,
    RATE,
    TRAIN_GPUS,
    TRAIN_MODELS,
    ZERO3_GROUPS,
    _gb,
    _models,
    _scenario,
    like,
)
from studyapp.questions.generators.families.terms import (
    capacity_fields,
    model_phrase,
)
from studyapp.questions.generators.families.training import (
    CHECKPOINT_WRITE,
    CLUSTERS,
    GPU_MTBF_HOURS,
    MFUS,
    TOKENS,
    TRAINING_DAYS,
)
from studyapp.questions.generators.slips import (
    FORWARD_ONLY,
)
from studyapp.questions.generators.wording import label
from studyapp.questions.model import Question
from studyapp.questions.scenario import NO_FAMILY, Step, run_chain

# --- scenario-training ------------------------------------------------------

TRAINING_STEPS = (
    Step("flops", lambda e: training_flops(e["active"], e["tokens"]), "FLOP",
         slips=(FORWARD_ONLY,), exercises=NO_FAMILY),
    like(TRAINING_DAYS, Step("days", lambda e: training_seconds(
        e["flops"], e["flops_per_gpu"], e["gpus"], e["mfu"]) / 86400, "days", uses=("flops",))),
    Step("state", lambda e: training_memory_bytes(e["params"], ADAM_MIXED_BYTES_PER_PARAM)
         / GB, "GB", exercises="training-memory"),
    Step("per_gpu", lambda e: e["state"] / e["dp"], "GB", uses=("state",),
         exercises="training-memory"),
    Step("min_gpus", lambda e: float(min_devices(e["state"] * GB, e["memory_bytes"])), "GPUs",
         uses=("state",), tolerance=EXACT, exercises=NO_FAMILY),
)


def training(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Train a model: 6·N·D, days on a cluster at an MFU, Adam state, ZeRO-3, fewest GPUs."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    models = _models(options, TRAIN_MODELS)
    default = [g for g in TRAIN_GPUS if g in catalog.accelerators]
    chips = entries(catalog.accelerators, {"gpus": default, **options}, "gpus")

    def draw(rng: random.Random) -> tuple[Model, Accelerator, float, int, float, int]:
        return (rng.choice(models), rng.choice(chips), rng.choice(TOKENS), rng.choice(CLUSTERS),
                rng.choice(MFUS), rng.choice(ZERO3_GROUPS))

    def shared_of(d: tuple[Model, Accelerator, float, int, float, int]) -> dict[str, Any]:
        model, chip, tokens, gpus, mfu, dp = d
        return {"params": model.params, "active": active_params(model), "tokens": tokens,
                "model": model.id,
                "flops_per_gpu": chip.bf16_dense_tflops * TFLOPS, "gpus": gpus, "mfu": mfu,
                "dp": dp, "memory_bytes": chip.memory_bytes}

    def plausible(d: tuple[Model, Accelerator, float, int, float, int]) -> bool:
        env = run_chain(TRAINING_STEPS, shared_of(d))
        # the ZeRO-3 group holds the state (a group too small "holds" more than the GPU
        # has), and the cluster has that group
        holds = env["per_gpu"] * GB <= usable_bytes(d[1].memory_bytes) and d[5] <= d[3]
        return bool(1 <= env["days"] <= 365 and env["min_gpus"] >= 2 and holds)

    d = draw_until(rng, draw, plausible, "scenario-training")
    model, chip, tokens, gpus, mfu, dp = d
    shared = shared_of(d)

    def fields(env: Mapping[str, Any]) -> dict[str, str]:
        return {"model": model_phrase(model, ctx), "gpu": label(chip.name),
                "active_b": ctx.num(env["active"] / 1e9, 5),
                "params_b": ctx.num(model.params_b, 5), "tokens": ctx.sci(tokens),
                "count": ctx.num(gpus), "mfu": ctx.num(mfu * 100),
                "tflops": ctx.num(chip.bf16_dense_tflops, 5), "dp": ctx.num(dp),
                "flops": ctx.sci(env["flops"], 4),
                "rate": ctx.sci(env["flops_per_gpu"] * gpus * mfu, 4),
                "seconds": ctx.sci(env["days"] * 86400, 4),
                **capacity_fields(chip, ctx),
                "usable_gb": ctx.shown(usable_bytes(chip.memory_bytes) / GB),
                "min_gpus": ctx.num(env["min_gpus"]),
                **_gb(env, ctx, "days", "state", "per_gpu")}

    return _scenario(ctx, texts="training",
                     steps=TRAINING_STEPS, shared=shared, fields=fields,
                     params={"model": model.id, "gpu": chip.id, "tokens": tokens, "gpus": gpus,
                             "mfu": mfu, "data_parallel": dp})


# --- scenario-checkpoint ----------------------------------------------------


def _lost_hours(e: Mapping[str, Any]) -> float:
    """Hours a day spent writing checkpoints plus, on average, half an interval redone per
    failure: 24 × (C/τ + τ/(2·MTBF)), the waste Young's formula minimises."""
    return 24.0 * checkpoint_overhead(float(e["write"]), float(e["interval"]) * 60,
                                      float(e["mtbf"]) * 3600)


CHECKPOINT_STEPS = (
    like(CHECKPOINT_WRITE, Step("size", lambda e: checkpoint_bytes(
        e["params"], CHECKPOINT_BYTES_PER_PARAM) / GB, "GB")),
    Step("write", lambda e: transfer_seconds(e["size"] * GB, e["write_gb_s"] * GB), "s",
         uses=("size",), exercises="checkpoint-write"),
    Step("mtbf", lambda e: cluster_mtbf_seconds(e["device_hours"] * 3600, e["gpus"]) / 3600,
         "h", exercises=NO_FAMILY),
    Step("interval", lambda e: young_daly_interval(e["write"], e["mtbf"] * 3600) / 60, "min",
         uses=("write", "mtbf"), exercises="checkpoint-interval"),
    Step("lost", _lost_hours, "h", uses=("write", "mtbf", "interval"), tolerance=RATE,
         exercises=NO_FAMILY),
)


def checkpointing(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Checkpoint a training run: size, write time, cluster MTBF, Young/Daly, hours lost a day."""
    rng = random.Random(ctx.seed)
    models = _models(options, TRAIN_MODELS)

    def draw(rng: random.Random) -> tuple[Model, float, int, float]:
        return (rng.choice(models), float(rng.choice(CLUSTER_WRITE_GB_S)), rng.choice(CLUSTERS),
                float(rng.choice(GPU_MTBF_HOURS)))

    def shared_of(d: tuple[Model, float, int, float]) -> dict[str, Any]:
        return {"params": d[0].params, "write_gb_s": d[1], "gpus": d[2], "device_hours": d[3],
                "bytes_per_param": CHECKPOINT_BYTES_PER_PARAM}

    def plausible(d: tuple[Model, float, int, float]) -> bool:
        env = run_chain(CHECKPOINT_STEPS, shared_of(d))
        return bool(5 <= env["write"] <= 0.1 * env["interval"] * 60 and env["lost"] < 6)

    d = draw_until(rng, draw, plausible, "scenario-checkpoint")
    model, bandwidth, gpus, device_hours = d
    shared = shared_of(d)

    def fields(env: Mapping[str, Any]) -> dict[str, str]:
        return {"model": model_phrase(model, ctx), "params_b": ctx.num(model.params_b, 5),
                "bytes": ctx.num(CHECKPOINT_BYTES_PER_PARAM), "write_gb_s": ctx.num(bandwidth),
                "count": ctx.num(gpus), "device_hours": ctx.num(device_hours),
                "mtbf_s": ctx.num(env["mtbf"] * 3600, 5),
                "interval_s": ctx.num(env["interval"] * 60, 4),
                "writing_h": ctx.shown(24 * env["write"] / (env["interval"] * 60)),
                "rework_h": ctx.shown(24 * env["interval"] * 60 / (2 * env["mtbf"] * 3600)),
                **_gb(env, ctx, "size", "write", "mtbf", "interval", "lost")}

    return _scenario(ctx, texts="checkpoint", steps=CHECKPOINT_STEPS, shared=shared, fields=fields,
                     params={"model": model.id, "write_gb_s": bandwidth, "gpus": gpus,
                             "device_mtbf_hours": device_hours})
