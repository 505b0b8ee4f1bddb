"""A calendar of reviews per day: weeks as columns, weekdays as rows.

Shades are component classes (``heatmap--level-0`` … ``heatmap--level-4``)
styled with theme variables, so every built-in theme draws its own map.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import ClassVar

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

LEVELS = 5
CELL = "■"


def level(count: int, busiest: int) -> int:
    """Shade 0 (no reviews) to 4 (the busiest days), in quarters of the busiest day."""
    if count <= 0 or busiest <= 0:
        return 0
    return min(LEVELS - 1, 1 + (count * (LEVELS - 1) - 1) // busiest)


def week_grid(days: Sequence[tuple[date, int]]) -> list[list[tuple[date, int] | None]]:
    """Columns of seven (Monday first); days outside the range are ``None``."""
    if not days:
        return []
    first = days[0][0]
    start = first - timedelta(days=first.weekday())
    by_day = dict(days)
    last = days[-1][0]
    columns: list[list[tuple[date, int] | None]] = []
    monday = start
    while monday <= last:
        column: list[tuple[date, int] | None] = []
        for offset in range(7):
            day = monday + timedelta(days=offset)
            column.append((day, by_day[day]) if day in by_day else None)
        columns.append(column)
        monday += timedelta(days=7)
    return columns


class ReviewHeatmap(Widget, can_focus=True):
    """Reviews per day over the last months; wider cells when the terminal allows.

    Focusable only so that Tab scrolls the page to it.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *(f"heatmap--level-{n}" for n in range(LEVELS)),
        "heatmap--label",
    }

    days: reactive[tuple[tuple[date, int], ...]] = reactive(tuple, layout=True)

    def __init__(self, *, weekdays: Sequence[str], months: Sequence[str], less: str,
                 more: str, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.weekdays = tuple(weekdays)
        self.months = tuple(months)
        self.less = less
        self.more = more

    def update(self, days: Sequence[tuple[date, int]]) -> None:
        self.days = tuple(days)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 9  # months, seven weekdays, legend

    def render(self) -> Content:
        columns = week_grid(self.days)
        label_style = self.get_visual_style("heatmap--label")
        shades = [self.get_visual_style(f"heatmap--level-{n}") for n in range(LEVELS)]
        gutter = max((len(d) for d in self.weekdays), default=1) + 1
        width = max(1, self.size.width)
        step = 2 if gutter + 2 * len(columns) <= width else 1
        if gutter + len(columns) > width:  # very narrow: the latest weeks
            columns = columns[-max(1, width - gutter):]
        busiest = max((n for _, n in self.days), default=0)
        lines: list[Content] = [self._month_line(columns, gutter, step).stylize(label_style)]
        for row in range(7):
            name = self.weekdays[row] if row < len(self.weekdays) else ""
            pieces = [Content(f"{name:<{gutter}}").stylize(label_style)]
            for column in columns:
                cell = column[row]
                glyph = " " if cell is None else CELL
                shade = shades[0 if cell is None else level(cell[1], busiest)]
                pieces.append(Content(glyph).stylize(shade))
                if step == 2:
                    pieces.append(Content(" "))
            lines.append(Content.assemble(*pieces))
        legend = [Content(" " * gutter + self.less + " ").stylize(label_style)]
        for shade in shades:
            legend.append(Content(CELL + " ").stylize(shade))
        legend.append(Content(self.more).stylize(label_style))
        lines.append(Content.assemble(*legend))
        return Content("\n").join(lines)

    def _month_line(self, columns: list[list[tuple[date, int] | None]], gutter: int,
                    step: int) -> Content:
        """Month names over the week where each month begins, never overlapping."""
        line = [" "] * (gutter + step * len(columns) + 4)
        free_from = gutter
        previous_month: int | None = None
        for index, column in enumerate(columns):
            days = [cell[0] for cell in column if cell is not None]
            if not days:
                continue
            month = days[-1].month
            if month == previous_month:
                continue
            previous_month = month
            name = self.months[month - 1] if len(self.months) >= 12 else str(month)
            at = gutter + index * step
            if at < free_from or at + len(name) > len(line):
                continue
            line[at:at + len(name)] = list(name)
            free_from = at + len(name) + 1
        return Content("".join(line).rstrip())
