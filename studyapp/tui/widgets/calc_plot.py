"""One calculator chart drawn with plotext: in the terminal app (``CalcPlot``, a
textual-plotext widget that follows the app's theme) and on stdout (``draw_chart``
over the plotext module, for ``calc --plot``).

The numbers are ``studyapp.infra.calc_charts``'s; this module only draws them: the
series as lines, levels (the budget, the ridge point) as straight lines with their
name in the legend, the workload's points as marks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.app import RenderResult
from textual_plotext import PlotextPlot

from studyapp.infra.calc_chart_text import Words, chart_title
from studyapp.infra.calc_charts import Chart

Colour = str | tuple[int, int, int]

TERMINAL_COLOURS: tuple[Colour, ...] = ("blue", "red", "green", "magenta", "cyan", "orange")
"""The terminal's own palette: readable on a dark or a light background alike."""


def _span(values: Sequence[float], log: bool) -> tuple[float, float]:
    low, high = min(values), max(values)
    if high <= low:
        high = low * 2 if low > 0 else 1.0
    return (low, high) if log else (0.0, high * 1.1)


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
    x_span, y_span = _span(xs, chart.x_log), _span(ys, chart.y_log)
    colour = iter(list(colours) * 4)

    def name(key: str) -> str:
        return words(f"calc.chart.series.{key}")

    for series in chart.series:
        plt.plot(list(series.x), list(series.y), label=name(series.name), color=next(colour))
    for level in chart.levels:
        if level.axis == "y":
            plt.plot(list(x_span), [level.value] * 2, label=name(level.name), color=next(colour),
                     marker="-")
        else:
            plt.plot([level.value] * 2, list(y_span), label=name(level.name), color=next(colour),
                     marker="|")
    for point in chart.points:
        plt.scatter([point.x], [point.y], label=name(point.name), color=next(colour),
                    marker="●")
    if not chart.x_log:  # plotext reads a log axis's limits as powers of ten
        plt.xlim(*x_span)
    if not chart.y_log:
        plt.ylim(*y_span)


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
