"""A bad catalog file, shipped or a learner's, is worded at file:line:col and exits 1.

Covers ``studyapp catalog validate``, the learner's catalog.yaml in the user data
folder meeting any command, and hostile input (alias bombs, tags, huge numbers,
NaN, wrong types) that must never end in a traceback or a hang.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.catalog import CatalogError, load_catalog, load_catalog_from, user_catalog_path
from studyapp.cli import main

CONTENT = Path(__file__).resolve().parents[2] / "content"

CHIP = """\
accelerators:
  - id: my-chip
    name: My chip
    vendor: nvidia
    post: h100
    year: 2025
    architecture: Test
    memory_gb: 96
    memory_type: HBM3e
    memory_bandwidth_tb_s: 4
    bf16_dense_tflops: 500
    fp8_dense_tflops: 1000
    scale_up: NVLink
    scale_out: Ethernet
    software: CUDA
    sources: [https://example.org/my-chip]
"""


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.output, result.exception)
    return result.exit_code, result.output


@pytest.fixture(autouse=True)
def _fresh_catalog() -> None:
    load_catalog.cache_clear()  # type: ignore[attr-defined]
    yield
    load_catalog.cache_clear()  # type: ignore[attr-defined]


def _write(tmp_path: Path, text: str, name: str = "mine.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_misspelled_field_is_placed_and_a_close_name_suggested(tmp_path: Path) -> None:
    folder = tmp_path / "content"
    folder.mkdir()
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(CONTENT / name, folder / name)
    hardware = folder / "hardware.yaml"
    text = hardware.read_text(encoding="utf-8")
    assert "    fp4_dense_tflops: 9000\n" in text
    hardware.write_text(text.replace("    fp4_dense_tflops: 9000\n",
                                     "    fp4_dense_tflop: 9000\n", 1), encoding="utf-8")
    line = text[: text.index("    fp4_dense_tflops: 9000\n")].count("\n") + 1
    code, out = run("catalog", "validate", str(hardware))
    assert code == 1
    assert out.startswith(f"{hardware}:{line}:5: unknown key 'fp4_dense_tflop'; "
                          "did you mean 'fp4_dense_tflops'")
    assert "Traceback" not in out
    code, out = run("--lang", "es", "catalog", "validate", str(hardware))
    assert code == 1 and f"{hardware}:{line}:5: clave 'fp4_dense_tflop' desconocida" in out
    with pytest.raises(CatalogError) as raised:
        load_catalog_from(folder)
    assert "accelerators" in str(raised.value) and "fp4_dense_tflop" in str(raised.value)


def test_shipped_files_and_a_good_user_file_validate(tmp_path: Path) -> None:
    for name in ("hardware.yaml", "models.yaml"):
        code, out = run("catalog", "validate", str(CONTENT / name))
        assert code == 0, out
        assert "valid" in out
    code, out = run("catalog", "validate", str(_write(tmp_path, CHIP)))
    assert code == 0, out
    assert "valid (1 accelerators" in out


HOSTILE = {
    "alias-bomb": ("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                   + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                             for p, c in zip("abcdefgh", "bcdefghi", strict=True))
                   + "accelerators: *i\n", "more than 200000 values"),
    # the message speaks of the file the learner wrote, not of decks
    "python-tag": ("accelerators: !!python/object/apply:os.system ['true']\n",
                   "Python object; deck and catalog files hold plain data only"),
    "nan": (CHIP.replace("memory_gb: 96", "memory_gb: .nan"), "finite"),
    "infinite": (CHIP.replace("memory_gb: 96", "memory_gb: 1e400"), "finite"),
    "huge": (CHIP.replace("memory_gb: 96", "memory_gb: 1e300"), "at most"),
    "huge-int": (CHIP.replace("year: 2025", "year: " + "9" * 40), "at most"),
    "wrong-type": (CHIP.replace("memory_gb: 96", "memory_gb: lots"), "expected a number"),
    "list-not-mapping": ("- a\n- b\n", "a catalog file is a mapping"),
    "syntax": ("accelerators: [\n", "malformed YAML"),
    "duplicate-key": (CHIP.replace("    memory_gb: 96\n", "    memory_gb: 96\n    memory_gb: 9\n"),
                      "duplicate key"),
    "clashes-with-shipped": (CHIP.replace("id: my-chip", "id: h100-sxm"),
                             "duplicate accelerator id 'h100-sxm'"),
    "unknown-system-chip": (CHIP + """\
systems:
  - id: my-box
    name: My box
    vendor: nvidia
    post: hgx
    gpus: 8
    accelerator: h100-sxn
    total_memory_gb: 640
    sources: [https://example.org/box]
""", "unknown accelerator id 'h100-sxn'; did you mean h100-sxm"),
    "sparse-not-twice": (CHIP.replace("    scale_up: NVLink\n",
                                      "    sparse_headline_tflops: {fp8: 4000}\n"
                                      "    scale_up: NVLink\n"), "sparsity_factor"),
    "fp4-over-twice-fp8": (CHIP.replace("    scale_up: NVLink\n",
                                        "    fp4_dense_tflops: 3000\n    scale_up: NVLink\n"),
                           "fp4_per_fp8"),
    "fp8-ratio-not-the-figures": (CHIP.replace("    scale_up: NVLink\n",
                                               "    fp8_per_bf16: 3\n    scale_up: NVLink\n"),
                                  "fp8_per_bf16"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_file_is_worded_not_a_traceback(tmp_path: Path, case: str) -> None:
    text, words = HOSTILE[case]
    path = _write(tmp_path, text)
    started = time.perf_counter()
    code, out = run("catalog", "validate", str(path))
    assert time.perf_counter() - started < 20
    assert code == 1, out
    assert out.startswith(f"{path}:"), out
    assert out.split(":")[1].isdigit() and out.split(":")[2].isdigit(), out
    assert words in out, out
    assert "Traceback" not in out


@pytest.mark.parametrize("case", ["alias-bomb", "nan", "huge-int", "unknown-system-chip",
                                  "duplicate-key", "python-tag", "syntax"])
def test_a_bad_user_catalog_stops_a_command_in_one_worded_report(case: str) -> None:
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HOSTILE[case][0], encoding="utf-8")
    code, out = run("calc", "fit", "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert code == 1
    assert out.startswith(f"studyapp: {path}:"), out
    assert HOSTILE[case][1] in out


def test_user_catalog_adds_a_chip_that_calc_uses() -> None:
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CHIP, encoding="utf-8")
    catalog = load_catalog()
    assert "my-chip" in catalog.accelerators and "h100-sxm" in catalog.accelerators
    assert catalog.files[-1] == path
    code, out = run("calc", "fit", "--model", "llama-3.1-8b", "--gpu", "my-chip")
    assert code == 0, out
    assert "my-chip" in out


def test_schema_names_every_field() -> None:
    code, out = run("catalog", "schema")
    assert code == 0
    schema = json.loads(out)
    accelerator = schema["$defs"]["Accelerator"]["properties"]
    wanted = {"fp4_dense_tflops", "sparsity_factor", "fp4_per_fp8", "fp8_per_bf16",
              "name_pattern"}
    assert wanted <= set(accelerator)
    assert {"accelerators", "models", "posts", "pools"} <= set(schema["properties"])
