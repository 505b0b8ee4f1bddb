"""``studyapp stats --plot``: the progress charts on standard output, drawn by plotext with
the terminal app's drawing code; ``--plain`` prints their figures as text tables."""

from __future__ import annotations

import shutil
import sys
from typing import TYPE_CHECKING, Any

import click

from studyapp.i18n import t

if TYPE_CHECKING:
    from studyapp.progress.series import CardCurve, ProgressSeries

CHART_HEIGHT = 20
"""Lines per chart: two fit a 24-line terminal one after the other, each read whole."""


def _figure(width: int) -> Any:
    from textual_plotext.plot import Plot

    plt = Plot()
    plt.plotsize(width, CHART_HEIGHT)
    plt.theme("clear")  # the terminal's own background and text colour, dark or light
    return plt


def _size() -> int:
    return max(40, min(120, shutil.get_terminal_size((80, 24)).columns))


def _show(plt: Any) -> None:
    text = plt.build()
    if not sys.stdout.isatty():  # a file or a pipe gets the drawing without colour codes
        text = plt.uncolorize(text)
    click.echo(text.rstrip())


def print_series(series: ProgressSeries, lang: str, plain: bool, desired: float) -> None:
    """Reviews and retention, then mastery per post (or their tables)."""
    from studyapp.progress.series_text import series_lines

    if plain or not series.points:
        click.echo("\n".join(series_lines(series, lang)))
        return
    from studyapp.tui.widgets.progress_plot import TERMINAL, draw_activity, draw_mastery

    months = t("tui.stats.months", lang).split(",")

    def tr(key: str, **fields: object) -> str:
        return t(key, lang, **fields)

    plt = _figure(_size())
    draw_activity(plt, series, tr, months, lang, TERMINAL, desired)
    _show(plt)
    plt = _figure(_size())
    draw_mastery(plt, series, tr, months, lang, TERMINAL)
    _show(plt)


def print_curve(curve: CardCurve, lang: str, plain: bool, desired: float) -> None:
    """A card's forgetting curve (or its answers as a table)."""
    from studyapp.progress.series_text import curve_lines

    if plain or not curve.points:
        click.echo("\n".join(curve_lines(curve, lang, desired)))
        return
    from studyapp.tui.widgets.progress_plot import TERMINAL, draw_curve

    def tr(key: str, **fields: object) -> str:
        return t(key, lang, **fields)

    plt = _figure(_size())
    draw_curve(plt, curve, tr, t("tui.stats.months", lang).split(","), lang, TERMINAL,
               desired)
    _show(plt)


__all__ = ["print_curve", "print_series"]
