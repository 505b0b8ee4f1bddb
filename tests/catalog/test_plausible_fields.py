"""``catalog validate`` checks every kind of figure: memory, its driver total, TDP, a
port's Gb/s, a mesh link's per-peer GB/s, each refused at its own ``file:line:col``.

The real figures of the template: B300, NVIDIA's 288 GB with nvidia-smi's 275,040 MiB
(https://github.com/simone-chen/aiconfigurator/blob/84ba8996240b8e7b2d95f2c194aaae6842008d9e/src/aiconfigurator/systems/b300_sxm.yaml),
8 TB/s, 2,250 dense BF16 TFLOPS, NVLink 5 1,800 GB/s
(https://developer.nvidia.com/blog/inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era);
1,100 W as nvidia-smi's power cap on an HGX B300 (the same aiconfigurator file);
an XDR InfiniBand port: 800 Gb/s = 100 GB/s per direction; MI355X Infinity Fabric:
153.6 GB/s to each of 7 peers (https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main

FILE = """\
accelerators:
  - id: check-chip
    name: Check chip
    vendor: nvidia
    post: blackwell
    year: 2025
    memory_gb: {memory}
    memory_unit: GB
    driver_memory_mib: {driver}
    memory_type: HBM3e
    memory_bandwidth_tb_s: 8
    bf16_dense_tflops: 2250
    tdp_w: {tdp}
    scale_up_gb_s: 1800
    sources: [https://example.org/check-chip]
interconnects:
  - id: check-port
    name: Check port
    kind: scale-out
    bandwidth_gb_s: 100
    direction: per-direction
    gbit_s: {port}
    sources: [https://example.org/check-port]
  - id: check-mesh
    name: Check mesh
    kind: scale-up
    bandwidth_gb_s: 1075
    direction: bidirectional
    peers: 7
    per_peer_gb_s: {peer}
    sources: [https://example.org/check-mesh]
"""
GOOD = {"memory": 288, "driver": 275040, "tdp": 1100, "port": 800, "peer": 153.6}


@pytest.fixture(autouse=True)
def _fresh_catalog() -> None:
    load_catalog.cache_clear()  # type: ignore[attr-defined]
    yield
    load_catalog.cache_clear()  # type: ignore[attr-defined]


def validate(tmp_path: Path, lang: str = "en", **changes: float) -> tuple[int, str]:
    path = tmp_path / "mine.yaml"
    path.write_text(FILE.format(**{**GOOD, **changes}), encoding="utf-8")
    result = CliRunner().invoke(main, ["--lang", lang, "catalog", "validate", str(path)])
    return result.exit_code, result.output


def test_the_real_figures_validate(tmp_path: Path) -> None:
    code, out = validate(tmp_path)
    assert code == 0, out


@pytest.mark.parametrize(("field", "value", "line", "words"), [
    ("memory", 288_000, 7, "memory_gb 288000 GB is outside what any real part has"),
    ("driver", 275, 9, "driver_memory_mib 275 MiB is outside"),
    ("driver", 27504, 9, "driver_memory_mib 27504 MiB (28.84 GB) is not the 288 GB"),
    ("tdp", 1.1, 13, "tdp_w 1.1 W is outside what any real part has (50 to 3000 W); 1100 if"),
    ("port", 800_000, 22, "gbit_s 800000 Gb/s is outside what any real part has"),
    ("peer", 153_600, 30, "per_peer_gb_s 153600 GB/s is outside"),
])
def test_each_implausible_figure_is_placed_at_its_line(tmp_path: Path, field: str,
                                                       value: float, line: int,
                                                       words: str) -> None:
    code, out = validate(tmp_path, **{field: value})
    assert code == 1
    assert re.search(rf"mine\.yaml:{line}:\d+: ", out), out
    assert words in out, out
    assert "Traceback" not in out


def test_a_driver_total_slip_is_worded_in_spanish(tmp_path: Path) -> None:
    code, out = validate(tmp_path, lang="es", driver=27504)
    assert code == 1 and "no son los 288 GB que da el fabricante" in out
