"""Cards coming due day by day: a small bar chart drawn with block characters.

The bars' colour is a component class (``forecast--bar``) from the theme.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import ClassVar

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

BLOCKS = " ▁▂▃▄▅▆▇█"
ROWS = 4


def bar_cells(count: int, busiest: int, rows: int = ROWS) -> list[str]:
    """One bar's characters, top row first, in eighths of a row."""
    if busiest <= 0 or count <= 0:
        return [" "] * rows
    eighths = max(1, round(count / busiest * rows * 8))
    cells = []
    for row in range(rows - 1, -1, -1):
        filled = min(8, max(0, eighths - row * 8))
        cells.append(BLOCKS[filled])
    return cells


class DueForecast(Widget, can_focus=True):
    """Due cards for each of the next days; the first bar holds everything overdue."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"forecast--bar", "forecast--today",
                                             "forecast--label"}

    days: reactive[tuple[tuple[date, int], ...]] = reactive(tuple, layout=True)

    def __init__(self, *, today: str, later: str, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.today_label = today
        self.later_label = later

    def update(self, days: Sequence[tuple[date, int]]) -> None:
        self.days = tuple(days)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return ROWS + 1

    def render(self) -> Content:
        days = list(self.days)
        label = self.get_visual_style("forecast--label")
        bar = self.get_visual_style("forecast--bar")
        first = self.get_visual_style("forecast--today")
        busiest = max((n for _, n in days), default=0)
        gutter = len(str(busiest)) + 1
        width = max(1, self.size.width)
        step = 2 if gutter + 2 * len(days) <= width else 1
        days = days[:max(1, width - gutter)]
        bars = [bar_cells(n, busiest) for _, n in days]
        lines: list[Content] = []
        for row in range(ROWS):
            axis = str(busiest) if row == 0 else ("0" if row == ROWS - 1 else "")
            pieces = [Content(f"{axis:>{gutter - 1}} ").stylize(label)]
            for index, cells in enumerate(bars):
                pieces.append(Content(cells[row]).stylize(first if index == 0 else bar))
                if step == 2:
                    pieces.append(Content(" "))
            lines.append(Content.assemble(*pieces))
        span = step * len(days)
        later = self.later_label
        room = max(0, span - len(self.today_label) - len(later))
        lines.append(Content(" " * gutter + self.today_label + " " * room + later).stylize(
            label))
        return Content("\n").join(lines)
