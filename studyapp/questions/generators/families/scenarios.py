"""Scenario families: capacity-planning problems in steps, each step from the calculator.

A practitioner's question chains the one-step families: serve a model to N
users on a node (weights, KV per user, total, fewest GPUs, decode rate, the
bound), the longest context a node holds, a training run, its checkpoints,
its gradient all-reduce, and the cost of a million tokens. Each family draws
from the catalog until the answer is a real deployment, computes every step
with ``studyapp.infra`` and writes the worked chain; grading marks a step
also against the learner's own earlier answers (error carried forward).
"""
from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Model, System
from studyapp.infra import (
    dtype_bytes,
    kv_bytes_per_token,
    usable_bytes,
    usd_per_million_tokens,
    weights_bytes,
)
from studyapp.infra.collectives import ring_factor
from studyapp.infra.shapes import active_params, kv_shape
from studyapp.infra.units import GB, TFLOPS
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext, DrawFn, drawn
from studyapp.questions.generators.drawing import draw_until, values
from studyapp.questions.generators.families.gradient_exchange import (
    ALLREDUCE_STEPS,
    exchange_fields,
    shared_params,
)
from studyapp.questions.generators.families.memory import (
    KV_CACHE_PER_TOKEN,
    WEIGHTS_SIZE,
)
from studyapp.questions.generators.families.scenario_kit import (
    EXACT,
    GPU_HOUR_DOLLARS,
    GRADIENT_DTYPE,
    LONG_CONTEXTS,
    NODE_SYSTEMS,
    NODES,
    RATE,
    SERVE_CONTEXTS,
    SERVE_MODELS,
    SERVE_USERS,
    TENSOR_PARALLEL,
    TRAIN_GPUS,
    TRAIN_MODELS,
    _gb,
    _models,
    _scenario,
    _systems,
    decode_step_seconds,
    dense_flops,
    like,
    tensor_parallel,
)
from studyapp.questions.generators.families.terms import (
    capacity_fields,
    kv_formula,
    kv_shape_fields,
    model_phrase,
)
from studyapp.questions.generators.families.training_scenarios import (
    CHECKPOINT_STEPS,
    TRAINING_STEPS,
    checkpointing,
    training,
)
from studyapp.questions.generators.wording import label
from studyapp.questions.model import Kind, Question
from studyapp.questions.scenario import NO_FAMILY, Step, run_chain

__all__ = [  # the pools and arithmetic other families and tests read from here
    "EXACT", "GPU_HOUR_DOLLARS", "GRADIENT_DTYPE", "LONG_CONTEXTS", "NODES", "NODE_SYSTEMS",
    "RATE", "SCENARIOS", "SERVE_CONTEXTS", "SERVE_MODELS", "SERVE_USERS", "TENSOR_PARALLEL",
    "TRAIN_GPUS", "TRAIN_MODELS", "decode_step_seconds", "dense_flops", "like", "tensor_parallel",
]


# --- scenario-serving -------------------------------------------------------

def _serving_times(e: Mapping[str, Any]) -> tuple[float, float]:
    """Memory and compute time of a decode step: every weight and KV byte of the batch, read
    across the tensor-parallel group."""
    return decode_step_seconds(e["total"] * GB, e["bandwidth"] * e["gpus"], e["active"],
                               e["users"], e["flops"] * e["gpus"])


def _bound(e: Mapping[str, Any]) -> str:
    memory, compute = _serving_times(e)
    return str(e["bound_words"][0 if memory >= compute else 1])


SERVING_STEPS = (
    like(WEIGHTS_SIZE, Step("weights", lambda e: weights_bytes(e["params"], e["dtype"]) / GB,
                            "GB")),
    like(KV_CACHE_PER_TOKEN, Step("kv_user", lambda e: e["kv_per_token"] * e["context"] / GB,
                                  "GB")),
    Step("total", lambda e: e["weights"] + e["users"] * e["kv_user"], "GB",
         uses=("weights", "kv_user"), exercises=NO_FAMILY),
    Step("gpus", lambda e: tensor_parallel(e["total"], e["memory_bytes"]), "GPUs",
         uses=("total",), tolerance=EXACT, exercises="min-gpus"),
    Step("per_user", lambda e: 1.0 / max(_serving_times(e)), "tokens/s",
         uses=("total", "gpus"), tolerance=RATE, exercises=NO_FAMILY),
    Step("bound", _bound, uses=("total", "gpus"), exercises=NO_FAMILY),
)


