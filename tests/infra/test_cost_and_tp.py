"""calc cost and calc tp against published worked examples.

- Cost per 1M tokens = $/GPU-hour / (tokens/s × 3600) × 10^6: H100 at $2.00/h serving
  85 tokens/s costs $6.54 (https://www.gmicloud.ai/en/blog/llm-inference-cost-per-million-tokens);
  an A100 at $1.29/h serving 2,400 tokens/s about $0.15
  (https://rahulkashyap.dev/learn/llm-serving-economics/03-gpu-cost-per-token).
- Tensor parallelism: two all-reduces per layer in the forward pass
  (Megatron-LM, https://arxiv.org/abs/1909.08053); NVLink 4 is 900 GB/s per GPU both
  ways, 450 each way (https://www.nvidia.com/en-us/data-center/nvlink/).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.infra.network import TP_ALLREDUCES_PER_LAYER, tp_decode_seconds


def _calc(*args: str) -> dict[str, Any]:
    out = CliRunner().invoke(main, ["calc", *args, "--json"])
    assert out.exit_code == 0, out.output
    result: dict[str, Any] = json.loads(out.output)
    return result


def test_cost_per_million_tokens_h100_example() -> None:
    report = _calc("cost", "--gpu-hour-usd", "2", "--tokens-per-s", "85")
    assert report["usd_per_million_tokens"] == pytest.approx(6.54, abs=0.005)


def test_cost_per_million_tokens_a100_example() -> None:
    report = _calc("cost", "--gpu-hour-usd", "1.29", "--tokens-per-s", "2400")
    assert report["usd_per_million_tokens"] == pytest.approx(0.149, abs=0.001)


def test_cost_counts_every_gpu_rented() -> None:
    one = _calc("cost", "--gpu-hour-usd", "2", "--tokens-per-s", "1000")
    eight = _calc("cost", "--gpu-hour-usd", "2", "--tokens-per-s", "1000", "--gpus", "8")
    assert eight["usd_per_million_tokens"] == pytest.approx(8 * one["usd_per_million_tokens"])


def test_tp_decode_step_llama_70b_on_8_h100() -> None:
    report = _calc("tp", "--model", "llama-3.1-70b", "--tp", "8", "--gpu", "h100-sxm")
    assert TP_ALLREDUCES_PER_LAYER == 2
    assert report["allreduces_per_step"] == 160  # 2 × 80 layers
    assert report["allreduce_bytes"] == 8192 * 2  # batch 1 × hidden 8192 × BF16
    assert report["bandwidth_gb_s"] == 450  # NVLink 4, per direction
    # the bandwidth term at the ~370 GB/s NCCL reaches on NVLink 4
    # (https://github.com/NVIDIA/nccl-tests/issues/212), the latency term on top
    expected = 160 * 2 * 7 / 8 * 16_384 / 370e9
    assert report["bandwidth_ms_per_step"] == pytest.approx(expected * 1e3)
    assert report["comm_seconds_per_step"] > expected
    assert report["bytes_per_step_per_gpu"] == pytest.approx(160 * 2 * 7 / 8 * 16_384)


def test_tp_traffic_grows_with_the_batch() -> None:
    one = tp_decode_seconds(80, 8192, 1, 2, 8, 450e9)
    assert tp_decode_seconds(80, 8192, 64, 2, 8, 450e9) == pytest.approx(64 * one)


def test_tp_on_infinity_fabric_uses_every_link() -> None:
    # 7 links x 128 GB/s both ways = 896 per MI300X: 448 each way over all peers at once
    report = _calc("tp", "--model", "llama-3.1-70b", "--tp", "8", "--gpu", "mi300x")
    assert report["bandwidth_gb_s"] == 448


def test_tp_needs_a_shape_and_a_bandwidth() -> None:
    out = CliRunner().invoke(main, ["calc", "tp", "--tp", "8", "--bandwidth-gb-s", "450"])
    assert out.exit_code != 0 and "--layers and --hidden-size" in out.output
    assert "Traceback" not in out.output


# AMD Instinct MI355X: 8 GPUs fully connected by Infinity Fabric, 7 links of 153.6 GB/s
# (both directions) per GPU, 1,075 GB/s in all
# (https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html).
@pytest.mark.parametrize("tp,links", [(2, 1), (4, 3), (8, 7)])
def test_a_mesh_group_uses_only_the_links_between_its_members(tp: int, links: int) -> None:
    out = CliRunner().invoke(main, ["calc", "tp", "--model", "qwen3-235b-a22b", "--tp", str(tp),
                                    "--batch", "64", "--gpu", "mi355x", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["mesh_links"] == links
    assert report["bandwidth_gb_s"] == pytest.approx(1075 / 2 * links / 7)  # 76.8 per link
    out = CliRunner().invoke(main, ["calc", "allreduce", "--size-gb", "10", "--gpus", str(tp),
                                    "--link", "infinity-fabric-mi350", "--json"])
    report = json.loads(out.output)
    assert report["mesh_links"] == links
    assert report["bandwidth_gb_s"] == pytest.approx(1075 / 2 * links / 7)


def test_a_switched_link_is_not_split_by_group_size() -> None:
    """NVLink through NVSwitch: every GPU reaches any other at its full 900 GB/s each way."""
    out = CliRunner().invoke(main, ["calc", "tp", "--model", "deepseek-v3.1", "--tp", "2",
                                    "--gpu", "b300", "--json"])
    report = json.loads(out.output)
    assert report["bandwidth_gb_s"] == 900 and report["mesh_links"] is None
