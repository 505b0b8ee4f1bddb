"""Every key of every screen, read from the screens' own bindings (remaps included)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.widgets import Label, Static

from studyapp.tui import registry
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.widgets.footer import SteadyFooter


def screens_with_keys() -> list[tuple[str, type[DOMNode] | None]]:
    """(i18n key of the screen's name, screen class); None stands for the whole app.

    Made from ``tui.registry``: every screen with a help section, in its order.
    """
    return [(title, None if path is None else registry.load_path(path))
            for title, path in registry.help_sections()]


class HelpScreen(StudyScreen):
    """Keys, screen by screen; Escape goes back."""

    CSS_PATH = Path(__file__).parent / "pages.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,question_mark", "back", "tui.key.back", id="help.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="help-screen")

    def sections(self) -> list[tuple[str, type[DOMNode] | None]]:
        """Every screen's keys, those of the screen help was opened from first.

        Someone pressing F1 wants the keys in front of them; a screen not in
        the list still gets its own section, headed "This screen".
        """
        sections = screens_with_keys()
        opener = next((type(screen) for screen in reversed(self.app.screen_stack)
                       if screen is not self), None)
        if opener is None or not getattr(opener, "BINDINGS", None):
            return sections
        mine = [entry for entry in sections if entry[1] is opener]
        rest = [entry for entry in sections if entry[1] is not opener]
        return (mine or [("tui.help.this_screen", opener)]) + rest

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.help.title"), classes="screen-title")
        with VerticalScroll(id="help-body"):
            for title_key, screen in self.sections():
                bindings = self.study_app.BINDINGS if screen is None else screen.BINDINGS
                yield Label(self.tr(title_key), classes="subheading")
                yield Static(self.key_table(bindings), classes="help-keys")
                if screen is None:  # the scroll keys of every screen (page_keys.py)
                    yield Label(self.tr("tui.help.scroll_keys"), classes="hint")
            yield Label(self.tr("tui.help.palette"), classes="hint")
        yield SteadyFooter()

    def key_table(self, bindings: list[BindingType]) -> Content:
        remaps = self.study_app.preferences.keymap
        rows: list[tuple[str, str]] = []
        seen: set[str] = set()
        for item in bindings:
            if not isinstance(item, Binding):
                continue
            description = item.description
            if item.id and item.id in remaps:
                item = replace(item, key=remaps[item.id])
            keys = " ".join(self.app.get_key_display(replace(item, key=key.strip()))
                            for key in item.key.split(","))
            if description in seen and description == "tui.key.choice":
                continue
            seen.add(description)
            label = self.tr(description) if description.startswith("tui.") else description
            if description == "tui.key.choice":
                keys, label = "1–9 a–f", self.tr("tui.help.choice_keys")
            rows.append((keys, label))
        keys_width = max((len(keys) for keys, _ in rows), default=0) + 2
        lines = [Content(f"{keys:<{keys_width}}{label}") for keys, label in rows]
        return Content("\n").join(lines)

    def action_back(self) -> None:
        self.dismiss(None)
