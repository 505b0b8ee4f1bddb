"""Progress charts drawn with plotext: reviews and retention per period, mastery per post
over time, a card's forgetting curve.

The ``draw_*`` functions draw on any plotext figure (the widget's, or one ``stats --plot``
prints), so the terminal app and the command line show the same charts; colours come in
a ``Palette`` (the app's theme, or a terminal's basic colours). ``ProgressPlot`` is the
widget: it redraws with the theme's colours when the theme changes (dark or light).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from textual_plotext import PlotextPlot

if TYPE_CHECKING:
    from studyapp.progress.series import CardCurve, ProgressSeries

Color = str | tuple[int, int, int]
Tr = Callable[..., str]
"""``tr(key, **fields)``: the interface's words in the learner's language."""

MASTERY_LINES = 4
"""Posts drawn beside the total on the mastery chart (the most mastered now)."""


@dataclass(frozen=True)
class Palette:
    """Colours of a chart's parts: lines and bars, pass and fail, the target line."""

    lines: tuple[Color, ...]
    good: Color
    bad: Color
    muted: Color


TERMINAL = Palette(lines=("blue", "magenta", "cyan", "green", "red"), good="green",
                   bad="red", muted="gray")
"""Basic terminal colours: the terminal shows each in its own theme, dark or light."""


ON_DARK = ((230, 159, 0), (86, 180, 233), (204, 121, 167), (240, 228, 66))
ON_LIGHT = ((213, 94, 0), (0, 114, 178), (204, 121, 167), (0, 158, 115))
"""Lines beside the theme's primary colour, told apart by colour-blind readers too
(Okabe and Ito's palette), the bright ones on a dark background, the deep ones on a
light one."""


def theme_palette(variables: dict[str, str], dark: bool = True) -> Palette:
    """The app theme's colours (``App.theme_variables``), so a chart reads in both themes."""
    from textual.color import Color as TextualColor

    def parsed(name: str, fallback: str) -> TextualColor:
        try:
            return TextualColor.parse(variables.get(name) or fallback)
        except ValueError:  # a relative colour such as "auto 60%"
            return TextualColor.parse(fallback)

    def rgb(name: str, fallback: str) -> tuple[int, int, int]:
        color = parsed(name, fallback)
        return (color.r, color.g, color.b)

    # half way between the text and the background: visible, and quieter than the data
    muted = parsed("foreground", "white").blend(parsed("surface", "black"), 0.5)

    return Palette(lines=(rgb("primary", "blue"), *(ON_DARK if dark else ON_LIGHT)),
                   good=rgb("success", "green"), bad=rgb("error", "red"),
                   muted=(muted.r, muted.g, muted.b))


def day_label(day: date, months: Sequence[str], lang: str) -> str:
    """``May 4`` / ``4 may``: a tick short enough for a narrow axis."""
    month = months[day.month - 1] if len(months) >= 12 else f"{day.month:02d}"
    return f"{day.day} {month}" if lang == "es" else f"{month} {day.day}"


