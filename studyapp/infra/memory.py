"""Memory arithmetic: weights, KV cache and whether a model fits.

All sizes in bytes. KV cache per token: GQA/MHA keep a key and a value per
layer and KV head, ``2 * layers * kv_heads * head_dim * bytes``; MLA keeps one
compressed latent plus the decoupled RoPE key per layer,
``layers * (kv_lora_rank + qk_rope_head_dim) * bytes`` (DeepSeek-V2/V3 paper).

The serving budget is vLLM's: ``total × gpu_memory_utilization`` is all the engine may
use, and the weights, the activation peak of its profile run and the memory allocated
outside PyTorch all come out of it before the KV cache gets the rest
(``Worker.determine_available_memory``,
https://github.com/vllm-project/vllm/blob/main/vllm/v1/worker/gpu_worker.py:
``available_kv_cache_memory = requested_memory - non_kv_cache_memory``, with
``requested_memory = total_memory * gpu_memory_utilization``; the start-up log line
"the current vLLM instance can use total_gpu_memory (X GiB) x gpu_memory_utilization
(0.90) = Y GiB; model weights take …; non_torch_memory takes …; PyTorch activation peak
memory takes …; the rest of the memory reserved for KV Cache is …",
https://github.com/vllm-project/vllm/pull/12126).

DeepSeek-V3.2's sparse attention adds, per layer and token, the lightning indexer's
own key (``index_head_dim`` values, one key shared by all indexer heads), which the
indexer keeps in FP8 with one FP32 scale per 128 values whatever the KV dtype.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from studyapp.infra.units import GIB, dtype_bytes

DEFAULT_USABLE_FRACTION = 0.9
"""The budget, one meaning everywhere: the fraction of the total the driver reports that a
serving engine may use at all. vLLM's ``gpu_memory_utilization`` has defaulted to 0.9
(https://docs.vllm.ai/en/latest/configuration/engine_args.html), the value of every
start-up log the tests check; its newest ``CacheConfig`` raises it to 0.92
(https://docs.vllm.ai/en/stable/api/vllm/config/cache/), which ``--usable-fraction``
reproduces."""

ACTIVATION_PEAK_BYTES = 1.26 * GIB
"""PyTorch activation peak of vLLM's profile run (a forward pass of max_num_batched_tokens
dummy tokens), as measured for Meta-Llama-3-8B on one H100 80GB with default settings:
"PyTorch activation peak memory 1.26GiB" (https://github.com/vllm-project/vllm/pull/10511).
A measurement of one model, used for every model: the engine measures its own at start-up."""
NON_TORCH_BYTES = 1.79 * GIB
"""Memory allocated outside PyTorch during that profile run (CUDA runtime, NCCL, cuBLAS
workspaces), same log: "non_torch_memory 1.79GiB" (https://github.com/vllm-project/vllm/pull/10511)."""
RUNTIME_BYTES = ACTIVATION_PEAK_BYTES + NON_TORCH_BYTES
"""What the budget keeps back on each device before weights and KV cache: 3.05 GiB."""
KV_BLOCK_TOKENS = 16
"""vLLM's default KV cache block size in tokens (``CacheConfig.DEFAULT_BLOCK_SIZE``,
https://docs.vllm.ai/en/stable/api/vllm/config/cache/); the cache is whole blocks."""


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


@dataclass(frozen=True)
class ServingBudget:
    """One device's memory as vLLM splits it at start-up."""

    total_bytes: float
    utilization: float
    weights_bytes: float
    activation_peak_bytes: float = ACTIVATION_PEAK_BYTES
    non_torch_bytes: float = NON_TORCH_BYTES

    @property
    def budget_bytes(self) -> float:
        """total × gpu_memory_utilization: all the engine may use."""
        return self.total_bytes * self.utilization

    @property
    def runtime_bytes(self) -> float:
        return self.activation_peak_bytes + self.non_torch_bytes

    @property
    def kv_cache_bytes(self) -> float:
        """The rest, reserved for the KV cache (negative: vLLM refuses to start)."""
        return self.budget_bytes - self.weights_bytes - self.runtime_bytes


def usable_bytes(memory_bytes: float, devices: int = 1,
                 usable_fraction: float = DEFAULT_USABLE_FRACTION,
                 runtime_bytes: float = RUNTIME_BYTES) -> float:
    """What weights and KV cache get on ``devices`` devices: each device's budget
    (total × utilization) less the activation peak and non-torch memory."""
    return devices * (memory_bytes * usable_fraction - runtime_bytes)


def min_devices(required: float, memory_bytes: float,
                usable_fraction: float = DEFAULT_USABLE_FRACTION,
                runtime_bytes: float = RUNTIME_BYTES) -> int:
    """Fewest devices whose usable memory holds ``required`` bytes; 0 when the runtime
    takes a device's whole budget (no number of them holds anything)."""
    per_device = usable_bytes(memory_bytes, 1, usable_fraction, runtime_bytes)
    if required <= 0:
        return 1
    if per_device <= 0:
        return 0
    return max(1, math.ceil(required / per_device - 1e-12))


def kv_cache_tokens(kv_bytes: float, bytes_per_token: float,
                    block_tokens: int = KV_BLOCK_TOKENS) -> int:
    """Tokens the KV cache holds, in whole blocks as vLLM allocates it
    (``num_blocks = available // (block bytes)``; "GPU KV cache size: N tokens" is
    num_blocks × block_size, vllm/v1/core/kv_cache_utils.py)."""
    if kv_bytes <= 0:
        return 0
    return int(kv_bytes // (bytes_per_token * block_tokens)) * block_tokens


def max_concurrency(cache_tokens: float, tokens_per_request: float) -> float:
    """Requests of ``tokens_per_request`` the cache holds at once: vLLM's "Maximum
    concurrency for N tokens per request: X×" = cache tokens / N (kv_cache_utils.py)."""
    return cache_tokens / tokens_per_request if tokens_per_request > 0 else 0.0


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
        usable_fraction: float = DEFAULT_USABLE_FRACTION, weights: float | None = None,
        runtime_bytes: float = RUNTIME_BYTES) -> Fit:
    """Weights in ``dtype`` (or ``weights`` bytes, a published checkpoint's size) plus KV
    cache for context × batch against usable memory (the budget less the runtime)."""
    w = weights if weights is not None else weights_bytes(params, dtype)
    kv = kv_cache_bytes(shape, kv_dtype or dtype, context, batch)
    need = w + kv
    return Fit(
        weights_bytes=w,
        kv_cache_bytes=kv,
        required_bytes=need,
        available_bytes=usable_bytes(memory_bytes, devices, usable_fraction, runtime_bytes),
        devices=devices,
        min_devices=min_devices(need, memory_bytes, usable_fraction, runtime_bytes),
    )


def max_tokens_that_fit(free_bytes: float, shape: KVShape, kv_dtype: str, batch: int = 1) -> int:
    """Longest context (tokens per sequence) whose KV cache fits in ``free_bytes``."""
    per_token = kv_bytes_per_token(shape, kv_dtype) * batch
    if free_bytes <= 0:
        return 0
    return int(free_bytes // per_token)
