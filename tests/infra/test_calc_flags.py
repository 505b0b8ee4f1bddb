"""``calc`` flags inputs no deployment could run, and still computes them.

Figures: Llama 3.1 70B and 8B publish ``max_position_embeddings: 131072``
(https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json and
https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json); an HGX
H100 joins 8 GPUs by NVLink and NVSwitch, a GB200 NVL72 rack 72
(https://www.nvidia.com/en-us/data-center/hgx/,
https://www.nvidia.com/en-us/data-center/gb200-nvl72/); the H100 SXM's 80 GB.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main
from studyapp.infra.flags import scale_up_domain

LLAMA_CONTEXT = 131_072


def run(*args: str, lang: str = "en") -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--lang", lang, *args])
    return result.exit_code, result.stdout + result.stderr


def report(*args: str) -> dict[str, Any]:
    code, out = run(*args, "--json")
    assert code == 0, out
    data: dict[str, Any] = json.loads(out)
    return data


def codes(data: dict[str, Any]) -> list[str]:
    return [warning["code"] for warning in data["warnings"]]


@pytest.mark.parametrize("command", [
    ("calc", "fit", "--model", "llama-3.1-70b", "--gpu", "h200-sxm", "--context"),
    ("calc", "kv", "--model", "llama-3.1-8b", "--tokens"),
    ("calc", "decode", "--model", "llama-3.1-8b", "--gpu", "h200-sxm", "--context"),
])
def test_a_context_past_the_models_own_is_flagged_and_still_computed(
        command: tuple[str, ...]) -> None:
    at_limit = report(*command, str(LLAMA_CONTEXT))
    past = report(*command, str(LLAMA_CONTEXT + 1))
    assert at_limit["warnings"] == []
    assert codes(past) == ["past-context"]
    warning = past["warnings"][0]
    assert warning["limit"] == LLAMA_CONTEXT and warning["tokens"] == LLAMA_CONTEXT + 1
    assert "131,072" in warning["message"]
    grows = "kv_cache_bytes" if "kv_cache_bytes" in past else "bytes_per_step"
    assert past[grows] > at_limit[grows]  # the arithmetic is still there


def test_the_text_output_says_warning_in_the_readers_language() -> None:
    args = ("calc", "kv", "--model", "llama-3.1-8b", "--tokens", "327680000")
    code, out = run(*args)
    assert code == 0
    assert "warning: llama-3.1-8b was published for 131,072 tokens" in out
    code, out = run(*args, lang="es")
    assert code == 0
    assert "aviso: llama-3.1-8b se publicó para 131\u202f072 tokens" in out  # a thin space
    code, out = run("calc", "kv", "--model", "llama-3.1-8b", "--tokens", "8192")
    assert code == 0 and "warning" not in out


def test_fit_keeps_the_kv_cache_line_last() -> None:
    code, out = run("calc", "fit", "--model", "llama-3.1-70b", "--gpu", "h200-sxm",
                    "--context", "200000", "--gpus", "4")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[-1].startswith("GPU KV cache size:")
    assert lines[-2].startswith("warning: llama-3.1-70b was published")


def test_the_largest_scale_up_domain_comes_from_the_catalogs_systems() -> None:
    catalog = load_catalog()
    h100 = scale_up_domain(catalog, "h100-sxm")
    gb200 = scale_up_domain(catalog, "gb200")
    assert h100 is not None and h100.gpus == 8
    assert gb200 is not None and (gb200.system, gb200.gpus) == ("gb200-nvl72", 72)
    assert scale_up_domain(catalog, "h100-pcie") is None  # no system: nothing to say


def test_a_tensor_parallel_group_past_the_node_is_flagged() -> None:
    base = ("calc", "tp", "--model", "llama-3.1-70b")
    eight = report(*base, "--tp", "8", "--gpu", "h100-sxm")
    sixteen = report(*base, "--tp", "16", "--gpu", "h100-sxm")
    assert eight["warnings"] == []
    assert codes(sixteen) == ["tp-past-scale-up"]
    assert sixteen["warnings"][0]["system_gpus"] == 8
    assert sixteen["comm_ms_per_step"] > 0  # computed all the same
    assert report(*base, "--tp", "64", "--gpu", "gb200")["warnings"] == []  # 72 in NVL72
    assert report(*base, "--tp", "16", "--bandwidth-gb-s", "450")["warnings"] == []


def test_decode_flags_more_gpus_than_a_node_and_a_batch_that_cannot_be_held() -> None:
    base = ("calc", "decode", "--model", "llama-3.1-70b", "--gpu", "h100-sxm")
    plain = report(*base, "--gpus", "8", "--batch", "1", "--context", "8192")
    assert plain["warnings"] == []
    wide = report(*base, "--gpus", "16", "--batch", "1", "--context", "8192")
    assert codes(wide) == ["gpus-past-scale-up"]
    # 70.6e9 params × 2 B = 141 GB of weights; at batch 64 × 131,072 tokens the KV cache
    # is 64 × 131,072 × 327,680 B = 2,749 GB: far past 8 × 80 GB
    held = report(*base, "--gpus", "8", "--batch", "64", "--context", "131072")
    assert codes(held) == ["does-not-fit"]
    flag = held["warnings"][0]
    assert flag["required_gb"] > flag["available_gb"]
    assert flag["required_gb"] == pytest.approx(141.1 + 2748.8, rel=0.01)
    assert held["tokens_per_s"] > 0


def test_memory_utilisation_past_one_stays_refused_and_valid_inputs_never_fail() -> None:
    code, out = run("calc", "fit", "--model", "llama-3.1-8b", "--gpu", "h100-sxm",
                    "--usable-fraction", "1.2")
    assert code == 2 and "Traceback" not in out
    code, out = run("calc", "decode", "--model", "llama-3.1-70b", "--gpu", "h100-sxm",
                    "--gpus", "64", "--batch", "512", "--context", "1000000")
    assert code == 0 and out.count("warning:") == 3
