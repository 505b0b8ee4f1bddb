"""``calc fit|decode --plot``: charts told as text when piped, drawn on a terminal, their
data in ``--json``; the same figures as the report beside them."""

from __future__ import annotations

import json

import plotext
import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.cli.calc_plot import draw
from studyapp.i18n import t
from studyapp.infra.calc_charts import Series, roofline
from studyapp.infra.shapes import model_input

FIT = ("calc", "fit", "--model", "llama-3.1-70b", "--gpu", "h200-sxm", "--gpus", "2",
       "--batch", "4", "--context", "8192")
DECODE = ("calc", "decode", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--batch", "4")


def run(*args: str, lang: str = "en") -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--lang", lang, *args])
    return result.exit_code, result.stdout, result.stderr


def test_fit_plot_piped_is_a_table_with_the_budget_and_the_limit() -> None:
    code, out, err = run(*FIT, "--plot")
    assert code == 0, err
    assert "Memory per GPU against context: llama-3.1-70b on h200-sxm, batch 4" in out
    assert "Memory per GPU against batch" in out
    assert "budget for weights + KV:" in out and "Longest context that fits" in out
    assert "┌" not in out  # told, not drawn: nothing a pipe cannot read


def test_fit_plot_json_carries_the_charts_and_keeps_the_report() -> None:
    code, out, _ = run(*FIT, "--plot", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data["charts"]) == {"memory-context", "memory-batch"}
    plain = json.loads(run(*FIT, "--json")[1])
    assert "charts" not in plain
    assert {k: v for k, v in data.items() if k != "charts"} == plain
    batch_chart = data["charts"]["memory-batch"]
    chosen = batch_chart["points"][0]
    assert chosen["x"] == 4
    assert chosen["y"] == pytest.approx(plain["required_bytes"] / 2 / 1e9)  # per GPU


def test_decode_plot_in_spanish_tells_the_bound() -> None:
    code, out, _ = run(*DECODE, "--plot", lang="es")
    assert code == 0
    assert "Roofline de h100-sxm" in out and "limitado por memoria" in out
    assert "Limitado por cómputo desde el lote 512" in out  # 8B, context 0: ridge 295


def test_decode_plot_without_a_compute_peak_says_why_in_one_line() -> None:
    code, out, err = run("calc", "decode", "--params", "8e9", "--bandwidth-tb-s", "3.35",
                         "--plot")
    assert code == 0 and "Decode tokens/s against batch" in out
    assert err.strip() == t("calc.chart.no_flops", "en")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_drawn_roofline_fits_80_columns_and_names_its_lines(
        lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from studyapp.catalog import load_catalog
    from studyapp.infra.calc import DeviceInput

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    cat = load_catalog()
    gpu = cat.accelerators["h200-sxm"]
    device = DeviceInput(gpu.id, gpu.memory_bytes, gpu.bandwidth_bytes_s,
                         gpu.bf16_dense_tflops * 1e12)
    chart = roofline(model_input(cat.models["llama-3.1-70b"]), device, dtype="bf16",
                     kv_dtype="bf16", batch=4, context=8192)

    def words(key: str, **fields: object) -> str:
        return t(key, lang, **fields)

    text = plotext.uncolorize(draw(chart, words))
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80 and len(lines) <= 24
    for key in ("roof", "ridge", "decode", "prefill"):
        assert words(f"calc.chart.series.{key}") in text
    assert "989" in text  # the compute roof: H100/H200 dense BF16 peak on the y axis
    assert isinstance(chart.series[0], Series)


def test_the_table_gives_each_batch_under_the_bound_that_holds() -> None:
    code, out, _ = run(*DECODE, "--plot")
    assert code == 0
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line[:1].isdigit()}
    # Llama 3.1 8B on an H100 at context 0: memory-bound to 256, compute-bound from 512
    assert len(rows["256"]) == 1 and len(rows["512"]) == 1
    header = next(line for line in out.splitlines() if "compute-bound (" in line)
    lines = {line.split()[0]: line for line in out.splitlines() if line[:1].isdigit()}
    split = header.index("compute-bound")
    assert lines["256"].rstrip()[-1:].isdigit() and len(lines["256"].rstrip()) <= split
    assert len(lines["512"].rstrip()) > split  # in the compute-bound column
