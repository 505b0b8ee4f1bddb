"""calc decode: the larger of memory time and compute time, MoE and sliding windows.

Published figures:
- H100 SXM dense BF16 989 TFLOPS, 3.35 TB/s: https://www.nvidia.com/en-us/data-center/h100/
- Llama-3.1-8B 8.03B parameters:
  https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json
- Mixtral 8x7B 46.7B total, 12.9B active, 8 experts, 2 per token:
  https://arxiv.org/abs/2401.04088
- Mistral 7B sliding_window 4096:
  https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main
from studyapp.infra import decode, experts_touched, kv_tokens, moe_params_read


def _decode(*args: str) -> dict[str, Any]:
    out = CliRunner().invoke(main, ["calc", "decode", *args, "--json"])
    assert out.exit_code == 0, out.output
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_llama_8b_bf16_batch_1024_on_h100_is_compute_bound() -> None:
    report = _decode("--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--batch", "1024")
    assert report["bound"] == "compute"
    # 989e12 / (2 × 8.03e9) ≈ 61,600 tokens/s, not the 213,599 of the bandwidth ceiling
    assert report["tokens_per_s"] == pytest.approx(989e12 / (2 * 8.03e9), rel=1e-3)
    assert report["tokens_per_s"] == pytest.approx(61_600, rel=0.002)


def test_llama_8b_at_batch_1_is_memory_bound() -> None:
    report = _decode("--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert report["bound"] == "memory"
    assert report["tokens_per_s"] == pytest.approx(3.35e12 / 16.06e9, rel=1e-3)


def test_mfu_lowers_the_compute_ceiling() -> None:
    report = _decode("--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--batch", "1024",
                     "--mfu", "0.5")
    assert report["tokens_per_s"] == pytest.approx(0.5 * 989e12 / (2 * 8.03e9), rel=1e-3)


def test_tflops_option_is_used() -> None:
    report = _decode("--params", "8.03e9", "--bandwidth-tb-s", "3.35", "--tflops", "989",
                     "--batch", "1024")
    assert report["bound"] == "compute"
    assert report["tokens_per_s"] == pytest.approx(61_600, rel=0.002)
    memory_only = _decode("--params", "8.03e9", "--bandwidth-tb-s", "3.35", "--batch", "1024")
    assert memory_only["compute_seconds"] is None and memory_only["bound"] == "memory"


def test_mixtral_at_batch_1_reads_only_its_active_parameters() -> None:
    report = _decode("--model", "mixtral-8x7b", "--gpu", "h100-sxm")
    assert report["weights_read_gb"] == pytest.approx(25.8)  # 12.9B × 2 bytes
    assert report["tokens_per_s"] == pytest.approx(130, rel=0.01)  # not 35.9
    assert report["experts_touched"] == pytest.approx(2)
    assert report["moe_rule"] == "expected-distinct-experts"


def test_mixtral_at_large_batch_reads_every_expert() -> None:
    report = _decode("--model", "mixtral-8x7b", "--gpu", "h100-sxm", "--batch", "256")
    assert report["weights_read_gb"] == pytest.approx(93.4, rel=1e-3)  # all 46.7B


def test_expected_experts_touched() -> None:
    assert experts_touched(8, 2, 1) == pytest.approx(2)
    assert experts_touched(8, 2, 2) == pytest.approx(8 * (1 - 0.75**2))  # 3.5
    assert moe_params_read(46.7e9, 12.9e9, 1, 8, 2) == pytest.approx(12.9e9)
    assert moe_params_read(46.7e9, 12.9e9, 10_000) == pytest.approx(46.7e9)


def test_mistral_kv_cache_stops_at_its_sliding_window() -> None:
    assert load_catalog().models["mistral-7b"].sliding_window == 4096
    long = _decode("--model", "mistral-7b", "--gpu", "h100-sxm", "--context", "32768")
    window = _decode("--model", "mistral-7b", "--gpu", "h100-sxm", "--context", "4096")
    assert long["kv_tokens"] == 4096
    assert long["kv_cache_gb"] == window["kv_cache_gb"]
    assert kv_tokens(2048, 4096) == 2048 and kv_tokens(8192, None) == 8192


def test_decode_step_is_the_larger_time() -> None:
    step = decode(16e9, 0.0, 3.35e12, 1024, flops_per_step=2 * 8e9 * 1024, flops=989e12)
    assert step.step_seconds == step.compute_seconds
    assert step.bound == "compute"


def test_fit_and_kv_cap_the_cache_at_the_window() -> None:
    out = CliRunner().invoke(main, ["calc", "kv", "--model", "mistral-7b", "--tokens", "32768",
                                    "--json"])
    report = json.loads(out.stdout)
    assert report["kv_tokens"] == 4096 and report["tokens"] == 32768
    assert report["kv_cache_bytes"] == 131_072 * 4096  # 2 × 32 × 8 × 128 × 2 B per token
    out = CliRunner().invoke(main, ["calc", "fit", "--model", "mistral-7b", "--gpu", "h100-sxm",
                                    "--context", "32768", "--batch", "4", "--json"])
    fit = json.loads(out.stdout)
    assert fit["kv_tokens"] == 4096
    assert fit["kv_cache_bytes"] == 131_072 * 4096 * 4


def test_generated_contexts_stop_at_the_window() -> None:
    from studyapp.questions.generators import get_family

    for seed in range(30):
        q = get_family("kv-cache-total").generate(seed, "en", {"models": ["mistral-7b"]})
        assert q.params["context"] <= 4096


# gpt-oss alternates a 128-token sliding window with full attention: config.json
# "sliding_window": 128 and "layer_types" with 18 "sliding_attention" of 36 layers
# (https://huggingface.co/openai/gpt-oss-120b/blob/main/config.json). Per token and
# layer the cache is 2 × 8 KV heads × 64 × 2 B = 2,048 B.
GPT_OSS_120B_KV_131072 = 18 * 2_048 * 131_072 + 18 * 2_048 * 128  # 4,836,556,800 B


def test_only_the_window_layers_of_gpt_oss_stop_at_128_tokens() -> None:
    from studyapp.infra import kv_tokens_per_layer

    assert kv_tokens_per_layer(131_072, 128, 18, 36) == (18 * 128 + 18 * 131_072) / 36
    assert kv_tokens_per_layer(100, 128, 18, 36) == 100  # inside the window: every token
    assert kv_tokens_per_layer(32_768, 4096, None, 32) == 4096  # Mistral: every layer
    assert kv_tokens_per_layer(32_768, None, None, 32) == 32_768


@pytest.mark.parametrize("source", [
    ("--model", "gpt-oss-120b"),
    ("--model-config", "tests/catalog/hf_configs/gpt-oss-120b.json"),
])
def test_gpt_oss_kv_cache_keeps_the_full_layers_whole(source: tuple[str, str]) -> None:
    """Neither the whole cache (every layer full) nor the window's 128 tokens for all."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    args = [source[0], str(root / source[1]) if source[0] == "--model-config" else source[1]]
    out = CliRunner().invoke(main, ["calc", "kv", *args, "--tokens", "131072", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["kv_cache_bytes"] == GPT_OSS_120B_KV_131072
    assert report["sliding_window"] == 128 and report["sliding_window_layers"] == 18
    out = CliRunner().invoke(main, ["calc", "fit", *args, "--gpu", "h100-sxm", "--context",
                                    "131072", "--batch", "2", "--json"])
    assert json.loads(out.output)["kv_cache_bytes"] == 2 * GPT_OSS_120B_KV_131072


def test_kv_families_leave_out_a_model_whose_window_is_shorter_than_every_context() -> None:
    from studyapp.questions.generators import get_family
    from studyapp.questions.generators.drawing import DrawError

    for seed in range(40):
        q = get_family("kv-cache-total").generate(seed, "en", {})
        assert not q.params["model"].startswith("gpt-oss"), q.params
    with pytest.raises(DrawError, match="sliding window"):
        get_family("kv-cache-total").generate(1, "en", {"models": ["gpt-oss-120b"]})
    out = CliRunner().invoke(main, ["generate", "kv-cache-total", "--option",
                                    "models=gpt-oss-120b"])
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert "sliding window" in out.output


# Llama 4 Scout: config.json text_config "attention_chunk_size": 8192 and "no_rope_layers"
# with 36 RoPE layers of 48; the RoPE layers attend within 8,192-token chunks, the other
# 12 to everything (https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct/blob/
# main/config.json). Per token and layer: 2 × 8 KV heads × 128 × 2 B = 4,096 B.
def test_llama_4_chunked_layers_keep_at_most_8192_tokens() -> None:
    from pathlib import Path

    expected = 12 * 4_096 * 1_000_000 + 36 * 4_096 * 8_192  # 50.36 GB, not 196.6
    config = Path(__file__).resolve().parents[1] / "catalog/hf_configs/llama-4-scout.json"
    for args in (["--model", "llama-4-scout"], ["--model-config", str(config)]):
        out = CliRunner().invoke(main, ["calc", "kv", *args, "--tokens", "1000000", "--json"])
        report = json.loads(out.output)
        assert report["kv_cache_bytes"] == expected, args
        assert report["sliding_window"] == 8192 and report["sliding_window_layers"] == 36
