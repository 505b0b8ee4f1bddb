"""The chart widget alone at 80x24 on fixed numbers (not the catalog's, which move):
a 70B GQA model in BF16 on a chip of 141 GB, 4.8 TB/s and 989 dense TFLOPS."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult

from studyapp.i18n import t
from studyapp.infra.calc import DeviceInput, ModelInput
from studyapp.infra.calc_charts import (
    Chart,
    memory_against_batch,
    memory_against_context,
    roofline,
    throughput_against_batch,
)
from studyapp.infra.memory import KVShape
from studyapp.tui.widgets.calc_plot import CalcPlot, axis_ticks, draw_chart, tick_label

SIZE = (80, 24)
MODEL = ModelInput("model-70b", 70e9, KVShape(layers=80, kv_heads=8, head_dim=128), "gqa",
                   context_length=131072)
CHIP = DeviceInput("chip-141", 141e9, 4.8e12, 989e12)
SETUP: dict[str, Any] = {"dtype": "bf16", "kv_dtype": "bf16", "batch": 4, "context": 8192}
CHARTS: dict[str, Callable[[], Chart]] = {
    "roofline": lambda: roofline(MODEL, CHIP, **SETUP),
    "memory-context": lambda: memory_against_context(MODEL, CHIP, **SETUP, gpus=2),
    "memory-batch": lambda: memory_against_batch(MODEL, CHIP, **SETUP, gpus=2),
    "throughput-batch": lambda: throughput_against_batch(MODEL, CHIP, **{**SETUP,
                                                                        "context": 0}),
}


class PlotApp(App[None]):
    def __init__(self, chart: Chart, theme: str) -> None:
        super().__init__()
        self.chart, self.start_theme = chart, theme

    def compose(self) -> ComposeResult:
        yield CalcPlot(lambda key, **fields: t(key, "en", **fields))

    def on_mount(self) -> None:
        self.theme = self.start_theme
        self.query_one(CalcPlot).show(self.chart)


@pytest.mark.parametrize("kind", list(CHARTS))
@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
def test_chart_at_fixed_data(kind: str, theme: str, snap_compare: Callable[..., bool]) -> None:
    assert snap_compare(PlotApp(CHARTS[kind](), theme), terminal_size=SIZE)


async def test_the_widget_redraws_in_the_new_themes_colours() -> None:
    app = PlotApp(CHARTS["roofline"](), "textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        plot = app.query_one(CalcPlot)
        dark = plot.theme_colours()
        app.theme = "textual-light"
        await pilot.pause()
        light = plot.theme_colours()
        assert dark != light and len(set(light)) == len(light)


@pytest.mark.parametrize(("low", "high", "log", "ticks"), [
    (1.0, 45676.1, True, [1, 10, 100, 1000, 10000]),     # a roofline's FLOP/B
    (4.8, 989.0, True, [5, 10, 20, 50, 100, 200, 500]),  # under three decades: 2 and 5 too
    (0.0, 266.0, False, [0, 100, 200]),                  # GB per GPU
    (0.0, 72.0, False, [0, 20, 40, 60]),
])
def test_axes_tick_at_round_figures(low: float, high: float, log: bool,
                                    ticks: list[float]) -> None:
    assert axis_ticks(low, high, log) == ticks


def test_tick_labels_are_short() -> None:
    assert [tick_label(v) for v in (5, 0.5, 989.0, 1000, 20000, 45676.1, 1.5e6)] == [
        "5", "0.5", "989", "1k", "20k", "45.7k", "1.5M"]


def test_a_linear_chart_leaves_its_legend_room_above_the_lines() -> None:
    """plotext writes the legend in the top left corner: the memory chart's highest line
    (the chip's memory) stays below the rows its five entries take."""
    import plotext

    chart = CHARTS["memory-context"]()
    plotext.clear_figure()
    plotext.plotsize(80, 22)
    plotext.theme("clear")
    draw_chart(plotext, chart, lambda key, **fields: t(key, "en", **fields), ["blue"] * 6,
               title=False)
    words = [t(f"calc.chart.series.{key}", "en")
             for key in ("memory", "usable", "weights-kv", "weights", "chosen")]
    rows = plotext.build().splitlines()
    legend = [row for row in rows if any(word in row for word in words)]
    assert len(legend) == 5 and any("-----" in row for row in rows)
    assert not any("-----" in row for row in legend)  # no level line runs under the legend
