"""The decks screen (being built)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Label

from studyapp.tui.screens.base import StudyScreen


class DecksScreen(StudyScreen):
    """Placeholder until the full screen lands."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "tui.key.back", id="decks.back"),
    ]

    def compose(self) -> ComposeResult:
        yield Label("decks")
        yield Footer()

    def action_back(self) -> None:
        self.dismiss(None)
