"""HBM capacity in its real unit: a vendor's HBM "GB" is a GiB, the driver reports MiB.

Published driver totals (public nvidia-smi / rocm-smi logs):
- H100 80GB HBM3: 81,559 MiB, https://github.com/NVIDIA/nccl/issues/1264
- H200: 143,771 MiB, https://github.com/sgl-project/sglang/issues/3196
- MI300X: 206,158,430,208 bytes = 192 GiB (rocm-smi), listed under "VRAM (GiB)" in
  https://rocm.docs.amd.com/en/7.13.0-preview/reference/gpu-specs.html
Model weights stay decimal: parameters × bytes.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main
from studyapp.infra import fit, weights_bytes
from studyapp.infra.shapes import kv_shape


@pytest.mark.parametrize("chip,total_bytes,source", [
    ("h100-sxm", 81_559 * 2**20, "https://github.com/NVIDIA/nccl/issues/1264"),
    ("h200-sxm", 143_771 * 2**20, "https://github.com/sgl-project/sglang/issues/3196"),
    ("mi300x", 206_158_430_208,
     "https://rocm.docs.amd.com/en/7.13.0-preview/reference/gpu-specs.html"),
])
def test_capacity_is_the_driver_reported_total(chip: str, total_bytes: int, source: str) -> None:
    gpu = load_catalog().accelerators[chip]
    assert gpu.memory_bytes == total_bytes, source


def test_h100_80gb_reads_as_79_6_gib_not_74_5() -> None:
    gpu = load_catalog().accelerators["h100-sxm"]
    assert gpu.memory_bytes / 2**30 == pytest.approx(79.65, abs=0.01)
    assert gpu.memory_gb == 80 and gpu.memory_unit == "GiB"  # as NVIDIA prints it


def test_each_hbm_chip_reads_its_gb_in_the_unit_its_driver_total_shows() -> None:
    """Binary on Hopper, Blackwell and MI300, decimal on Blackwell Ultra: the stated
    unit is the reading of the vendor's figure nearest the driver total."""
    for gpu in load_catalog().accelerators:
        if not gpu.memory_type.upper().startswith("HBM"):
            continue
        unit = 2**30 if gpu.memory_unit == "GiB" else 1e9
        assert gpu.nominal_memory_bytes == gpu.memory_gb * unit
        if gpu.driver_memory_mib is None:
            continue
        driver = gpu.driver_memory_mib * 2**20
        other = 1e9 if gpu.memory_unit == "GiB" else 2**30
        assert abs(gpu.memory_gb * unit - driver) < abs(gpu.memory_gb * other - driver), gpu.id


def test_tpu_and_trainium_print_gib_and_are_not_converted_twice() -> None:
    acc = load_catalog().accelerators
    # Google and AWS print GiB; memory_gb keeps the printed number
    for chip, gib in (("tpu-v5p", 95), ("tpu-v7", 192), ("trainium1", 32), ("trainium2", 96)):
        assert acc[chip].memory_gb == gib
        assert acc[chip].memory_bytes == gib * 2**30


def test_llama_70b_bf16_weights_fit_an_h200_at_usable_fraction_1() -> None:
    cat = load_catalog()
    model, gpu = cat.models["llama-3.1-70b"], cat.accelerators["h200-sxm"]
    assert weights_bytes(model.params, "bf16") == pytest.approx(141.1e9)
    result = fit(model.params, "bf16", kv_shape(model), gpu.memory_bytes, usable_fraction=1.0)
    assert result.fits  # 141.1 GB of weights in 150.75 GB (140.4 GiB) reported


def test_calc_fit_json_says_how_memory_is_read() -> None:
    out = CliRunner().invoke(main, ["calc", "fit", "--model", "llama-3.1-70b", "--gpu",
                                    "h200-sxm", "--usable-fraction", "1", "--json",
                                    "--activation-peak-gib", "0", "--non-torch-gib", "0"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["fits"] is True
    assert report["weights_gb"] == 141.1
    assert report["available_gb"] == pytest.approx(150.75, abs=0.01)  # decimal GB
    assert report["available_gib"] == pytest.approx(140.4, abs=0.01)
    assert report["memory_basis"] == "driver-total"
    assert report["driver_memory_mib"] == 143_771


def test_explicit_memory_in_gib() -> None:
    out = CliRunner().invoke(main, ["calc", "fit", "--params", "70.55e9", "--memory-gib", "141",
                                    "--usable-fraction", "1", "--json",
                                    "--activation-peak-gib", "0", "--non-torch-gib", "0"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["available_bytes"] == 141 * 2**30


def test_usable_is_the_serving_engine_share_of_the_reported_total() -> None:
    """vLLM's gpu_memory_utilization defaults to 0.9 of total GPU memory
    (https://docs.vllm.ai/en/latest/configuration/engine_args.html); the activation peak
    (1.26 GiB) and non-torch memory (1.79 GiB) come out of it
    (https://github.com/vllm-project/vllm/pull/10511)."""
    from studyapp.infra import DEFAULT_USABLE_FRACTION, usable_bytes

    gpu = load_catalog().accelerators["h200-sxm"]
    assert DEFAULT_USABLE_FRACTION == 0.9
    assert usable_bytes(gpu.memory_bytes, runtime_bytes=0) / 1e9 == pytest.approx(135.68,
                                                                                   abs=0.01)
    assert usable_bytes(gpu.memory_bytes) / 1e9 == pytest.approx(135.68 - 3.275, abs=0.01)


def test_the_h200_capacity_card_asks_for_capacity_not_usable() -> None:
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[2]
    deck = yaml.safe_load((root / "decks/posts/h200.yaml").read_text(encoding="utf-8"))
    card = next(c for c in deck["cards"] if c["id"] == "h200-capacity")
    assert card["answer"] == "141 GB"
    assert "capacity" in card["prompt"]["en"] and "capacidad" in card["prompt"]["es"]
    # the explanation says what usable means: 90% of the reported total
    assert "90%" in card["explanation"]["en"] and "90 %" in card["explanation"]["es"]
