"""The calculator's charts screen (g in the calculator): each chart at 80x24 in the dark
and the light theme, stepping, and the chart told as text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select
from tui_helpers import wait_until

from studyapp import locations
from studyapp.tui.app import StudyApp
from studyapp.tui.screens import settings as settings_screen
from studyapp.tui.screens.calc_charts import CalcChartsScreen
from studyapp.tui.screens.calculator import CalculatorScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.widgets.calc_plot import CalcPlot

SIZE = (80, 24)
SNAPSHOT_DECKS = Path(__file__).parent / "snapshot_decks"
AppFactory = Callable[..., StudyApp]
SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def fixed_decks_and_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(locations, "builtin_decks_dir", lambda: SNAPSHOT_DECKS)
    monkeypatch.setattr(settings_screen, "preferences_path",
                        lambda: Path("~/.config/studyapp/tui.json"))


MEASURED_SETUP = {"gpu": "h100-sxm", "dtype": "fp8", "kv_dtype": "fp8", "context": "500"}
"""A setup NVIDIA measured: NIM 1.8.0, Llama 3.3 70B FP8 on 2 H100, one stream, 500
tokens in: 52.85 tokens/s (https://docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance);
mamf-finder's best FP8 matmul on an H100 SXM: 1,402.6 TFLOPS
(https://github.com/stas00/ml-engineering/blob/master/compute/accelerator/README.md)."""


def on_chart(step: int, theme: str = "textual-dark", as_text: bool = False,
             form: dict[str, str] | None = None) -> Callable[[Pilot[Any]], Any]:
    """Open the calculator (Llama 3.1 70B on an H200, BF16, 8192 tokens: the form's
    defaults) with 2 GPUs and batch 4, press g, step ``step`` charts to the right."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        app.theme = theme
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, CalculatorScreen)
                         and app.screen.catalog is not None)
        app.screen.query_one("#gpus", Input).value = "2"
        app.screen.query_one("#batch", Input).value = "4"
        for name, value in (form or {}).items():
            if name in ("gpu", "dtype", "kv_dtype"):
                app.screen.query_one(f"#{name}", Select).value = value
            else:
                app.screen.query_one(f"#{name}", Input).value = value
        await pilot.pause()
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, CalcChartsScreen))
        for _ in range(step):
            await pilot.press("right")
        if as_text:
            await pilot.press("t")
        for field in app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause(0.2)

    return run_before


@pytest.mark.parametrize("step", [0, 1, 2, 3], ids=["roofline", "memory-context",
                                                    "memory-batch", "throughput-batch"])
def test_each_chart_dark(step: int, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_chart(step))


@pytest.mark.parametrize("step", [0, 1, 2, 3], ids=["roofline", "memory-context",
                                                    "memory-batch", "throughput-batch"])
def test_each_chart_light(step: int, app_factory: AppFactory,
                          snap_compare: SnapCompare) -> None:
    assert snap_compare(app_factory(), terminal_size=SIZE,
                        run_before=on_chart(step, theme="textual-light"))


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("step", [0, 1], ids=["roofline", "memory-context"])
def test_chart_at_120_by_40(step: int, theme: str, app_factory: AppFactory,
                            snap_compare: SnapCompare) -> None:
    """A larger terminal: round ticks on both axes, the legend clear of the lines."""
    assert snap_compare(app_factory(), terminal_size=(120, 40),
                        run_before=on_chart(step, theme=theme))


@pytest.mark.parametrize("step", [0, 3], ids=["roofline", "throughput-batch"])
def test_measured_beside_the_theory(step: int, app_factory: AppFactory,
                                    snap_compare: SnapCompare) -> None:
    run_before = on_chart(step, form={**MEASURED_SETUP, "batch": "1"})
    assert snap_compare(app_factory(), terminal_size=SIZE, run_before=run_before)


async def test_the_measured_marks_are_the_published_figures(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await on_chart(0, form={**MEASURED_SETUP, "batch": "1"})(pilot)
        screen = app.screen
        assert isinstance(screen, CalcChartsScreen)
        roof, throughput = screen.charts[0], screen.charts[-1]
        assert {lv.name: lv.value for lv in roof.levels}["measured-matmul"] == 1402.6
        assert [(p.x, p.y) for p in throughput.points if p.name == "measured"] == [(1, 52.85)]


def test_roofline_in_spanish(app_factory: AppFactory, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_factory(lang="es"), terminal_size=SIZE, run_before=on_chart(0))


def test_memory_chart_as_text(app_factory: AppFactory, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_chart(1, as_text=True))


async def test_g_opens_the_charts_of_the_form_and_steps_through_them(
        app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await on_chart(0)(pilot)
        screen = app.screen
        assert isinstance(screen, CalcChartsScreen)
        kinds = [chart.kind for chart in screen.charts]
        assert kinds == ["roofline", "memory-context", "memory-batch", "throughput-batch"]
        facts = screen.charts[1].facts
        assert (facts["model"], facts["chip"], facts["batch"], facts["gpus"]) == (
            "llama-3.1-70b", "h200-sxm", 4, 2)
        plot = screen.query_one(CalcPlot)
        assert plot.chart is screen.charts[0]
        await pilot.press("left")
        assert plot.chart is screen.charts[3]  # wraps round
        await pilot.press("t")
        assert screen.has_class("-as-text")
        table = str(screen.query_one("#chart-table").render())
        assert "memory-bound" in table and "batch" in table
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, CalculatorScreen))
        app.screen.query_one("#context", Input).focus()
        await pilot.press("ctrl+g")  # from a field, where g would be typed
        await wait_until(pilot, lambda: isinstance(app.screen, CalcChartsScreen))


async def test_each_chart_survives_tiny_sizes_and_grows_back(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await on_chart(0)(pilot)
        screen = app.screen
        for step in range(len(screen.charts)):  # type: ignore[attr-defined]
            for width, height in [(1, 1), (3, 2), (10, 5), (20, 8), (30, 10), (40, 12)]:
                await pilot.resize_terminal(width, height)
                await pilot.pause(0.05)
                assert app._exception is None, (step, width, height)
            await pilot.resize_terminal(*SIZE)
            await pilot.pause(0.1)
            await pilot.press("right")
        assert app._exception is None and app.screen is screen
