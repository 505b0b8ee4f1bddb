"""vLLM's serving budget against its own published start-up logs.

Each log prints every figure rounded to 0.01 GiB, so a figure derived from four of them
may be off by up to 4 × 0.005 GiB; the tolerance below is 0.025 GiB for that reason.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.infra import (
    ACTIVATION_PEAK_BYTES,
    NON_TORCH_BYTES,
    RUNTIME_BYTES,
    ServingBudget,
    kv_cache_tokens,
    max_concurrency,
    usable_bytes,
)

GIB = 2**30
ROUNDING = 0.025  # GiB: four figures each rounded to 0.01 GiB


@pytest.mark.parametrize(("total", "utilization", "budget", "weights", "non_torch",
                          "activation", "kv"), [
    # https://github.com/vllm-project/vllm/pull/14447 (a 24 GB GPU, utilization 0.99):
    # "the current vLLM instance can use total_gpu_memory (23.58GiB) x
    # gpu_memory_utilization (0.99) = 23.35GiB; model weights take 21.21GiB;
    # non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; the
    # rest of the memory reserved for KV Cache is 1.57GiB."
    (23.58, 0.99, 23.35, 21.21, 0.20, 0.37, 1.57),
    # https://github.com/vllm-project/vllm/pull/12126 (Llama-3.2-11B-Vision, H100 80GB):
    # "(79.22GiB) x gpu_memory_utilization (0.90) = 71.29GiB; model weights take 19.86GiB;
    # non_torch_memory takes 0.16GiB; PyTorch activation peak memory takes 36.63GiB; the
    # rest of the memory reserved for KV Cache is 14.65GiB."
    (79.22, 0.90, 71.29, 19.86, 0.16, 36.63, 14.65),
    # https://github.com/vllm-project/vllm/pull/10511 (Meta-Llama-3-8B, H100 80GB):
    # total_gpu_memory 79.22GiB, gpu_memory_utilization 0.90, can use 71.29GiB, model
    # weights take 14.96GiB, non_torch_memory 1.79GiB, PyTorch activation peak memory
    # 1.26GiB, available_kv_cache_memory 53.29GiB
    (79.22, 0.90, 71.29, 14.96, 1.79, 1.26, 53.29),
])
def test_budget_and_kv_cache_match_vllm_start_up_logs(
        total: float, utilization: float, budget: float, weights: float, non_torch: float,
        activation: float, kv: float) -> None:
    split = ServingBudget(total_bytes=total * GIB, utilization=utilization,
                          weights_bytes=weights * GIB, activation_peak_bytes=activation * GIB,
                          non_torch_bytes=non_torch * GIB)
    assert split.budget_bytes / GIB == pytest.approx(budget, abs=ROUNDING)
    assert split.kv_cache_bytes / GIB == pytest.approx(kv, abs=ROUNDING)


def test_usable_memory_is_the_budget_less_the_runtime_on_every_device() -> None:
    """Weights and KV cache share what is left of total × utilization once the activation
    peak and the non-torch memory are out, on each device of a tensor-parallel group."""
    one = usable_bytes(80 * GIB)
    assert one == pytest.approx(80 * GIB * 0.9 - ACTIVATION_PEAK_BYTES - NON_TORCH_BYTES)
    assert usable_bytes(80 * GIB, devices=8) == pytest.approx(8 * one)
    # the default runtime is the Llama 3 8B H100 measurement of PR 10511 (above)
    runtime_gib = RUNTIME_BYTES / GIB
    assert runtime_gib == pytest.approx(1.26 + 1.79)


def test_cache_tokens_are_whole_blocks_and_concurrency_divides_them() -> None:
    """https://github.com/vllm-project/vllm/pull/17122 (Llama-3.1-8B-Instruct, one L40S):
    "GPU KV cache size: 158,656 tokens", "Maximum concurrency for 32,768 tokens per
    request: 4.84x". Llama 3.1 8B keeps 2 × 32 layers × 8 KV heads × 128 × 2 B =
    131,072 B a token (its config.json)."""
    per_token = 2 * 32 * 8 * 128 * 2
    # half a block more memory does not make another block of 16 tokens
    assert kv_cache_tokens(158_656 * per_token + 8 * per_token, per_token) == 158_656
    assert kv_cache_tokens(158_656 * per_token - 1, per_token) == 158_656 - 16
    assert round(max_concurrency(158_656, 32_768), 2) == 4.84
    assert kv_cache_tokens(-1.0, per_token) == 0


def test_calc_fit_reproduces_the_llama_3_8b_h100_log() -> None:
    """PR 10511's run through ``calc fit``: 79.22 GiB reported, 0.90, weights of an 8B
    model in BF16 (14.96 GiB), 1.79 GiB non-torch, 1.26 GiB activation peak: 53.29 GiB
    left for the KV cache (https://github.com/vllm-project/vllm/pull/10511)."""
    out = CliRunner().invoke(main, [
        "calc", "fit", "--model", "llama-3.1-8b", "--memory-gib", "79.22", "--dtype", "bf16",
        "--activation-peak-gib", "1.26", "--non-torch-gib", "1.79", "--context", "8192",
        "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["weights_bytes"] / GIB == pytest.approx(14.96, abs=0.01)
    assert report["kv_cache_room_bytes"] / GIB == pytest.approx(53.29, abs=ROUNDING)
    per_token = report["kv_cache_bytes_per_token"]
    assert report["kv_cache_tokens"] == kv_cache_tokens(report["kv_cache_room_bytes"],
                                                        per_token)
    assert report["kv_cache_tokens"] * per_token / GIB == pytest.approx(53.29, abs=ROUNDING)
    assert report["max_concurrency"] == pytest.approx(report["kv_cache_tokens"] / 8192,
                                                      abs=0.005)


def test_calc_fit_text_prints_the_start_up_line() -> None:
    out = CliRunner().invoke(main, ["calc", "fit", "--model", "llama-3.1-8b", "--gpu",
                                    "h100-sxm", "--context", "8192"])
    assert out.exit_code == 0, out.output
    report = json.loads(CliRunner().invoke(main, [
        "calc", "fit", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "8192",
        "--json"]).output)
    line = (f"GPU KV cache size: {report['kv_cache_tokens']:,} tokens; maximum concurrency "
            f"for 8,192 tokens per request: {report['max_concurrency']:.2f}×")
    assert line in out.output
    # new keys only: the old ones stay
    for key in ("fits", "available_gb", "usable_fraction", "required_bytes"):
        assert key in report


def test_calc_fit_at_context_0_counts_concurrency_at_the_models_own_context() -> None:
    """vLLM's max_model_len defaults to the model's context length."""
    report = json.loads(CliRunner().invoke(main, [
        "calc", "fit", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--json"]).output)
    assert report["concurrency_tokens"] == 131_072
    assert report["max_concurrency"] == pytest.approx(report["kv_cache_tokens"] / 131_072,
                                                      abs=0.005)


def test_a_budget_smaller_than_the_runtime_is_one_line() -> None:
    out = CliRunner().invoke(main, ["calc", "fit", "--model", "llama-3.1-8b", "--gpu",
                                    "h100-sxm", "--usable-fraction", "0.02"])
    assert out.exit_code != 0
    assert "Traceback" not in out.output
    assert "--usable-fraction" in out.output
