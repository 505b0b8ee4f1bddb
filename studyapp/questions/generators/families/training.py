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
from studyapp.i18n import t
from studyapp.infra import (
    checkpoint_bytes,
    cluster_mtbf_seconds,
    training_flops,
    training_memory_bytes,
    training_seconds,
    transfer_seconds,
    young_daly_interval,
)
from studyapp.infra.compute import ADAM_MIXED_BYTES_PER_PARAM
from studyapp.infra.storage import CHECKPOINT_BYTES_PER_PARAM
from studyapp.infra.units import GB, TB, TFLOPS
from studyapp.questions.generators import Family
from studyapp.questions.generators.drawing import draw_until, entries, values
from studyapp.questions.generators.families.terms import model_phrase
from studyapp.questions.generators.slips import SPARSE_TIME
from studyapp.questions.generators.wording import join_steps, label, num, sci, shown, significant
from studyapp.questions.model import Kind, Question, Tolerance

TOKENS = (0.3e12, 1e12, 2e12, 5e12, 15e12)
CLUSTERS = (256, 512, 1024, 2048, 4096, 8192, 16384)
MFUS = (0.3, 0.35, 0.4, 0.5)


def training_params(model: Model) -> float:
    """Parameters that compute per token: the active ones for a mixture of experts."""
    return (model.active_params_b or model.params_b) * 1e9


# --- training-days --------------------------------------------------------


def training_days(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """6·N·D FLOPs over K chips at an MFU, in days."""
    rng = random.Random(seed)
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
        flops = training_flops(training_params(d[0]), d[2])
        return training_seconds(flops, d[1].bf16_dense_tflops * TFLOPS, d[3], d[4]) / 86400

    d = draw_until(rng, draw, lambda d: 1 <= days(d) <= 365, "training-days")
    model, chip, tokens, count, mfu = d
    n = training_params(model)
    flops = training_flops(n, tokens)
    answer = days(d)
    trillion = "gen.train.trillion_one" if tokens == 1e12 else "gen.train.trillion"
    fields = {"model": model_phrase(model, lang), "params_b": num(n / 1e9, lang, 5),
              "tokens": sci(tokens, lang), "tokens_t": num(tokens / 1e12, lang, 3),
              "tokens_words": t(trillion, lang, n=num(tokens / 1e12, lang, 3)),
              "gpu": label(chip.name), "count": num(count, lang), "mfu": num(mfu * 100, lang),
              "tflops": num(chip.bf16_dense_tflops, lang, 5), "flops": sci(flops, lang, 4),
              "rate": sci(chip.bf16_dense_tflops * TFLOPS * count * mfu, lang, 4),
              "seconds": sci(answer * 86400, lang), "day_s": num(86400, lang),
              "days": shown(answer, lang)}
    moe = t("gen.train.moe", lang, model=label(model.name), active_b=num(n / 1e9, lang, 5),
            total_b=num(model.params_b, lang, 5)) if model.active_params_b else ""
    return Question(
        kind=Kind.NUMERIC, post="intro", family="training-days", seed=seed, lang=lang,
        prompt=t("gen.train.prompt", lang, **fields),
        explanation=join_steps(moe, t("gen.train.explain", lang, **fields),
                               t("gen.train.why", lang), t("gen.convention.dense", lang)),
        answer=significant(answer), unit="days", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "params": n, "tokens": tokens, "gpu": chip.id,
                "gpus": count, "mfu": mfu,
                "given": {"active_b": n / 1e9, "tokens_t": tokens / 1e12, "count": count,
                          "tflops": chip.bf16_dense_tflops, "mfu": mfu}},
    )


# --- training-memory ------------------------------------------------------

ZERO_STAGES = (0, 1, 2, 3)
DATA_PARALLEL = (8, 16, 64)


