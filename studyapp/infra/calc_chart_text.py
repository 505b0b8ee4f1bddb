"""A calculator chart as lines of text: what a piped ``calc --plot``, a screen reader or
a terminal without a plot shows instead of the drawing.

Words come from the face (``words(key, **fields)``: the i18n lookup bound to a
language) and figures from ``numbers.format_figure``, so this module stays pure.
"""

from __future__ import annotations

from collections.abc import Callable

from studyapp.infra.calc_charts import Chart
from studyapp.numbers import format_count, format_figure

Words = Callable[..., str]

KEY_FACT = {"memory-context": "longest_context", "memory-batch": "largest_batch",
            "throughput-batch": "first_compute_bound_batch"}
"""The fact a chart's closing line states; when it is None or 0 the line says why instead."""

TABLE_ROWS = 16
"""A series longer than this (the roofline's curve) is told by its levels and points."""


def chart_title(chart: Chart, words: Words) -> str:
    """The chart's title, naming the chip, the model and the setup."""
    return words(f"calc.chart.{chart.kind}.title", **chart.facts)


def chart_lines(chart: Chart, words: Words, lang: str) -> list[str]:
    """Title, a table of the series against x, the levels, the marked points, the facts."""

    def fig(value: float | None) -> str:
        return "-" if value is None else format_figure(value, lang)

    def unit(name: str) -> str:
        return words(f"calc.chart.unit.{name}")

    lines = [chart_title(chart, words)]
    table = [s for s in chart.series if len(s.x) <= TABLE_ROWS]
    if table:
        xs = sorted({x for s in table for x in s.x})
        heads = [unit(chart.x_unit)] + [f"{words(f'calc.chart.series.{s.name}')} "
                                         f"({unit(chart.y_unit)})" for s in table]
        # a series that starts where the one before it ends repeats that point only to
        # join the drawn line (memory-bound into compute-bound): its column leaves it out
        columns = [dict(zip(s.x[1:] if i and s.x[0] == table[i - 1].x[-1] else s.x,
                            s.y[1:] if i and s.x[0] == table[i - 1].x[-1] else s.y,
                            strict=True)) for i, s in enumerate(table)]
        rows = [[fig(x)] + [fig(column[x]) if x in column else "" for column in columns]
                for x in xs]
        widths = [max(len(head), *(len(row[i]) for row in rows)) for i, head in enumerate(heads)]
        lines.append("  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)).rstrip())
        lines += ["  ".join([row[0].ljust(widths[0])]  # no leading blanks: text wraps them
                            + [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)])
                  .rstrip() for row in rows]
    for level in chart.levels:
        axis_unit = chart.y_unit if level.axis == "y" else chart.x_unit
        lines.append(words("calc.chart.level", name=words(f"calc.chart.series.{level.name}"),
                           value=fig(level.value), unit=unit(axis_unit)))
    for point in chart.points:
        bound = words(f"calc.chart.bound.{point.bound}") if point.bound else ""
        lines.append(words("calc.chart.point", name=words(f"calc.chart.series.{point.name}"),
                           x=fig(point.x), x_unit=unit(chart.x_unit), y=fig(point.y),
                           y_unit=unit(chart.y_unit), bound=bound).rstrip())
    mark = chart.facts.get("measured")
    if isinstance(mark, dict):
        lines.append(words("calc.chart.measured_source", **mark))
    facts = {k: format_count(v, lang) if isinstance(v, int) and not isinstance(v, bool)
             else fig(v) if isinstance(v, float) else v for k, v in chart.facts.items()}
    key_fact = chart.facts.get(KEY_FACT[chart.kind], 1) if chart.kind in KEY_FACT else 1
    note = "note_none" if key_fact is None else "note_zero" if key_fact == 0 else "note"
    lines.append(words(f"calc.chart.{chart.kind}.{note}", **facts))
    return lines
