"""The reference table: published measurements and worked examples the calculator must meet.

One row per published figure: the ``studyapp calc`` command that computes it, the JSON key
it reports, the published value, the tolerance allowed and why, and the source. A row
that drifts means the calculator teaches a figure practitioners do not see. Rows come
from driver logs (nvidia-smi, rocm-smi), model configs and papers, vLLM start-up logs,
nccl-tests runs and serving engines' all-reduce benchmarks; measurements.yaml adds the
achievable matmul rates, read against the calculator's own datasheet figure.
"""

from __future__ import annotations

import json
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main

EXACT = 1e-9
ROUNDED = 0.01
"""A published figure rounded to its last digit (810 GB for 811.7)."""
MEASURED = 0.05
"""A run's figure against the model's: 5%, the spread of repeated nccl-tests runs."""


class Row(NamedTuple):
    name: str
    argv: tuple[str, ...]
    key: str
    published: float
    rel: float
    source: str


def _fit(gpu: str) -> tuple[str, ...]:
    return ("fit", "--model", "llama-3.1-8b", "--gpu", gpu)


def _kv(model: str, tokens: int = 1) -> tuple[str, ...]:
    return ("kv", "--model", model, "--tokens", str(tokens))


def _weights(model: str, dtype: str) -> tuple[str, ...]:
    return ("fit", "--model", model, "--memory-gb", "10000", "--dtype", dtype)


HF_LLAMA31 = "https://huggingface.co/blog/llama31"
"""Hugging Face's Llama 3.1 post, "Inference Memory Requirements": 16/8 GB (8B), 140/70 GB
(70B) and 810/405 GB (405B) of weights in FP16/FP8."""