def _bound_words(ctx: DrawContext) -> tuple[str, str]:
    return ctx.t("scen.bound.memory"), ctx.t("scen.bound.compute")


def _serving_steps(ctx: DrawContext) -> tuple[Step, ...]:
    from dataclasses import replace

    return (*SERVING_STEPS[:-1], replace(SERVING_STEPS[-1], choices=_bound_words(ctx)))


def serving(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Serve a model to N users at a context on one node: size, GPUs, rate, bound."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    systems = _systems(options)
    models = _models(options, SERVE_MODELS)
    users_list = [int(x) for x in values(options, "users", SERVE_USERS)]
    contexts = [int(x) for x in values(options, "contexts", SERVE_CONTEXTS)]

    def draw(rng: random.Random) -> tuple[System, Model, str, int, int]:
        system = rng.choice(systems)
        chip = catalog.accelerators[system.accelerator]
        dtypes = ["bf16", "fp8"] if chip.fp8_dense_tflops else ["bf16"]
        return (system, rng.choice(models), rng.choice(dtypes), rng.choice(users_list),
                rng.choice(contexts))

    def shared_of(d: tuple[System, Model, str, int, int]) -> dict[str, Any]:
        system, model, dtype, users, context = d
        chip = catalog.accelerators[system.accelerator]
        return {"params": model.params, "dtype": dtype, "users": users, "context": context,
                "attention": model.attention, "kv_dtype": dtype, "model": model.id,
                "kv_per_token": kv_bytes_per_token(kv_shape(model), dtype),
                "memory_bytes": chip.memory_bytes, "bandwidth": chip.bandwidth_bytes_s,
                "flops": dense_flops(chip, dtype), "active": active_params(model),
                "bound_words": _bound_words(ctx), "node_gpus": system.gpus}

    def plausible(d: tuple[System, Model, str, int, int]) -> bool:
        env = run_chain(SERVING_STEPS[:4], shared_of(d))
        # a mixture of experts reads every expert only at a large batch (32 users: 99.99%
        # of Mixtral's); below that the step would read fewer bytes than "total" says
        many = d[1].experts is None or d[3] >= 32
        return many and d[4] <= d[1].context_length and 2 <= env["gpus"] <= d[0].gpus

    d = draw_until(rng, draw, plausible, "scenario-serving")
    system, model, dtype, users, context = d
    chip = catalog.accelerators[system.accelerator]
    shared = shared_of(d)

    def fields(env: Mapping[str, Any]) -> dict[str, str]:
        memory, compute = _serving_times(env)
        return {"model": model_phrase(model, ctx), "system": label(system.name),
                "gpu": label(chip.name), "node_gpus": ctx.num(system.gpus),
                "dtype": dtype.upper(), "bytes": ctx.num(dtype_bytes(dtype)),
                "users": ctx.num(users), "context": ctx.num(context),
                "params_b": ctx.num(model.params_b, 5),
                "per_token": ctx.num(env["kv_per_token"], 6),
                "shape": kv_shape_fields(model, dtype, ctx)[0],
                "bytes_word": ctx.bytes_per(dtype_bytes(dtype)),
                "kv_formula": kv_formula(model, dtype, ctx),
                **capacity_fields(chip, ctx),
                "usable_gb": ctx.shown(usable_bytes(chip.memory_bytes) / GB),
                "ratio": ctx.num(env["total"] * GB / usable_bytes(chip.memory_bytes), 4),
                "bandwidth": ctx.num(chip.memory_bandwidth_tb_s, 4),
                "tflops": ctx.num(env["flops"] / TFLOPS, 5),
                "active_b": ctx.num(env["active"] / 1e9, 5),
                "memory_ms": ctx.num(memory * 1e3, 3), "compute_ms": ctx.num(compute * 1e3, 3),
                "gpus": ctx.num(env["gpus"]), "bound": str(env["bound"]),
                **_gb(env, ctx, "weights", "kv_user", "total", "per_user")}

    return _scenario(ctx, texts="serving",
                     steps=_serving_steps(ctx), shared=shared, fields=fields,
                     params={"system": system.id, "gpu": chip.id, "model": model.id,
                             "dtype": dtype, "users": users, "context": context})


# --- scenario-long-context --------------------------------------------------

LONG_STEPS = (
    like(KV_CACHE_PER_TOKEN, Step("kv_seq", lambda e: e["kv_per_token"] * e["context"] / GB,
                                  "GB")),
    Step("free", lambda e: (e["usable"] - e["weights_bytes"]) / GB, "GB",
         exercises=NO_FAMILY),
    Step("batch", lambda e: float(math.floor(e["free"] / e["kv_seq"] + 1e-9)), "sequences",
         uses=("kv_seq", "free"), tolerance=EXACT, exercises="max-context-that-fits"),
    Step("fp8_batch", lambda e: float(math.floor(
        e["free"] / (e["kv_seq"] * dtype_bytes("fp8") / dtype_bytes("bf16")) + 1e-9)),
         "sequences", uses=("kv_seq", "free"), tolerance=EXACT,
         exercises="max-context-that-fits",
         # the BF16 batch, already rounded down, doubled: as the step's method reads
         rounding=lambda e: 2.0 * float(e["batch"])),
)


def long_context(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """The largest batch at a long context on one node, and what an FP8 KV cache buys."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    systems = _systems(options)
    models = _models(options, ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b",
                               "llama-3.1-405b", "mixtral-8x7b"))
    contexts = [int(x) for x in values(options, "contexts", LONG_CONTEXTS)]

    def draw(rng: random.Random) -> tuple[System, Model, int]:
        return rng.choice(systems), rng.choice(models), rng.choice(contexts)

    def shared_of(d: tuple[System, Model, int]) -> dict[str, Any]:
        system, model, context = d
        chip = catalog.accelerators[system.accelerator]
        dtype = "fp8" if model.params_b > 200 else "bf16"
        return {"context": context, "weights_dtype": dtype, "attention": model.attention,
                "kv_dtype": "bf16", "model": model.id,
                "kv_per_token": kv_bytes_per_token(kv_shape(model), "bf16"),
                "weights_bytes": weights_bytes(model.params, dtype),
                "usable": usable_bytes(chip.memory_bytes, system.gpus)}

    def plausible(d: tuple[System, Model, int]) -> bool:
        env = run_chain(LONG_STEPS, shared_of(d))
        return d[2] <= d[1].context_length and 1 <= env["batch"] <= 400

    d = draw_until(rng, draw, plausible, "scenario-long-context")
    system, model, context = d
    chip = catalog.accelerators[system.accelerator]
    shared = shared_of(d)

    def fields(env: Mapping[str, Any]) -> dict[str, str]:
        return {"model": model_phrase(model, ctx), "system": label(system.name),
                "gpu": label(chip.name), "node_gpus": ctx.num(system.gpus),
                "context": ctx.num(context), "wdtype": str(env["weights_dtype"]).upper(),
                "per_token": ctx.num(env["kv_per_token"], 6),
                "shape": kv_shape_fields(model, "bf16", ctx)[0],
                "kv_formula": kv_formula(model, "bf16", ctx),
                "params_b": ctx.num(model.params_b, 5),
                "wbytes": ctx.num(dtype_bytes(str(env["weights_dtype"]))),
                "wbytes_word": ctx.bytes_per(dtype_bytes(str(env["weights_dtype"]))),
                **capacity_fields(chip, ctx),
                "per_gpu_gb": ctx.num(usable_bytes(chip.memory_bytes) / GB, 4),
                "usable_gb": ctx.num(env["usable"] / GB, 4),
                "weights_gb": ctx.shown(env["weights_bytes"] / GB),
                "batch": ctx.num(env["batch"]), "fp8_batch": ctx.num(env["fp8_batch"]),
                "fp8_kv": ctx.shown(env["kv_seq"] / 2),
                **_gb(env, ctx, "kv_seq", "free")}

    return _scenario(ctx, texts="long-context",
                     steps=LONG_STEPS, shared=shared, fields=fields,
                     params={"system": system.id, "gpu": chip.id, "model": model.id,
                             "context": context, "weights_dtype": shared["weights_dtype"]})


# --- scenario-allreduce -----------------------------------------------------


def _links(ctx: DrawContext) -> tuple[str, str]:
    return ctx.t("scen.link.nvlink"), ctx.t("scen.link.infiniband")


def _node_systems(options: Mapping[str, Any]) -> list[System]:
    """Nodes whose network cards the catalog lists, joined by NVLink."""
    return [s for s in _systems(options) if s.nics_per_node and s.nic_gbit_s
            and (s.interconnect or "").startswith("nvlink")]


def allreduce(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """All-reduce the gradients inside a node over NVLink, then across nodes, as NCCL runs
    them: one ring per network card, α–β time (``gradient_exchange``)."""
    from dataclasses import replace

    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    systems = _node_systems(options) or _node_systems({})
    models = _models(options, TRAIN_MODELS)
    system, model, nodes = rng.choice(systems), rng.choice(models), rng.choice(NODES)
    full = system.nics_per_node or 1
    cards = rng.choice((full, full, 1))  # one card per node: the case the network dominates
    link = catalog.interconnects[system.interconnect or "nvlink-4"]
    card = next(i for i in catalog.interconnects.by_id.values()
                if i.kind == "scale-out" and i.id.startswith("ib-")
                and i.gbit_s == system.nic_gbit_s)
    chip = catalog.accelerators[system.accelerator]
    shared = {**shared_params(system, link, card, cards, nodes, model.params, _links(ctx)),
              "model": model.id}
    steps = (*ALLREDUCE_STEPS[:-1], replace(ALLREDUCE_STEPS[-1], choices=_links(ctx)))

    def fields(env: Mapping[str, Any]) -> dict[str, str]:
        x = exchange_fields(env)
        words = {"model": model_phrase(model, ctx), "system": label(system.name),
                 "gpu": label(chip.name), "node_gpus": ctx.num(system.gpus),
                 "nodes": ctx.num(nodes), "all_gpus": ctx.num(system.gpus * nodes),
                 "link": label(link.name), "link_gb_s": ctx.num(link.bandwidth_gb_s),
                 "nvlink_bw": ctx.num(env["nvlink_bw"] / GB),
                 "ib_name": label(card.name), "ib_gbit": ctx.num(system.nic_gbit_s or 0),
                 "cards": ctx.num(cards), "card_gb_s": ctx.num(x["card_gb_s"], 4),
                 "eff_pct": ctx.num(x["eff"] * 100, 3),
                 "card_eff_pct": ctx.num(x["card_eff"] * 100, 3),
                 "nvlink_bus": ctx.num(x["nvlink_bus"], 3), "net_bus": ctx.num(x["net_bus"], 3),
                 "bus": ctx.num(x["bus"], 3), "lat_in": ctx.num(x["lat_in"], 3),
                 "lat_out": ctx.num(x["lat_out"], 3),
                 "node_factor": ctx.num(ring_factor(system.gpus), 4),
                 "all_factor": ctx.num(ring_factor(system.gpus * nodes), 4),
                 "params_b": ctx.num(model.params_b, 5), "dominates": str(env["dominates"]),
                 **_gb(env, ctx, "grads", "nvlink", "ib", "ratio")}
        words["card_count"] = ctx.t("scen.allreduce.cards_one" if cards == 1
                                    else "scen.allreduce.cards_many", **words)
        words["one_card_ratio"] = ctx.num(x["one_card_ratio"], 3)
        why = ("why_nvlink" if not x["network_bound"]
               else "why_one_card" if cards == 1 else "why_network")
        words["why"] = ctx.t(f"scen.allreduce.{why}", **words)
        if cards > 1 and link.id == "nvlink-4":  # measured with NVLS: nearer 1.3x than this
            words["why"] += " " + ctx.t("scen.allreduce.nvls")
        return words

    return _scenario(ctx, texts="allreduce", steps=steps, shared=shared, fields=fields,
                     params={"system": system.id, "model": model.id, "nodes": nodes,
                             "link": link.id, "ib": card.id, "cards": cards})


# --- scenario-cost ----------------------------------------------------------


def _cost_step(e: Mapping[str, Any]) -> float:
    memory, compute = decode_step_seconds((e["weights"] + e["kv_total"]) * GB,
                                          e["bandwidth"] * e["gpus"], e["active"], e["batch"],
                                          e["flops"] * e["gpus"])
    return float(e["batch"]) / max(memory, compute)


COST_STEPS = (
    like(WEIGHTS_SIZE, Step("weights", lambda e: weights_bytes(e["params"], e["dtype"]) / GB,
                            "GB")),
    Step("gpus", lambda e: tensor_parallel(e["weights"] + e["kv_total"], e["memory_bytes"]),
         "GPUs", uses=("weights",), tolerance=EXACT, exercises="min-gpus"),
    Step("throughput", _cost_step, "tokens/s", uses=("weights", "gpus"), tolerance=RATE,
         exercises=NO_FAMILY),
    Step("hourly", lambda e: e["gpus"] * e["price"], "USD/h", uses=("gpus",),
         exercises=NO_FAMILY),
    Step("per_million", lambda e: usd_per_million_tokens(e["hourly"], e["throughput"]),
         "USD", uses=("throughput", "hourly"), tolerance=RATE, exercises=NO_FAMILY),
)


def cost(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Dollars per million tokens: GPUs for the batch, node throughput, price per GPU-hour."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    systems = _systems(options)
    models = _models(options, ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b",
                               "llama-3.1-405b"))

    def draw(rng: random.Random) -> tuple[System, Model, str, int, int, float]:
        system = rng.choice(systems)
        chip = catalog.accelerators[system.accelerator]
        dtypes = ["bf16", "fp8"] if chip.fp8_dense_tflops else ["bf16"]
        return (system, rng.choice(models), rng.choice(dtypes), rng.choice(SERVE_USERS),
                rng.choice((2048, 4096, 8192)), rng.choice(GPU_HOUR_DOLLARS))

    def shared_of(d: tuple[System, Model, str, int, int, float]) -> dict[str, Any]:
        system, model, dtype, batch, context, price = d
        chip = catalog.accelerators[system.accelerator]
        kv = kv_bytes_per_token(kv_shape(model), dtype) * context * batch
        return {"params": model.params, "dtype": dtype, "batch": batch, "context": context,
                "model": model.id, "kv_total": kv / GB, "memory_bytes": chip.memory_bytes,
                "bandwidth": chip.bandwidth_bytes_s, "flops": dense_flops(chip, dtype),
                "active": active_params(model), "price": price}

    def plausible(d: tuple[System, Model, str, int, int, float]) -> bool:
        env = run_chain(COST_STEPS, shared_of(d))
        # a mixture of experts reads (nearly) every expert only at a batch of 32 or more,
        # as the throughput step assumes; below that it reads fewer bytes
        many = d[1].experts is None or d[3] >= 32
        return bool(many and env["gpus"] <= d[0].gpus)

    d = draw_until(rng, draw, plausible, "scenario-cost")
    system, model, dtype, batch, context, price = d
    chip = catalog.accelerators[system.accelerator]
    shared = shared_of(d)

    def fields(env: Mapping[str, Any]) -> dict[str, str]:
        memory, compute = decode_step_seconds((env["weights"] + env["kv_total"]) * GB,
                                              env["bandwidth"] * env["gpus"], env["active"],
                                              batch, env["flops"] * env["gpus"])
        return {"model": model_phrase(model, ctx), "system": label(system.name),
                "gpu": label(chip.name), "node_gpus": ctx.num(system.gpus),
                "dtype": dtype.upper(), "bytes": ctx.num(dtype_bytes(dtype)),
                "batch": ctx.num(batch), "context": ctx.num(context),
                "params_b": ctx.num(model.params_b, 5),
                "kv_total": ctx.shown(env["kv_total"]), "price": ctx.num(price),
                **capacity_fields(chip, ctx),
                "usable_gb": ctx.shown(usable_bytes(chip.memory_bytes) / GB),
                "bandwidth": ctx.num(chip.memory_bandwidth_tb_s, 4),
                "tflops": ctx.num(env["flops"] / TFLOPS, 5),
                "active_b": ctx.num(env["active"] / 1e9, 5),
                "memory_ms": ctx.num(memory * 1e3, 3), "compute_ms": ctx.num(compute * 1e3, 3),
                "gpus": ctx.num(env["gpus"]),
                "all_gb": ctx.shown(env["weights"] + env["kv_total"]),
                "ratio": ctx.num((env["weights"] + env["kv_total"]) * GB
                                 / usable_bytes(chip.memory_bytes), 4),
                "step_ms": ctx.num(max(memory, compute) * 1e3, 3),
                **_gb(env, ctx, "weights", "throughput", "hourly", "per_million")}

    return _scenario(ctx, texts="cost",
                     steps=COST_STEPS, shared=shared, fields=fields,
                     params={"system": system.id, "gpu": chip.id, "model": model.id,
                             "dtype": dtype, "batch": batch, "context": context,
                             "gpu_hour_usd": price})


def _family(name: str, post: str, draw: DrawFn, es: str, en: str,
            options: Mapping[str, str], steps: tuple[Step, ...]) -> Family:
    return Family(name=name, post=post, kind=Kind.SCENARIO, description={"es": es, "en": en},
                  generate=drawn(draw), options=options, steps=steps)


SCENARIO_SERVING = _family(
    "scenario-serving", "hgx", serving,
    "Escenario: servir un modelo a N usuarios en un nodo (pesos, KV, GPU, tokens/s, límite)",
    "Scenario: serve a model to N users on a node (weights, KV, GPUs, tokens/s, bound)",
    {"systems": "system ids", "models": "model ids", "users": "concurrent users",
     "contexts": "context lengths"}, SERVING_STEPS)
SCENARIO_LONG_CONTEXT = _family(
    "scenario-long-context", "hbm-kv-cache", long_context,
    "Escenario: el lote más grande a un contexto largo en un nodo, y lo que da la KV en FP8",
    "Scenario: the largest batch at a long context on a node, and what FP8 KV buys",
    {"systems": "system ids", "models": "model ids", "contexts": "context lengths"},
    LONG_STEPS)
SCENARIO_TRAINING = _family(
    "scenario-training", "trainium", training,
    "Escenario: entrenar un modelo (FLOP, días, memoria con ZeRO, mínimo de GPU)",
    "Scenario: train a model (FLOPs, days, memory with ZeRO, fewest GPUs)",
    {"models": "model ids", "gpus": "accelerator ids"}, TRAINING_STEPS)
SCENARIO_CHECKPOINT = _family(
    "scenario-checkpoint", "storage-checkpoints", checkpointing,
    "Escenario: checkpoints (tamaño, escritura, Young/Daly, horas perdidas al día)",
    "Scenario: checkpointing (size, write time, Young/Daly, hours lost a day)",
    {"models": "model ids"}, CHECKPOINT_STEPS)
SCENARIO_ALLREDUCE = _family(
    "scenario-allreduce", "nvlink-infiniband", allreduce,
    "Escenario: all-reduce de los gradientes por NVLink y luego por InfiniBand",
    "Scenario: all-reduce of the gradients over NVLink, then InfiniBand",
    {"systems": "system ids", "models": "model ids"}, ALLREDUCE_STEPS)
SCENARIO_COST = _family(
    "scenario-cost", "hgx", cost,
    "Escenario: dólares por millón de tokens a un precio por GPU-hora",
    "Scenario: dollars per million tokens at a GPU-hour price",
    {"systems": "system ids", "models": "model ids"}, COST_STEPS)

SCENARIOS = (SCENARIO_SERVING, SCENARIO_LONG_CONTEXT, SCENARIO_TRAINING, SCENARIO_CHECKPOINT,
             SCENARIO_ALLREDUCE, SCENARIO_COST)
