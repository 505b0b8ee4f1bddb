"""``studyapp calc``: explicit numbers without a KV shape at context 0, rounded human output."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from studyapp.cli import main


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--lang", "en", *args])
    return result.exit_code, result.stdout + result.stderr


def line(out: str, label: str) -> str:
    match = re.search(rf"^{re.escape(label)}\s+(\S+)", out, re.M)
    assert match, out
    return match.group(1)


def test_decode_with_explicit_numbers_needs_no_kv_shape_at_context_0() -> None:
    code, out = run("calc", "decode", "--params", "70e9", "--bandwidth-tb-s", "4.8", "--json")
    assert code == 0, out
    report = json.loads(out)
    # 70e9 × 2 B = 140 GB read per token at 4.8 TB/s: 34.2857... tokens/s, unrounded
    assert report["tokens_per_s"] == pytest.approx(4.8e12 / 140e9, rel=1e-12)
    assert report["kv_cache_gb"] == 0 and report["context"] == 0


def test_decode_with_context_still_asks_for_the_shape() -> None:
    code, out = run("calc", "decode", "--params", "70e9", "--bandwidth-tb-s", "4.8",
                    "--context", "4096")
    assert code != 0
    assert "--layers" in out and "Traceback" not in out


def test_fit_weights_only_from_a_parameter_count() -> None:
    code, out = run("calc", "fit", "--params", "70B", "--memory-gb", "141", "--json")
    assert code == 0, out
    assert json.loads(out)["fits"] is False  # 140 GB > 126.9 GB usable


def test_human_output_keeps_three_significant_figures() -> None:
    # 6·70e9·15e12 FLOP / (1024 × 989e12 × 0.4) = 1.555e7 s = 179.96 days
    code, out = run("calc", "train", "--params", "70e9", "--tokens", "15e12", "--tflops",
                    "989", "--gpus", "1024")
    assert code == 0, out
    assert line(out, "days") == "180"
    assert line(out, "hours") == "4,320"
    # 8B in BF16 on an H200: 16.06 GB / 4.8 TB/s = 3.346 ms per token
    code, out = run("calc", "decode", "--model", "llama-3.1-8b", "--gpu", "h200-sxm")
    assert code == 0, out
    assert line(out, "step time (ms)") == "3.35"
    assert line(out, "weights (GB)") == "16.1"


def run_es(*args: str) -> str:
    result = CliRunner().invoke(main, ["--lang", "es", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


THIN = "\u202f"


def value(out: str, label: str) -> str:
    """The whole value after ``label`` (a thin space is whitespace to ``\\S``)."""
    match = re.search(rf"^{re.escape(label)} +(.+)$", out, re.M)
    assert match, out
    return match.group(1)


def test_spanish_human_output_uses_decimal_comma_and_thin_space_thousands() -> None:
    # 6·70e9·15e12 FLOP at 989 TFLOPS × 0.4 MFU on one GPU: 184,319 days
    out = run_es("calc", "train", "--params", "70B", "--tokens", "15T", "--tflops", "989")
    assert value(out, "días") == f"184{THIN}319"
    assert value(out, "horas-GPU") == "4,42e6"
    assert value(out, "MFU") == "0,4"
    out = run_es("calc", "fit", "--model", "llama-3.1-70b", "--gpu", "h200-sxm",
                 "--context", "8192", "--batch", "4")
    # GQA: 2 · 80 layers · 8 KV heads · 128 dims · 2 bytes = 327,680 bytes per token
    assert value(out, "KV cache por token (bytes)") == f"327{THIN}680"
    # 141.1 GB + 10.7 GB of KV against 0.9 × 150.75 GB less vLLM's 3.27 GB runtime
    assert value(out, "margen (GB)") == "-19,4"
    assert value(out, "contexto (tokens)") == "8192"  # four digits stay whole (RAE)
    out = run_es("calc", "allreduce", "--size-gb", "10", "--gpus", "8", "--link", "nvlink-4")
    assert value(out, "algoritmo") == "anillo"


def test_spanish_json_keeps_the_fixed_contract() -> None:
    out = run_es("calc", "fit", "--model", "llama-3.1-70b", "--gpu", "h200-sxm",
                 "--context", "8192", "--batch", "4", "--json")
    report = json.loads(out)
    assert report["kv_cache_bytes_per_token"] == 327680
    assert report["usable_fraction"] == 0.9
