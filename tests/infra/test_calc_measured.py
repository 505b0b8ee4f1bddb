"""``calc`` sets a published measurement of the same setup beside the theory, and
``--efficiency measured`` computes with the share that run reached."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main
from studyapp.infra.measured import CalcSetup, matching, pick

NIM = "https://docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance"
TE_FP8 = "https://github.com/ROCm/TransformerEngine/issues/72"
NCCL_NVLS = "https://github.com/NVIDIA/nccl-tests/issues/290"
VLLM_A100 = "https://github.com/vllm-project/vllm/pull/2031"


def run(*args: str, lang: str = "en") -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--lang", lang, *args])
    return result.exit_code, result.stdout, result.stderr


def report(*args: str) -> dict[str, object]:
    code, out, err = run(*args, "--json")
    assert code == 0, out + err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


# --------------------------------------------------------------- matching (pure)

def test_a_decode_matches_chip_model_weights_tensor_parallel_and_concurrency() -> None:
    cat = load_catalog()
    setup = CalcSetup("decode", "h100-sxm", dtype="fp8", model="llama-3.1-70b", gpus=2,
                      batch=1, context=5000)
    found = [m.id for m in matching(cat.measurements, setup)]
    # NVIDIA NIM 1.8.0 on 2 H100, Llama 3.3 70B FP8, concurrency 1 (NIM): two runs,
    # the one with 5,000 input tokens first for a 5,000-token context
    assert found == ["h100-sxm-nim-llama-3.3-70b-fp8-tp2-5000-500",
                     "h100-sxm-nim-llama-3.3-70b-fp8-tp2-500-2000"]
    for other in ({"gpus": 1}, {"batch": 4}, {"dtype": "bf16"}, {"model": "llama-3.1-8b"},
                  {"chip": "h200-sxm"}):
        kwargs = {"dtype": "fp8", "model": "llama-3.1-70b", "gpus": 2, "batch": 1,
                  "chip": "h100-sxm", **other}
        chip = kwargs.pop("chip")
        assert matching(cat.measurements, CalcSetup("decode", str(chip), **kwargs)) == []


def test_train_prefers_a_training_run_to_the_best_matmul() -> None:
    cat = load_catalog()
    fp8 = pick(cat.measurements, CalcSetup("train", "h100-sxm", dtype="fp8"))
    bf16 = pick(cat.measurements, CalcSetup("train", "h100-sxm", dtype="bf16"))
    assert fp8 is not None and fp8.kind == "training-tflops"  # TE FP8 GPT-2 XL (TE_FP8)
    assert bf16 is not None and bf16.kind == "matmul-tflops"  # only a MAMF run in BF16


def test_an_allreduce_matches_the_gpus_and_nodes_and_prefers_a_run() -> None:
    cat = load_catalog()
    best = pick(cat.measurements, CalcSetup("allreduce", "h100-sxm", gpus=8))
    # a user's nccl-tests run (476 GB/s) before the maintainers' round figures
    assert best is not None and best.id == "h100-sxm-allreduce-nvls-8"
    assert pick(cat.measurements, CalcSetup("allreduce", "h100-sxm", gpus=4)) is None
    assert pick(cat.measurements, CalcSetup("allreduce", "h100-sxm", gpus=16, nodes=2)) is None


def test_every_rate_a_train_or_allreduce_match_reads_against_is_the_catalogs() -> None:
    """The measured efficiency replaces the default one on the catalog's peak, so the
    theory each measurement is read against must be that same peak."""
    cat = load_catalog()
    for m in cat.measurements:
        if m.kind in ("training-tflops", "matmul-tflops") and m.chip:
            assert m.theory == cat.accelerators[m.chip].dense_tflops(str(m.setup["dtype"])), m.id


# --------------------------------------------------------------- the command line

def test_decode_prints_the_measurement_beside_the_theory_in_both_languages() -> None:
    args = ("calc", "decode", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--dtype", "fp8",
            "--gpus", "2", "--context", "500")
    code, out, _ = run(*args)
    assert code == 0
    # NIM: 52.85 tokens/s, 500 in / 2,000 out, against a 94.97 tokens/s ceiling (NIM)
    assert "measured: 52.85 tokens/s" in out and NIM in out
    assert "55.6% of the datasheet's 95 tokens/s" in out
    code, out, _ = run(*args, lang="es")
    assert code == 0 and "medido: 52,85 tokens/s" in out and "55,6 %" in out


def test_decode_json_adds_measured_and_keeps_every_key() -> None:
    args = ("calc", "decode", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--dtype",
            "fp8", "--gpus", "2", "--context", "500")
    theory = report(*args)
    measured = theory["measured"]
    assert isinstance(measured, dict)
    assert measured["value"] == 52.85 and measured["unit"] == "tokens/s"  # NIM
    assert measured["source"] == NIM and measured["date"] == "2025-06-01"
    assert measured["efficiency"] == pytest.approx(52.85 / 94.97)
    assert measured["calculated"] == theory["tokens_per_s_per_sequence"]
    assert {"tokens_per_s", "step_seconds", "bound", "bandwidth_tb_s"} <= theory.keys()
    # with the measured bandwidth share the one stream runs at 55.6% of the ceiling
    used = report(*args, "--efficiency", "measured")
    assert used["efficiency_from"] == measured["id"]
    assert used["tokens_per_s"] == pytest.approx(theory["tokens_per_s"] * 52.85 / 94.97)
    assert used["bandwidth_tb_s"] == theory["bandwidth_tb_s"]  # the peak, as before
    assert used["bandwidth_efficiency"] == pytest.approx(52.85 / 94.97)


def test_train_with_the_measured_mfu_takes_the_time_the_run_implies() -> None:
    # Transformer Engine FP8, GPT-2 XL on one H100: 490 model TFLOP/s (TE_FP8)
    out = report("calc", "train", "--params", "1.5e9", "--tokens", "1e12", "--gpu", "h100-sxm",
                 "--dtype", "fp8", "--efficiency", "measured")
    assert out["mfu"] == pytest.approx(490 / 1979)
    assert out["seconds"] == pytest.approx(6 * 1.5e9 * 1e12 / 490e12)
    measured = out["measured"]
    assert isinstance(measured, dict) and measured["source"] == TE_FP8


def test_allreduce_with_the_measured_bus_bandwidth() -> None:
    # nccl-tests all_reduce_perf on 8 H100 with NVLink SHARP: 476 GB/s bus bandwidth
    # against the 450 GB/s one-way NVLink 4 rate (NCCL_NVLS)
    out = report("calc", "allreduce", "--system", "hgx-h100", "--size-gb", "8",
                 "--efficiency", "measured")
    assert out["bus_bandwidth_gb_s"] == pytest.approx(476)
    assert out["bandwidth_seconds"] == pytest.approx(2 * 7 / 8 * 8e9 / 476e9)
    measured = out["measured"]
    assert isinstance(measured, dict) and measured["source"] == NCCL_NVLS
    default = report("calc", "allreduce", "--system", "hgx-h100", "--size-gb", "8")
    assert default["bus_bandwidth_gb_s"] < out["bus_bandwidth_gb_s"]  # the ring model's 370
    shown = default["measured"]
    assert isinstance(shown, dict) and shown["id"] == measured["id"]
    assert shown["calculated"] == default["bus_bandwidth_gb_s"]


def test_fit_sets_vllms_kv_cache_beside_the_calculation() -> None:
    # vLLM, Llama 2 7B FP16 on one A100 80GB, utilization 0.9: 117,616 tokens (VLLM_A100)
    out = report("calc", "fit", "--model", "llama-2-7b", "--gpu", "a100-80gb", "--dtype", "fp16")
    measured = out["measured"]
    assert isinstance(measured, dict) and measured["value"] == 117616
    assert measured["source"] == VLLM_A100 and measured["efficiency_of"] == "calculated"
    assert measured["calculated"] == out["kv_cache_tokens"]
    assert measured["efficiency"] == pytest.approx(117616 / out["kv_cache_tokens"])  # type: ignore[operator]
    assert 0.95 < measured["efficiency"] < 1.05


def test_no_match_is_null_in_json_and_one_line_for_efficiency_measured() -> None:
    args = ("calc", "decode", "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert report(*args)["measured"] is None
    code, out, err = run(*args, "--efficiency", "measured")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "no published measurement" in err
    assert "h100-sxm ×1, llama-3.1-8b, bf16, batch=1" in err and "Traceback" not in err
    code, _, err = run(*args, "--efficiency", "measured", lang="es")
    assert code == 1 and "ninguna medida publicada" in err


def test_a_measurement_of_another_setup_or_both_efficiencies_is_refused() -> None:
    code, _, err = run("calc", "train", "--params", "1B", "--tokens", "1T", "--gpu", "h100-sxm",
                       "--measurement", "a100-mamf-bf16")
    assert code == 1 and "a100-mamf-bf16" in err and err.count("\n") == 1
    code, _, err = run("calc", "train", "--params", "1B", "--tokens", "1T", "--gpu", "h100-sxm",
                       "--dtype", "fp8", "--mfu", "0.3", "--efficiency", "measured")
    assert code == 1 and "--mfu" in err
