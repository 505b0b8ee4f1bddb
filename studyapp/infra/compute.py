"""Compute arithmetic: rooflines, decode and prefill, training FLOPs.

FLOP/s are dense peaks (no sparsity). A decode step streams the weights (and
each sequence's KV cache) once and does 2 FLOPs per active parameter per
sequence: its time is the larger of the memory time and the compute time, so
small batches are bound by memory bandwidth and large ones by compute.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Decode:
    """One decode step: bytes read and FLOPs done, and which of the two sets its time."""

    bytes_per_step: float
    memory_seconds: float
    batch: int
    flops_per_step: float = 0.0
    compute_seconds: float | None = None
    """None when no compute peak is known: only the memory time is computed."""

    @property
    def step_seconds(self) -> float:
        return max(self.memory_seconds, self.compute_seconds or 0.0)

    @property
    def bound(self) -> str:
        """``memory`` or ``compute``: the larger of the two times."""
        if self.compute_seconds is not None and self.compute_seconds > self.memory_seconds:
            return "compute"
        return "memory"

    @property
    def tokens_per_s(self) -> float:
        """All sequences together."""
        return self.batch / self.step_seconds

    @property
    def tokens_per_s_per_sequence(self) -> float:
        return 1.0 / self.step_seconds


def decode(weights_bytes: float, kv_bytes: float, bandwidth_bytes_s: float,
           batch: int = 1, *, flops_per_step: float = 0.0,
           flops: float | None = None, mfu: float = 1.0) -> Decode:
    """Step time = max((weights + KV cache) / bandwidth, FLOPs / (peak × mfu)).

    ``flops_per_step`` is 2 × active parameters × batch (:func:`decode_flops`);
    without a compute peak (``flops`` None) only the memory time is computed."""
    moved = weights_bytes + kv_bytes
    compute = flops_per_step / (flops * mfu) if flops and flops_per_step else None
    return Decode(bytes_per_step=moved, memory_seconds=moved / bandwidth_bytes_s, batch=batch,
                  flops_per_step=flops_per_step, compute_seconds=compute)


def decode_flops(active_params: float, batch: int) -> float:
    """2 FLOPs per active parameter for each sequence's next token."""
    return 2.0 * active_params * batch


def experts_touched(experts: int, experts_per_token: int, batch: int) -> float:
    """Expected distinct experts a layer's router picks for ``batch`` tokens.

    Each token picks ``experts_per_token`` of ``experts`` (taken as uniform and
    independent): an expert is missed by one token with probability 1 − k/E, so
    E × (1 − (1 − k/E)^B) experts are read. Batch 1 reads k, a large batch all E."""
    return experts * (1.0 - (1.0 - experts_per_token / experts) ** batch)


def moe_params_read(total_params: float, active_params: float, batch: int,
                    experts: int | None = None, experts_per_token: int | None = None) -> float:
    """Parameters a decode step reads for a mixture of experts at a batch size.

    With the expert counts: shared parameters (attention, embeddings, shared
    experts) plus the expected distinct experts touched (:func:`experts_touched`),
    each expert being (total − active) / (E − k) parameters. Without them, the
    simpler rule total × (1 − (1 − active/total)^batch). Both give the active
    parameters at batch 1 and approach the total at large batch."""
    if active_params >= total_params:
        return total_params
    if experts and experts_per_token and experts > experts_per_token:
        per_expert = (total_params - active_params) / (experts - experts_per_token)
        shared = active_params - experts_per_token * per_expert
        return shared + experts_touched(experts, experts_per_token, batch) * per_expert
    share = active_params / total_params
    return total_params * (1.0 - (1.0 - share) ** batch)


def kv_tokens(context: int, sliding_window: int | None) -> int:
    """Tokens each sequence keeps in its KV cache: the context, capped at a sliding window."""
    return min(context, sliding_window) if sliding_window else context


def kv_tokens_per_layer(context: int, sliding_window: int | None,
                        window_layers: int | None = None, layers: int | None = None) -> float:
    """Mean tokens a layer keeps per sequence, so KV bytes = bytes per token × this.

    A window caps every layer unless ``window_layers`` says only some use it: gpt-oss
    alternates a 128-token window (18 of its 36 layers) with full attention, so at a
    long context its cache is about half the full one, never the window's."""
    capped = kv_tokens(context, sliding_window)
    if not sliding_window or window_layers is None or not layers or window_layers >= layers:
        return capped
    mean = (window_layers * capped + (layers - window_layers) * context) / layers
    return int(mean) if mean.is_integer() else mean


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
WEIGHT_BYTES_PER_PARAM = 2.0
GRADIENT_BYTES_PER_PARAM = 2.0


@dataclass(frozen=True)
class StateShares:
    """Bytes per parameter each device keeps of the weights, gradients and optimizer state."""

    weights: float
    grads: float
    optimizer: float

    @property
    def per_param(self) -> float:
        return self.weights + self.grads + self.optimizer


def zero_shares(zero_stage: int, devices: int, *, weights: float = WEIGHT_BYTES_PER_PARAM,
                grads: float = GRADIENT_BYTES_PER_PARAM,
                optimizer: float = ADAM_MIXED_BYTES_PER_PARAM - WEIGHT_BYTES_PER_PARAM
                - GRADIENT_BYTES_PER_PARAM) -> StateShares:
    """What ZeRO leaves on each of ``devices``: ZeRO-1 shards the optimizer state (12 of
    16 bytes), ZeRO-2 also the gradients, ZeRO-3 also the weights (Rajbhandari et al.,
    2020, https://arxiv.org/abs/1910.02054)."""
    if zero_stage not in (0, 1, 2, 3):
        raise ValueError("zero_stage must be 0, 1, 2 or 3")
    return StateShares(weights=weights / devices if zero_stage >= 3 else weights,
                       grads=grads / devices if zero_stage >= 2 else grads,
                       optimizer=optimizer / devices if zero_stage >= 1 else optimizer)


def training_memory_bytes(params: float, bytes_per_param: float = ADAM_MIXED_BYTES_PER_PARAM,
                          zero_stage: int = 0, devices: int = 1) -> float:
    """Per-device model state for mixed-precision Adam, with ZeRO sharding
    (:func:`zero_shares`). Activations excluded."""
    optimizer = bytes_per_param - WEIGHT_BYTES_PER_PARAM - GRADIENT_BYTES_PER_PARAM
    return params * zero_shares(zero_stage, devices, optimizer=optimizer).per_param


def usd_per_million_tokens(usd_per_hour: float, tokens_per_s: float) -> float:
    """What a million generated tokens cost at a rental price per hour and a throughput."""
    return usd_per_hour / (tokens_per_s * 3600.0) * 1e6
