"""Memory formulas against published figures and model configs."""

from __future__ import annotations

import math

import pytest

from studyapp.catalog import load_catalog
from studyapp.infra import (
    KVShape,
    dtype_bytes,
    fit,
    kv_bytes_per_token,
    kv_cache_bytes,
    max_tokens_that_fit,
    min_devices,
    weights_bytes,
)
from studyapp.infra.shapes import kv_shape


@pytest.mark.parametrize(
    ("model_id", "dtype", "per_token"),
    [
        # Llama-3.1-8B config.json: 32 layers, 8 KV heads, head_dim 128 → 2·32·8·128·2 B
        # https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json
        ("llama-3.1-8b", "bf16", 131_072),
        # Llama-3.1-70B config.json: 80 layers, 8 KV heads, 128 → 327,680 B (BF16)
        # https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json
        ("llama-3.1-70b", "bf16", 327_680),
        ("llama-3.1-70b", "fp8", 163_840),
        # Llama-2-7B is MHA: 32 layers × 32 heads × 128 → 524,288 B per token in FP16
        # https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json
        ("llama-2-7b", "fp16", 524_288),
        # DeepSeek-V3 MLA caches (d_c + d_h^R) · layers values per token (DeepSeek-V2
        # paper, Table 1); config.json: kv_lora_rank 512, qk_rope_head_dim 64, 61 layers
        ("deepseek-v3", "bf16", 61 * 576 * 2),
    ],
)
def test_kv_cache_bytes_per_token_from_configs(model_id: str, dtype: str,
                                               per_token: int) -> None:
    model = load_catalog().models[model_id]
    assert kv_bytes_per_token(kv_shape(model), dtype) == per_token


def test_opt_13b_kv_cache_per_token_from_the_vllm_paper() -> None:
    # vLLM / PagedAttention (Kwon et al., SOSP 2023, §3): "for the 13B parameter OPT
    # model, the KV cache of a single token demands 800 KB of space, calculated as
    # 2 (key and value vectors) × 5120 (hidden state size) × 40 (number of layers)
    # × 2 (bytes per FP16)". OPT-13B: 40 heads of 128 = 5120.
    shape = KVShape(layers=40, kv_heads=40, head_dim=128)
    assert kv_bytes_per_token(shape, "fp16") == 819_200


def test_dtype_bytes() -> None:
    assert [dtype_bytes(d) for d in ("fp32", "fp16", "bf16", "fp8", "int8", "fp4", "int4")] == [
        4, 2, 2, 1, 1, 0.5, 0.5]
    with pytest.raises(ValueError, match="unknown dtype"):
        dtype_bytes("fp7")


def test_weights_of_llama_3_1_70b_in_bf16() -> None:
    # 70.55e9 parameters (sum of config tensor shapes) × 2 bytes = 141.1 GB
    params = load_catalog().models["llama-3.1-70b"].params
    assert weights_bytes(params, "bf16") == pytest.approx(141.1e9, rel=1e-3)


def test_70b_bf16_on_one_h200_with_8k_context_batch_4_does_not_fit() -> None:
    cat = load_catalog()
    model, gpu = cat.models["llama-3.1-70b"], cat.accelerators["h200-sxm"]
    result = fit(model.params, "bf16", kv_shape(model), gpu.memory_bytes, context=8192, batch=4)
    assert result.kv_cache_bytes == 327_680 * 8192 * 4
    # nvidia-smi: 143,771 MiB on an H200 (https://github.com/sgl-project/sglang/issues/3196)
    # less vLLM's activation peak (1.26 GiB) and non-torch memory (1.79 GiB), measured for
    # Llama 3 8B on an H100 (https://github.com/vllm-project/vllm/pull/10511)
    assert result.available_bytes == pytest.approx(143_771 * 2**20 * 0.9 - 3.05 * 2**30)
    assert not result.fits
    assert result.min_devices == 2


def test_70b_fp8_fits_on_one_h200() -> None:
    cat = load_catalog()
    model, gpu = cat.models["llama-3.1-70b"], cat.accelerators["h200-sxm"]
    result = fit(model.params, "fp8", kv_shape(model), gpu.memory_bytes, context=8192)
    assert result.fits
    assert result.headroom_bytes > 0.1 * result.available_bytes


def test_min_devices_boundaries() -> None:
    per_device = 0.9 * 80e9 - 3.05 * 2**30  # the budget less vLLM's 3.05 GiB runtime
    assert min_devices(per_device, 80e9) == 1
    assert min_devices(per_device + 0.1e9, 80e9) == 2
    assert min_devices(72e9, 80e9, runtime_bytes=0) == 1  # exactly 0.9 × 80 GB
    assert min_devices(0, 80e9) == 1
    assert min_devices(1e9, 3e9) == 0  # 2.7 GB of budget: the runtime takes it all


def test_max_tokens_that_fit_inverts_kv_cache() -> None:
    shape = KVShape(layers=32, kv_heads=8, head_dim=128)
    tokens = max_tokens_that_fit(10e9, shape, "bf16", batch=2)
    assert kv_cache_bytes(shape, "bf16", tokens, 2) <= 10e9
    assert kv_cache_bytes(shape, "bf16", tokens + 1, 2) > 10e9
    assert math.isclose(tokens, 10e9 / (131_072 * 2), abs_tol=1)
