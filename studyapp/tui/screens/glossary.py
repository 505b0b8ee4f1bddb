"""The glossary: each concept's word in the interface language next to the other's."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Label

from studyapp.catalog.glossary import LANGS, load_glossary, word
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.text import plain
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.row_table import PageTable


class GlossaryScreen(StudyScreen):
    """The terms of ``content/i18n/glossary.yaml``; Escape goes back."""

    CSS_PATH = Path(__file__).parent / "pages.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "tui.key.back", id="glossary.back"),
    ]

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.glossary.title"), classes="screen-title")
        yield Label(self.tr("tui.glossary.intro"), classes="hint")
        yield PageTable(id="glossary-table", cursor_type="row", zebra_stripes=True)
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.fill()

    def after_language_change(self) -> None:
        self.fill()

    def fill(self) -> None:
        """Rows: the word here, the word in the other language, what it means."""
        other = next(lang for lang in LANGS if lang != self.lang)
        table = self.query_one("#glossary-table", DataTable)
        table.clear(columns=True)
        for key in (f"tui.language.{self.lang}", f"tui.language.{other}",
                    "tui.glossary.concept"):
            table.add_column(Text(self.tr(key).capitalize()))
        for term in load_glossary():
            table.add_row(plain(word(term, self.lang)), plain(word(term, other)),
                          plain(term.concept))

    def action_back(self) -> None:
        self.dismiss(None)