ROWS = [
    # ---- memory as the driver reports it (nvidia-smi / rocm-smi totals, MiB)
    Row("H100 SXM driver total", _fit("h100-sxm"), "driver_memory_mib", 81_559, EXACT,
        "https://github.com/modal-labs/modal-client/pull/2797"),
    Row("H200 driver total", _fit("h200-sxm"), "driver_memory_mib", 143_771, EXACT,
        "https://github.com/sgl-project/sglang/issues/3196"),
    Row("A100 80GB driver total", _fit("a100-80gb"), "driver_memory_mib", 81_920, EXACT,
        "https://github.com/modal-labs/modal-client/pull/2797"),
    Row("B200 driver total", _fit("b200"), "driver_memory_mib", 183_359, EXACT,
        "https://github.com/NVIDIA/TensorRT-LLM/issues/10278"),
    Row("GB200 driver total", _fit("gb200"), "driver_memory_mib", 189_471, EXACT,
        "https://github.com/simone-chen/aiconfigurator/blob/865aa0e02c36970a47d2815e8a7e0c3d21dbbaa2/src/aiconfigurator/systems/gb200.yaml"),
    Row("B300 driver total", _fit("b300"), "driver_memory_mib", 275_040, EXACT,
        "https://github.com/simone-chen/aiconfigurator/blob/84ba8996240b8e7b2d95f2c194aaae6842008d9e/src/aiconfigurator/systems/b300_sxm.yaml"),
    Row("GB300 driver total", _fit("gb300"), "driver_memory_mib", 284_208, EXACT,
        "https://github.com/simone-chen/aiconfigurator/blob/865aa0e02c36970a47d2815e8a7e0c3d21dbbaa2/src/aiconfigurator/systems/gb300.yaml"),
    Row("MI300X driver total (206,158,430,208 B)", _fit("mi300x"), "driver_memory_mib",
        196_608, EXACT, "https://github.com/ROCm/legacy-rocm-build/issues/4414"),
    Row("B300 in decimal GB (288.4, MLPerf's B300-SXM-270GB is GiB)", _fit("b300"),
        "memory_gb_per_device", 288.4, ROUNDED,
        "https://raw.githubusercontent.com/mlcommons/training_results_v6.0/main/Quanta_Cloud_Technology/summary.json"),
    # ---- KV cache per token, from each model's config (2 x layers x KV heads x head x 2 B)
    Row("Llama 3.1 8B: 131,072 B a token", _kv("llama-3.1-8b"), "kv_cache_bytes_per_token",
        131_072, EXACT, "https://github.com/vllm-project/vllm/pull/17122"),
    Row("Llama 3.1 70B: 327,680 B", _kv("llama-3.1-70b"), "kv_cache_bytes_per_token",
        327_680, EXACT, "https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json"),
    Row("Llama 3.1 405B: 516,096 B", _kv("llama-3.1-405b"), "kv_cache_bytes_per_token",
        516_096, EXACT,
        "https://huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json"),
    Row("Llama 2 7B (MHA): 524,288 B", _kv("llama-2-7b"), "kv_cache_bytes_per_token",
        524_288, EXACT, "https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json"),
    Row("Llama 2 70B: 327,680 B", _kv("llama-2-70b"), "kv_cache_bytes_per_token", 327_680,
        EXACT, "https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json"),
    Row("Mistral 7B: 131,072 B", _kv("mistral-7b"), "kv_cache_bytes_per_token", 131_072,
        EXACT, "https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json"),
    Row("Mixtral 8x7B: 131,072 B", _kv("mixtral-8x7b"), "kv_cache_bytes_per_token", 131_072,
        EXACT, "https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json"),
    Row("Qwen2.5 72B: 327,680 B", _kv("qwen2.5-72b"), "kv_cache_bytes_per_token", 327_680,
        EXACT, "https://huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json"),
    Row("GPT-3 175B (MHA, 96 x 128): 4,718,592 B", _kv("gpt-3-175b"),
        "kv_cache_bytes_per_token", 4_718_592, EXACT, "https://arxiv.org/abs/2005.14165"),
    Row("DeepSeek-V3 (MLA: 61 x (512 + 64) x 2 B): 70,272 B", _kv("deepseek-v3"),
        "kv_cache_bytes_per_token", 70_272, EXACT,
        "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json"),
    Row("Kimi K2 (MLA, as DeepSeek-V3): 70,272 B", _kv("kimi-k2"),
        "kv_cache_bytes_per_token", 70_272, EXACT,
        "https://huggingface.co/moonshotai/Kimi-K2-Instruct/blob/main/config.json"),
    Row("Gemma 3 27B at 131,072 tokens: 10 global layers, 52 within a 1,024 window",
        _kv("gemma-3-27b", 131_072), "kv_cache_bytes",
        (10 * 131_072 + 52 * 1_024) * 2 * 16 * 128 * 2, EXACT,
        "https://huggingface.co/google/gemma-3-27b-it/blob/main/config.json"),
    # ---- weights (parameters x bytes), Hugging Face's published table
    Row("Llama 3.1 8B in BF16: 16 GB", _weights("llama-3.1-8b", "bf16"), "weights_gb", 16,
        ROUNDED, HF_LLAMA31),
    Row("Llama 3.1 8B in FP8: 8 GB", _weights("llama-3.1-8b", "fp8"), "weights_gb", 8,
        ROUNDED, HF_LLAMA31),
    Row("Llama 3.1 70B in BF16: 140 GB", _weights("llama-3.1-70b", "bf16"), "weights_gb", 140,
        ROUNDED, HF_LLAMA31),
    Row("Llama 3.1 70B in FP8: 70 GB", _weights("llama-3.1-70b", "fp8"), "weights_gb", 70,
        ROUNDED, HF_LLAMA31),
    Row("Llama 3.1 405B in BF16: 810 GB", _weights("llama-3.1-405b", "bf16"), "weights_gb",
        810, ROUNDED, HF_LLAMA31),
    Row("Llama 3.1 405B in FP8: 405 GB", _weights("llama-3.1-405b", "fp8"), "weights_gb",
        405, ROUNDED, HF_LLAMA31),
    # ---- vLLM's start-up log, through calc fit (PR 10511: Meta-Llama-3-8B on an H100)
    Row("vLLM: 53.29 GiB left for the KV cache of Llama 3 8B on an H100",
        ("fit", "--model", "llama-3.1-8b", "--memory-gib", "79.22", "--dtype", "bf16",
         "--activation-peak-gib", "1.26", "--non-torch-gib", "1.79"),
        "kv_cache_room_bytes", 53.29 * 2**30, 0.001,
        "https://github.com/vllm-project/vllm/pull/10511"),
    # ---- collectives: nccl-tests bus bandwidths (GB/s) and all-reduce latency
    Row("A800 node ring: ~160 GB/s of NVLink's 200 each way",
        ("allreduce", "--size-gb", "10", "--gpus", "8", "--link", "nvlink-3",
         "--bandwidth-gb-s", "200"), "bus_bandwidth_gb_s", 160, MEASURED,
        "https://github.com/NVIDIA/nccl/issues/412"),
    Row("H100 node ring: ~370 GB/s of 450 (20% protocol overhead)",
        ("allreduce", "--size-gb", "10", "--gpus", "8", "--link", "nvlink-4"),
        "bus_bandwidth_gb_s", 370, MEASURED, "https://github.com/NVIDIA/nccl-tests/issues/212"),
    Row("4 HGX H100 nodes, 8 NDR cards each: 365.84 GB/s",
        ("allreduce", "--size-gb", "10", "--system", "hgx-h100", "--nodes", "4"),
        "bus_bandwidth_gb_s", 365.84, MEASURED,
        "https://github.com/NVIDIA/nccl-tests/issues/309"),
    Row("One 200 Gb/s card per node: ~24 GB/s",
        ("allreduce", "--size-gb", "10", "--nodes", "12", "--gpus-per-node", "8",
         "--link", "nvlink-3", "--cards-per-node", "1", "--card-gbit-s", "200"),
        "bus_bandwidth_gb_s", 24, MEASURED, "https://github.com/NVIDIA/nccl/issues/412"),
    Row("Llama 3.1 70B, TP 8 on H100, batch 1: 160 calls x 6-12 us (1.44 ms, mid-range)",
        ("tp", "--model", "llama-3.1-70b", "--tp", "8", "--gpu", "h100-sxm", "--batch", "1"),
        "comm_ms_per_step", 1.44, 0.34, "https://github.com/sgl-project/sglang/pull/2904"),
    # ---- training compute (6 N D)
    Row("Llama 3.1 405B on 15.6T tokens: 3.8e25 FLOPs",
        ("train", "--params", "405e9", "--tokens", "15.6e12", "--gpu", "h100-sxm",
         "--gpus", "16384"), "flops", 3.8e25, ROUNDED, "https://arxiv.org/abs/2407.21783"),
    Row("GPT-3 175B on 300B tokens: 3.14e23 FLOPs",
        ("train", "--params", "175e9", "--tokens", "300e9", "--gpu", "a100-80gb",
         "--gpus", "1024"), "flops", 3.14e23, ROUNDED, "https://arxiv.org/abs/2005.14165"),
]


