"""``catalog validate`` refuses figures no real part has, naming a ×1000 slip where it fits.

The audit's examples: Trainium3's 4.9 TB/s of HBM written as 4,900 (AWS Neuron
docs: 4.9 TB/s), its NeuronLink-v4 2.56 TB/s written as 2.56 in the GB/s field
(2,560 GB/s), a sparse headline under its dense figure, FP8 slower than BF16.
A learner's catalog.yaml with such a chip stops every command in one report,
so ``calc decode`` never prints 41,938 tokens/s for an 8B model on one chip.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog, user_catalog_path
from studyapp.cli import main

CHIP = """\
accelerators:
  - id: slip-chip
    name: Slip chip
    vendor: aws
    post: trainium
    year: 2025
    memory_gb: 144
    memory_type: HBM3e
    memory_bandwidth_tb_s: {bandwidth}
    bf16_dense_tflops: {bf16}
    fp8_dense_tflops: {fp8}
    scale_up_gb_s: {scale_up}
    sparse_headline_tflops: {{fp8: {sparse}}}
    sources: [https://example.org/slip-chip]
"""
GOOD = {"bandwidth": 4.9, "bf16": 671, "fp8": 2517, "scale_up": 2560, "sparse": 5034}


@pytest.fixture(autouse=True)
def _fresh_catalog() -> None:
    load_catalog.cache_clear()  # type: ignore[attr-defined]
    yield
    load_catalog.cache_clear()  # type: ignore[attr-defined]


def validate(tmp_path: Path, lang: str = "en", **changes: float) -> tuple[int, str]:
    path = tmp_path / "mine.yaml"
    path.write_text(CHIP.format(**{**GOOD, **changes}), encoding="utf-8")
    result = CliRunner().invoke(main, ["--lang", lang, "catalog", "validate", str(path)])
    return result.exit_code, result.output


def test_the_real_figures_validate(tmp_path: Path) -> None:
    code, out = validate(tmp_path)
    assert code == 0, out


@pytest.mark.parametrize(("field", "value", "line", "words"), [
    ("bandwidth", 4900, 9, "memory_bandwidth_tb_s 4900 TB/s is outside what any real part has"
                           " (0.2 to 40 TB/s); 4.9 if the figure was written in the wrong"
                           " thousand"),
    ("scale_up", 2.56, 12, "scale_up_gb_s 2.56 GB/s is outside what any real part has"
                           " (16 to 20000 GB/s); 2560 if"),
    ("bf16", 9e6, 10, "bf16_dense_tflops 9e+06 TFLOPS is outside what any real part has"),
    ("sparse", 2000, 13, "fp8 with sparsity 2000 is below dense 2517"),
    ("fp8", 600, 11, "fp8 dense 600 is below bf16 dense 671"),
])
def test_each_implausible_figure_is_placed_at_its_line(tmp_path: Path, field: str, value: float,
                                                       line: int, words: str) -> None:
    code, out = validate(tmp_path, **{field: value})
    assert code == 1
    assert re.search(rf"mine\.yaml:{line}:\d+: ", out), out
    assert words in out, out
    assert "Traceback" not in out


def test_the_slip_is_worded_in_spanish(tmp_path: Path) -> None:
    code, out = validate(tmp_path, lang="es", bandwidth=4900)
    assert code == 1 and "está fuera de lo que tiene cualquier pieza real" in out
    assert "4.9 si la cifra se escribió en el millar equivocado" in out


def test_a_learners_catalog_with_a_slip_stops_calc_in_one_report() -> None:
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CHIP.format(**{**GOOD, "bandwidth": 4900}), encoding="utf-8")
    result = CliRunner().invoke(main, ["--lang", "en", "calc", "decode", "--model",
                                       "llama-3.1-8b", "--gpu", "slip-chip"])
    assert result.exit_code == 1
    assert result.output.startswith(f"studyapp: {path}:9:"), result.output
    assert "tokens" not in result.output.split(":", 3)[-1].split("(")[0]


def test_every_shipped_figure_is_in_range() -> None:
    from studyapp.catalog.plausible import plausibility

    shipped = load_catalog()
    assert shipped.files  # the shipped files, each read as the loader reads them
    from studyapp.catalog.loader import check_files

    loaded, findings = check_files(list(shipped.files))
    assert findings == [] and len(loaded) == len(shipped.files)
    assert [odd for _, data in loaded for odd in plausibility(data)] == []
