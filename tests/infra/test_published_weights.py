"""calc fit and decode read a model's weights as it is published, unless told otherwise.

Published figures (OpenAI's gpt-oss model card, https://arxiv.org/abs/2508.10925, and
https://huggingface.co/openai/gpt-oss-120b): gpt-oss-120b has 116.83B parameters, 5.13B
active, its MoE weights in MXFP4 and the rest in BF16, a 60.8 GiB checkpoint, and "fits
into a single 80GB GPU (like NVIDIA H100)". DeepSeek-V3.1 ships FP8 weights
(https://huggingface.co/deepseek-ai/DeepSeek-V3.1, quantization_config fp8 in config.json).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main
from studyapp.infra.shapes import model_input

CHECKPOINT = 60.8 * 2**30  # bytes


def _calc(*args: str) -> dict[str, Any]:
    out = CliRunner().invoke(main, ["calc", *args, "--json"])
    assert out.exit_code == 0, out.output
    result: dict[str, Any] = json.loads(out.output)
    return result


def test_gpt_oss_120b_fits_one_h100_as_published() -> None:
    fit = _calc("fit", "--model", "gpt-oss-120b", "--gpu", "h100-sxm", "--context", "8192")
    assert fit["fits"] is True and fit["min_devices"] == 1
    assert fit["dtype"] == "fp4" and fit["weights_basis"] == "published-checkpoint"
    assert fit["weights_bytes"] == pytest.approx(CHECKPOINT)  # 65.28 GB, not 58.4 (all FP4)
    assert fit["kv_dtype"] == "bf16"  # the cache stays in BF16 next to MXFP4 weights
    # in BF16 it would need 233.7 GB: four H100s
    bf16 = _calc("fit", "--model", "gpt-oss-120b", "--gpu", "h100-sxm", "--dtype", "bf16")
    assert bf16["fits"] is False and bf16["min_devices"] == 4
    assert bf16["weights_basis"] == "params-x-bytes" and bf16["weights_gb"] == 233.66


def test_a_decode_step_reads_the_bf16_rest_and_four_mxfp4_experts() -> None:
    """Batch 1: the dense rest (1.53B, BF16) plus 4 of 128 experts at the checkpoint's
    expert bytes: about 5.0 GB, not 5.13B × 0.5 B = 2.6 GB nor 5.13B × 2 B = 10.3 GB."""
    model = model_input(load_catalog().models["gpt-oss-120b"])
    per_expert = (116.83e9 - 5.13e9) / (128 - 4)
    rest = 5.13e9 - 4 * per_expert
    expert_bytes = (CHECKPOINT - 2 * rest) / (116.83e9 - rest)
    assert 4.2 < expert_bytes * 8 < 4.4  # MXFP4: 4 bits plus a shared scale per 32
    read, basis = model.weights_in("fp4", rest + 4 * per_expert)
    assert basis == "published-checkpoint"
    assert read == pytest.approx(2 * rest + 4 * per_expert * expert_bytes)
    assert read / 1e9 == pytest.approx(5.0, abs=0.05)
    decode = _calc("decode", "--model", "gpt-oss-120b", "--gpu", "h100-sxm")
    assert decode["weights_read_gb"] == pytest.approx(read / 1e9, abs=0.01)
    assert decode["tokens_per_s"] == pytest.approx(3.35e12 / read, rel=1e-6)  # memory-bound


def test_fp8_models_default_to_fp8_and_others_to_bf16() -> None:
    assert _calc("fit", "--model", "deepseek-v3.1", "--gpu", "h200-sxm",
                 "--gpus", "8")["dtype"] == "fp8"
    assert _calc("fit", "--model", "llama-3.1-70b", "--gpu", "h200-sxm")["dtype"] == "bf16"
    given = _calc("fit", "--model", "gpt-oss-120b", "--gpu", "h100-sxm", "--dtype", "fp8")
    assert given["kv_dtype"] == "fp8"  # an explicit --dtype still sets the cache's
    custom = _calc("fit", "--model", "gpt-oss-120b", "--params", "100e9", "--gpu", "h100-sxm")
    assert custom["weights_basis"] == "params-x-bytes"  # another count: no checkpoint
