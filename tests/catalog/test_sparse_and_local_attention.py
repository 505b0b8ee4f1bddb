"""``--model-config`` reads DeepSeek-V3.2 (``deepseek_v32``: MLA plus the lightning indexer's
own key) and Gemma 3 (``gemma3_text``: five local sliding-window layers to one global), and
the KV cache counts what each keeps: the indexer key per token and layer, and local layers
only up to their window.

The configs below are the shape fields of the published config.json files, as dicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from studyapp.catalog.hf_config import count_params, load_model_config, model_from_hf_config
from studyapp.cli import main
from studyapp.infra.calc import ModelInput
from studyapp.infra.memory import KVShape, kv_bytes_per_token, kv_cache_bytes, max_tokens_that_fit
from studyapp.infra.shapes import kv_shape, model_input

# https://huggingface.co/deepseek-ai/DeepSeek-V3.2/blob/main/config.json (the same shape as
# https://huggingface.co/deepseek-ai/DeepSeek-V3.2-Exp/blob/main/config.json)
DEEPSEEK_V32: dict[str, Any] = {
    "architectures": ["DeepseekV32ForCausalLM"], "model_type": "deepseek_v32",
    "first_k_dense_replace": 3, "hidden_size": 7168, "index_head_dim": 128,
    "index_n_heads": 64, "index_topk": 2048, "intermediate_size": 18432, "kv_lora_rank": 512,
    "max_position_embeddings": 163840, "moe_intermediate_size": 2048, "moe_layer_freq": 1,
    "n_routed_experts": 256, "n_shared_experts": 1, "num_attention_heads": 128,
    "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
    "num_nextn_predict_layers": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64, "tie_word_embeddings": False, "v_head_dim": 128,
    "vocab_size": 129280,
    "quantization_config": {"fmt": "e4m3", "quant_method": "fp8", "scale_fmt": "ue8m0",
                            "weight_block_size": [128, 128]},
}

# https://huggingface.co/google/gemma-3-27b-it/blob/main/config.json: a multimodal wrapper
# whose text_config leaves vocabulary, context and the 5:1 pattern to Gemma3TextConfig
GEMMA3_27B: dict[str, Any] = {
    "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
    "text_config": {"head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504,
                    "model_type": "gemma3_text", "num_attention_heads": 32,
                    "num_hidden_layers": 62, "num_key_value_heads": 16,
                    "query_pre_attn_scalar": 168, "sliding_window": 1024},
    "vision_config": {"hidden_size": 1152, "model_type": "siglip_vision_model"},
}

# https://huggingface.co/google/gemma-3-1b-it/blob/main/config.json: text only, at the top
# level, with the pattern written out
GEMMA3_1B: dict[str, Any] = {
    "architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "head_dim": 256,
    "hidden_size": 1152, "intermediate_size": 6912, "max_position_embeddings": 32768,
    "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1,
    "sliding_window": 512, "sliding_window_pattern": 6, "vocab_size": 262144,
}


def test_deepseek_v32_reads_as_mla_with_the_indexer_key() -> None:
    model = model_from_hf_config(DEEPSEEK_V32, model_id="deepseek-v3.2")
    assert (model.attention, model.kv_lora_rank, model.qk_rope_head_dim) == ("mla", 512, 64)
    assert (model.index_head_dim, model.index_n_heads) == (128, 64)
    assert (model.experts, model.experts_per_token, model.weights_dtype) == (256, 8, "fp8")
    # Per token and layer: the 512 + 64 latent in the KV dtype, plus the indexer's key of 128
    # FP8 values and one FP32 scale (DeepSeek-V3.2-Exp inference/model.py: Indexer.k_cache
    # float8_e4m3fn [.., head_dim], k_scale_cache float32 [.., head_dim // 128]);
    # https://github.com/deepseek-ai/DeepSeek-V3.2-Exp/blob/main/inference/model.py
    assert kv_bytes_per_token(kv_shape(model), "bf16") == 61 * (576 * 2 + 132)  # 78,324
    assert kv_bytes_per_token(kv_shape(model), "fp8") == 61 * (576 + 132)  # 43,188
    # the indexer key is FP8 whatever the KV dtype: 8,052 bytes a token in both
    v31 = KVShape(layers=61, kv_lora_rank=512, qk_rope_head_dim=64)
    for dtype in ("bf16", "fp8"):
        extra = kv_bytes_per_token(kv_shape(model), dtype) - kv_bytes_per_token(v31, dtype)
        assert extra == 61 * 132


def test_deepseek_v32_parameters_add_the_indexer_to_v3() -> None:
    """The indexer per layer: wq_b 1,536 x 64 x 128, wk 7,168 x 128, a LayerNorm of 128
    (weight and bias), weights_proj 7,168 x 64 (DeepSeek-V3.2-Exp inference/model.py)."""
    v3 = {k: v for k, v in DEEPSEEK_V32.items() if not k.startswith("index_")}
    v3["model_type"] = "deepseek_v3"
    indexer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64
    assert indexer == 13_959_424
    with_indexer, without = count_params(DEEPSEEK_V32), count_params(v3)
    assert with_indexer.total - without.total == 61 * indexer  # 0.85B
    assert with_indexer.active - without.active == 61 * indexer
    # DeepSeek-V3's 671B (technical report) without the multi-token-prediction layer
    assert without.total == pytest.approx(671e9, rel=1e-3)


def test_gemma3_counts_local_and_global_layers_apart() -> None:
    model = model_from_hf_config(GEMMA3_27B, model_id="gemma-3-27b")
    # Gemma 3 report (https://arxiv.org/abs/2503.19786): "5 local layers for every global
    # layer, starting with a local layer"; every sixth of 62 layers is global: 10 of them
    assert (model.sliding_window, model.sliding_window_layers, model.layers) == (1024, 52, 62)
    assert (model.attention, model.kv_heads, model.head_dim) == ("gqa", 16, 128)
    # defaults of Gemma3TextConfig for what the config leaves out
    assert (model.vocab_size, model.context_length) == (262208, 131072)
    small = model_from_hf_config(GEMMA3_1B, model_id="gemma-3-1b")
    assert (small.sliding_window, small.sliding_window_layers) == (512, 22)  # 26 - 4 global
    assert small.attention == "gqa" and small.context_length == 32768
    listed = {**GEMMA3_1B, "layer_types": ["full_attention"] * 2 + ["sliding_attention"] * 24}
    assert model_from_hf_config(listed).sliding_window_layers == 24  # layer_types win


def test_gemma3_parameters_are_the_reports() -> None:
    """Gemma 3 report, Table 1: 27B has 25,600M non-embedding parameters (and a 417M vision
    encoder, not counted here). Each layer: attention 5,376 x 32 x 128 x 2 plus K and V of
    16 x 128, q/k norms, four RMSNorms, a gated MLP of 21,504; tied embeddings."""
    counted = count_params(GEMMA3_27B)
    embedding = 262208 * 5376
    assert counted.total - embedding == pytest.approx(25_600e6, rel=1e-4)
    assert counted.total == counted.active  # dense


def test_gemma3_kv_at_long_context_keeps_local_layers_to_the_window() -> None:
    """At 128K tokens: 10 global layers keep 131,072 tokens, 52 local layers 1,024; each
    token-layer is 2 x 16 KV heads x 128 x 2 B = 8,192 B. 10 x 131,072 x 8,192 B = 10 GiB
    plus 52 x 1,024 x 8,192 B = 0.406 GiB: 10.41 GiB, against 62 GiB if every layer were
    global."""
    model = model_input(model_from_hf_config(GEMMA3_27B, model_id="gemma-3-27b"))
    assert isinstance(model, ModelInput) and model.shape is not None
    per_token = kv_bytes_per_token(model.shape, "bf16")
    assert per_token == 62 * 8192
    kept = model.kv_tokens(131072)
    total = kv_cache_bytes(model.shape, "bf16", kept)
    assert total == 10 * 131072 * 8192 + 52 * 1024 * 8192
    assert total / 2**30 == pytest.approx(10.406, abs=1e-3)
    assert per_token * 131072 / 2**30 == 62  # all global
    # within the window every layer keeps everything
    assert model.kv_tokens(1024) == 1024
    assert kv_cache_bytes(model.shape, "bf16", model.kv_tokens(1024)) == 62 * 1024 * 8192


def test_calc_reads_both_configs(tmp_path: Path) -> None:
    runner = CliRunner()
    for name, config, per_token in (("deepseek-v3.2", DEEPSEEK_V32, 78324),
                                    ("gemma-3-27b", GEMMA3_27B, 507904)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
        result = runner.invoke(main, ["calc", "kv", "--model-config",
                                      str(folder / "config.json"), "--context", "131072",
                                      "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        assert data["kv_cache_bytes_per_token"] == per_token
        if name == "gemma-3-27b":
            assert data["kv_cache_gib"] == pytest.approx(10.406, abs=1e-3)
        else:
            assert data["index_bytes_per_token"] == 61 * 132
        assert load_model_config(folder / "config.json").id == name


def test_indexer_key_shrinks_what_fits() -> None:
    """The indexer's bytes are real memory: fewer tokens fit than with MLA alone."""
    with_indexer = KVShape(layers=61, kv_lora_rank=512, qk_rope_head_dim=64, index_head_dim=128)
    without = KVShape(layers=61, kv_lora_rank=512, qk_rope_head_dim=64)
    free = 10 * 2**30
    assert max_tokens_that_fit(free, with_indexer, "bf16") == free // (61 * 1284)
    assert max_tokens_that_fit(free, with_indexer, "bf16") < max_tokens_that_fit(
        free, without, "bf16")


def test_an_indexer_needs_mla() -> None:
    """The indexer's key sits beside an MLA latent; on a GQA model it is a slip."""
    read = model_from_hf_config(GEMMA3_1B, model_id="gemma-3-1b")
    with pytest.raises(ValueError, match="index_head_dim"):
        type(read).model_validate({**read.model_dump(), "index_head_dim": 128})
