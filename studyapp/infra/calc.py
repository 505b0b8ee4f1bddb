"""The ``studyapp calc`` reports: inputs resolved to numbers, results as dicts.

Shared by the command line and the TUI calculator so both show the same
figures. JSON keys are a fixed contract (DESIGN.md). Sizes are reported in
GB (10^9 bytes) and also as exact bytes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from studyapp.infra.compute import decode, training_flops, training_seconds
from studyapp.infra.memory import (
    DEFAULT_USABLE_FRACTION,
    KVShape,
    fit,
    kv_bytes_per_token,
    kv_cache_bytes,
    weights_bytes,
)
from studyapp.infra.network import ring_allreduce_seconds
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


@dataclass(frozen=True)
class ModelInput:
    """A model from the catalog or from explicit numbers."""

    label: str
    params: float | None
    shape: KVShape | None
    attention: str


@dataclass(frozen=True)
class DeviceInput:
    """An accelerator from the catalog or from explicit numbers."""

    label: str
    memory_bytes: float | None
    bandwidth_bytes_s: float | None
    flops: float | None


def fit_report(model: ModelInput, device: DeviceInput, *, dtype: str, kv_dtype: str | None,
               context: int, batch: int, gpus: int,
               usable_fraction: float = DEFAULT_USABLE_FRACTION) -> dict[str, Any]:
    """Weights + KV cache for context × batch against gpus × memory × usable fraction.

    At context 0 only the weights count, so a model given by its parameter count alone
    (no KV shape) is enough."""
    assert model.params is not None and (model.shape is not None or context == 0)
    assert device.memory_bytes is not None
    kvd = kv_dtype or dtype
    shape = model.shape or _NO_KV
    result = fit(model.params, dtype, shape, device.memory_bytes, context=context,
                 batch=batch, kv_dtype=kvd, devices=gpus, usable_fraction=usable_fraction)
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
        "kv_dtype": kvd,
        "context": context,
        "batch": batch,
        "usable_fraction": usable_fraction,
        "memory_gb_per_device": gb(device.memory_bytes),
        "kv_cache_bytes_per_token": kv_bytes_per_token(model.shape, kvd) if model.shape else None,
        "weights_bytes": result.weights_bytes,
        "kv_cache_bytes": result.kv_cache_bytes,
        "required_bytes": result.required_bytes,
        "available_bytes": result.available_bytes,
    }


def kv_report(model: ModelInput, *, dtype: str, tokens: int, batch: int) -> dict[str, Any]:
    """KV cache per token and for tokens × batch."""
    assert model.shape is not None
    per_token = kv_bytes_per_token(model.shape, dtype)
    total = kv_cache_bytes(model.shape, dtype, tokens, batch)
    per_token_out: float | int = int(per_token) if per_token.is_integer() else per_token
    return {
        "kv_cache_bytes_per_token": per_token_out,
        "kv_cache_bytes": total,
        "kv_cache_gb": gb(total),
        "kv_cache_gib": round(total / 2**30, 3),
        "tokens": tokens,
        "batch": batch,
        "dtype": dtype,
        "bytes_per_value": dtype_bytes(dtype),
        "attention": model.attention,
        "model": model.label,
        "values_per_token": model.shape.values_per_token(),
    }


def decode_report(model: ModelInput, device: DeviceInput, *, dtype: str, kv_dtype: str | None,
                  batch: int, context: int, gpus: int) -> dict[str, Any]:
    """Batch decode ceiling: every step streams weights + each sequence's KV cache.

    At context 0 (the default) only the weights are read: no KV shape is needed."""
    assert model.params is not None and (model.shape is not None or context == 0)
    assert device.bandwidth_bytes_s is not None
    kvd = kv_dtype or dtype
    w = weights_bytes(model.params, dtype)
    kv = kv_cache_bytes(model.shape, kvd, context, batch) if model.shape else 0.0
    bandwidth = device.bandwidth_bytes_s * gpus
    step = decode(w, kv, bandwidth, batch)
    return {
        "tokens_per_s": step.tokens_per_s,
        "tokens_per_s_per_sequence": step.tokens_per_s_per_sequence,
        "step_seconds": step.step_seconds,
        "step_ms": step.step_seconds * 1e3,
        "weights_gb": gb(w),
        "kv_cache_gb": gb(kv),
        "bytes_per_step": step.bytes_per_step,
        "bandwidth_tb_s": bandwidth / 1e12,
        "gpus": gpus,
        "batch": batch,
        "context": context,
        "dtype": dtype,
        "kv_dtype": kvd,
        "model": model.label,
        "gpu": device.label,
        "bound": "memory-bandwidth",
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
                     link: str | None) -> dict[str, Any]:
    """Ring all-reduce time, bandwidth term only, at a per-direction bandwidth."""
    return {
        "seconds": ring_allreduce_seconds(size_bytes, gpus, bandwidth_bytes_s),
        "algorithm": "ring",
        "size_gb": gb(size_bytes),
        "gpus": gpus,
        "bandwidth_gb_s": bandwidth_bytes_s / GB,
        "bandwidth_direction": "per-direction",
        "link": link,
        "bytes_sent_per_gpu": 2 * (gpus - 1) / gpus * size_bytes if gpus > 1 else 0.0,
    }
