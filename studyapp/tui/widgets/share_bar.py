"""One-line bars whose colours come from the theme (component classes in app.tcss)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget


class ShareBar(Widget):
    """Shares of a whole as coloured runs: ``[(part, component class), ...]``.

    The mastery bar on the home screen and the GPU memory bar in the
    calculator are both this: a few parts of one total.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "share-bar--done",
        "share-bar--weights",
        "share-bar--kv",
        "share-bar--learning",
        "share-bar--free",
        "share-bar--over",
        "share-bar--rest",
    }

    parts: reactive[tuple[tuple[float, str], ...]] = reactive(tuple, layout=False)
    total: reactive[float] = reactive(0.0)

    def __init__(self, parts: Sequence[tuple[float, str]] = (), total: float = 0.0, *,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.set_reactive(ShareBar.parts, tuple(parts))
        self.set_reactive(ShareBar.total, total)

    def update(self, parts: Sequence[tuple[float, str]], total: float) -> None:
        self.parts = tuple(parts)
        self.total = total

    def render(self) -> Content:
        width = max(1, self.size.width)
        total = self.total or sum(part for part, _ in self.parts)
        if total <= 0:
            return Content("─" * width).stylize(self.get_visual_style("share-bar--rest"))
        pieces: list[Content] = []
        used = 0
        covered = 0.0
        for part, name in self.parts:
            covered += max(0.0, part)
            cells = min(width, round(covered / total * width)) - used
            if cells > 0:
                style = self.get_visual_style(f"share-bar--{name}")
                glyph = "█" if name != "free" else "▒"
                pieces.append(Content(glyph * cells).stylize(style))
                used += cells
        if used < width:
            pieces.append(Content("─" * (width - used)).stylize(
                self.get_visual_style("share-bar--rest")))
        return Content.assemble(*pieces)
