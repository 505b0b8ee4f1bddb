"""One calculator chart drawn with plotext: in the terminal app (``CalcPlot``, a
textual-plotext widget that follows the app's theme) and on stdout (``draw_chart``
over the plotext module, for ``calc --plot``).

The numbers are ``studyapp.infra.calc_charts``'s; this module only draws them: the
series as lines, levels (the budget, the ridge point) as straight lines with their
name in the legend, the workload's points as marks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from textual.app import RenderResult
from textual_plotext import PlotextPlot

from studyapp.infra.calc_chart_text import Words, chart_title
from studyapp.infra.calc_charts import Chart

Colour = str | tuple[int, int, int]

TERMINAL_COLOURS: tuple[Colour, ...] = ("blue", "red", "green", "magenta", "cyan", "orange")
"""The terminal's own palette: readable on a dark or a light background alike."""


def _span(values: Sequence[float], log: bool, headroom: float = 1.1) -> tuple[float, float]:
    low, high = min(values), max(values)
    if high <= low:
        high = low * 2 if low > 0 else 1.0
    return (low, high) if log else (0.0, high * headroom)


LEGEND_ROWS_HEADROOM = 0.08
"""Room above a linear chart's data per legend entry (a share of its highest figure):
plotext writes the legend in the top left corner, over whatever is drawn there."""


def tick_label(value: float) -> str:
    """``5``, ``0.5``, ``20k``, ``1.5M``: short enough for an axis, the same in every
    language (a unit prefix, no thousands separator to disagree on)."""
    for size, prefix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{prefix}"
    return f"{value:.3g}"


def axis_ticks(low: float, high: float, log: bool) -> list[float]:
    """Round ticks between ``low`` and ``high``: the powers of ten on a log axis (with 2
    and 5 between them when fewer than three fit), 1, 2 or 5 times a power of ten apart
    on a linear one, so an axis reads 0, 50, 100, not 0.0, 28.7, 57.4."""
    if high <= low:
        return [low]
    if log:
        first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
        steps: tuple[float, ...] = (1.0,)
        decades = [10.0**n for n in range(first, last + 1) if low <= 10.0**n <= high]
        if len(decades) < 3:
            steps = (1.0, 2.0, 5.0)
        ticks = [step * 10.0**n for n in range(first, last + 1) for step in steps]
        return [tick for tick in ticks if low * 0.999 <= tick <= high * 1.001]
    raw = (high - low) / 5
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    start = math.ceil(low / step) * step
    count = int((high - start) / step + 1e-9) + 1
    return [round(start + n * step, 12) for n in range(count)]


def draw_chart(plt: Any, chart: Chart, words: Words, colours: Sequence[Colour],
               title: bool = True) -> None:
    """Draw ``chart`` on ``plt`` (the plotext module or a textual-plotext ``Plot``):
    lines in ``colours`` in turn, levels dashed across the whole axis, points marked."""
    plt.clear_data()
    if title:
        plt.title(chart_title(chart, words))
    plt.xlabel(words(f"calc.chart.unit.{chart.x_unit}"))
    plt.ylabel(words(f"calc.chart.unit.{chart.y_unit}"))
    plt.xscale("log" if chart.x_log else "linear")
    plt.yscale("log" if chart.y_log else "linear")
    xs = [x for s in chart.series for x in s.x] + [p.x for p in chart.points]
    ys = [y for s in chart.series for y in s.y] + [p.y for p in chart.points]
    ys += [level.value for level in chart.levels if level.axis == "y"]
    entries = len(chart.series) + len(chart.levels) + len(chart.points)
    x_span = _span(xs, chart.x_log)
    y_span = _span(ys, chart.y_log, 1.1 + LEGEND_ROWS_HEADROOM * entries)
    colour = iter(list(colours) * 4)

    def name(key: str) -> str:
        return words(f"calc.chart.series.{key}")

    series_colours = [next(colour) for _ in chart.series]
    # levels first: a line drawn later covers them where they cross
    for level in chart.levels:
        if level.axis == "y":
            plt.plot(list(x_span), [level.value] * 2, label=name(level.name), color=next(colour),
                     marker="-")
        else:
            plt.plot([level.value] * 2, list(y_span), label=name(level.name), color=next(colour),
                     marker="|")
    # the last series drawn shows where two meet: the first (the weights under the
    # weights and KV cache) stays whole, its colour kept
    for series, line in reversed(list(zip(chart.series, series_colours, strict=True))):
        plt.plot(list(series.x), list(series.y), label=name(series.name), color=line)
    for point in chart.points:
        plt.scatter([point.x], [point.y], label=name(point.name), color=next(colour),
                    marker="●")
    if not chart.x_log:  # plotext reads a log axis's limits as powers of ten
        plt.xlim(*x_span)
    if not chart.y_log:
        plt.ylim(*y_span)
    for ticks, span, log, vertical in ((plt.xticks, x_span, chart.x_log, False),
                                       (plt.yticks, y_span, chart.y_log, True)):
        at = axis_ticks(*span, log)
        if vertical and log:  # the top of a log chart (a roof, a peak) as read
            top = max(y for s in chart.series for y in s.y)
            if all(abs(math.log10(top / tick)) > 0.1 for tick in at):
                at = sorted([*at, top])
        ticks(at, [tick_label(tick) for tick in at])


class CalcPlot(PlotextPlot):
    """A calculator chart that redraws itself in the app's colours when the theme changes."""

    DEFAULT_CSS = """
    CalcPlot {
        height: 1fr;
        width: 1fr;
    }
    """

    def __init__(self, words: Words, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.words = words
        self.chart: Chart | None = None

    def on_mount(self) -> None:
        super().on_mount()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.redraw())

    def show(self, chart: Chart) -> None:
        """Draw ``chart`` in place of what was drawn."""
        self.chart = chart
        self.redraw()

    def theme_colours(self) -> list[Colour]:
        """The theme's own colours, so the lines read on its background, dark or light;
        each once (a theme may give its accent and warning one colour)."""
        from textual.color import Color

        names = ("primary", "error", "success", "warning", "accent", "foreground",
                 "secondary")
        variables = self.app.theme_variables
        colours: list[Colour] = []
        for name in names:
            if name in variables:
                rgb = Color.parse(variables[name]).rgb
                if rgb not in colours:
                    colours.append(rgb)
        return colours

    def redraw(self) -> None:
        self.refresh()

    def render(self) -> RenderResult:
        """The chart's data laid anew before each build: plotext turns a log axis's data
        into logarithms in place, so a second build of the same data would take the
        logarithm of a logarithm (a resize, a theme change)."""
        if self.chart is not None:
            draw_chart(self.plt, self.chart, self.words, self.theme_colours(), title=False)
        return super().render()
