"""A precision a chip has no rate for is never computed at another rate in silence.

The A100 has no FP8 Tensor Cores: NVIDIA's A100 datasheet lists TF32, BF16/FP16
(312 TFLOPS dense) and INT8, no FP8
(https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf).
A training run in FP8 on it is refused; FP8 weights in a decode are read as FP8 and
computed at the BF16 rate, and the report says so (weight-only quantisation).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main


def run(*args: str, lang: str = "en") -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--lang", lang, *args])
    return result.exit_code, result.stdout, result.stderr


def test_training_in_a_precision_the_chip_lacks_is_refused_naming_chip_and_dtype() -> None:
    code, out, err = run("calc", "train", "--params", "70e9", "--tokens", "15e12",
                         "--gpu", "a100-80gb", "--dtype", "fp8", "--gpus", "1024")
    assert code == 1 and out == ""
    assert "A100" in err and "fp8" in err and "bf16" in err and "--tflops" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_refusal_is_worded_in_spanish() -> None:
    code, _, err = run("calc", "train", "--params", "70e9", "--tokens", "15e12",
                       "--gpu", "a100-80gb", "--dtype", "fp8", lang="es")
    assert code == 1 and "no tiene una cifra publicada en fp8" in err


def test_training_at_a_rate_the_chip_has_uses_that_rate() -> None:
    # H100 SXM: 1,979 dense FP8 TFLOPS (3,958 with sparsity), NVIDIA's H100 page
    code, out, _ = run("calc", "train", "--params", "70e9", "--tokens", "15e12",
                       "--gpu", "h100-sxm", "--dtype", "fp8", "--gpus", "1024", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["seconds"] == pytest.approx(6 * 70e9 * 15e12 / (1024 * 1979e12 * 0.4),
                                              rel=1e-9)


def test_fp8_weights_on_a_chip_without_fp8_are_computed_at_bf16_and_said_so() -> None:
    code, out, _ = run("calc", "decode", "--model", "llama-3.1-8b", "--gpu", "a100-80gb",
                       "--dtype", "fp8", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["compute_dtype"] == "bf16" and report["tflops"] == 312
    assert report["weights_gb"] == pytest.approx(8.03, rel=0.01)  # 1 byte a parameter
    code, text, _ = run("calc", "decode", "--model", "llama-3.1-8b", "--gpu", "a100-80gb",
                        "--dtype", "fp8")
    assert "precision of the compute rate" in text and "bf16" in text


def test_a_chip_with_the_rate_computes_in_the_weights_precision() -> None:
    code, out, _ = run("calc", "decode", "--model", "llama-3.1-8b", "--gpu", "h100-sxm",
                       "--dtype", "fp8", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["compute_dtype"] == "fp8" and report["tflops"] == 1979


def test_rates_the_catalog_does_not_publish_are_none() -> None:
    chips = load_catalog().accelerators
    a100 = chips["a100-80gb"]
    assert [a100.dense_tflops(d) for d in ("fp8", "int8", "fp4", "int4")] == [None] * 4
    assert a100.dense_tflops("fp16") == a100.dense_tflops("bf16") == 312
    assert chips["h100-sxm"].dense_tflops("fp32") is None  # FP32 is not the BF16 rate


def test_weights_wider_than_bf16_are_not_computed_at_the_bf16_rate() -> None:
    # No FP32 rate is in the catalog for any chip (the H100's FP32 is not its 989 BF16
    # TFLOPS, https://www.nvidia.com/en-us/data-center/h100/): a decode in FP32 is refused
    for chip, name in (("a100-80gb", "A100"), ("h100-sxm", "H100")):
        code, out, err = run("calc", "decode", "--model", "llama-3.1-8b", "--gpu", chip,
                             "--dtype", "fp32")
        assert code == 1 and out == ""
        assert name in err and "fp32" in err and "--tflops" in err
        assert len(err.strip().splitlines()) == 1
    code, out, _ = run("calc", "decode", "--model", "llama-3.1-8b", "--gpu", "h100-sxm",
                       "--dtype", "fp32", "--tflops", "67", "--json")
    assert code == 0 and json.loads(out)["tflops"] == 67


def test_a_fit_needs_no_rate() -> None:
    code, out, _ = run("calc", "fit", "--model", "llama-3.1-8b", "--gpu", "a100-80gb",
                       "--dtype", "fp32", "--json")
    assert code == 0
    assert json.loads(out)["weights_gb"] == pytest.approx(32.1, rel=0.01)  # 4 bytes a parameter