def training_memory(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Mixed-precision Adam keeps 16 B/param; ZeRO shards 12, then 2 more, then the last 2."""
    rng = random.Random(seed)
    model = rng.choice(entries(load_catalog().models, options, "models"))
    stage = int(rng.choice(values(options, "zero_stages", ZERO_STAGES)))
    devices = int(rng.choice(values(options, "gpu_counts", DATA_PARALLEL)))
    per_device = training_memory_bytes(model.params, ADAM_MIXED_BYTES_PER_PARAM, stage, devices)
    weights, grads, optimizer = 2.0, 2.0, ADAM_MIXED_BYTES_PER_PARAM - 4.0
    if stage >= 1:
        optimizer /= devices
    if stage >= 2:
        grads /= devices
    if stage >= 3:
        weights /= devices
    fields = {**{"model": model_phrase(model, lang), "params_b": num(model.params_b, lang, 5)},
              "stage": stage, "devices": num(devices, lang),
              "w": num(weights, lang, 3), "g": num(grads, lang, 3), "o": num(optimizer, lang, 3),
              "per_param": num(weights + grads + optimizer, lang, 4),
              "answer": shown(per_device / GB, lang)}
    return Question(
        kind=Kind.NUMERIC, post="hgx", family="training-memory", seed=seed, lang=lang,
        prompt=t("gen.trainmem.prompt", lang, **fields),
        explanation=join_steps(t("gen.trainmem.bytes", lang),
                               t(f"gen.trainmem.zero{stage}", lang, **fields),
                               t("gen.trainmem.explain", lang, **fields),
                               t("gen.trainmem.why", lang), t("gen.convention.gb", lang)),
        answer=significant(per_device / GB), unit="GB", tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "params": model.params, "zero_stage": stage,
                "devices": devices, "bytes_per_param": ADAM_MIXED_BYTES_PER_PARAM,
                "given": {"params_b": model.params_b, "w_bytes": 2.0, "g_bytes": 2.0,
                          "o_bytes": ADAM_MIXED_BYTES_PER_PARAM - 4.0, "stage": stage,
                          "devices": devices}},
    )


# --- checkpoint-write -----------------------------------------------------

WRITE_GB_S = (5, 10, 20, 50, 100, 200, 500)


def checkpoint_write(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Weights + FP32 master + Adam m and v = 14 B/param; size / bandwidth = write time."""
    rng = random.Random(seed)
    model = rng.choice(entries(load_catalog().models, options, "models"))
    bandwidth = float(rng.choice(values(options, "write_gb_s", WRITE_GB_S)))
    ask = str(rng.choice(values(options, "ask", ("size", "time", "time"))))
    size = checkpoint_bytes(model.params, CHECKPOINT_BYTES_PER_PARAM)
    seconds = transfer_seconds(size, bandwidth * GB)
    in_minutes = seconds >= 300
    time_value = seconds / 60 if in_minutes else seconds
    in_tb = size >= 1 * TB
    size_value = size / TB if in_tb else size / GB
    fields = {"model": model_phrase(model, lang), "params_b": num(model.params_b, lang, 5),
              "write": num(bandwidth, lang), "size": shown(size_value, lang),
              "size_unit": "TB" if in_tb else "GB", "size_gb": num(size / GB, lang, 5),
              "size_tb": (f" = {shown(size_value, lang)} TB" if in_tb
                          else f" ≈ {shown(size_value, lang)} GB"
                          if shown(size_value, lang) != num(size / GB, lang, 5) else ""),
              "unit_def": "1 TB = 10^12 bytes" if in_tb else "1 GB = 10^9 bytes",
              "seconds": num(seconds, lang, 4) if in_minutes else shown(seconds, lang),
              "time": shown(time_value, lang),
              "time_unit": "min" if in_minutes else "s",
              "time_word": t("gen.word.min" if in_minutes else "gen.word.s", lang)}
    if ask == "size":
        answer, unit, prompt = size_value, fields["size_unit"], "gen.ckpt.size_prompt"
    else:
        answer, unit, prompt = time_value, fields["time_unit"], "gen.ckpt.time_prompt"
    return Question(
        kind=Kind.NUMERIC, post="storage-checkpoints", family="checkpoint-write", seed=seed,
        lang=lang, prompt=t(prompt, lang, **fields),
        explanation=join_steps(t("gen.ckpt.size_step", lang, **fields),
                               "" if ask == "size" else t("gen.ckpt.time_step", lang, **fields),
                               t("gen.ckpt.time_minutes", lang, **fields)
                               if ask != "size" and in_minutes else "",
                               t("gen.ckpt.why", lang), t("gen.convention.gb", lang)),
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


def checkpoint_interval(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Young/Daly: checkpoint every sqrt(2·C·MTBF), with the cluster's MTBF = device MTBF / N."""
    rng = random.Random(seed)
    count = int(rng.choice(values(options, "gpu_counts", CLUSTERS)))
    device_hours = float(rng.choice(values(options, "device_mtbf_hours", GPU_MTBF_HOURS)))
    write = float(rng.choice(values(options, "checkpoint_seconds", CHECKPOINT_SECONDS)))
    mtbf = cluster_mtbf_seconds(device_hours * 3600, count)
    interval = young_daly_interval(write, mtbf)
    fields = {"count": num(count, lang), "device_hours": num(device_hours, lang),
              "write": num(write, lang), "mtbf_h": num(mtbf / 3600, lang, 4),
              "mtbf_s": num(mtbf, lang, 5), "interval_s": num(interval, lang, 4),
              "interval_min": shown(interval / 60, lang)}
    return Question(
        kind=Kind.NUMERIC, post="storage-checkpoints", family="checkpoint-interval", seed=seed,
        lang=lang, prompt=t("gen.yd.prompt", lang, **fields),
        explanation=join_steps(t("gen.yd.mtbf", lang, **fields),
                               t("gen.yd.explain", lang, **fields), t("gen.yd.why", lang)),
        answer=significant(interval / 60), unit="min", tolerance=Tolerance(relative=0.02),
        params={"gpus": count, "device_mtbf_hours": device_hours, "checkpoint_seconds": write,
                "cluster_mtbf_seconds": mtbf,
                "given": {"count": count, "device_hours": device_hours, "write_s": write}},
    )


TRAINING_DAYS = Family(
    name="training-days", post="intro", kind=Kind.NUMERIC,
    description={"es": "Días de entrenamiento: 6·N·D FLOP en K chips con un MFU",
                 "en": "Training days: 6·N·D FLOPs on K chips at an MFU"},
    generate=training_days,
    options={"models": "model ids", "gpus": "accelerator ids", "tokens": "training tokens",
             "gpu_counts": "cluster sizes", "mfus": "model FLOPs utilisations"},
    slips=(SPARSE_TIME,),
)
TRAINING_MEMORY = Family(
    name="training-memory", post="hgx", kind=Kind.NUMERIC,
    description={"es": "Memoria por GPU al entrenar con Adam (16 B/parámetro) y ZeRO",
                 "en": "Per-GPU training memory with Adam (16 B/param) and ZeRO"},
    generate=training_memory,
    options={"models": "model ids", "zero_stages": "0-3", "gpu_counts": "data-parallel GPUs"},
)
CHECKPOINT_WRITE = Family(
    name="checkpoint-write", post="storage-checkpoints", kind=Kind.NUMERIC,
    description={"es": "Tamaño de un checkpoint de entrenamiento y tiempo de escritura",
                 "en": "Size of a training checkpoint and its write time"},
    generate=checkpoint_write,
    options={"models": "model ids", "write_gb_s": "storage write GB/s", "ask": "size or time"},
)
CHECKPOINT_INTERVAL = Family(
    name="checkpoint-interval", post="storage-checkpoints", kind=Kind.NUMERIC,
    description={"es": "Intervalo óptimo entre checkpoints (Young/Daly)",
                 "en": "Optimal checkpoint interval (Young/Daly)"},
    generate=checkpoint_interval,
    options={"gpu_counts": "cluster sizes", "device_mtbf_hours": "MTBF per GPU in hours",
             "checkpoint_seconds": "seconds to write one checkpoint"},
)
