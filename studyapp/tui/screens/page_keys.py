"""Scroll keys that reach the page, and focus that a click or a vanished widget never loses.

A screen's scrolling pane answers ↑ ↓ PgUp PgDn Home End only while it has
the focus, and a screen often opens with the focus on a button, a field or a
table. ``PageKeys`` gives every screen those keys as a last resort: a key
the focused widget does not use (a button's ↓, a closed form's PgDn, a key
pressed with nothing focused) scrolls the screen's main pane. The focused
widget still comes first, so a list moves its cursor and a field its caret.

The focus itself is kept: when it is lost (the focused button disabled
while it works, a widget removed under it), it goes back to where it was,
or to the screen's first focusable widget, so keys keep working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.actions import SkipAction
from textual.binding import Binding, BindingType

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

SCROLL_KEYS = ("up", "down", "pageup", "pagedown", "home", "end")

PAGE_BINDINGS: list[BindingType] = [
    Binding(key, f"scroll_page('{key}')", "tui.key.scroll", show=False, id=f"page.{key}")
    for key in SCROLL_KEYS]
"""Hidden, and below every widget's own binding of the same key."""

_SCROLLS = {"up": "scroll_up", "down": "scroll_down", "pageup": "scroll_page_up",
            "pagedown": "scroll_page_down", "home": "scroll_home", "end": "scroll_end"}


def main_pane(screen: Screen[object], selector: str | None) -> Widget | None:
    """The pane ``selector`` names, else the largest one shown that can scroll now."""
    if selector is not None:
        found = screen.query(selector)
        panes = [pane for pane in found if pane.display and pane.allow_vertical_scroll]
    else:
        panes = [widget for widget in screen.query("*")
                 if widget.display and widget.allow_vertical_scroll
                 and widget.region.height > 0 and widget.id != "too-small"]
    if not panes:
        return None
    return max(panes, key=lambda pane: pane.region.area)


class PageKeys:
    """The scroll keys' last resort and the focus keeper, for screens and dialogs."""

    SCROLL_PANE: ClassVar[str | None] = None
    """Selector of the pane the scroll keys move when the focus does not use them;
    None: the largest pane that can scroll."""

    _last_focus: Widget | None = None

    async def action_scroll_page(self, key: str) -> None:
        """Scroll the main pane as its own key would (a table moves its cursor)."""
        screen: Screen[object] = self  # type: ignore[assignment]
        pane = main_pane(screen, self.SCROLL_PANE)
        if pane is None:
            raise SkipAction()
        for binding in pane._bindings.key_to_bindings.get(key, []):
            if await pane.app.run_action(binding.action, pane):
                return
        getattr(pane, _SCROLLS[key])(animate=False)

    def watch_focused(self, focused: Widget | None) -> None:
        """Remember the focus; when it is lost, give it back once the screen has settled."""
        if focused is not None:
            self._last_focus = focused
            return
        screen: Screen[object] = self  # type: ignore[assignment]
        if screen.is_attached:
            screen.call_after_refresh(self.keep_focus)

    def keep_focus(self) -> None:
        screen: Screen[object] = self  # type: ignore[assignment]
        if screen.focused is not None or not screen.is_current:
            return
        last = self._last_focus
        if last is not None and last.is_attached and last.screen is screen and last.focusable:
            screen.set_focus(last, scroll_visible=False)
            return
        selector = screen.AUTO_FOCUS if screen.AUTO_FOCUS is not None else screen.app.AUTO_FOCUS
        for widget in screen.query(selector or "*"):
            if widget.focusable:
                screen.set_focus(widget, scroll_visible=False)
                return
        screen.focus_next()
