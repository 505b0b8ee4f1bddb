"""Memory arithmetic: weights, KV cache and whether a model fits.

All sizes in bytes. KV cache per token: GQA/MHA keep a key and a value per
layer and KV head, ``2 * layers * kv_heads * head_dim * bytes``; MLA keeps one
compressed latent plus the decoupled RoPE key per layer,
``layers * (kv_lora_rank + qk_rope_head_dim) * bytes`` (DeepSeek-V2/V3 paper).
DeepSeek-V3.2's sparse attention adds, per layer and token, the lightning indexer's
own key (``index_head_dim`` values, one key shared by all indexer heads), which the
indexer keeps in FP8 with one FP32 scale per 128 values whatever the KV dtype.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from studyapp.infra.units import dtype_bytes

DEFAULT_USABLE_FRACTION = 0.9
"""Usable memory, one meaning everywhere: the fraction of the total the driver reports that
a serving engine gives its weights and KV cache. vLLM's ``gpu_memory_utilization`` defaults
to 0.9 (https://docs.vllm.ai/en/latest/configuration/engine_args.html)."""


INDEX_KEY_BYTES_PER_VALUE = 1 + 4 / 128
"""The lightning indexer's key cache: FP8 values plus one FP32 scale per block of 128
(DeepSeek-V3.2-Exp inference/model.py, ``Indexer.k_cache`` float8_e4m3fn and
``k_scale_cache`` float32 of head_dim // 128): 132 bytes for a 128-wide key."""


@dataclass(frozen=True)
class KVShape:
    """What the KV cache of one token depends on."""

    layers: int
    kv_heads: int = 0
    head_dim: int = 0
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    index_head_dim: int | None = None
    """DeepSeek sparse attention: the width of the lightning indexer's per-token key."""

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    def index_bytes_per_layer(self) -> float:
        """Bytes one token adds to one layer's indexer key cache (0 without an indexer)."""
        return (self.index_head_dim or 0) * INDEX_KEY_BYTES_PER_VALUE

    def values_per_token(self) -> int:
        """Numbers stored per token across all layers."""
        if self.kv_lora_rank is not None:
            return self.layers * (self.kv_lora_rank + (self.qk_rope_head_dim or 0))
        return 2 * self.layers * self.kv_heads * self.head_dim


def weights_bytes(params: float, dtype: str) -> float:
    """Parameters × bytes per parameter."""
    return params * dtype_bytes(dtype)


def kv_bytes_per_token(shape: KVShape, dtype: str) -> float:
    """KV cache bytes one token keeps in every layer: its K and V (or MLA latent) in
    ``dtype``, plus the indexer's FP8 key where the model has one."""
    return (shape.values_per_token() * dtype_bytes(dtype)
            + shape.layers * shape.index_bytes_per_layer())


def kv_cache_bytes(shape: KVShape, dtype: str, tokens: float, batch: int = 1) -> float:
    """KV cache for ``batch`` sequences of ``tokens`` each (a mean per layer where only
    some layers keep a sliding window)."""
    return kv_bytes_per_token(shape, dtype) * tokens * batch


def usable_bytes(memory_bytes: float, devices: int = 1,
                 usable_fraction: float = DEFAULT_USABLE_FRACTION) -> float:
    """The share of the reported total a serving engine gives weights and KV cache."""
    return memory_bytes * devices * usable_fraction


def min_devices(required: float, memory_bytes: float,
                usable_fraction: float = DEFAULT_USABLE_FRACTION) -> int:
    """Fewest devices whose usable memory holds ``required`` bytes."""
    per_device = memory_bytes * usable_fraction
    if required <= 0:
        return 1
    return max(1, math.ceil(required / per_device - 1e-12))


@dataclass(frozen=True)
class Fit:
    """Does weights + KV cache fit, and by how much."""

    weights_bytes: float
    kv_cache_bytes: float
    required_bytes: float
    available_bytes: float
    devices: int
    min_devices: int

    @property
    def fits(self) -> bool:
        return self.required_bytes <= self.available_bytes

    @property
    def headroom_bytes(self) -> float:
        return self.available_bytes - self.required_bytes


def fit(params: float, dtype: str, shape: KVShape, memory_bytes: float, *,
        context: float = 0, batch: int = 1, kv_dtype: str | None = None, devices: int = 1,
        usable_fraction: float = DEFAULT_USABLE_FRACTION, weights: float | None = None) -> Fit:
    """Weights in ``dtype`` (or ``weights`` bytes, a published checkpoint's size) plus KV
    cache for context × batch against usable memory."""
    w = weights if weights is not None else weights_bytes(params, dtype)
    kv = kv_cache_bytes(shape, kv_dtype or dtype, context, batch)
    need = w + kv
    return Fit(
        weights_bytes=w,
        kv_cache_bytes=kv,
        required_bytes=need,
        available_bytes=usable_bytes(memory_bytes, devices, usable_fraction),
        devices=devices,
        min_devices=min_devices(need, memory_bytes, usable_fraction),
    )


def max_tokens_that_fit(free_bytes: float, shape: KVShape, kv_dtype: str, batch: int = 1) -> int:
    """Longest context (tokens per sequence) whose KV cache fits in ``free_bytes``."""
    per_token = kv_bytes_per_token(shape, kv_dtype) * batch
    if free_bytes <= 0:
        return 0
    return int(free_bytes // per_token)
