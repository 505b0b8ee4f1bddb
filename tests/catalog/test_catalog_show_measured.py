"""``catalog show ID`` sets a chip's published measurements beside its datasheet figures:
one line each with the value, its share of the figure it is read against, the setup,
the date and the source; ``--json`` gives them as a ``measurements`` list."""

from __future__ import annotations

import json

from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main


def run(*args: str, lang: str = "en") -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--lang", lang, *args])
    return result.exit_code, result.stdout


def test_show_lists_each_measurement_with_its_share_date_and_source() -> None:
    code, out = run("catalog", "show", "b200")
    assert code == 0
    measured = load_catalog().measured("b200")
    assert measured and out.count("\n  ") >= len(measured)
    listed = out.split("measurements:\n", 1)[1].splitlines()
    assert len(listed) == len(measured)
    # nvidia-smi shows 183,359 MiB on a B200 (NVIDIA/TensorRT-LLM issue 10278): 99.5% of
    # the 180 GiB = 184,320 MiB NVIDIA prints
    driver = next(line for line in listed if "driver-memory" in line)
    assert driver.startswith("  183,359 MiB, 99.5% of the 184,320 MiB in theory")
    assert "(2025-12-24, https://github.com/NVIDIA/TensorRT-LLM/issues/10278)" in driver
    for m, line in zip(measured, listed, strict=True):
        assert m.date.isoformat() in line and str(m.sources[0]) in line and m.kind in line


def test_show_in_spanish_reads_the_share_in_spanish() -> None:
    code, out = run("catalog", "show", "b200", lang="es")
    assert code == 0 and "mediciones:" in out
    assert "el 99,5 % de los 184 320 MiB teóricos" in out.replace("\u202f", " ")


def test_show_json_gives_the_measurements_as_a_list() -> None:
    code, out = run("catalog", "show", "h100-sxm", "--json")
    assert code == 0
    shown = json.loads(out)
    by_id = {m["id"]: m for m in shown["measurements"]}
    assert set(by_id) == {m.id for m in load_catalog().measured("h100-sxm")}
    # 476 GB/s against NVLink 4's 450 GB/s each way (NVIDIA/nccl-tests issue 290)
    nvls = by_id["h100-sxm-allreduce-nvls-8"]
    assert nvls["value"] == 476 and nvls["theory"] == 450 and nvls["unit"] == "GB/s"
    assert abs(nvls["efficiency"] - 476 / 450) < 1e-12
    assert nvls["gap"] == "in-switch-reduction" and nvls["date"] == "2025-03-03"
    assert nvls["setup"]["algorithm"] == "NVLS" and nvls["chips"] == 8


def test_an_entry_without_measurements_shows_none() -> None:
    code, out = run("catalog", "show", "llama-3.1-70b", "--json")
    assert code == 0 and json.loads(out)["measurements"] == []
    code, out = run("catalog", "show", "llama-3.1-70b")
    assert code == 0 and "measurements:" not in out
