"""The calculator's charts, one at a time over the whole screen: the chip's roofline
with prefill and decode, memory against context and against batch under the chip's
budget, tokens/s against batch with the bound that holds.

Opened from the calculator (``g``) with what its form holds; the numbers are
``studyapp.infra.calc_charts``'s, drawn by ``widgets/calc_plot.py``. ``t`` tells the
chart as text instead (for a screen reader, or to read the figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from studyapp.infra.calc import DeviceInput, ModelInput
from studyapp.infra.calc_chart_text import chart_lines, chart_title
from studyapp.infra.calc_charts import (
    Chart,
    memory_against_batch,
    memory_against_context,
    roofline,
    throughput_against_batch,
)
from studyapp.infra.measured import measured_marks
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.widgets.calc_plot import CalcPlot
from studyapp.tui.widgets.footer import SteadyFooter

if TYPE_CHECKING:
    from studyapp.catalog.measurements import Measurement


@dataclass(frozen=True)
class ChartRequest:
    """What the calculator's form holds, resolved to the calculator's inputs."""

    model: ModelInput
    device: DeviceInput
    dtype: str
    kv_dtype: str
    batch: int
    context: int
    gpus: int
    measurements: Sequence[Measurement] = ()
    """Published measurements to mark beside the theory (the catalog's)."""


def charts_for(request: ChartRequest) -> list[Chart]:
    """The four charts of one setup, in the order the screen steps through them."""
    r = request
    charts = []
    if r.device.flops is not None:
        charts.append(roofline(r.model, r.device, dtype=r.dtype, kv_dtype=r.kv_dtype,
                               batch=r.batch, context=r.context))
    if r.model.shape is not None and r.device.memory_bytes is not None:
        charts.append(memory_against_context(r.model, r.device, dtype=r.dtype,
                                             kv_dtype=r.kv_dtype, batch=r.batch,
                                             context=r.context, gpus=r.gpus))
        charts.append(memory_against_batch(r.model, r.device, dtype=r.dtype,
                                           kv_dtype=r.kv_dtype, batch=r.batch,
                                           context=r.context, gpus=r.gpus))
    charts.append(throughput_against_batch(r.model, r.device, dtype=r.dtype,
                                           kv_dtype=r.kv_dtype, batch=r.batch,
                                           context=r.context, gpus=r.gpus))
    return [measured_marks(chart, r.measurements, dtype=r.dtype, gpus=r.gpus, batch=r.batch)
            for chart in charts]


class CalcChartsScreen(StudyScreen):
    """One chart at a time: ←/→ step through them, t tells the chart as text."""

    DEFAULT_CSS = """
    CalcChartsScreen #chart-title {
        height: 1;
        width: 100%;
        background: $panel;
        color: $primary;
        text-style: bold;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    CalcChartsScreen #chart-note {
        height: auto;
        max-height: 3;
        padding: 0 1;
        color: $text-muted;
    }
    CalcChartsScreen #chart-text {
        display: none;
        padding: 0 1;
    }
    CalcChartsScreen.-as-text #chart-text {
        display: block;
    }
    CalcChartsScreen.-as-text CalcPlot {
        display: none;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,tab", "step(1)", "tui.key.next_chart", id="calc_charts.next"),
        Binding("left,shift+tab", "step(-1)", "tui.key.previous_chart",
                id="calc_charts.previous"),
        Binding("t", "as_text", "tui.key.chart_as_text", id="calc_charts.text"),
        Binding("escape", "back", "tui.key.back", id="calc_charts.back"),
    ]

    def __init__(self, request: ChartRequest) -> None:
        super().__init__(id="calc-charts-screen")
        self.charts = charts_for(request)
        self.index = 0

    def words(self, key: str, **fields: object) -> str:
        return self.tr(key, **fields)

    def compose(self) -> ComposeResult:
        yield Static("", id="chart-title")
        yield CalcPlot(self.words, id="chart-plot")
        with VerticalScroll(id="chart-text"):
            yield Static("", id="chart-table")
        yield Static("", id="chart-note")
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.show()

    def after_language_change(self) -> None:
        self.show()

    def show(self) -> None:
        """Draw the chart at ``index``, its title, its closing line and its text."""
        chart = self.charts[self.index]
        place = f"{self.index + 1}/{len(self.charts)}  "
        self.query_one("#chart-title", Static).update(
            Content(place + chart_title(chart, self.words)))
        lines = chart_lines(chart, self.words, self.lang)
        self.query_one("#chart-note", Static).update(Content(lines[-1]))
        self.query_one("#chart-table", Static).update(Content("\n".join(lines[1:-1])))
        self.query_one(CalcPlot).show(chart)

    def action_step(self, by: int) -> None:
        self.index = (self.index + by) % len(self.charts)
        self.show()

    def action_as_text(self) -> None:
        self.toggle_class("-as-text")

    def action_back(self) -> None:
        self.dismiss(None)
