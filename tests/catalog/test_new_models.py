"""The 2025 models against their published config.json (fixtures in hf_configs/, sources
in hf_configs/SOURCES.md): shape, parameter count and KV cache per token, and their
figures reach the calculator and the generators."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.catalog import Catalog, load_catalog_from
from studyapp.catalog.hf_config import count_params, model_from_hf_config, text_config
from studyapp.cli import main
from studyapp.infra.memory import kv_bytes_per_token
from studyapp.infra.shapes import kv_shape

CONTENT = Path(__file__).resolve().parents[2] / "content"
CONFIGS = Path(__file__).resolve().parent / "hf_configs"

NEW = ["gpt-oss-120b", "gpt-oss-20b", "llama-4-scout", "llama-4-maverick", "qwen3-235b-a22b",
       "qwen3-32b", "deepseek-v3.1", "kimi-k2", "deepseek-v3.2", "gemma-3-27b"]

# KV cache bytes per token in BF16, worked by hand from each config.json:
# GQA 2 (K and V) x layers x KV heads x head dim x 2 bytes; MLA layers x (latent + RoPE key) x 2.
KV_PER_TOKEN = {
    "gpt-oss-120b": 2 * 36 * 8 * 64 * 2,  # 73,728 (before the 128-token window)
    "gpt-oss-20b": 2 * 24 * 8 * 64 * 2,
    "llama-4-scout": 2 * 48 * 8 * 128 * 2,
    "llama-4-maverick": 2 * 48 * 8 * 128 * 2,
    "qwen3-235b-a22b": 2 * 94 * 4 * 128 * 2,
    "qwen3-32b": 2 * 64 * 8 * 128 * 2,
    "deepseek-v3.1": 61 * (512 + 64) * 2,  # 70,272
    "kimi-k2": 61 * (512 + 64) * 2,
    # DeepSeek-V3.2: the MLA latent in BF16 plus the indexer's 128-wide FP8 key and its FP32
    # scale (DeepSeek-V3.2-Exp inference/model.py, Indexer.k_cache / k_scale_cache)
    "deepseek-v3.2": 61 * ((512 + 64) * 2 + 128 + 4),  # 78,324
    "gemma-3-27b": 2 * 62 * 16 * 128 * 2,  # 507,904 (before the 1,024-token window)
}

# How far the catalog's published total may sit from the config's shapes: Llama 4's card
# counts its vision encoder (Scout 109B against 107.8B of text model).
TOTAL_REL = {"llama-4-scout": 0.02, "llama-4-maverick": 0.005}
ACTIVE_REL = {"llama-4-scout": 0.02, "llama-4-maverick": 0.02, "deepseek-v3.1": 0.02,
              "kimi-k2": 0.001}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog_from(CONTENT)


def _config(model_id: str) -> dict[str, object]:
    data = json.loads((CONFIGS / f"{model_id}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_at_least_eight_models_of_2025_or_later(catalog: Catalog) -> None:
    recent = [m.id for m in catalog.models if (m.year or 0) >= 2025]
    assert set(NEW) <= set(recent) and len(recent) >= 8


@pytest.mark.parametrize("model_id", NEW)
def test_shape_is_the_configs(catalog: Catalog, model_id: str) -> None:
    entry = catalog.models[model_id]
    read = model_from_hf_config(_config(model_id), model_id=model_id)
    for name in ("layers", "hidden_size", "heads", "kv_heads", "head_dim", "context_length",
                 "vocab_size", "attention", "kv_lora_rank", "qk_rope_head_dim", "experts",
                 "experts_per_token", "index_head_dim", "index_n_heads", "sliding_window",
                 "sliding_window_layers"):
        assert getattr(entry, name) == getattr(read, name), name
    assert any(f"{model_id.split('-')[0]}" in str(s).lower() or "huggingface" in str(s)
               for s in entry.sources)
    assert any(str(s).endswith("config.json") for s in entry.sources)


@pytest.mark.parametrize("model_id", NEW)
def test_parameter_count_is_the_configs(catalog: Catalog, model_id: str) -> None:
    entry = catalog.models[model_id]
    config = _config(model_id)
    counted = count_params(config)
    rel = TOTAL_REL.get(model_id, 1e-3)
    assert entry.params_b == pytest.approx(counted.total / 1e9, rel=rel)
    if entry.experts is None:  # dense: every parameter is active
        assert entry.active_params_b is None and counted.active == counted.total
        return
    assert entry.active_params_b is not None
    active = counted.active
    if model_id.startswith("gpt-oss"):  # OpenAI counts the embedding table once
        cfg = text_config(config)
        active -= int(cfg["vocab_size"]) * int(cfg["hidden_size"])  # type: ignore[call-overload]
    assert entry.active_params_b == pytest.approx(active / 1e9,
                                                  rel=ACTIVE_REL.get(model_id, 2e-3))


def test_published_totals() -> None:
    """Exact published counts the shapes must reproduce (the reader's arithmetic)."""
    # OpenAI, gpt-oss model card: 116.83B total / 5.13B active; 20.91B / 3.61B
    assert count_params(_config("gpt-oss-120b")).total == pytest.approx(116.83e9, rel=1e-4)
    assert count_params(_config("gpt-oss-20b")).total == pytest.approx(20.91e9, rel=1e-3)
    # Qwen2.5-72B: 72,706,203,648 and Llama 3.1 8B: 8,030,261,248 (safetensors totals on HF)
    assert count_params(_config("qwen2.5-72b")).total == 72_706_203_648
    assert count_params(_config("llama-3.1-8b")).total == 8_030_261_248
    # Mistral 7B v0.1: 7,241,732,096; Mixtral 8x7B: 46.7B total, 12.9B active (paper)
    assert count_params(_config("mistral-7b")).total == 7_241_732_096
    mixtral = count_params(_config("mixtral-8x7b"))
    assert mixtral.total == pytest.approx(46.7e9, rel=1e-3)
    assert mixtral.active == pytest.approx(12.9e9, rel=2e-3)


@pytest.mark.parametrize("model_id", NEW)
def test_kv_per_token_is_the_configs(catalog: Catalog, model_id: str) -> None:
    entry = catalog.models[model_id]
    assert kv_bytes_per_token(kv_shape(entry), "bf16") == KV_PER_TOKEN[model_id]
    read = model_from_hf_config(_config(model_id), model_id=model_id)
    assert kv_bytes_per_token(kv_shape(read), "bf16") == KV_PER_TOKEN[model_id]


def test_gpt_oss_weights_are_mxfp4_and_alternate_a_sliding_window(catalog: Catalog) -> None:
    for model_id, layers in (("gpt-oss-120b", 36), ("gpt-oss-20b", 24)):
        entry = catalog.models[model_id]
        assert entry.weights_dtype == "mxfp4"
        config = _config(model_id)
        assert config["sliding_window"] == 128
        types = config["layer_types"]
        assert isinstance(types, list) and len(types) == layers
        assert types.count("sliding_attention") == layers // 2 == entry.sliding_window_layers
        assert entry.note and "128-token sliding window" in entry.note
    # 60.8 GiB of weights: one 80 GB GPU holds them (OpenAI's model card)
    assert catalog.models["gpt-oss-120b"].checkpoint_gib == 60.8


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("model_id", ["gpt-oss-120b", "kimi-k2", "qwen3-235b-a22b",
                                      "deepseek-v3.2", "gemma-3-27b"])
def test_new_models_reach_the_calculator(model_id: str) -> None:
    per_token = KV_PER_TOKEN[model_id]
    assert f"{per_token}" in run("calc", "kv", "--model", model_id, "--context", "4096")
    for gpu in ("h100-sxm", "b300", "gb300"):
        assert "fits" in run("calc", "fit", "--model", model_id, "--gpu", gpu, "--dtype", "fp8")
        assert "tokens/s" in run("calc", "decode", "--model", model_id, "--gpu", gpu)


@pytest.mark.parametrize("family,option", [
    ("kv-cache-per-token", "models=kimi-k2"),
    ("weights-size", "models=gpt-oss-120b"),
    ("training-days", "models=llama-4-maverick"),
    ("kv-cache-per-token", "models=deepseek-v3.2"),
    ("fits-on-gpu", "models=gemma-3-27b"),
])
def test_new_models_reach_the_generators(family: str, option: str) -> None:
    out = run("generate", family, "--option", option, "--count", "2")
    name = {"kimi-k2": "Kimi K2", "gpt-oss-120b": "gpt-oss-120b",
            "llama-4-maverick": "Llama 4 Maverick", "deepseek-v3.2": "DeepSeek-V3.2",
            "gemma-3-27b": "Gemma 3 27B"}[option.split("=")[1]]
    assert name in out