def _report(argv: tuple[str, ...]) -> dict[str, object]:
    result = CliRunner().invoke(main, ["calc", *argv, "--json"])
    assert result.exit_code == 0, (argv, result.output)
    report = json.loads(result.output)
    assert isinstance(report, dict)
    return report


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_the_calculator_meets_the_published_figure(row: Row) -> None:
    value = _report(row.argv)[row.key]
    assert isinstance(value, int | float), (row.key, value)
    assert value == pytest.approx(row.published, rel=row.rel), row.source


MATMUL = [m for m in load_catalog().measurements if m.kind == "matmul-tflops"]


@pytest.mark.parametrize("measured", MATMUL, ids=[m.id for m in MATMUL])
def test_a_matmul_measurement_is_read_against_the_calculators_own_peak(measured) -> None:  # type: ignore[no-untyped-def]
    """Each achievable-matmul run (stas00/ml-engineering's MAMF table, in measurements.yaml
    with its source) is compared with the dense rate ``calc`` uses for that chip and
    precision, and falls below it: no run beats the datasheet."""
    chip = load_catalog().accelerators[measured.chip]
    dtype = str(measured.setup.get("dtype", "bf16"))
    peak = chip.dense_tflops(dtype)
    assert peak is not None and measured.theory is not None
    assert measured.theory == pytest.approx(peak, rel=0.01), measured.sources[0]
    assert 0.3 < measured.value / peak <= 1.0


def test_the_table_has_forty_rows() -> None:
    assert len(ROWS) + len(MATMUL) >= 40
