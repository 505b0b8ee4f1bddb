"""Compute arithmetic: rooflines, decode and prefill, training FLOPs.

FLOP/s are dense peaks (no sparsity). Decode at small batch is bound by
memory bandwidth: each step streams every weight (and the KV cache) once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Decode:
    """Memory-bandwidth ceiling of one decode step."""

    bytes_per_step: float
    step_seconds: float
    batch: int

    @property
    def tokens_per_s(self) -> float:
        """All sequences together."""
        return self.batch / self.step_seconds

    @property
    def tokens_per_s_per_sequence(self) -> float:
        return 1.0 / self.step_seconds


def decode(weights_bytes: float, kv_bytes: float, bandwidth_bytes_s: float,
           batch: int = 1) -> Decode:
    """(weights + KV cache of every sequence) / bandwidth per step."""
    moved = weights_bytes + kv_bytes
    return Decode(bytes_per_step=moved, step_seconds=moved / bandwidth_bytes_s, batch=batch)


def ridge_point(flops: float, bandwidth_bytes_s: float) -> float:
    """Arithmetic intensity (FLOP/byte) above which a kernel is compute-bound."""
    return flops / bandwidth_bytes_s


def is_compute_bound(intensity_flop_per_byte: float, flops: float,
                     bandwidth_bytes_s: float) -> bool:
    return intensity_flop_per_byte >= ridge_point(flops, bandwidth_bytes_s)


def attainable_flops(intensity_flop_per_byte: float, flops: float,
                     bandwidth_bytes_s: float) -> float:
    """Roofline: min(peak, intensity × bandwidth)."""
    return min(flops, intensity_flop_per_byte * bandwidth_bytes_s)


def forward_flops(params: float, tokens: float) -> float:
    """About 2 FLOPs per parameter per token for a forward pass."""
    return 2.0 * params * tokens


def prefill_seconds(params: float, tokens: float, flops: float, utilisation: float) -> float:
    """Time to process a prompt: 2·N·T / (peak × utilisation)."""
    return forward_flops(params, tokens) / (flops * utilisation)


def training_flops(params: float, tokens: float) -> float:
    """6·N·D: forward (2) plus backward (4) FLOPs per parameter per token."""
    return 6.0 * params * tokens


def training_seconds(total_flops: float, flops_per_device: float, devices: int,
                     mfu: float) -> float:
    """Wall time at model FLOPs utilisation ``mfu`` on ``devices`` devices."""
    return total_flops / (flops_per_device * devices * mfu)


ADAM_MIXED_BYTES_PER_PARAM = 16.0
"""BF16 weights (2) + BF16 grads (2) + FP32 master weights, Adam m and v (4+4+4)."""


def training_memory_bytes(params: float, bytes_per_param: float = ADAM_MIXED_BYTES_PER_PARAM,
                          zero_stage: int = 0, devices: int = 1) -> float:
    """Per-device model state for mixed-precision Adam, with ZeRO sharding.

    ZeRO-1 shards optimizer state (12 of 16 bytes), ZeRO-2 also gradients,
    ZeRO-3 also the weights (Rajbhandari et al., 2020). Activations excluded.
    """
    if zero_stage not in (0, 1, 2, 3):
        raise ValueError("zero_stage must be 0, 1, 2 or 3")
    weights, grads = 2.0, 2.0
    optimizer = bytes_per_param - weights - grads
    if zero_stage >= 1:
        optimizer /= devices
    if zero_stage >= 2:
        grads /= devices
    if zero_stage >= 3:
        weights /= devices
    return params * (weights + grads + optimizer)
