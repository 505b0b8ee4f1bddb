"""``studyapp catalog list`` and ``catalog show``: a learner reads a chip's figures and sources
without opening the YAML."""

from __future__ import annotations

import json

from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main


def run(*args: str, lang: str = "en") -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--lang", lang, *args])
    return result.exit_code, result.stdout, result.stderr


def test_show_prints_the_figures_the_memory_basis_and_every_source() -> None:
    code, out, _ = run("catalog", "show", "h100-sxm")
    assert code == 0
    chip = load_catalog().accelerators["h100-sxm"]
    assert out.startswith("NVIDIA H100 SXM (accelerator h100-sxm)")
    assert "  bf16_dense_tflops       989  (published)\n" in out
    assert "memory_bandwidth_tb_s   3.35  (published)" in out
    # the driver total is a measurement: nvidia-smi's 81,559 MiB
    # (https://github.com/modal-labs/modal-client/pull/2797)
    assert "  driver_memory_mib       81559  (measured)\n" in out
    # nvidia-smi reports 81,559 MiB for an H100 SXM 80GB: 85.5 GB, what every fit uses
    assert chip.driver_memory_mib == 81559
    assert "85.52 GB, the total the driver reports (81559 MiB)" in out
    for url in chip.sources:
        assert f"  {url}" in out


def test_show_json_keeps_figures_memory_and_sources_apart() -> None:
    code, out, _ = run("catalog", "show", "h200-sxm", "--json")
    assert code == 0
    shown = json.loads(out)
    assert shown["kind"] == "accelerator" and shown["id"] == "h200-sxm"
    assert shown["figures"]["memory_gb"] == 141 and "sources" not in shown["figures"]
    # nvidia-smi on an H200 SXM: 143,771 MiB = 150.75 GB
    assert shown["memory"]["basis"] == "driver-total"
    assert shown["memory"]["bytes"] == 143771 * 2**20
    assert shown["sources"] and all(url.startswith("http") for url in shown["sources"])


def test_show_reads_models_and_links_too() -> None:
    code, out, _ = run("catalog", "show", "llama-3.1-70b", "--json")
    model = json.loads(out)
    assert code == 0 and model["kind"] == "model"
    # meta-llama/Llama-3.1-70B config.json: 80 layers, 8 KV heads, head size 128
    assert (model["figures"]["layers"], model["figures"]["kv_heads"],
            model["figures"]["head_dim"]) == (80, 8, 128)
    assert "memory" not in model
    code, out, _ = run("catalog", "show", "nvlink-4")
    assert code == 0 and "direction" in out and "bidirectional" in out


def test_an_unknown_id_is_one_line_with_suggestions_in_the_readers_language() -> None:
    code, out, err = run("catalog", "show", "h10")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "did you mean" in err and "h100-sxm" in err
    code, _, err = run("catalog", "show", "h10", lang="es")
    assert code == 1 and "entrada del catálogo" in err


def test_show_in_spanish_labels_memory_note_and_sources() -> None:
    code, out, _ = run("catalog", "show", "h100-sxm", lang="es")
    assert code == 0
    assert "(acelerador h100-sxm)" in out and "fuentes:" in out and "nota:" in out
    assert "el total que informa el driver" in out


def test_list_names_every_id_by_kind() -> None:
    shipped = load_catalog()
    code, out, _ = run("catalog", "list", "--json")
    assert code == 0
    listed = json.loads(out)
    assert [e["id"] for e in listed["accelerators"]] == shipped.accelerators.ids()
    assert [e["id"] for e in listed["models"]] == shipped.models.ids()
    code, out, _ = run("catalog", "list", "--kind", "system")
    assert code == 0 and out.startswith(f"system ({len(shipped.systems)}):")
    assert "gb200-nvl72" in out and "h100-sxm " not in out
