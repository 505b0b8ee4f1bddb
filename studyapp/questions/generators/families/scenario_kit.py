"""What every scenario family shares: the step-builder, the draw pools and the arithmetic.

A scenario is a chain of steps computed with ``studyapp.infra``; ``scenario`` builds the
question from its steps and texts, and the pools say what the families draw from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, Model, System
from studyapp.infra import (
    decode,
    dtype_bytes,
    min_devices,
)
from studyapp.infra.compute import decode_flops
from studyapp.infra.units import GB, TFLOPS
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext
from studyapp.questions.generators.drawing import entries
from studyapp.questions.model import Kind, Question, Tolerance
from studyapp.questions.scenario import Step, build_parts, run_chain, worked_chain


def like(family: Family, step: Step) -> Step:
    """``step`` declaring the slips of ``family``, the one-step card that computes the same
    (its shared params carry the names those slips read: ``dtype``, ``kv_dtype``...)."""
    from dataclasses import replace

    return replace(step, like=family.name, slips=(*family.slips, *step.slips),
                   exercises=family.name)

EXACT = Tolerance(relative=None, absolute=0.0)
"""A count of GPUs or sequences: right or not."""
RATE = Tolerance(relative=0.03)
"""A rate built on earlier rounded steps: a little more room than a single step."""
TENSOR_PARALLEL = (1, 2, 4, 8)
NODE_SYSTEMS = ("hgx-h100", "hgx-h200", "hgx-b200")
SERVE_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b", "llama-2-70b",
                "llama-3.1-405b")
SERVE_USERS = (8, 16, 32, 64, 128)
SERVE_CONTEXTS = (2048, 4096, 8192, 16384, 32768)
LONG_CONTEXTS = (32768, 65536, 131072)
TRAIN_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "llama-3.1-405b",
                "gpt-3-175b", "mixtral-8x7b")
TRAIN_GPUS = ("a100-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x", "mi355x", "tpu-v5p",
              "trainium2", "gaudi3")
ZERO3_GROUPS = (8, 16, 32, 64)
"""GPUs a training scenario's ZeRO-3 group shards the model state over."""
CLUSTER_WRITE_GB_S = (10, 20, 50, 100, 200, 500)
"""A training cluster's storage write bandwidth in a checkpoint scenario (GB/s)."""
NODES = (2, 4, 8, 16, 32)
GPU_HOUR_DOLLARS = (2.0, 2.5, 3.0, 4.0, 6.0)
"""Hypothetical rental prices the prompt states (a parameter of the problem, not a quote)."""
GRADIENT_DTYPE = "bf16"


# --- shared arithmetic ------------------------------------------------------


def tensor_parallel(total_gb: float, memory_bytes: float) -> float:
    """Fewest GPUs in a tensor-parallel group (a power of two) whose usable memory holds it."""
    need = min_devices(total_gb * GB, memory_bytes)
    return float(2 ** math.ceil(math.log2(need)))


def decode_step_seconds(bytes_read: float, bandwidth: float, active_params: float,
                        batch: int, flops: float) -> tuple[float, float]:
    """(memory time, compute time) of one decode step over a tensor-parallel group.

    Both through ``infra.decode`` (the calculator's model): memory time, and compute
    time 2 × active params × batch over the group's dense FLOP/s. The step takes the
    larger.
    """
    step = decode(bytes_read, 0.0, bandwidth, batch,
                  flops_per_step=decode_flops(active_params, batch), flops=flops)
    return step.memory_seconds, step.compute_seconds or 0.0


def dense_flops(chip: Accelerator, dtype: str) -> float:
    """The chip's dense FLOP/s for the dtype (FP8 rate for 1-byte weights, BF16 otherwise)."""
    if dtype_bytes(dtype) <= 1 and chip.fp8_dense_tflops:
        return chip.fp8_dense_tflops * TFLOPS
    return chip.bf16_dense_tflops * TFLOPS


# --- building the question ---------------------------------------------------

Fields = Callable[[Mapping[str, Any]], dict[str, str]]


def _scenario(ctx: DrawContext, *, texts: str, steps: Sequence[Step],
              shared: Mapping[str, Any], fields: Fields, params: Mapping[str, Any]) -> Question:
    """A scenario question: texts ``scen.<texts>.*`` filled with the true chain's figures."""
    env = run_chain(steps, shared)
    words = fields(env)
    key = f"scen.{texts}"
    prompts = {s.name: ctx.t(f"{key}.{s.name}", **words) for s in steps}
    methods = {s.name: ctx.t(f"{key}.{s.name}.method", **words) for s in steps}
    solutions = {s.name: ctx.t(f"{key}.{s.name}.solution", **words) for s in steps}
    parts, _ = build_parts(steps, shared, seed=ctx.seed, lang=ctx.lang,
                           prompts=prompts, methods=methods, solutions=solutions)
    question = ctx.question(kind=Kind.SCENARIO, prompt=ctx.t(f"{key}.setup", **words),
                            explanation="", answer=str(len(parts)), parts=parts,
                            params={**params, "steps": {p.name: p.question.answer
                                                        for p in parts
                                                        if p.question.kind is Kind.NUMERIC}})
    return _with_chain(question)


def _with_chain(question: Question) -> Question:
    from dataclasses import replace

    return replace(question, explanation=worked_chain(question))


def _systems(options: Mapping[str, Any]) -> list[System]:
    catalog = load_catalog()
    default = [s for s in NODE_SYSTEMS if s in catalog.systems]
    return entries(catalog.systems, {"systems": default, **options}, "systems")


def _models(options: Mapping[str, Any], default: Sequence[str]) -> list[Model]:
    catalog = load_catalog()
    known = [m for m in default if m in catalog.models]
    return entries(catalog.models, {"models": known, **options}, "models")


def _gb(env: Mapping[str, Any], ctx: DrawContext, *names: str) -> dict[str, str]:
    return {name: ctx.shown(float(env[name])) for name in names}
