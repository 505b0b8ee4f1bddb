"""``calc --model-config FILE`` reads a Hugging Face config.json (stored real configs in
hf_configs/, sources in hf_configs/SOURCES.md), and a learner's catalog.yaml adds chips
and models that calc and the generators use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog, user_catalog_path
from studyapp.catalog.hf_config import HFConfigError, load_model_config, model_from_hf_config
from studyapp.cli import main
from studyapp.infra.memory import kv_bytes_per_token
from studyapp.infra.shapes import kv_shape

CONFIGS = Path(__file__).resolve().parent / "hf_configs"


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.output


@pytest.fixture(autouse=True)
def _fresh_catalog() -> None:
    load_catalog.cache_clear()  # type: ignore[attr-defined]
    yield
    load_catalog.cache_clear()  # type: ignore[attr-defined]


@pytest.mark.parametrize("name,attention,kv_per_token", [
    ("llama-3.1-8b", "gqa", 2 * 32 * 8 * 128 * 2),     # 131,072 B
    ("mistral-7b", "gqa", 2 * 32 * 8 * 128 * 2),
    ("mixtral-8x7b", "gqa", 2 * 32 * 8 * 128 * 2),
    ("qwen2.5-72b", "gqa", 2 * 80 * 8 * 128 * 2),      # 327,680 B
    ("qwen3-32b", "gqa", 2 * 64 * 8 * 128 * 2),
    ("qwen3-235b-a22b", "gqa", 2 * 94 * 4 * 128 * 2),
    ("deepseek-v3.1", "mla", 61 * 576 * 2),            # 70,272 B
    ("kimi-k2", "mla", 61 * 576 * 2),
    ("gpt-oss-120b", "gqa", 2 * 36 * 8 * 64 * 2),
    ("llama-4-maverick", "gqa", 2 * 48 * 8 * 128 * 2),  # text_config of a multimodal config
])
def test_each_architecture_reads(name: str, attention: str, kv_per_token: int) -> None:
    model = load_model_config(CONFIGS / f"{name}.json")
    assert model.id == name
    assert model.attention == attention
    assert kv_bytes_per_token(kv_shape(model), "bf16") == kv_per_token


def test_moe_and_mla_and_window_fields() -> None:
    mixtral = load_model_config(CONFIGS / "mixtral-8x7b.json")
    assert (mixtral.experts, mixtral.experts_per_token) == (8, 2)
    assert mixtral.active_params_b == pytest.approx(12.88, abs=0.01)
    kimi = load_model_config(CONFIGS / "kimi-k2.json")
    assert (kimi.kv_lora_rank, kimi.qk_rope_head_dim, kimi.experts) == (512, 64, 384)
    oss = load_model_config(CONFIGS / "gpt-oss-20b.json")
    assert oss.weights_dtype == "mxfp4"
    if "sliding_window" not in type(oss).model_fields:  # read with the window's size
        assert oss.sliding_window_layers is None
    if "sliding_window" in type(oss).model_fields:  # the field the calculator caps KV with
        assert oss.sliding_window == 128
        assert load_model_config(CONFIGS / "mistral-7b.json").sliding_window == 4096
        assert load_model_config(CONFIGS / "qwen3-32b.json").sliding_window is None


def test_config_json_in_a_folder_is_named_after_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "Qwen3-32B"
    folder.mkdir()
    (folder / "config.json").write_text((CONFIGS / "qwen3-32b.json").read_text())
    assert load_model_config(folder / "config.json").id == "qwen3-32b"


def test_calc_commands_take_a_model_config() -> None:
    config = str(CONFIGS / "kimi-k2.json")
    assert "70272" in run("calc", "kv", "--model-config", config, "--context", "8192")
    assert "fits" in run("calc", "fit", "--model-config", str(CONFIGS / "gpt-oss-120b.json"),
                         "--gpu", "h100-sxm", "--dtype", "fp4")
    assert "tokens/s" in run("calc", "decode", "--model-config", config, "--gpu", "gb300")
    out = run("calc", "kv", "--model-config", config, "--model", "kimi-k2", code=1)
    assert "not both" in out


@pytest.mark.parametrize("text,words", [
    ('{"model_type": "llama", "hidden_size": 4096', ":1:44: not JSON"),
    ('[1, 2]', "a config.json is a JSON object"),
    ('{"model_type": "bert"}', "model_type 'bert' is not one studyapp reads"),
    ('{"model_type": "llama", "hidden_size": "big", "num_attention_heads": 2}',
     "'hidden_size' must be a positive whole number"),
    ('{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,'
     ' "num_attention_heads": 2, "vocab_size": 10}', "config has no 'max_position_embeddings'"),
    ('[' * 100_000, "nested too deeply"),
])
def test_a_bad_config_is_one_line(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(text)
    out = run("calc", "kv", "--model-config", str(path), code=1)
    assert out.startswith(f"studyapp: {path}"), out
    assert words in out and "Traceback" not in out
    spanish = run("--lang", "es", "calc", "kv", "--model-config", str(path), code=1)
    assert spanish.startswith(f"studyapp: {path}") and spanish != out


def test_reader_refuses_what_is_not_a_decoder() -> None:
    with pytest.raises(HFConfigError):
        model_from_hf_config({"model_type": "llama", "hidden_size": 0})


USER = """\
accelerators:
  - id: my-chip
    name: My Accelerator 9000
    name_pattern: 'Accelerator 9000'
    vendor: amd
    post: mi350
    year: 2026
    architecture: Test
    memory_gb: 256
    memory_type: HBM3e
    memory_bandwidth_tb_s: 6
    bf16_dense_tflops: 1500
    fp8_dense_tflops: 3000
    scale_up: Infinity Fabric
    scale_out: Ethernet
    software: ROCm
    sources: [https://example.org/my-chip]
models:
""" + """\
  - id: my-model
    name: My Model 30B
    params_b: 30
    layers: 48
    hidden_size: 6144
    heads: 48
    kv_heads: 8
    head_dim: 128
    context_length: 32768
    attention: gqa
    sources: [https://example.org/my-model]
"""


def test_user_catalog_reaches_calc_and_the_generators() -> None:
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(USER, encoding="utf-8")
    assert "my-model" in run("calc", "fit", "--model", "my-model", "--gpu", "my-chip")
    out = run("generate", "decode-compare", "--option", "gpus=my-chip,h100-sxm",
              "--option", "models=my-model", "--count", "2")
    assert "My Accelerator 9000" in out and "My Model 30B" in out
    out = run("generate", "kv-cache-per-token", "--option", "models=my-model", "--count", "1")
    assert "My Model 30B" in out
    assert json.loads(run("calc", "kv", "--model", "my-model", "--json"))
