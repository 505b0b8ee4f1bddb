"""``calc fit|decode --plot``: the calculator's charts on stdout.

On a terminal they are drawn with plotext in the terminal's own colours (readable
on a dark or a light background); piped, on a dumb terminal or with ``NO_COLOR``
they are told as text (``infra/calc_chart_text.py``); with ``--json`` their data
goes in the report as ``charts``.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from studyapp import catalog
from studyapp.cli import current_settings
from studyapp.i18n import t
from studyapp.infra.calc import DeviceInput, ModelInput
from studyapp.infra.calc_chart_text import chart_lines
from studyapp.infra.calc_charts import (
    Chart,
    memory_against_batch,
    memory_against_context,
    roofline,
    throughput_against_batch,
)
from studyapp.infra.measured import measured_marks

F = TypeVar("F", bound=Callable[..., Any])

PLOT_WIDTH = (60, 100)
"""The narrowest and widest a drawn chart is (columns); between, the terminal's width."""
PLOT_HEIGHT = (16, 24)


def plot_option(f: F) -> F:
    decorated: F = click.option(
        "--plot", is_flag=True,
        help="Also draw the charts (a roofline, memory or tokens/s against batch); "
             "as text when piped, as data with --json.")(f)
    return decorated


def fit_charts(model: ModelInput, device: DeviceInput, kw: dict[str, Any],
               runtime: tuple[float, float]) -> tuple[list[Chart], list[str]]:
    """Memory against context and against batch (and why a chart is missing)."""
    if model.shape is None or model.params is None:
        return [], ["calc.chart.no_shape"]
    args = {"dtype": kw["dtype"], "kv_dtype": kw["kv_dtype"], "batch": kw["batch"],
            "context": kw["context"], "gpus": kw["gpus"],
            "usable_fraction": kw["usable_fraction"], "runtime": runtime}
    measured = catalog.load_catalog().measurements
    return [measured_marks(memory_against_context(model, device, **args), measured,
                           dtype=kw["dtype"], gpus=kw["gpus"], batch=kw["batch"]),
            memory_against_batch(model, device, **args)], []


def decode_charts(model: ModelInput, device: DeviceInput, kw: dict[str, Any],
                  bandwidth_efficiency: float) -> tuple[list[Chart], list[str]]:
    """The chip's roofline with prefill and decode, and tokens/s against batch."""
    charts: list[Chart] = []
    missing: list[str] = []
    if device.flops is None:
        missing.append("calc.chart.no_flops")
    else:
        charts.append(roofline(model, device, dtype=kw["dtype"], kv_dtype=kw["kv_dtype"],
                               batch=kw["batch"], context=kw["context"]))
    charts.append(throughput_against_batch(
        model, device, dtype=kw["dtype"], kv_dtype=kw["kv_dtype"], batch=kw["batch"],
        context=kw["context"], gpus=kw["gpus"], mfu=kw["mfu"],
        bandwidth_efficiency=bandwidth_efficiency))
    measured = catalog.load_catalog().measurements
    return [measured_marks(chart, measured, dtype=kw["dtype"], gpus=kw["gpus"])
            for chart in charts], missing


def with_charts(report: dict[str, Any], charts: list[Chart]) -> dict[str, Any]:
    """The report with ``charts`` (kind → data) added for ``--json``."""
    return {**report, "charts": {chart.kind: chart.as_json() for chart in charts}}


def drawn() -> bool:
    """Draw, or tell as text: a terminal that shows colours gets the drawing."""
    return (sys.stdout.isatty() and os.environ.get("TERM", "") != "dumb"
            and "NO_COLOR" not in os.environ)


def print_charts(ctx: click.Context, charts: list[Chart], missing: list[str]) -> None:
    """Each chart drawn (or as text), then a line for each chart that could not be made."""

    lang = current_settings(ctx).lang

    def words(key: str, **fields: object) -> str:
        return t(key, lang, **fields)

    for chart in charts:
        click.echo()
        if drawn():
            click.echo(draw(chart, words))
            click.echo(chart_lines(chart, words, lang)[-1])  # the closing line, in words
        else:
            click.echo("\n".join(chart_lines(chart, words, lang)))
    for key in missing:
        click.echo(words(key), err=True)


def draw(chart: Chart, words: Callable[..., str]) -> str:
    """The chart drawn by plotext at the terminal's size (within PLOT_WIDTH, PLOT_HEIGHT)."""
    import plotext as plt

    from studyapp.tui.widgets.calc_plot import TERMINAL_COLOURS, draw_chart

    size = shutil.get_terminal_size((80, 24))
    plt.clear_figure()
    plt.theme("clear")
    plt.plotsize(min(max(size.columns, PLOT_WIDTH[0]), PLOT_WIDTH[1]),
                 min(max(size.lines - 2, PLOT_HEIGHT[0]), PLOT_HEIGHT[1]))
    draw_chart(plt, chart, words, TERMINAL_COLOURS)
    return str(plt.build())
