"""The ``studyapp calc`` reports: inputs resolved to numbers, results as dicts.

Shared by the command line and the TUI calculator so both show the same
figures. JSON keys are a fixed contract (docs/architecture.md). Sizes are reported in
GB (10^9 bytes) and also as exact bytes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from studyapp.infra.collectives import (
    allreduce_time,
    bus_bandwidth,
    network_bus_bandwidth,
    ring_factor,
    scale_up_efficiency,
)
from studyapp.infra.compute import (
    decode,
    decode_flops,
    experts_touched,
    kv_tokens_per_layer,
    moe_params_read,
    training_flops,
    training_seconds,
    usd_per_million_tokens,
)
from studyapp.infra.memory import (
    ACTIVATION_PEAK_BYTES,
    DEFAULT_USABLE_FRACTION,
    NON_TORCH_BYTES,
    KVShape,
    fit,
    kv_bytes_per_token,
    kv_cache_bytes,
    kv_cache_tokens,
    max_concurrency,
    weights_bytes,
)
from studyapp.infra.network import TP_ALLREDUCES_PER_LAYER, tp_allreduce_bytes
from studyapp.infra.storage import CHECKPOINT_BYTES_PER_PARAM, checkpoint_bytes, transfer_seconds
from studyapp.infra.units import GB, dtype_bytes

_COUNT = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKMBGT]?)\s*$")
_SUFFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12}


MAX_COUNT = 1e18
"""A million times the largest training sets: beyond it products overflow, not teach."""


def parse_count(text: str) -> float:
    """A parameter or token count as people write it: ``70e9``, ``70B``, ``1.5T``."""
    match = _COUNT.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a count (write 70e9, 70B or 1.5T)")
    value = float(match.group(1)) * _SUFFIX[match.group(2)]
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{text!r} must be a positive number")
    if value > MAX_COUNT:
        raise ValueError(f"{text!r} is past the largest count the calculator takes (1e18)")
    return value


def gb(value_bytes: float) -> float:
    """Bytes as GB for display: two decimals, three significant figures below 10 GB."""
    value = value_bytes / GB
    if value == 0:
        return 0.0
    if abs(value) >= 10:
        return round(value, 2)
    return float(f"{value:.3g}")


_NO_KV = KVShape(layers=1, kv_heads=1, head_dim=1)
"""Stands in for a model given without a KV shape; only ever used at context 0."""


_PUBLISHED_DTYPES = {"bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "float16": "fp16",
                     "fp8": "fp8", "mxfp4": "fp4", "fp4": "fp4", "nvfp4": "fp4"}


def published_dtype(weights_dtype: str | None) -> str | None:
    """A published checkpoint's weight format as a calc dtype: MXFP4 → ``fp4``, FP8 → ``fp8``
    (None where the calculator has no such dtype)."""
    return _PUBLISHED_DTYPES.get((weights_dtype or "").lower())


@dataclass(frozen=True)
class ModelInput:
    """A model from the catalog or from explicit numbers."""

    label: str
    params: float | None
    shape: KVShape | None
    attention: str
    active_params: float | None = None
    """MoE: parameters that work on each token (None: a dense model, all of them)."""
    experts: int | None = None
    experts_per_token: int | None = None
    sliding_window: int | None = None
    sliding_window_layers: int | None = None
    """Layers that keep only the window where not all do (gpt-oss: 18 of 36)."""
    weights_dtype: str | None = None
    """The calc dtype of the published weights (gpt-oss's MXFP4 is ``fp4``), if known."""
    checkpoint_bytes: float | None = None
    """The published checkpoint's size: weights in ``weights_dtype`` where a format mixes
    precisions (gpt-oss: MXFP4 experts, BF16 attention and embeddings, 60.8 GiB)."""
    context_length: int | None = None
    """The longest context the model was published for (its config's
    ``max_position_embeddings``); a longer one is flagged, not refused."""

    def weights_in(self, dtype: str, params: float | None = None) -> tuple[float, str]:
        """Bytes of ``params`` (default: all; a decode step's read: the dense rest first,
        then routed experts) in ``dtype``, and how they were counted.

        Where ``dtype`` is the published format and the checkpoint's size is known, the
        checkpoint decides: a mixture of experts keeps its dense rest (attention,
        embeddings) in BF16 and its experts take the remaining bytes (gpt-oss: MXFP4,
        about 4.3 bits a parameter), so a decode step at batch 1 reads about 5.0 GB of
        gpt-oss-120b, not 5.13B × 0.5 B."""
        assert self.params is not None
        count = self.params if params is None else params
        if not (self.checkpoint_bytes and dtype == self.weights_dtype):
            return weights_bytes(count, dtype), "params-x-bytes"
        rest = self._dense_rest()
        expert_bytes = self.checkpoint_bytes - weights_bytes(rest, "bf16") if rest else 0.0
        if not rest or expert_bytes <= 0 or rest >= self.params:
            return self.checkpoint_bytes * count / self.params, "published-checkpoint"
        dense = min(count, rest)
        per_expert_param = expert_bytes / (self.params - rest)
        return (weights_bytes(dense, "bf16") + (count - dense) * per_expert_param,
                "published-checkpoint")

    def _dense_rest(self) -> float | None:
        """Parameters outside the routed experts (None: not a mixture of experts)."""
        if not (self.params and self.active_params and self.experts
                and self.experts_per_token and self.experts > self.experts_per_token):
            return None
        per_expert = (self.params - self.active_params) / (self.experts - self.experts_per_token)
        return self.active_params - self.experts_per_token * per_expert

    def kv_tokens(self, context: int) -> float:
        """Mean tokens a layer keeps per sequence at ``context`` (see kv_tokens_per_layer)."""
        layers = self.shape.layers if self.shape else None
        return kv_tokens_per_layer(context, self.sliding_window, self.sliding_window_layers,
                                   layers)


@dataclass(frozen=True)
class DeviceInput:
    """An accelerator from the catalog or from explicit numbers.

    ``memory_bytes`` is the capacity fits use: the driver-reported total where the
    catalog has one, else the vendor's figure read in its real unit (``memory_unit``:
    GiB on Hopper, Blackwell and MI300, GB on Blackwell Ultra); ``memory_basis`` says
    which, in one line."""

    label: str
    memory_bytes: float | None
    bandwidth_bytes_s: float | None
    flops: float | None
    memory_basis: str | None = None
    driver_memory_mib: int | None = None
    compute_dtype: str | None = None
    """The precision whose rate ``flops`` is, where it is not the weights' own: a chip with
    no FP8 units computes FP8 weights at its BF16 rate (weight-only), and the report
    says so instead of quietly using another rate."""


def fit_report(model: ModelInput, device: DeviceInput, *, dtype: str, kv_dtype: str | None,
               context: int, batch: int, gpus: int,
               usable_fraction: float = DEFAULT_USABLE_FRACTION,
               activation_peak_bytes: float = ACTIVATION_PEAK_BYTES,
               non_torch_bytes: float = NON_TORCH_BYTES) -> dict[str, Any]:
    """Weights + KV cache for context × batch against vLLM's budget: gpus × (memory ×
    utilization − activation peak − non-torch memory).

    Like vLLM's start-up log it also says what the KV cache gets once the weights are in:
    its size in tokens and how many requests of ``context`` tokens (the model's own
    context length at 0) it holds at once. At context 0 only the weights count, so a
    model given by its parameter count alone (no KV shape) is enough."""
    assert model.params is not None and (model.shape is not None or context == 0)
    assert device.memory_bytes is not None
    kvd = kv_dtype or dtype
    shape = model.shape or _NO_KV
    tokens = model.kv_tokens(context)  # a sliding window caps the cache
    weights, basis = model.weights_in(dtype)
    runtime = activation_peak_bytes + non_torch_bytes
    result = fit(model.params, dtype, shape, device.memory_bytes, context=tokens,
                 batch=batch, kv_dtype=kvd, devices=gpus, usable_fraction=usable_fraction,
                 weights=weights, runtime_bytes=runtime)
    kv_room = result.available_bytes - result.weights_bytes
    per_token = kv_bytes_per_token(model.shape, kvd) if model.shape else None
    request = context or model.context_length or 0
    cache_tokens = kv_cache_tokens(kv_room, per_token) if per_token else None
    concurrency = (round(max_concurrency(cache_tokens, model.kv_tokens(request)), 2)
                   if cache_tokens is not None and request else None)
    return {
        "fits": result.fits,
        "weights_gb": gb(result.weights_bytes),
        "kv_cache_gb": gb(result.kv_cache_bytes),
        "required_gb": gb(result.required_bytes),
        "available_gb": gb(result.available_bytes),
        "headroom_gb": gb(result.headroom_bytes),
        "devices": gpus,
        "min_devices": result.min_devices,
        "model": model.label,
        "gpu": device.label,
        "params": model.params,
        "dtype": dtype,
        "weights_basis": basis,
        "kv_dtype": kvd,
        "context": context,
        "kv_tokens": tokens,
        "batch": batch,
        "usable_fraction": usable_fraction,
        "memory_gb_per_device": gb(device.memory_bytes),
        "memory_gib_per_device": round(device.memory_bytes / 2**30, 2),
        "available_gib": round(result.available_bytes / 2**30, 2),
        "memory_basis": device.memory_basis,
        "driver_memory_mib": device.driver_memory_mib,
        "kv_cache_bytes_per_token": kv_bytes_per_token(model.shape, kvd) if model.shape else None,
        "weights_bytes": result.weights_bytes,
        "kv_cache_bytes": result.kv_cache_bytes,
        "required_bytes": result.required_bytes,
        "available_bytes": result.available_bytes,
        "budget_gb": gb(device.memory_bytes * usable_fraction * gpus),
        "activation_peak_gb": gb(activation_peak_bytes),
        "non_torch_gb": gb(non_torch_bytes),
        "runtime_gb_per_device": gb(runtime),
        "kv_cache_room_gb": gb(kv_room),
        "kv_cache_room_bytes": kv_room,
        "kv_cache_tokens": cache_tokens,
        "concurrency_tokens": request or None,
        "max_concurrency": concurrency,
    }


def kv_report(model: ModelInput, *, dtype: str, tokens: int, batch: int) -> dict[str, Any]:
    """KV cache per token and for tokens × batch."""
    assert model.shape is not None
    per_token = kv_bytes_per_token(model.shape, dtype)
    kept = model.kv_tokens(tokens)  # a sliding window caps the cache
    total = kv_cache_bytes(model.shape, dtype, kept, batch)
    per_token_out: float | int = int(per_token) if per_token.is_integer() else per_token
    return {
        "kv_cache_bytes_per_token": per_token_out,
        "kv_cache_bytes": total,
        "kv_cache_gb": gb(total),
        "kv_cache_gib": round(total / 2**30, 3),
        "tokens": tokens,
        "kv_tokens": kept,
        "sliding_window": model.sliding_window,
        "sliding_window_layers": model.sliding_window_layers,
        "batch": batch,
        "dtype": dtype,
        "bytes_per_value": dtype_bytes(dtype),
        "attention": model.attention,
        "model": model.label,
        "values_per_token": model.shape.values_per_token(),
        "index_bytes_per_token": model.shape.layers * model.shape.index_bytes_per_layer(),
    }


def decode_report(model: ModelInput, device: DeviceInput, *, dtype: str, kv_dtype: str | None,
                  batch: int, context: int, gpus: int, mfu: float = 1.0,
                  bandwidth_efficiency: float = 1.0) -> dict[str, Any]:
    """One decode step: the larger of memory time and compute time, and which bound holds.

    Memory time = (weights read + batch × KV tokens × KV bytes per token) / bandwidth;
    compute time = 2 × active parameters × batch / (dense peak × mfu). A mixture of
    experts reads its active parameters at batch 1 and more experts as the batch
    grows (the expected distinct experts its routers touch); a sliding-window model
    keeps at most its window of tokens. Without a compute peak only the memory time
    is computed. At context 0 (the default) only the weights are read.
    ``bandwidth_efficiency``: the share of the peak bandwidth a step streams at (a
    measured run's, ``--efficiency measured``; 1 by default)."""
    assert model.params is not None and (model.shape is not None or context == 0)
    assert device.bandwidth_bytes_s is not None
    kvd = kv_dtype or dtype
    active = model.active_params or model.params
    moe = active < model.params
    read = moe_params_read(model.params, active, batch, model.experts,
                           model.experts_per_token) if moe else model.params
    w_read, basis = model.weights_in(dtype, read)
    tokens = model.kv_tokens(context)
    kv = kv_cache_bytes(model.shape, kvd, tokens, batch) if model.shape else 0.0
    bandwidth = device.bandwidth_bytes_s * gpus * bandwidth_efficiency
    peak = device.flops * gpus if device.flops else None
    step = decode(w_read, kv, bandwidth, batch, flops_per_step=decode_flops(active, batch),
                  flops=peak, mfu=mfu)
    # the MoE rule, named in the JSON (``moe_rule``) and worded in the user's language
    rule = None
    touched = None
    if moe:
        if model.experts and model.experts_per_token:
            touched = experts_touched(model.experts, model.experts_per_token, batch)
            rule = "expected-distinct-experts"
        else:
            rule = "active-share"
    return {
        "tokens_per_s": step.tokens_per_s,
        "tokens_per_s_per_sequence": step.tokens_per_s_per_sequence,
        "step_seconds": step.step_seconds,
        "step_ms": step.step_seconds * 1e3,
        "bound": step.bound,
        "memory_seconds": step.memory_seconds,
        "compute_seconds": step.compute_seconds,
        "weights_gb": gb(model.weights_in(dtype)[0]),
        "weights_basis": basis,
        "weights_read_gb": gb(w_read),
        "kv_cache_gb": gb(kv),
        "kv_tokens": tokens,
        "sliding_window": model.sliding_window,
        "sliding_window_layers": model.sliding_window_layers,
        "bytes_per_step": step.bytes_per_step,
        "flops_per_step": step.flops_per_step,
        "bandwidth_tb_s": device.bandwidth_bytes_s * gpus / 1e12,
        "bandwidth_efficiency": bandwidth_efficiency,
        "tflops": device.flops / 1e12 if device.flops else None,
        "compute_dtype": device.compute_dtype or (dtype if device.flops else None),
        "mfu": mfu,
        "moe_rule": rule,
        "experts_touched": touched,
        "gpus": gpus,
        "batch": batch,
        "context": context,
        "dtype": dtype,
        "kv_dtype": kvd,
        "model": model.label,
        "gpu": device.label,
    }


def train_report(*, params: float, tokens: float, flops_per_device: float, gpus: int,
                 mfu: float) -> dict[str, Any]:
    """6·N·D FLOPs and wall time at a model FLOPs utilisation."""
    total = training_flops(params, tokens)
    seconds = training_seconds(total, flops_per_device, gpus, mfu)
    return {
        "flops": total,
        "seconds": seconds,
        "hours": seconds / 3600,
        "days": seconds / 86400,
        "gpu_hours": seconds * gpus / 3600,
        "params": params,
        "tokens": tokens,
        "gpus": gpus,
        "mfu": mfu,
        "tflops_per_device": flops_per_device / 1e12,
    }


def checkpoint_report(*, params: float, bytes_per_param: float = CHECKPOINT_BYTES_PER_PARAM,
                      write_bytes_s: float) -> dict[str, Any]:
    """Checkpoint size and the time to write it at a storage bandwidth."""
    size = checkpoint_bytes(params, bytes_per_param)
    return {
        "size_gb": gb(size),
        "size_bytes": size,
        "write_seconds": transfer_seconds(size, write_bytes_s),
        "params": params,
        "bytes_per_param": bytes_per_param,
        "write_gb_s": write_bytes_s / GB,
    }


def allreduce_report(*, size_bytes: float, gpus: int, bandwidth_bytes_s: float,
                     link: str | None, mesh_links: int | None = None, nodes: int = 1,
                     cards_per_node: int | None = None, card_gbit_s: float | None = None,
                     efficiency: float | None = None) -> dict[str, Any]:
    """All-reduce time as NCCL runs it, α–β: one call's latency plus 2(n-1)/n · S over the
    bus bandwidth (``bandwidth_bytes_s`` is the scale-up link's per-direction rate;
    ``mesh_links``: how many links of a full mesh the group uses at once; across
    ``nodes`` one ring per network card, so the cards of a node add up)."""
    eff = scale_up_efficiency(link) if efficiency is None else efficiency
    card_one_way = (card_gbit_s or 0.0) * 1e9 / 8
    bus = bus_bandwidth(bandwidth_bytes_s, nodes=nodes, cards=cards_per_node or 0,
                        card_one_way=card_one_way, scale_up_eff=eff)
    network = (network_bus_bandwidth(cards_per_node or 0, card_one_way)
               if nodes > 1 else None)
    time = allreduce_time(size_bytes, gpus, bus, nodes=nodes)
    return {
        "seconds": time.seconds,
        "algorithm": "mesh" if mesh_links else "ring",
        "size_gb": gb(size_bytes),
        "gpus": gpus,
        "bandwidth_gb_s": bandwidth_bytes_s / GB,
        "bandwidth_direction": "per-direction",
        "link": link,
        "mesh_links": mesh_links,
        "bytes_sent_per_gpu": ring_factor(gpus) * size_bytes,
        "nodes": nodes,
        "gpus_per_node": gpus // nodes,
        "cards_per_node": cards_per_node if nodes > 1 else None,
        "card_gbit_s": card_gbit_s if nodes > 1 else None,
        "scale_up_efficiency": eff,
        "network_bus_bandwidth_gb_s": None if network is None else network / GB,
        "bus_bandwidth_gb_s": bus / GB,
        "bottleneck": ("network" if network is not None and network < bandwidth_bytes_s * eff
                       else "scale-up"),
        "latency_us": time.latency_s * 1e6,
        "latency_seconds": time.latency_seconds,
        "bandwidth_seconds": time.bandwidth_seconds,
        "dominant": time.dominant,
    }


def cost_report(*, gpu_hour_usd: float, tokens_per_s: float, gpus: int) -> dict[str, Any]:
    """Dollars per million tokens: gpus × price per GPU-hour / tokens per hour × 10^6.

    ``tokens_per_s`` is what the whole deployment serves (all sequences, all GPUs)."""
    per_hour = gpus * gpu_hour_usd
    tokens_per_hour = tokens_per_s * 3600
    return {
        "usd_per_million_tokens": usd_per_million_tokens(per_hour, tokens_per_s),
        "usd_per_hour": per_hour,
        "tokens_per_hour": tokens_per_hour,
        "tokens_per_s": tokens_per_s,
        "gpu_hour_usd": gpu_hour_usd,
        "gpus": gpus,
    }


def tp_report(*, layers: int, hidden_size: int, batch: int, dtype: str, tp: int,
              bandwidth_bytes_s: float, link: str | None, model: str,
              mesh_links: int | None = None) -> dict[str, Any]:
    """Tensor-parallel all-reduce traffic and time of one decode step, α–β.

    Two all-reduces per layer of batch × hidden × bytes each inside the node: each call
    costs its latency (a few µs, published for 8 H100) plus its ring bytes at the bus
    bandwidth NCCL reaches on the scale-up link. At batch 1 the latency dominates."""
    size = tp_allreduce_bytes(batch, hidden_size, dtype_bytes(dtype))
    count = TP_ALLREDUCES_PER_LAYER * layers
    eff = scale_up_efficiency(link)
    time = allreduce_time(size, tp, bandwidth_bytes_s * eff, calls=count)
    return {
        "comm_seconds_per_step": time.seconds,
        "comm_ms_per_step": time.seconds * 1e3,
        "allreduces_per_step": count,
        "allreduce_bytes": size,
        "bytes_per_step_per_gpu": ring_factor(tp) * size * count,
        "algorithm": "mesh" if mesh_links else "ring",
        "tp": tp,
        "layers": layers,
        "hidden_size": hidden_size,
        "batch": batch,
        "dtype": dtype,
        "bandwidth_gb_s": bandwidth_bytes_s / GB,
        "bandwidth_direction": "per-direction",
        "link": link,
        "mesh_links": mesh_links,
        "model": model,
        "scale_up_efficiency": eff,
        "bus_bandwidth_gb_s": bandwidth_bytes_s * eff / GB,
        "latency_us": time.latency_s * 1e6,
        "latency_ms_per_step": time.latency_seconds * 1e3,
        "bandwidth_ms_per_step": time.bandwidth_seconds * 1e3,
        "dominant": time.dominant,
    }
