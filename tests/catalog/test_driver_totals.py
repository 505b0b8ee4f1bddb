"""Capacities are what the driver reports, where a public log shows it.

A vendor's HBM "GB" is a GiB on Hopper, Blackwell and MI300 and decimal on
Blackwell Ultra; the driver total (nvidia-smi MiB, rocm-smi bytes) settles it and
is the capacity every fit uses. Each figure below has the public log that prints it.
"""

from __future__ import annotations

import pytest

from studyapp.catalog import load_catalog
from studyapp.cli.calc_inputs import memory_basis
from studyapp.infra import kv_bytes_per_token, weights_bytes
from studyapp.infra.shapes import kv_shape

MIB = 2**20

DRIVER_TOTALS = [
    # B300 SXM6 AC: nvidia-smi 275040MiB, recorded in NVIDIA's aiconfigurator system file
    # https://github.com/simone-chen/aiconfigurator/blob/84ba8996240b8e7b2d95f2c194aaae6842008d9e/src/aiconfigurator/systems/b300_sxm.yaml
    ("b300", 275_040, "GB"),
    # GB300: nvidia-smi 284208MiB
    # https://github.com/simone-chen/aiconfigurator/blob/865aa0e02c36970a47d2815e8a7e0c3d21dbbaa2/src/aiconfigurator/systems/gb300.yaml
    ("gb300", 284_208, "GB"),
    # B200: nvidia-smi "0MiB / 183359MiB" https://github.com/NVIDIA/TensorRT-LLM/issues/10278
    ("b200", 183_359, "GiB"),
    # GB200: nvidia-smi 189471MiB
    # https://github.com/simone-chen/aiconfigurator/blob/865aa0e02c36970a47d2815e8a7e0c3d21dbbaa2/src/aiconfigurator/systems/gb200.yaml
    ("gb200", 189_471, "GiB"),
    # H200 SXM: nvidia-smi 143771MiB https://github.com/sgl-project/sglang/issues/3196
    ("h200-sxm", 143_771, "GiB"),
    # H100 SXM: 81559MiB, A100 80GB: 81920MiB https://github.com/modal-labs/modal-client/pull/2797
    ("h100-sxm", 81_559, "GiB"),
    ("a100-80gb", 81_920, "GiB"),
    # MI300X: rocm-smi 206,158,430,208 bytes = 196,608 MiB
    # https://github.com/ROCm/legacy-rocm-build/issues/4414
    ("mi300x", 196_608, "GiB"),
]


@pytest.mark.parametrize("chip,mib,unit", DRIVER_TOTALS, ids=[c for c, _, _ in DRIVER_TOTALS])
def test_capacity_is_the_driver_total_and_the_unit_it_shows(chip: str, mib: int,
                                                             unit: str) -> None:
    gpu = load_catalog().accelerators[chip]
    assert gpu.driver_memory_mib == mib
    assert gpu.memory_bytes == mib * MIB
    assert memory_basis(gpu) == "driver-total"
    assert gpu.memory_unit == unit
    assert any("github.com" in str(url) for url in gpu.sources), "the log is cited"


def test_b300_288_gb_is_decimal_not_a_gib() -> None:
    gpu = load_catalog().accelerators["b300"]
    assert gpu.memory_bytes / 1e9 == pytest.approx(288.4, abs=0.05)
    assert gpu.memory_bytes / 2**30 == pytest.approx(268.6, abs=0.05)
    assert gpu.nominal_memory_bytes == 288e9  # not 288 x 2^30 = 309.2 GB


def test_h200_nvl_reads_the_h200s_driver_total_marked_estimated() -> None:
    # the H200 SXM's nvidia-smi total, 143,771 MiB (https://github.com/sgl-project/sglang/issues/3196);
    # the NVL card has the same 141 GB of HBM3e (https://www.nvidia.com/en-us/data-center/h200/)
    gpu = load_catalog().accelerators["h200-nvl"]
    assert gpu.driver_memory_mib == 143_771
    assert gpu.figure_status("driver_memory_mib") == "estimated"
    assert not gpu.is_fact("driver_memory_mib")
    assert memory_basis(gpu) == "driver-total"
    assert gpu.memory_bytes / 1e9 == pytest.approx(150.76, abs=0.01)  # not 141 GiB = 151.4 GB


def test_qwen3_235b_fp8_on_one_b300_has_the_kv_room_of_the_driver_total() -> None:
    """The GiB reading of B300's 288 GB promised 21 GB more than the driver has."""
    cat = load_catalog()
    model, gpu = cat.models["qwen3-235b-a22b"], cat.accelerators["b300"]
    weights = weights_bytes(model.params, "fp8")
    room = gpu.memory_bytes - weights
    assert room / 1e9 == pytest.approx(53.3, abs=0.1)
    per_32k = 32_768 * kv_bytes_per_token(kv_shape(model), "fp8")
    assert per_32k / 1e9 == pytest.approx(3.154, abs=0.001)  # 2 x 94 x 4 x 128 x 1 B per token
    assert int(room // per_32k) == 16
    assert int((288 * 2**30 - weights) // per_32k) == 23  # what the GiB reading claimed
