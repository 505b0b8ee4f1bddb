"""The catalog of published measurements: each one cited, on a known chip, in its kind's unit.

A measurement in the wrong unit (a latency in GB/s), on a chip no file defines, or
twice under one id is refused by ``catalog validate`` at its ``file:line:col``, the
same as a bad chip: a wrong measurement taught as the real-world figure is worse
than none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.catalog.measurements import UNIT_OF_KIND
from studyapp.cli import main
from studyapp.locations import content_dir

GOOD = """\
measurements:
  - id: probe-busbw
    name: A probe all-reduce
    kind: {kind}
    chip: {chip}
    chips: 8
    value: {value}
    unit: {unit}
    theory: 450
    date: 2025-03-03
    sources: [https://example.org/probe]
"""


def _validate(tmp_path: Path, text: str) -> tuple[int, str]:
    path = tmp_path / "measurements.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["--lang", "en", "catalog", "validate", str(path)])
    return result.exit_code, result.output


def test_the_shipped_measurements_are_valid_and_each_names_a_catalog_chip() -> None:
    catalog = load_catalog()
    assert catalog.measurements, "content/measurements.yaml is loaded with the catalog"
    for measurement in catalog.measurements:
        assert measurement.chip in catalog.accelerators, measurement.id
        assert measurement.unit in UNIT_OF_KIND[measurement.kind], measurement.id
        assert all(url.scheme == "https" for url in measurement.sources), measurement.id


def test_validate_counts_the_measurements(tmp_path: Path) -> None:
    code, out = _validate(tmp_path, GOOD.format(kind="allreduce-busbw", chip="h100-sxm",
                                                value=476, unit="GB/s"))
    assert code == 0, out
    assert "1 measurements" in out


def test_a_measurement_in_another_kinds_unit_is_refused_at_its_line(tmp_path: Path) -> None:
    code, out = _validate(tmp_path, GOOD.format(kind="allreduce-latency", chip="h100-sxm",
                                                value=476, unit="GB/s"))
    assert code == 1
    assert re.search(r"measurements\.yaml:2:\d+: .*allreduce-latency measurement is in us",
                     out), out


def test_a_measurement_of_an_unknown_chip_names_the_close_ids(tmp_path: Path) -> None:
    code, out = _validate(tmp_path, GOOD.format(kind="allreduce-busbw", chip="h100-sx",
                                                value=476, unit="GB/s"))
    assert code == 1
    assert re.search(r"measurements\.yaml:\d+:\d+: unknown accelerator id 'h100-sx'.*h100-sxm",
                     out), out


def test_a_value_outside_its_published_range_is_refused(tmp_path: Path) -> None:
    text = GOOD.format(kind="network-busbw-per-nic", chip="h100-sxm", value=52,
                       unit="GB/s") + "    low: 46\n    high: 48\n"
    code, out = _validate(tmp_path, text)
    assert code == 1
    assert "outside low..high" in out


def test_two_measurements_with_one_id_are_refused(tmp_path: Path) -> None:
    one = GOOD.format(kind="allreduce-busbw", chip="h100-sxm", value=476, unit="GB/s")
    twice = one + one.split("\n", 1)[1]
    code, out = _validate(tmp_path, twice)
    assert code == 1
    assert "duplicate measurement id 'probe-busbw'" in out


@pytest.mark.parametrize(("measurement_id", "efficiency"), [
    # the handbook's MAMF table as it stood in October 2024:
    # https://github.com/stas00/ml-engineering/blob/8deeddd8cb6ec126ff31c5fc4efdcca325476f8b/compute/accelerator/README.md
    ("h100-sxm-mamf-bf16", 792.1 / 989),   # 80.1%
    ("a100-mamf-bf16", 267.9 / 312),       # 85.9%
    # NVIDIA/nccl issue 1264: 749 of 900 GB/s, both directions
    ("h100-sxm-p2p-bidirectional", 749 / 900),
])
def test_efficiency_is_the_measurement_over_the_datasheet(measurement_id: str,
                                                         efficiency: float) -> None:
    found = {m.id: m for m in load_catalog().measurements}[measurement_id]
    assert found.efficiency == pytest.approx(efficiency)


def test_the_shipped_file_sits_beside_the_other_catalog_files() -> None:
    assert (content_dir() / "measurements.yaml").is_file()


def test_the_catalog_holds_thirty_measurements_over_eight_chips_or_more() -> None:
    measurements = load_catalog().measurements
    assert len(measurements) >= 30
    assert len({m.chip for m in measurements}) >= 8


def test_every_measurement_read_against_a_datasheet_names_its_gap() -> None:
    """The cause of the gap is what the predict-then-check questions ask; an entry with a
    theory and no cause would leave them without an answer."""
    for m in load_catalog().measurements:
        if m.theory is not None:
            assert m.gap is not None, m.id
        if m.gap is not None and m.gap != "none":
            assert m.note, f"{m.id}: a named gap says why in its note"


def test_in_switch_reduction_only_where_the_measurement_beats_the_line_rate() -> None:
    """NVLink SHARP lets bus bandwidth pass the one-way rate (476 of 450 GB/s, NVIDIA/
    nccl-tests issue 290); a shortfall has another cause."""
    for m in load_catalog().measurements:
        if m.gap == "in-switch-reduction":
            assert m.efficiency is not None and m.efficiency > 1, m.id
        if m.gap == "protocol-overhead":
            assert m.efficiency is not None and m.efficiency < 1, m.id


def test_the_theory_is_the_catalogs_datasheet_figure() -> None:
    """A matmul is read against the chip's dense peak for its dtype, a one-node all-reduce
    against half its NVLink figure, a driver total against the memory in MiB."""
    catalog = load_catalog()
    for m in catalog.measurements:
        chip = catalog.accelerators[str(m.chip)]
        if m.kind == "matmul-tflops" and m.date.year >= 2026:
            peak = chip.fp8_dense_tflops if m.setup["dtype"] == "fp8" else chip.bf16_dense_tflops
            assert m.theory == peak, m.id
        if m.kind == "allreduce-busbw" and m.nodes == 1 and m.theory is not None:
            assert chip.scale_up_gb_s is not None and m.theory == chip.scale_up_gb_s / 2, m.id
        if m.kind == "driver-memory":
            assert chip.memory_unit == "GiB" and m.theory == chip.memory_gb * 1024, m.id
            assert m.value == chip.driver_memory_mib, m.id


def test_a_decode_rate_is_in_tokens_per_second(tmp_path: Path) -> None:
    text = GOOD.format(kind="decode-throughput", chip="h100-sxm", value=52.85,
                       unit="tokens/s")
    code, out = _validate(tmp_path, text)
    assert code == 0, out
    code, out = _validate(tmp_path, GOOD.format(kind="decode-throughput", chip="h100-sxm",
                                                value=52.85, unit="GB/s"))
    assert code == 1 and "decode-throughput measurement is in tokens/s" in out


def test_an_unknown_gap_cause_is_refused_at_its_line(tmp_path: Path) -> None:
    text = GOOD.format(kind="allreduce-busbw", chip="h100-sxm", value=476,
                       unit="GB/s") + "    gap: magic\n"
    code, out = _validate(tmp_path, text)
    assert code == 1
    assert re.search(r"measurements\.yaml:12:\d+: expected 'none', .*got 'magic'", out), out
