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
from studyapp.tui.widgets.calc_plot import CalcPlot

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