def _ticks(days: Sequence[date], months: Sequence[str], lang: str,
           most: int = 5) -> tuple[list[int], list[str]]:
    """Up to ``most`` evenly spaced x ticks, the last one always (today)."""
    if not days:
        return [], []
    step = max(1, -(-(len(days) - 1) // (most - 1))) if len(days) > 1 else 1
    at = list(range(len(days) - 1, -1, -step))[::-1]
    return at, [day_label(days[n], months, lang) for n in at]


def _percent_axis(plt: Any, yside: str | None = None, low: int = 0,
                  legend: int = 0) -> None:
    """0–100% (or ``low``–100%, a multiple of 10): ticks every 25%, every 10% on a span
    of 50% or less. ``legend`` entries get room above 100%, where no figure can be:
    plotext writes the legend in the top left corner, over what is drawn there."""
    plt.ylim(low, 100 + (100 - low) * LEGEND_ROOM * legend, yside=yside)
    ticks = list(range(low, 101, 10 if 100 - low <= 50 else 25))
    plt.yticks(ticks, [f"{tick}%" for tick in ticks], yside=yside)


LEGEND_ROOM = 0.08
"""Room above 100% per legend entry, a share of the axis's span (a row each at 80×24)."""


def _count_axis(plt: Any, peak: int) -> None:
    top = max(1, peak)
    step = max(1, -(-top // 4))
    plt.ylim(0, step * 4)
    plt.yticks([step * n for n in range(5)], [str(step * n) for n in range(5)])


def draw_activity(plt: Any, series: ProgressSeries, tr: Tr, months: Sequence[str],
                  lang: str, palette: Palette, desired: float | None = None) -> None:
    """Reviews per period as bars (left axis) and true retention as a line (right), the
    desired retention as a quiet line to read it against."""
    points = series.points
    x = list(range(len(points)))
    plt.title(tr(f"chart.activity.title_{series.period}"))
    plt.bar(x, [p.reviews for p in points], color=palette.lines[0], width=0.6,
            label=tr("chart.activity.reviews"))
    if desired is not None and len(points) > 1:  # plotext's hline misses a right axis
        plt.plot([-0.3, len(points) - 0.7], [desired * 100] * 2, yside="right",
                 color=palette.muted, marker="braille")
    kept = [(n, p.retention * 100) for n, p in enumerate(points) if p.retention is not None]
    if kept:
        plt.plot([n for n, _ in kept], [r for _, r in kept], yside="right",
                 color=palette.good, marker="hd", label=tr("chart.activity.retention"))
    plt.xlim(-0.5, len(points) - 0.5)
    _count_axis(plt, max((p.reviews for p in points), default=0))
    _percent_axis(plt, "right")
    plt.xticks(*_ticks([p.start for p in points], months, lang))


def draw_mastery(plt: Any, series: ProgressSeries, tr: Tr, months: Sequence[str],
                 lang: str, palette: Palette) -> None:
    """Mastery of all posts together, and of the posts most mastered now, over time."""
    points = series.points
    x = list(range(len(points)))
    plt.title(tr(f"chart.mastery.title_{series.period}"))
    total = sum(p.total for p in series.posts)
    overall = [sum(p.mastered[n] for p in series.posts) / total * 100 if total else 0.0
               for n in x]
    ranked = sorted((p for p in series.posts if any(p.mastered)),
                    key=lambda p: (-p.shares[-1], p.slug))[:MASTERY_LINES]
    for post, color in zip(ranked, palette.lines[1:], strict=False):
        plt.plot(x, [s * 100 for s in post.shares], color=color, marker="braille",
                 label=post.slug)
    if x:
        plt.plot(x, overall, color=palette.lines[0], marker="hd",
                 label=tr("chart.mastery.all"))
    _percent_axis(plt)
    plt.xticks(*_ticks([p.end for p in points], months, lang))


def draw_curve(plt: Any, curve: CardCurve, tr: Tr, months: Sequence[str], lang: str,
               palette: Palette, desired: float) -> None:
    """Recall per study day, answers marked (failed ones apart), the days ahead dimmed."""
    points = curve.points
    index = {p.day: n for n, p in enumerate(points)}
    plt.title(tr("chart.curve.title"))
    past = [(n, p.recall * 100) for n, p in enumerate(points)
            if p.recall is not None and not p.projected]
    ahead = [(n, p.recall * 100) for n, p in enumerate(points)
             if p.recall is not None and p.projected]
    if past:
        plt.plot([n for n, _ in past], [r for _, r in past], color=palette.lines[0],
                 marker="braille", label=tr("chart.curve.recall"))
    if ahead:
        start = past[-1:] + ahead
        plt.plot([n for n, _ in start], [r for _, r in start], color=palette.muted,
                 marker="braille", label=tr("chart.curve.ahead"))
    for failed, color, key in ((False, palette.good, "chart.curve.passed"),
                               (True, palette.bad, "chart.curve.failed")):
        marks = [(index[r.day], (r.recall_before if r.recall_before is not None else 1.0) * 100)
                 for r in curve.reviews if (r.rating == 1) == failed and r.day in index]
        if marks:
            plt.scatter([n for n, _ in marks], [v for _, v in marks], color=color,
                        marker="●" if not failed else "✗", label=tr(key))
    if points:
        plt.hline(desired * 100, color=palette.muted)
    # a curve's line, not a bar: the axis starts near its lowest point, at 50% or below
    lowest = min((p.recall for p in points if p.recall is not None), default=0.0)
    # a card starts at 100% on its first day, in the corner the legend takes
    entries = bool(past) + bool(ahead) + len({r.rating == 1 for r in curve.reviews})
    _percent_axis(plt, low=min(50, int(lowest * 10) * 10), legend=entries)
    plt.xticks(*_ticks([p.day for p in points], months, lang))


Drawing = Callable[[Any, Palette], None]
"""What a plot shows: draws on the figure it is given, in the palette it is given."""


class ProgressPlot(PlotextPlot):
    """One progress chart; redrawn in the theme's colours when the theme changes."""

    def __init__(self, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.drawing: Drawing | None = None

    def on_mount(self) -> None:
        # Textual runs PlotextPlot's own on_mount too (it registers the theme's background)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.redraw())

    def show(self, drawing: Drawing | None) -> None:
        self.drawing = drawing
        self.redraw()

    def redraw(self) -> None:
        plt = self.plt
        plt.clear_figure()
        if self.drawing is not None:
            self.drawing(plt, theme_palette(self.app.theme_variables,
                                            self.app.current_theme.dark))
        self.refresh()


__all__ = ["TERMINAL", "Drawing", "Palette", "ProgressPlot", "day_label", "draw_activity",
           "draw_curve", "draw_mastery", "theme_palette"]
